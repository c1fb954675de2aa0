"""A question naming a numbered part of a document ("section 5.3.2", "第5.3.2条", "clause 4.1", "Article 12",
"第十二条") asks for that part: the file holding it goes before one that does not (``ranking``'s ``section``
part), and a number no cited place starts with, or a bare number ("5 engines"), moves nothing.

nc21b (round 21): "What does section 5.3.2 say about plants with similar designs?" over a folder holding Part 1
and Part 12 of a Chinese nuclear-safety standard put Part 12 (which has no 5.3.2) above Part 1 (8th)."""

from __future__ import annotations

import pytest
from mnote_kr_testkit.data import CORPUS

from mnote_kr.citations.rank.ranking import Candidate, relevance, where
from mnote_kr.citations.render.claims import not_another_numbered
from mnote_kr.citations.text.sections import SectionRef, caption_of, names_other, numbered_as, section_refs
from mnote_kr.models import LocateRequest, Locator
from mnote_kr_docx_locator import locate
from mnote_kr_docx_locator.cache import load_docx

PART1 = CORPUS / "docx" / "chatchat__核电厂定期安全审查指南 第1部分：通用要求（征求意见稿）.docx"
PART12 = CORPUS / "docx" / "chatchat__核电厂定期安全评价 第12部分：设计（征求意见稿20230317）.docx"
NC21B = "What does section 5.3.2 say about plants with similar designs?"


@pytest.mark.parametrize(("query", "refs"), [
    (NC21B, [SectionRef("section", "5.3.2")]),
    ("第5.3.2条关于设计相近的核电厂是怎么规定的？", [SectionRef("section", "5.3.2")]),
    ("5.3.2节说了什么", [SectionRef("section", "5.3.2")]),
    ("§ 3.2 deadlines", [SectionRef("section", "3.2")]),
    ("According to 5.2.1, how often is a PSR carried out?", [SectionRef("section", "5.2.1")]),
    ("a ratio of 1.2,5", []),
    ("what does Article 12 require", [SectionRef("article", "12")]),
    ("第十二条规定了什么", [SectionRef("article", "12")]),
    ("核安全法第十六条 定期安全评价", [SectionRef("article", "16")]),
    ("How many of the 5 engines were inspected?", []),
    ("version 2.1 changes", []),
    ("第2版", []),
])
def test_section_refs_reads_sections_and_articles(query: str, refs: list[SectionRef]) -> None:
    assert section_refs(query) == refs


@pytest.mark.parametrize(("text", "heading", "held"), [
    ("5.3.2 设计相近核电厂的PSR联合评价", False, True),
    ("5.3.2.1 一个下级条款", False, True),
    ("5.3.21 另一条", False, False),
    ("5.3 确定工作模式", True, False),
    ("5 engines were inspected.", False, False),
])
def test_numbered_as_reads_a_place_that_starts_with_the_number(text: str, heading: bool, held: bool) -> None:
    assert numbered_as(text, SectionRef("section", "5.3.2"), heading=heading) is held
    assert numbered_as("第十二条 营运单位应当", SectionRef("article", "12"))
    assert not numbered_as("第十三条 营运单位应当", SectionRef("article", "12"))


def _chunk(path, lo: int, hi: int) -> str:
    return "\n".join(p.text for p in load_docx(path).paragraphs[lo:hi + 1] if p.text.strip())


def _candidate(rank: int, path, span: tuple[int, int], query: str) -> Candidate:
    evidence = _chunk(path, *span)
    loc = locate(LocateRequest(file=str(path), evidence=evidence, query=query))
    doc = load_docx(path)
    return Candidate(rank, path.name, evidence, tuple(loc.place_headings or ()), **where(loc),
                     place=doc.paragraphs[loc.paragraph_index].text)


def _order(query: str) -> tuple[list[str], list[dict[str, float]]]:
    # the provider's first is Part 12's 5.2 section (评价内容), Part 1's chunk of 5.3 comes 8th (nc21b)
    cands = [_candidate(0, PART12, (104, 125), query), _candidate(7, PART1, (118, 125), query)]
    scored = relevance(query, cands, 8)
    order = sorted(range(len(cands)), key=lambda i: -scored[i][0])
    return [cands[i].file_name for i in order], [parts for _, parts in scored]


