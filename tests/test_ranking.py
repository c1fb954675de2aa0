"""Ranking of a search's citations: the passage that answers first (mnote_kr.citations.rank.ranking)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import msgspec
import pytest

from mnote_kr.citations.rank import ranking
from mnote_kr.citations.rank.ranking import Candidate, bm25, content_words, relevance, terms


def test_answering_passage_overtakes_the_providers_first_neighbour() -> None:
    cands = [
        Candidate(0, "history.pdf", "The Evolution of the Word Processor. The concept predates computers."),
        Candidate(1, "history.pdf", "Patented in 1868 by Christopher Latham Sholes, the typewriter revolutionized "
                                    "written communication."),
        Candidate(2, "other.docx", "Bangalore lies on the Mysore plateau."),
    ]
    scores = [value for value, _ in relevance("when was the typewriter patented", cands, 3)]
    assert scores[1] > scores[0] > scores[2]


def test_without_query_words_in_any_passage_the_provider_order_stands() -> None:
    cands = [Candidate(i, "a.pdf", text) for i, text in enumerate(["alpha beta", "gamma delta", "epsilon"])]
    values = [value for value, parts in relevance("zeta", cands, 3)]
    assert values == sorted(values, reverse=True)
    assert all(parts["lexical"] == 0.0 for _, parts in relevance("zeta", cands, 3))


def test_chinese_is_matched_by_bigrams_and_function_characters_do_not_count() -> None:
    texts = ["本合同一式四份，自双方签章后生效。", "如有未尽事宜，由双方依法订立补充合同。"]
    s = bm25("合同没有写到的未尽事宜怎么处理", texts)
    assert s[1] > s[0] > 0.0
    assert "未尽" in terms("写到的未尽") and "的了" not in terms("写到的了")
    assert bm25("的了是", texts) == [0.0, 0.0]


def test_words_meet_their_plural_and_stop_words_are_ignored() -> None:
    assert terms("The batteries of the cells") == terms("battery cell")
    s = bm25("what is the battery", ["the the the what is", "one battery here"])
    assert s[0] == 0.0 and s[1] > 0.0


def test_terms_are_found_at_word_starts_with_accents_and_compatibility_forms_folded() -> None:
    from mnote_kr.citations.rank.ranking import find_terms

    text = "In 1537, Kempé Gowdā built a competent mud fort. ⽂档 patented"
    hits = find_terms(text, "Kempe Gowda patent mud fort 文档")
    assert text.index("Kempé") in {p for p, _ in hits} and text.index("⽂档") in {p for p, _ in hits}
    words = sorted({i for _, i in hits})
    assert words == [0, 1, 2, 3, 4, 5]  # every query term, accents and ⽂ (U+2F42) folded
    assert text.index("competent") + 3 not in {p for p, _ in hits}  # 'pet...' inside a word is no hit
    assert [text[p : p + 6] for p, i in hits if i == 2] == ["patent"]


SEE_ALSO = "See also\nHistory of Bengaluru\nList of people from Bangalore\nList of neighbourhoods in Bangalore"
REFERENCES = ('"History of BBMP". Bruhat Bengaluru Mahanagara Palike (BBMP). Archived from the original on 2 November '
              '2020. Retrieved 20 May 2021.\n"Introduction - BMRDA". Bangalore Metropolitan Region Development '
              "Authority. Retrieved 20 May 2021.")
FOUNDING = ("In 1537, Kempe Gowda I, a feudal ruler under the Vijayanagara Empire, established a mud fort considered "
            "to be the foundation of modern Bangalore and its oldest areas, or petes, which exist to the present day.")


def _order(query: str, cands: list[Candidate]) -> list[int]:
    scored = relevance(query, cands, len(cands))
    return sorted(range(len(cands)), key=lambda i: (-scored[i][0], i))


def test_a_see_also_list_or_reference_list_does_not_outrank_the_paragraph_that_answers() -> None:
    cands = [
        Candidate(0, "bangalore.docx", SEE_ALSO, ("Bangalore", "See also")),
        Candidate(1, "bangalore.docx", REFERENCES, ("Bangalore", "References")),
        Candidate(2, "bangalore.docx", FOUNDING, ("Bangalore", "History")),
    ]
    assert _order("Who founded Bangalore and when", cands)[0] == 2
    # the same list with no heading to say what it is (a PDF): its reference markers do
    cands[1] = Candidate(0, "bangalore.pdf", REFERENCES)
    scored = relevance("Bangalore Metropolitan Region Development Authority", cands, 3)
    assert scored[1][1]["apparatus"] < 0 and "apparatus" not in scored[2][1]
    assert all(abs(value - sum(parts.values())) < 1e-9 for value, parts in scored)  # the parts add up


def test_the_passage_holding_what_the_question_asks_for_comes_first() -> None:
    when = [
        Candidate(0, "history.pdf", "The typewriter changed offices: the typewriter made documents legible and "
                                    "the typewriter keyboard survives in every computer."),
        Candidate(1, "history.pdf", "Christopher Latham Sholes patented the first practical typewriter in 1868."),
    ]
    assert _order("when was the typewriter patented", when)[0] == 1
    how_many = [
        Candidate(0, "report.pdf", "系统在地面站的微机上运行，输出发动机健康状况和故障诊断结果，提供给维修工程师。"),
        Candidate(1, "report.pdf", "该系统已在东航 13 架大型客机的 40 台发动机上试用。"),
    ]
    assert _order("这个发动机系统在多少架飞机上试过", how_many)[0] == 1


def test_a_year_alone_is_no_match_for_a_when_question() -> None:
    # the type qualifies the query's words: a passage of another topic that holds a year gets nothing
    s = bm25("when was the typewriter patented", ["In 1687, the Mughal general Kasim Khan defeated Ekoji.",
                                                   "The typewriter was patented in 1868."])
    assert s[0] == 0.0 < s[1]


def test_inflections_meet_whatever_their_suffix() -> None:
    s = bm25("who supplies drinking water", ["Electricity is regulated by the Electricity Supply Company.",
                                             "Drinking fountains stand in the park."])
    assert s[0] > 0.0  # supplies (-ies) and Supply (-ly) are one term
    assert bm25("supply", ["supplies"])[0] > 0.0


def test_a_file_named_for_the_querys_subject_outranks_a_passage_that_only_shares_a_common_word(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Recorded as a newcomer (tests/data/ranking/vicksburg.json): "what happened at Vicksburg"
    # put a paper's "...happened to refer to a different event" above every passage of
    # Seige_of_Vicksburg_Sample_OCR.pdf. Among the competing passages "vicksburg" is common (each
    # passage of that file holds it) and "happened" rare, so BM25 alone favours the wrong file.
    case = json.loads((Path(__file__).parent / "data" / "ranking" / "vicksburg.json").read_text(encoding="utf-8"))
    cands = [Candidate(c["providerRank"], c["fileName"], c["text"], tuple(c["headingPath"]))
             for c in case["candidates"]]
    total = max(c.provider_rank for c in cands) + 1

    def first_file() -> str:
        ranked = relevance(case["query"], cands, total)
        return cands[max(range(len(cands)), key=lambda i: ranked[i][0])].file_name

    assert "Vicksburg" in first_file()
    monkeypatch.setattr(ranking, "FILE_TERMS_WEIGHT", 0.0)
    assert "naacl06" in first_file()  # the rule is what puts the right file first


def test_the_file_name_moves_files_never_the_order_of_a_files_own_passages() -> None:
    cands = [Candidate(i, name, text) for i, (name, text) in enumerate([
        ("other.pdf", "patterns that happened to refer to a different event"),
        ("Siege_of_Vicksburg.pdf", "Grant has given Pemberton a chance to remove from Vicksburg all who could not"),
        ("Siege_of_Vicksburg.pdf", "We have been looking for rain to cool the air"),
        ("Siege_of_Vicksburg.pdf", "Vicksburg was shelled day and night; what happened there was a siege"),
    ])]
    ranked = relevance("what happened at Vicksburg", cands, 4)
    shares = [parts["fileTerms"] for _, parts in ranked]
    assert shares[0] == 0.0 and shares[1] == shares[2] == shares[3] > 0.0
    with_name = [value for value, _ in ranked]
    without = [value - parts["fileTerms"] for value, parts in ranked]
    order = sorted(range(1, 4), key=lambda i: -with_name[i])
    assert order == sorted(range(1, 4), key=lambda i: -without[i])


def test_file_name_words_count_whatever_separates_them_and_only_the_querys_content_words_count() -> None:
    for name in ("siege-of-vicksburg.pdf", "Siege_of_Vicksburg.PDF", "siege.of.vicksburg.v2.docx", "中文 vicksburg.md"):
        (_, parts), = relevance("vicksburg", [Candidate(0, name, "text")], 1)
        assert parts["fileTerms"] > 0.0, name
    # "of" and "what" are stop words: a file named "of_what.pdf" holds none of the query's content.
    (_, parts), = relevance("what of the siege", [Candidate(0, "of_what.pdf", "text")], 1)
    assert parts["fileTerms"] == 0.0
    (_, half), = relevance("siege vicksburg", [Candidate(0, "siege_notes.pdf", "text")], 1)
    (_, whole), = relevance("siege vicksburg", [Candidate(0, "siege_of_vicksburg.pdf", "text")], 1)
    assert 0.0 < half["fileTerms"] < whole["fileTerms"]
    (_, cjk), = relevance("核电厂的定期安全审查", [Candidate(0, "核电厂定期安全审查指南.docx", "text")], 1)
    assert cjk["fileTerms"] > 0.0


def _recorded(qid: str, name: str = "in_file.json") -> tuple[dict, list[Candidate]]:
    data = json.loads((Path(__file__).parent / "data" / "ranking" / name).read_text(encoding="utf-8"))
    case = next(s for s in data["searches"] if s["id"] == qid)
    return case, [Candidate(c["providerRank"], c["fileName"], c["text"], tuple(c["headingPath"]))
                  for c in case["candidates"]]


def _ranked(query: str, cands: list[Candidate]) -> list[int]:
    scored = relevance(query, cands, max(c.provider_rank for c in cands) + 1)
    assert all(abs(value - sum(parts.values())) < 1e-9 for value, parts in scored)  # the parts add up
    return sorted(range(len(cands)), key=lambda i: (-scored[i][0], i))


def test_a_reports_legal_notice_yields_the_files_first_place_to_its_content(monkeypatch: pytest.MonkeyPatch) -> None:
    # Recorded (tests/data/ranking/in_file.json, held-out h_zh15): "代人切晶圆这块生意的买家都是谁" (who buys
    # the wafer-cutting service). The broker report's copy-right notice ("本报告仅向特定客户传送，未经…书面
    # 授权…") shares 客户 with the question and was the report's first citation, above LightRAG's first
    # chunk, the one on the cutting service and its customers.
    case, cands = _recorded("h_zh15")
    order = _ranked(case["query"], cands)
    first = next(cands[i] for i in order if cands[i].file_name == case["file"])
    assert first.provider_rank == 1 and "金刚线" in first.text
    with monkeypatch.context() as m:
        m.setattr(ranking, "is_notice", lambda text, headings=(): False)
        # the notice's one shared bigram is also a weak word match (LEXICAL_COVERAGE): without either rule
        # it leads
        m.setattr(ranking, "LEXICAL_COVERAGE", False)
        before = _ranked(case["query"], cands)
    first_before = next(cands[i] for i in before if cands[i].file_name == case["file"])
    assert first_before.text.startswith("本报告仅向特定客户传送")


def test_the_passage_holding_the_asked_for_count_comes_first_in_its_file(monkeypatch: pytest.MonkeyPatch) -> None:
    # Recorded (old set zh21): "这个飞机引擎健康检测系统在多少架飞机上试过". Only the paper's abstract
    # holds a number of 架 ("对 B 767、B 747、A 310 共 13 架大型客机的 40 台发动机进行"), LightRAG's third
    # chunk of the paper; its first two, on the system's functions, hold more of the question's words.
    case, cands = _recorded("zh21")
    first = next(cands[i] for i in _ranked(case["query"], cands) if cands[i].file_name == case["file"])
    assert "13 架大型客机" in first.text
    monkeypatch.setattr(ranking, "TYPE_IN_FILE", 0.0)
    before = next(cands[i] for i in _ranked(case["query"], cands) if cands[i].file_name == case["file"])
    assert before.provider_rank == 1 and "13 架" not in before.text  # the rule is what moves it


@pytest.mark.parametrize("qid", ["h_zh15", "h_zh14", "zh21"])
def test_the_cues_inside_a_file_move_no_file(qid: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # h_zh14 ("券商对这只股票的态度是买入还是卖出"): LightRAG found the report through its analyst statement
    # and rating legend, the notice, so demoting it across files would drop the report from first place.
    case, cands = _recorded(qid)
    after = [cands[i].file_name for i in _ranked(case["query"], cands)]
    monkeypatch.setattr(ranking, "is_notice", lambda text, headings=(): False)
    monkeypatch.setattr(ranking, "TYPE_IN_FILE", 0.0)
    before = _ranked(case["query"], cands)
    assert after == [cands[i].file_name for i in before]  # every place keeps its file
    assert after[0] == case["file"]


def test_equal_scores_do_not_undo_the_notices_swap() -> None:
    notice = ("法律声明 本报告仅供本公司的客户使用。本报告中的信息或所表述的意见并不构成对任何人的投资建议。"
              "市场有风险，投资需谨慎。")
    cands = [Candidate(0, "r.pdf", notice), Candidate(0, "r.pdf", "公司客户包括通威、京运通、美科。")]
    # no passage holds the query's words: both score the provider's part alone, the notice first by input order
    scored = relevance("硅片切割", cands, 1)
    assert scored[1][0] > scored[0][0]  # the content passage first, though both scored the same before the swap
    assert scored[0][1]["inFile"] < 0 == scored[1][1].get("inFile", 0)


def test_a_passage_holding_few_of_the_querys_terms_is_a_weak_word_match(monkeypatch: pytest.MonkeyPatch) -> None:
    # Recorded (tests/data/ranking/cross_script.json, tune3 t3_zh24, e5xlang engine, 37 files): a Chinese
    # question about an English job announcement. A Chinese passage of another file holds two of its 19
    # bigrams (个单, 可以); divided by the search's best alone, that scored a full word match and led, the
    # announcement fourth. Scaled by the share of the question's term weight each passage holds, such
    # matches no longer outweigh LightRAG's own order.
    case, cands = _recorded("t3_zh24", "cross_script.json")

    def files() -> list[str]:
        return list(dict.fromkeys(cands[i].file_name for i in _ranked(case["query"], cands)))

    assert files()[0] == case["file"]
    monkeypatch.setattr(ranking, "LEXICAL_COVERAGE", False)
    assert files().index(case["file"]) >= 2


def test_the_word_match_is_the_share_of_the_querys_term_weight_a_passage_holds() -> None:
    q = "wafer cutting service customers"
    texts = ["our wafer cutting service has customers across the region", "customers may call us"]
    (full, p_full), (part, p_part) = relevance(q, [Candidate(5, "a.pdf", texts[0]), Candidate(5, "b.pdf", texts[1])], 6)
    assert p_full["lexical"] > 0.9  # holds every term
    alone = relevance(q, [Candidate(5, "b.pdf", texts[1])], 6)[0][1]
    # the best of its search, yet one term of four: far from a full match
    assert 0.0 < alone["lexical"] < 0.5 and p_part["lexical"] < alone["lexical"]


def test_a_query_that_writes_a_files_whole_name_puts_that_file_first() -> None:
    # A newcomer's "what is in docling__xlsx_01.xlsx": a Markdown file of the same source (its name
    # shares "docling") and a passage mentioning xlsx files came before the workbook itself.
    cands = [Candidate(0, "docs/docling__multi_page.md", "Export tables to xlsx files from the docling CLI."),
             Candidate(1, "docs/docling__multi_page.md", "Docling reads xlsx and docx files alike."),
             Candidate(2, "docs/docling__xlsx_01.xlsx", "Sheet1: 1, 2, 3"),
             Candidate(3, "docs/docling__xlsx_01_backup.xlsx", "Sheet1: 1, 2, 3")]
    ranked = relevance("what is in docling__xlsx_01.xlsx", cands, 4)
    best = max(range(len(cands)), key=lambda i: ranked[i][0])
    assert cands[best].file_name == "docs/docling__xlsx_01.xlsx"
    assert ranked[3][1]["fileName"] == 0.0  # a name that only starts like it is not named
    assert relevance("what is in xlsx_01.xlsxx", cands, 4)[2][1]["fileName"] == 0.0  # glued letters


def test_a_query_that_writes_a_files_stem_as_a_name_puts_that_file_first() -> None:
    # A newcomer's "what is on page 3 of pdflatex-outline": another PDF whose every page says "page"
    # came first; the name the person typed is the file's stem after its "pypdf__" prefix.
    cands = [Candidate(0, "docs/paperless__multi-page-mixed.pdf", "This is a multi page document. Page 3."),
             Candidate(1, "docs/pypdf__pdflatex-outline.pdf", "Lorem ipsum dolor sit amet."),
             Candidate(2, "docs/outline.pdf", "An outline of the course.")]
    ranked = relevance("what is on page 3 of pdflatex-outline", cands, 3)
    assert max(range(3), key=lambda i: ranked[i][0]) == 1 and ranked[1][1]["fileName"] > 0
    assert ranked[2][1]["fileName"] == 0.0  # "outline" alone is a word of prose, not a file's name
    # a stem of plain words, or one glued to other letters, names nothing
    city = [Candidate(0, "docs/khoj__bangalore.docx", "x")]
    assert relevance("the bangalore airport", city, 1)[0][1]["fileName"] == 0
    assert relevance("pdflatex-outlines", cands, 3)[1][1]["fileName"] == 0.0


def _weak(query: str, rows: list[str]) -> tuple[list[dict[str, float]], str | None]:
    """The ranking's parts of ``rows`` cited for ``query`` and what ``weak_reason`` says of them."""
    from mnote_kr.citations.render.noresults import weak_reason
    from tests.test_pipeline_unit import citation

    scored = relevance(query, [Candidate(i, "report.pdf", text) for i, text in enumerate(rows)], len(rows))
    cits = []
    for i, (text, (_, parts)) in enumerate(zip(rows, scored, strict=True)):
        cit = citation(f"c{i}", text)
        cits.append(msgspec.structs.replace(cit, diagnostics=msgspec.structs.replace(cit.diagnostics,
                                                                                     score_parts=parts)))
    return [parts for _, parts in scored], weak_reason(cits, query)


