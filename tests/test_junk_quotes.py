"""A card never quotes page furniture or a word cut at a chunk edge as its passage.

Seen by a newcomer (round 15): a file-only card of ``mineru__demo1.pdf`` quoted ``(2005) 253–265 265`` and a
card of ``unstructured__handbook-872p.docx`` quoted ``ination``. Both were whole LightRAG chunks: the last,
tiny chunk of a document, made of the overlap it repeats from the chunk before (chunk-035 of demo1.pdf, 10
tokens, the tail of its running footer ``... Journal of Hydrology 310 (2005) 253–265 265``; chunk-482 of
the handbook, 1 token, the tail of ``Termination``, which the mapper then found inside "Non-discrimination"
of an unrelated block). Such a passage holds no whole word: it is no evidence of anything and is not cited
(``diagnostics.dropped.noWords``). A passage that does hold words is never quoted by a sentence that holds
none: its first sentence with words is quoted instead.
"""

from __future__ import annotations

from pathlib import Path

from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import write

from mnote_kr.citations.cleaning.copyable import has_whole_word, mostly_glyphs
from mnote_kr.citations.cleaning.quote import answer_quote
from mnote_kr.citations.render.noresults import why_no_results

FOOTER_TAIL = "(2005) 253–265 265"  # chunk-035 of mineru__demo1.pdf, whole
CUT_TAIL = "ination"  # chunk-482 of unstructured__handbook-872p.docx, whole


def test_furniture_and_a_cut_word_hold_no_whole_word() -> None:
    assert not has_whole_word(FOOTER_TAIL)
    assert not has_whole_word(CUT_TAIL)
    assert not has_whole_word("  12  ")
    # words, in any script, and a query's own term (a number asked for is the passage's point)
    assert has_whole_word("Termination")
    assert has_whole_word("P.N.J. Lane et al. / Journal of Hydrology 310 (2005) 253–265 265")
    assert has_whole_word("血压 120/80")
    assert not has_whole_word("the")  # one lower-case run alone: a cut tail as far as anyone can tell
    assert has_whole_word(FOOTER_TAIL, "pages 253–265")
    assert has_whole_word("ination", "ination")


def test_a_passage_with_words_is_never_quoted_by_its_furniture_sentence() -> None:
    sentence = ("Forest cover reduced mean annual streamflow in every catchment studied, and the reduction "
                "grew with the share of the catchment planted, as the paired-catchment records of the "
                "decade after planting show for the eucalypt and pine plantations alike, whatever the "
                "rainfall of the year, the soil depth of the slopes or the age of the trees at the time.")
    text = f"{FOOTER_TAIL}. {sentence}"
    quote = answer_quote(text, "病人的血压是多少？")  # no sentence holds its words: the first was taken
    assert quote.startswith("Forest cover reduced"), quote
    assert has_whole_word(quote)


def test_a_chunk_of_furniture_or_a_cut_word_is_not_cited(tmp_path: Path) -> None:
    # The chunk is judged before any locating, whatever the file's type: a Markdown stand-in for demo1.pdf keeps
    # its place vectors out of the process-wide meaning store (later tests cite the real PDF without them).
    ws = tmp_path / "ws"
    write(ws / "kb" / "demo1.md", "# References\n\nZhang, L., Dawes, W.R., Walker, G.R., 2001. Response of mean "
          "annual evapotranspiration to vegetation changes at catchment scale.\n")
    write(ws / "kb" / "handbook.md", "# Termination\n\nThe standing trustee may be removed from all cases.\n")
    write(ws / "kb" / "streams.md", "# Streams\n\nPlantations reduce streamflow. Grassland uses less water.\n")
    provider = FakeProvider(delete_status="delete_completed")
    host, _ = fake_host(ws, provider)
    host.roots_add(ws / "kb")
    host.ingest([ws / "kb"])
    provider.texts[provider.name_for("kb/demo1.md")] = FOOTER_TAIL
    provider.texts[provider.name_for("kb/handbook.md")] = CUT_TAIL
    result = host.search("病人的血压是多少？")
    quotes = {c.source_root_relative_path: c.display_quote for c in result.results}
    assert quotes == {"kb/streams.md": quotes.get("kb/streams.md")}, quotes
    assert result.diagnostics["dropped"].get("noWords") == 2, result.diagnostics["dropped"]
    alone = host.search("病人的血压是多少？", scope=["kb/demo1.md"])  # only the furniture chunk in scope
    assert alone.results == [] and alone.diagnostics["dropped"].get("noWords") == 1
    why = why_no_results(host.registry(), {"noWords": 1}, False)  # furniture was all the provider found
    assert why["reason"] == "no_match", why  # not "found only in sources that cannot be cited ()"


