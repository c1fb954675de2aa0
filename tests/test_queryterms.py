"""Query content terms: function words and question scaffolding out, content words in.

Content words such as "type", "name", "list" or "der" (DER encoding) are terms whose
weight comes from their rarity in the document, never from a stop list; the verbs that
only shape a question ("what does X mean", "where is X described", "how does X work")
are not terms.
"""

from __future__ import annotations

from pathlib import Path

from mnote_kr.citations.text.queryterms import QueryTerms, content_terms, scaffolding
from mnote_kr.default_plugins.text_locator import locate
from mnote_kr.models import LocateRequest
from mnote_kr_pdf_bbox.blocks import content_terms as pdf_terms


def _words(query: str) -> list[str]:
    return [t.word or t.text for t in content_terms(query)]


def test_question_scaffolding_is_not_a_term_but_content_words_are() -> None:
    assert _words("what does name structure len null mean?") == ["name", "structure", "len", "null"]
    assert _words("where is idea terse ods described") == ["idea", "terse", "ods"]
    assert _words("what is said about remove file first?") == ["remove", "file", "first"]
    assert _words("how does information version output help work") == ["information", "version", "output", "help"]
    assert _words("explain many type list") == ["many", "type", "list"]
    # "der" in a technical document is the DER encoding
    assert _words("der encoding of a certificate") == ["der", "encoding", "certificate"]


def test_opening_and_closing_verbs_are_scaffolding_only_in_their_place() -> None:
    assert _words("list the options of find") == ["options", "find"]
    assert _words("show me the work queue") == ["work", "queue"]
    # "work" closes a how-question, elsewhere it is a content word
    assert _words("covered work license") == ["covered", "work", "license"]
    # a query of scaffolding only keeps its words: "mean" is the statistic here
    assert _words("mean") == ["mean"]
    assert scaffolding(["how", "does", "it", "work"]) == [True, True, True, False]


def test_pdf_answer_uses_the_same_word_lists() -> None:
    assert list(pdf_terms("what does name type mean?")) == ["name", "type"]
    assert list(pdf_terms("where is der encoding described")) == ["der", "encod"]
    # Chinese question words stay out, as before
    assert "什么" not in pdf_terms("叶片结冰是什么")


DOC = """# Records

The encoder writes each field of the record in order.

Every field has a type and a name chosen by the schema author.

The record is written to the file in DER form once the encoder has checked each field.

A reader skips a field it does not know.
"""