def test_p_e_ratio_finds_the_p_e_row_and_is_not_said_weak() -> None:
    # A newcomer's search "P/E ratio": the first quote was "P/E 82.90 30.47 ..." yet the result was
    # said weak, "none of the query's words is in any passage found": "P/E" split into one-letter
    # words, dropped, and "ratio" was the query's only term.
    assert terms("P/E ratio") == ["p/e", "ratio"] and terms("R&D in the U.S.") == ["r&d", "u.s"]
    rows = ["P/E 82.90 30.47 19.21 15.98", "EBITDA 282 582 865 1,129"]
    for query in ("P/E ratio", "P/E", "2023年的P/E是多少"):
        parts, weak = _weak(query, rows)
        assert parts[0]["lexical"] > 0.0 and parts[1]["lexical"] == 0.0, query
        assert weak is None, query
    # a query whose words are in no passage is still weak
    assert _weak("recipe for cookies", rows)[1] is not None
    # Latin abbreviations of the sentence ("e.g.", "i.e.", "etc.") say nothing of the topic: a passage
    # holding "e.g." does not answer "recipe, e.g. for cookies"
    found = terms("cookies, e.g. oat, i.e. chewy, etc. vs. cf. crisp")
    assert not {"e.g", "i.e", "etc", "vs", "cf", "e", "g"} & set(found) and {"oat", "chewy", "crisp"} <= set(found)
    assert _weak("recipe, e.g. for cookies", ["Use a framework, e.g. Django, etc."])[1] is not None