def test_the_file_holding_the_named_section_goes_first() -> None:
    names, parts = _order(NC21B)
    assert names[0] == PART1.name
    assert "section" not in parts[0] and parts[1]["section"] > 0
    # a section no file holds moves no file
    names, parts = _order("What does section 9.9.9 say about plants with similar designs?")
    assert names[0] == PART12.name and not any("section" in p for p in parts)


# --------------------------------------------------------------------------- tables and figures (round 23)
#: nc23a Q9: "what does table 3 show?" over demo1 cited "... Table 2 gives" exact; a table or figure a query names is
#: read like a section, and the place starting with its label (its caption) is in it.

@pytest.mark.parametrize(("query", "refs"), [
    ("what does table 3 show?", [SectionRef("table", "3")]),
    ("Tab. 3 values", [SectionRef("table", "3")]),
    ("Tables 2 and 3", [SectionRef("table", "2"), SectionRef("table", "3")]),
    ("what is in table 3.1?", [SectionRef("table", "3.1")]),  # no section 3.1
    ("表 3-1 说明了什么", [SectionRef("table", "3.1")]),
    ("表 7.6 是什么", [SectionRef("table", "7.6")]),
    ("Fig. 4", [SectionRef("figure", "4")]),
    ("what does figure 4a show", [SectionRef("figure", "4")]),
    ("如图4所示的曲线", [SectionRef("figure", "4")]),
])
def test_section_refs_reads_tables_and_figures(query: str, refs: list[SectionRef]) -> None:
    assert section_refs(query) == refs
    assert section_refs("代表3家单位") == []  # 代表 is "represent", no table
    assert section_refs("试图3次") == []  # 试图 is "try", no figure


@pytest.mark.parametrize("text", ["Table 3\nCoefficient of efficiency, E", "Table 3: Evaluation results.",
                                  "TABLE 3 Results"])
def test_a_place_starting_with_the_tables_label_is_its_caption(text: str) -> None:
    assert numbered_as(text, SectionRef("table", "3"))
    assert not numbered_as("Table 3-1 Special registers", SectionRef("table", "3"))  # 3.1, not 3
    assert not numbered_as("The fit of the complete model was generally good. Table 2 gives", SectionRef("table", "3"))
    assert not numbered_as("Fig. 3 Examples", SectionRef("table", "3"))  # a figure, not a table
    assert caption_of("图 4 流量历时曲线") == ("figure", "4")


def test_a_place_naming_another_table_than_asked_is_not_claimed_exact() -> None:
    asked = section_refs("what does table 3 show?")
    assert names_other(asked, "The fit of the complete model, Eq. (2), to the observed data was generally good. "
                              "Table 2 gives")
    assert not names_other(asked, "Table 2 and Table 3 give the significance and the efficiency")
    assert not names_other(asked, "Fig. 2 shows the schematic")  # another kind: not a table of another number
    assert not names_other(section_refs("what does section 4 say"), "Table 2 gives")
    exact = Locator(locator_precision="bbox", locator_degraded=False, page=6, reason="text layer match",
                    place_text="The fit of the complete model ... Table 2 gives")
    judged = not_another_numbered(exact, "what does table 3 show?")
    assert judged.locator_degraded and "table 3" in (judged.reason or "")
    assert not not_another_numbered(exact, "what does the model fit show?").locator_degraded


def test_the_file_whose_place_is_the_named_tables_caption_goes_first() -> None:
    query = "what does table 3 show?"
    other = Candidate(0, "paper_b.pdf", "Table 2 gives the significance of the terms; table 3 below", page=6,
                      place="The fit of the complete model was generally good. Table 2 gives")
    captioned = Candidate(3, "paper_a.pdf", "Table 3 Coefficient of efficiency, E", page=6,
                          place="Table 3 Coefficient of efficiency, E")
    scored = relevance(query, [other, captioned], 8)
    assert scored[1][0] > scored[0][0] and "section" in scored[1][1] and "section" not in scored[0][1]
    # a table no place starts with moves nothing
    scored = relevance("what does table 9 show?", [other, captioned], 8)
    assert scored[0][0] > scored[1][0] and not any("section" in p for _, p in scored)