# Labels of tracemonkey's figures (p.10 and p.13) as the PDF's text layer reads them: a font whose glyphs map to
# no letters. A newcomer (round 16) saw them quoted as cards and alternatives of Chinese questions.
FIGURE_GLYPHS = (
    "?>9@aj.d<f@-<>2.@a:0>#3$4,56# ?>9@aj.0a:</c./8-2#3$4%56#",
    "!\"# $!\"# %!\"# &!\"# '!\"# (!\"# )!\"# *!\"#",
    "6/j/27+*?:#0%1$23# 4:<8+=7/,<6:f+?564#0d1(23# 4:<8+7:6i:f+=-4=#0c1923#",
    "k?</676/<# l5?><56# m/,56*# n547>f/# n:ff#o6:,/# m-?#o6:,/# operations.",
    "ka>29:92>#",
)


def test_figure_glyphs_are_mostly_glyphs_and_words_are_not() -> None:
    for text in FIGURE_GLYPHS:
        assert mostly_glyphs(text), text
    for text in ("Native traces take about 9 cycles per bytecode, a 3.9x speedup over the interpreter.",
                 "math-spectral-norm 15 20 20 0 0 1.3 1.0 1.3 7.12x",  # a table's row: words and numbers
                 "!\"# $!\"# %!\"# on inline threading, with call threading only for very complex",
                 "大亚湾核电运营管理有限责任公司为牵头单位", "R&D spending rose 12% (2023).", "1:01 p.m."):
        assert not mostly_glyphs(text), text


def test_contents_lines_addresses_code_and_formulas_are_words_not_glyphs() -> None:
    # text blocks of the repo's PDFs the check took for figure glyphs (round 20's count over every repo PDF: 253
    # blocks flagged, 141 of them words like these); a search now drops a citation whose quote is glyph soup
    for text in ("Notices . . . . . . . . . . . . . . . . . . . . . . . . . vii",  # redp5110's contents
                 "Mise en contexte.......................................................... 1",  # chelsea_pdta
                 "E-mail address: patrickl@unimelb.edu.au (P.N.J. Lane).",  # demo1
                 "Adobe Corporation# {edwsmith,rreitmai}@adobe.com",  # tracemonkey p.1
                 "if (ss->segment < mem_total)",  # issue-982's generated C
                 "C (p, p) = C (p, p) + Λi (p, p),", "H = [h1, h2, · · · , hn]", "(+/-)YOY(%)",
                 "See https://example.org/search?q=trace#results for the runs."):
        assert not mostly_glyphs(text), text
    assert mostly_glyphs("1@>8:?.A?@2D2.1@>?#3%4*56# 1@>8:?.1@>E@?2.<A-#3%(4%56#")  # tracemonkey p.10's labels
    assert mostly_glyphs("<//2??.B<AAC0/;#3%4%56# <//2??.1@A<9=.>922?#3!4,56# &-.9<=>9</2#3$4%56#")


def test_a_place_behind_made_of_figure_glyphs_is_not_cited() -> None:
    import msgspec

    from mnote_kr.citations.render.folding import runner_citations
    from mnote_kr.models import Locator
    from tests.test_pipeline_unit import citation

    main_loc = Locator(locator_precision="bbox", page=12, bbox=[54.0, 386.0, 293.0, 474.0], place_text="Native traces")
    behind = [Locator(locator_precision="bbox", page=13, bbox=[60.0, 80.0 + 20 * i, 300.0, 95.0 + 20 * i],
                      locator_degraded=True, place_text=text) for i, text in enumerate(FIGURE_GLYPHS[:2])]
    behind.append(Locator(locator_precision="bbox", page=4, bbox=[54.0, 600.0, 293.0, 700.0], locator_degraded=True,
                          place_text="Bytecode interpreters typically represent values in boxed format."))
    main_loc = msgspec.structs.replace(main_loc, runners_up=behind)
    main = msgspec.structs.replace(citation("[ab12]"), locator=main_loc, locator_precision="bbox",
                                   source_path="/ws/kb/t.pdf", source_root_relative_path="kb/t.pdf")
    cited = runner_citations(main, main_loc, "chunk-1", set())
    assert [c.locator.page for c in cited] == [4]


def test_a_chinese_sentence_holding_a_less_than_sign_is_words_not_glyphs() -> None:
    # mineru__introduction.pdf's node, one whitespace token a sentence long: "<" and ">" made the whole
    # block glyph soup, and no query ("放热反应") could be placed on it
    block = "在配平完的方程式后根据事实写上“△𝐻=𝑄”，其中 𝑄代表放出或吸收的热量（焓变）。放热反应，𝑄<0 ；吸热反应，𝑄>0"
    assert not mostly_glyphs(block)
    assert mostly_glyphs("ka>29:92># 放<")  # a stray ideograph does not make figure glyphs words