def test_a_year_alone_in_the_passages_does_not_make_a_query_answered() -> None:
    # A newcomer's "2022年世界杯冠军是哪个国家" and "best graphics card ... in 2024" were not said weak: a
    # passage held the year. A number alone says nothing of the topic when the query has other words.
    rows = ["Revenue in 2022 rose 12% to 1,129 million", "The 2020 census counted 8,500 households",
            "2022年营业收入增长12%"]
    for query in ("population of Tokyo in 2020", "2022年世界杯冠军", "how many calories were eaten in 2022"):
        parts, weak = _weak(query, rows)
        assert any(p["lexical"] > 0.0 for p in parts), query  # the number is a word match for the ranking
        assert weak is not None and "numbers" in weak, query
    # a word of the query beside the number keeps it answered, and a query of numbers alone is judged as before
    assert _weak("revenue in 2022", rows)[1] is None
    assert _weak("2022", rows)[1] is None
    assert _weak("census households 2020", rows)[1] is None


def test_the_page_a_query_names_is_no_word_a_passage_must_hold() -> None:
    # Recorded as a newcomer (tests/data/ranking/named_page.json): "what is on page 3 of the outline document
    # under 7 Foo" put docling's comments deck first: it holds "pages" (and "document"), and "page 3"
    # counted as the query's words. "page 3" names a place of the file (the locators put the citation
    # there); the words that choose the file are "outline", "7" and "Foo".
    case = json.loads((Path(__file__).parent / "data" / "ranking" / "named_page.json").read_text(encoding="utf-8"))
    cands = [Candidate(c["providerRank"], c["fileName"], c["text"], tuple(c["headingPath"]))
             for c in case["candidates"]]
    total = max(c.provider_rank for c in cands) + 1

    def first_file(query: str) -> str:
        ranked = relevance(query, cands, total)
        return cands[max(range(len(cands)), key=lambda i: ranked[i][0])].file_name

    assert first_file(case["query"]) == "pypdf__pdflatex-outline.pdf"
    # the same question without the page: the words alone choose the same file
    assert first_file("what is in the outline document under 7 Foo") == "pypdf__pdflatex-outline.pdf"
    # a page named in words that name none ("a 3-page summary") stays a query word
    comments = next(i for i, c in enumerate(cands) if "comments" in c.file_name)
    assert relevance("pages of the document", cands, total)[comments][1]["lexical"] > 0.0