def test_content_words_once_on_the_stop_list_now_pick_the_paragraph(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text(DOC, encoding="utf-8")
    evidence = "\n\n".join(DOC.split("\n\n")[1:5])

    def para(query: str) -> int | None:
        return locate(LocateRequest(file=str(path), evidence=evidence, query=query)).paragraph_index

    # "field" is in every paragraph; "type" and "name" decide
    assert para("what does field type name mean?") == 2
    # "der" is the DER encoding, not a German article
    assert para("der field") == 3


ZH_DOC = (
    "# 编制说明\n\n"
    "本标准由工作组起草，起草人员在二月完成了讨论稿。\n\n"
    "参与单位有四家，其中核电运营公司为牵头单位，负责标准的修改工作。\n\n"
    "三月，各单位的参与人员对讨论稿进行了集中讨论。\n"
)


def test_chinese_bigrams_the_document_never_holds_weigh_nothing() -> None:
    from mnote_kr.citations.text.queryterms import QueryTerms
    from mnote_kr.citations.text.textnorm import normalize

    paras = [normalize(p) for p in ZH_DOC.split("\n\n")]
    df: dict[str, int] = {}
    for p in paras:
        for tok in {p[i:i + 2] for i in range(len(p) - 1)}:
            df[tok] = df.get(tok, 0) + 1
    # 家单, 位参, 了这, 个标 ... cross word boundaries: no paragraph holds them
    qt = QueryTerms("哪几家单位参加了这个标准的修改，谁牵头", df, len(paras))
    weights = {t.text: w for t, w in zip(qt.terms, qt.weights, strict=True)}
    assert weights["家单"] == 0.0 and weights["了这"] == 0.0
    assert weights["牵头"] > 0 and weights["单位"] > 0
    # the paragraph holding 单位, 牵头, 标准 and 修改 holds most of what the document can match,
    # not a share diluted below the "semantic match" line by bigrams nothing could hold
    from mnote_kr.citations.locate.textmatch import QUERY_SHARE

    assert qt.score(paras[2]) >= QUERY_SHARE
    assert qt.score(paras[2]) > max(qt.score(p) for i, p in enumerate(paras) if i != 2)
    # An off-topic question sharing one common word (标准) with the document: its absent bigrams
    # keep their weight, so no paragraph reads as holding the query's words.
    off = QueryTerms("冷却水泵的额定功率标准是多少", df, len(paras))
    assert {t.text: w for t, w in zip(off.terms, off.weights, strict=True)}["水泵"] > 0
    assert max(off.score(p) for p in paras) < QUERY_SHARE


RATIOS = """# Valuation

The payout ratio stays near a third of earnings over the forecast years.

P/E 82.90 30.47 19.21 15.98

The debt ratio falls as the loans are repaid.

R&D spending rose in the U.S. market, mostly on I/O controllers.
"""


def test_short_joined_words_are_terms_of_their_own(tmp_path: Path) -> None:
    # "P/E", "R&D", "U.S.", "I/O" split into one-letter words, which are never terms: "P/E ratio"
    # then looked for "ratio" alone and picked the paragraph that holds it, not the P/E row.
    assert _words("P/E ratio for 2023E") == ["p/e", "ratio", "2023e"]
    assert _words("R&D in the U.S. and I/O") == ["r&d", "u.s", "i/o"]
    assert "p/e" in _words("2023年的P/E是多少")
    # longer words joined stay words; a path or a version number holds no joined word
    assert _words("input/output docs/a.md 1.2") == ["input", "output", "docs", "md", "1", "2"]
    path = tmp_path / "report.md"
    path.write_text(RATIOS, encoding="utf-8")
    evidence = "\n\n".join(RATIOS.split("\n\n")[1:5])

    def para(query: str) -> int | None:
        return locate(LocateRequest(file=str(path), evidence=evidence, query=query)).paragraph_index

    assert para("P/E ratio") == 2
    assert para("R&D U.S.") == 4
    assert path.read_text(encoding="utf-8") == RATIOS


LEAD_IN = """# Maintenance

The yearly review checks the pump seals and the valve stems.

The review methods include:

1. Read the maintenance plan against the regulations.
2. Compare the corrective records with the plan.

## Tests

Testing is described in the next chapter.
"""


def test_a_markdown_lead_in_is_quoted_with_its_list_and_stays_the_place(tmp_path: Path) -> None:
    from mnote_kr.citations import pipeline
    from mnote_kr.plugins import load_plugins

    path = tmp_path / "review.md"
    path.write_text(LEAD_IN, encoding="utf-8")
    loc = locate(LocateRequest(file=str(path), evidence="The review methods include:", query="review methods"))
    assert loc.paragraph_index == 2
    chunk = " ".join(LEAD_IN.split())  # a cleaned chunk: one line
    shown, _ = pipeline._place_quote(load_plugins(None), loc, chunk, "review methods")
    assert shown == ("The review methods include: 1. Read the maintenance plan against the regulations. "
                     "2. Compare the corrective records with the plan.")
    # a paragraph that leads into nothing keeps its own words
    loc = locate(LocateRequest(file=str(path), evidence="checks the pump seals", query="pump seals"))
    assert loc.place_text == "The yearly review checks the pump seals and the valve stems."
    assert path.read_text(encoding="utf-8") == LEAD_IN


SOLVENTS = (Path(__file__).parents[1] / "plugins" / "lightrag" / "mnote_kr_lightrag" / "demo_data" / "field-notes"
            / "solvent-handling.md").read_text(encoding="utf-8")  # the demo's own file


def test_a_word_whose_stem_the_query_word_extends_a_little_meets_it(tmp_path: Path) -> None:
    # the demo's "morpholine storage" said its answer, "Morpholine (吗啉) is stored ...", was an
    # approximate place: "stored" (stem "stor") did not meet "storage", the query's rarest word
    path = tmp_path / "solvent-handling.md"
    path.write_text(SOLVENTS, encoding="utf-8")
    loc = locate(LocateRequest(file=str(path), evidence=SOLVENTS, query="morpholine storage"))
    assert (loc.paragraph_index, loc.locator_degraded) == (1, False), loc.locator_reason
    assert QueryTerms("storage", {}, 1).score("stored in the cabinet") > 0
    # a longer stretch is another word: "stat" does not meet "stationary", nor "cell" "cellulose"
    assert QueryTerms("stationary", {}, 1).score("the stat line") == 0
    assert QueryTerms("cellulose", {}, 1).score("each cell") == 0


def test_a_capital_letter_the_query_asks_about_is_a_term_in_both_term_lists() -> None:
    """"Q" in "what does Q mean" is the symbol asked about (a mind map's "𝑄<0"), where a one-letter
    word that is a word stays no term; the host's and the PDF locator's term lists agree."""
    for query, want in (("what does Q mean", ["q"]), ("Q 代表什么", ["q", "代表"]), ("𝑄<0 是什么", ["q"]),
                        ("is A larger than B", ["a", "larger", "b"]),
                        ("the heat Q of Plan A", ["heat", "q", "plan", "a"]),
                        ("what does the letter a stand for", ["letter", "a", "stand"]),
                        ("小写字母m代表什么", ["小写", "写字", "字母", "m", "代表"])):
        got = _words(query)
        assert [w for w in got if w in want] == want, (query, got)
        assert [w for w in pdf_terms(query) if w in want] == want, (query, list(pdf_terms(query)))
    # the article opening a sentence, the pronoun, a lower-case letter, the pieces of R&D, P/E, U.S.
    assert _words("A dog in a yard") == ["dog", "yard"]
    assert _words("Can I keep letting my cottage") == ["keep", "letting", "cottage"]
    assert _words("What Is A Heat Pump") == ["heat", "pump"]
    assert _words("is it a plan or not") == ["plan"]
    assert _words("R&D spend and the P/E ratio in the U.S.") == ["r&d", "spend", "p/e", "ratio", "u.s"]
    assert list(pdf_terms("A dog in a yard")) == ["dog", "yard"]


def test_a_letter_term_holds_only_where_the_letter_stands_alone() -> None:
    qt = QueryTerms("what does Q mean", {"q": 1}, 3)
    assert qt.score("q is the heat released") > 0
    assert qt.score("qa runs quick tests") == 0  # "q" opens these words: none is the letter


def test_a_typed_delta_picks_the_paragraph_writing_the_increment_sign(tmp_path: Path) -> None:
    path = tmp_path / "loop.md"
    path.write_text("# Cooling loop\n\nThe loop T sensor sits at the pump inlet.\n\n"
                    "The design \u2206T of the loop is 5 K at full load.\n", encoding="utf-8")
    loc = locate(LocateRequest(file=str(path), evidence=path.read_text(encoding="utf-8"), query="\u0394T of the loop"))
    assert (loc.paragraph_index, loc.locator_degraded) == (2, False), loc.locator_reason
    assert "\u2206T" in (loc.place_text or "")