def test_a_named_slide_or_page_counts_no_word_but_a_quoted_sheet_name_does() -> None:
    cands = [Candidate(0, "deck.pptx", "Slide notes: revenue grew"), Candidate(1, "book.xlsx", "Sales: revenue 12")]
    plain = [parts["lexical"] for _, parts in relevance("revenue", cands, 2)]
    for query in ("revenue on slide 3", "revenue on page 3", "第3页的revenue"):  # no passage's words
        assert [parts["lexical"] for _, parts in relevance(query, cands, 2)] == plain, query
    assert content_words("revenue on sheet 'Sales'") == "revenue on sheet 'Sales'"  # its rows hold the name
    quoted = relevance("revenue on sheet 'Sales'", cands, 2)
    assert quoted[1][1]["lexical"] > quoted[0][1]["lexical"]


def _weak_as_pipeline(query: str, raw_rows: list[str]) -> tuple[list[dict[str, float]], str | None]:
    from mnote_kr.citations.cleaning.copyable import join_cjk_gaps
    from mnote_kr.citations.render.noresults import weak_reason
    from tests.test_pipeline_unit import citation

    """As build_citations does: ranked on the joined text (join_cjk_gaps), raw_quote is the chunk as sent."""
    scored = relevance(query, [Candidate(i, "report.pdf", join_cjk_gaps(t)) for i, t in enumerate(raw_rows)],
                       len(raw_rows))
    cits = []
    for i, (text, (_, parts)) in enumerate(zip(raw_rows, scored, strict=True)):
        cit = msgspec.structs.replace(citation(f"c{i}", text), display_quote=join_cjk_gaps(text),
                                      locator_evidence_text=join_cjk_gaps(text))
        cits.append(msgspec.structs.replace(cit, diagnostics=msgspec.structs.replace(cit.diagnostics,
                                                                                     score_parts=parts)))
    return [p for _, p in scored], weak_reason(cits, query)


def test_a_pdf_text_layers_spaced_glyphs_holding_the_querys_words_are_not_numbers_only() -> None:
    # A PDF text layer's spaced CJK glyphs: the ranking joins them (pipeline.py) and finds 营业收入;
    # _numbers_only reads raw_quote, still spaced, whose terms are single glyphs, not bigrams.
    rows = ["2022 年 营 业 收 入 增 长 12%"]
    parts, weak = _weak_as_pipeline("2022年营业收入", rows)
    assert parts[0]["lexical"] > 0.0
    assert weak is None, weak


def test_a_query_naming_a_date_named_file_is_not_said_weak_for_numbers_only() -> None:
    """A daily note named by its date: "what did I write in 2024-01-05.md" names the file exactly (the
    ranking's fileName part fires) yet _numbers_only finds neither "write" nor "md" in the passage or the
    stem "2024-01-05" and calls the result weak. Before r13 a fileName match kept it answered."""
    name, rel = "2024-01-05.md", "notes/2024-01-05.md"
    text = "Met Anna about the garden shed; ordered timber for 2024."
    query = "what did I write in 2024-01-05.md"
    ((_, parts),) = relevance(query, [Candidate(0, name, text)], 1)
    assert parts["fileName"] > 0.0
    from mnote_kr.citations.render.noresults import weak_reason
    from tests.test_pipeline_unit import citation

    cit = msgspec.structs.replace(citation("c0", text), source_root_relative_path=rel)
    cit = msgspec.structs.replace(cit, diagnostics=msgspec.structs.replace(cit.diagnostics, score_parts=parts))
    assert weak_reason([cit], query) is None


# nc16a S8 (pypdf__issue-914-xmp-data.pdf, a grocery list): 'search "蒙牛冠益乳"'. LightRAG's passages of the
# page, as the engine chunked it: the first place of its best passage, a near-variant row ("蒙牛冠冠益乳"
# holds all four bigrams of the query), is nearer the query by meaning than the row holding it as written.
VARIANT_PASSAGE = ("332060086 0 鸭脖(熟食原料) 2700608 340020003 1 蒙牛冠冠益乳草莓味250g\n332060087 0 华联牛肚 "
                   "2700609 340020004 9 蒙牛冠冠益乳椰果味250g\n332060088 0 鸭肝(熟食原料) 2700610 340020005 -2 "
                   "蒙牛冠冠益乳草莓味450g\n332060091 0 猪头肉(熟食原料) 2700613 340020006 2 蒙牛冠冠益乳黄桃味450g")
LITERAL_PASSAGE = ("302000002 -2.98 散称华联粉块 2700550 340010001 0 蒙牛桶装原味酸牛奶1100g\n302000005 45.86 "
                   "长豆皮 2700764 340010004 2 蒙牛冠冠益乳原味250g\n310020059 -6.81 雨润白条猪肉 2700593 340010005 2 "
                   "蒙牛冠益乳原味450g\n310040001 -0.32 猪舌 2700587 340010006 3 蒙牛圆周杯冠益乳原味四连杯100g*4")


def test_a_place_holding_the_query_as_written_leads_its_file_over_one_nearer_by_meaning() -> None:
    name = "pypdf__issue-914-xmp-data.pdf"
    cands = [Candidate(0, name, VARIANT_PASSAGE, meaning=0.8325, page=1, place="9 蒙牛冠冠益乳椰果味250g"),
             Candidate(1, "report.pdf", "患者 蒙牛 饮食记录", meaning=0.70, page=1, place="患者 蒙牛 饮食记录"),
             Candidate(2, name, LITERAL_PASSAGE, meaning=0.80, page=1, place="2 蒙牛冠益乳原味450g"),
             Candidate(3, name, VARIANT_PASSAGE, meaning=0.79, page=1, place="蒙牛冠冠益乳草莓味450g")]
    order = _ranked("蒙牛冠益乳", cands)
    assert [cands[i].place for i in order if cands[i].file_name == name][0] == "2 蒙牛冠益乳原味450g"
    assert cands[order[0]].file_name == name  # the file keeps its rank: no file moves
    # a Latin query stands as written only as whole words: "ion" is not written in "cation exchange"
    latin = [Candidate(0, "a.pdf", "lab notes", meaning=0.9, place="cation exchange"),
             Candidate(1, "a.pdf", "lab notes", meaning=0.5, place="an ion pump")]
    assert [latin[i].place for i in _ranked("ion", latin)][0] == "an ion pump"
    assert [latin[i].place for i in _ranked("cation", latin)][0] == "cation exchange"


#: nc20b: a student asks in Chinese about English papers and keeps Chinese notes of their own.
ASKED_IN_CHINESE = "研究方法的准确率提高了多少"
ENGLISH_ANSWER = "Our dense retriever outperforms BM25 by 9%-19% absolute in top-20 passage retrieval accuracy."
OTHER_PAPER = "Trace trees are recorded at loop headers and compiled to native code."


def test_a_note_sharing_common_words_does_not_outrank_the_other_language_passage_that_answers() -> None:
    note = "周三读书会：大家聊了研究方法，下周继续。"  # 研究 and 方法: common words, no answer
    cands = [Candidate(0, "tracemonkey.pdf", OTHER_PAPER, meaning=0.71),
             Candidate(1, "dense_retrieval.pdf", ENGLISH_ANSWER, meaning=0.80),
             Candidate(2, "读书笔记.md", note, meaning=0.745)]
    scored = relevance(ASKED_IN_CHINESE, cands, len(cands))
    assert _order(ASKED_IN_CHINESE, cands).index(1) < _order(ASKED_IN_CHINESE, cands).index(2)
    # far below the best by meaning: its shared words count nothing, though they are still said to be there
    assert scored[2][1]["lexical"] > 0.0 and scored[2][1]["lexical"] + scored[2][1]["farInMeaning"] == 0.0
    # without cosines (no meaning model) the word match counts as before
    blind = [Candidate(c.provider_rank, c.file_name, c.text) for c in cands]
    assert "farInMeaning" not in relevance(ASKED_IN_CHINESE, blind, len(blind))[2][1]


def test_a_same_language_passage_that_answers_with_the_asked_words_keeps_first_place() -> None:
    answer = "采用新的研究方法后，检索准确率提高了12个百分点。"  # the asked words, and the answer
    cands = [Candidate(0, "dense_retrieval.pdf", ENGLISH_ANSWER, meaning=0.79),
             Candidate(1, "实验记录.md", answer, meaning=0.82),
             Candidate(2, "tracemonkey.pdf", OTHER_PAPER, meaning=0.71)]
    assert _order(ASKED_IN_CHINESE, cands) == [1, 0, 2]
    assert relevance(ASKED_IN_CHINESE, cands, len(cands))[1][1]["lexical"] > 0.5  # its word match counts in full


def test_an_english_passage_sharing_words_far_by_meaning_does_not_outrank_the_chinese_file_that_answers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Recorded (tests/data/ranking/cross_meaning.json, tune3 t3_en20, e5xlang engine): "For the rest-stop land table,
    # which forecast year's traffic should be used?" about a Chinese land-use standard (停车区用地指标, 预测年限).
    # The FAA notice's cited passages hold "land" (of "landing") or "traffic" (air traffic control) and led the
    # answering file on those words alone; its places are farther from the question by meaning.
    data = json.loads((Path(__file__).parent / "data" / "ranking" / "cross_meaning.json").read_text(encoding="utf-8"))
    case = data["searches"][0]
    cands = [Candidate(c["providerRank"], c["fileName"], c["text"], tuple(c["headingPath"]), c["meaning"],
                       unplaced=c["unplaced"]) for c in case["candidates"]]

    def files() -> list[str]:
        return list(dict.fromkeys(cands[i].file_name for i in _ranked(case["query"], cands)))

    faa = "pdfplumber__federal-register-2020-17221.pdf"
    assert files().index(case["file"]) < files().index(faa)
    monkeypatch.setattr(ranking, "LEXICAL_MEANING_BAND", 0.0)  # words counted whatever the meaning: as before
    assert files().index(faa) < files().index(case["file"])


def test_a_paragraph_holding_every_word_of_the_query_leads_its_file_far_in_meaning_whatever_lightrags_order() -> None:
    # Recorded (tests/data/ranking/edited_docx_new_line.json): the integration test's edited DOCX, its new English
    # line searched for. e5usexlang put other.docx's Chinese table 0.058 nearer the English query than that line,
    # so farInMeaning took its whole word match back; the file's places then stood on LightRAG's order and the
    # in-file meaning cue, where two Japanese headings are nearer (0.573) than the line (0.556). The line led only
    # while LightRAG ranked its chunk first and no heading's chunk second: with the chunk of "２．事務認証対象から
    # 除外する事務" second, that heading led the file, as in the CI run that cited it.
    data = json.loads((Path(__file__).parent / "data" / "ranking" / "edited_docx_new_line.json").read_text("utf-8"))
    rows, query = data["candidates"], data["query"]
    new_line = "The quokka colony nests under the copper gearbox of the windmill."
    edited = "kotaemon__dummy.docx"
    leading: Counter[str] = Counter()
    line = next(i for i, r in enumerate(rows) if r["place"] == new_line)
    rest = [r for i, r in enumerate(rows) if i != line]
    for others in (rest, rest[::-1]):  # the line at every rank, the other chunks in the recorded order and reversed
        for at in range(len(rows)):
            cands = [Candidate(rank + 1, r["fileName"], r["text"], tuple(r["headingPath"]), r["meaning"],
                               place=r["place"], approximate=r["approximate"], unplaced=r["unplaced"])
                     for rank, r in enumerate([*others[:at], rows[line], *others[at:]])]
            order = _ranked(query, cands)
            leading[next(cands[i].place for i in order if cands[i].file_name == edited)] += 1
            scored = relevance(query, cands, len(cands))
            far = [parts["farInMeaning"] for _, parts in scored if "farInMeaning" in parts]
            assert far and all(f == -1.0 for f in far)  # still far by meaning: its words move the file no higher
            for name in {c.file_name for c in cands}:  # the file holds the scores it held: its places only swap them
                mine = [(value, parts) for (value, parts), c in zip(scored, cands, strict=True) if c.file_name == name]
                assert sorted(v for v, _ in mine) == pytest.approx(sorted(v - p.get("inFile", 0.0) for v, p in mine))
    assert leading == {new_line: 2 * len(rows)}, leading.most_common(3)
