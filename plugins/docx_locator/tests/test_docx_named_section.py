"""A query that names a numbered section ("section 1.3", "§1.4", "第1.3节", "раздел 7") is answered under that
heading: Word's automatic heading numbers (``numbering``) count for the paragraphs they head.

The questions were written from reading the two files, before the rule was written: MinerU's demo DOCX numbers
its headings 1., 1.1. ... 2.4. (paragraphs 70-110), and one chunk holds sections 1.1-1.4, where "bold", "italic",
"underline", "strikethrough" and "hyperlink" stand in several sections; the Russian tender's technical
specification numbers its headings 2.-8. (paragraphs 255-297), where "Приложению ... к Техническому заданию"
stands in sections 4 and 7.
"""

from __future__ import annotations

import pytest
from mnote_kr_testkit.data import CORPUS

from mnote_kr.models import LocateRequest
from mnote_kr_docx_locator import cache as docx_cache
from mnote_kr_docx_locator import locate
from mnote_kr_docx_locator.cache import load_docx
from mnote_kr_docx_locator.sections import named_sections

MINERU = CORPUS / "docx" / "mineru__docx_01.docx"
TENDER = CORPUS / "docx" / "poi__bug65649.docx"
#: (file, the chunk's paragraphs lo..hi, query, the paragraph that answers, as read in the file)
QUESTIONS = [
    (MINERU, (70, 103), "第1.3节里的 bold 列表项是什么", 91),  # "Bold bullet 2" (1.3 多级列表)
    (MINERU, (70, 103), "what is the italic item in section 1.4", 100),  # "无序列表项4：italic 斜体文本"
    (MINERU, (70, 103), "what does section 1.2 say about strikethrough", 84),  # "strikethrough" (1.2 带格式正文)
    (MINERU, (70, 103), "1.3 节的 underline", 92),  # "Underline bullet 3"
    (MINERU, (70, 103), "§1.4 hyperlink", 99),  # "无序列表项3：hyperlink超链接文本"
    (TENDER, (276, 297), "Что указано в разделе 7 о Приложении к Техническому заданию?", 296),  # 7.1 Объем работ
    (TENDER, (272, 291), "раздел 5: гарантийный срок на материалы", 285),  # 5.1.1 Гарантийный срок на материалы
    (TENDER, (249, 275), "section 3: КОСГУ 310", 275),  # КОСГУ 310 under 3. Источник финансирования
]


SECTION_1_3 = range(89, 96)  # "1.3. 多级列表" and its paragraphs


@pytest.fixture(autouse=True)
def _fresh_cache():
    docx_cache.clear_cache()
    yield
    docx_cache.clear_cache()


def _chunk(path, lo: int, hi: int) -> str:
    return "\n".join(p.text for p in load_docx(path).paragraphs[lo:hi + 1] if p.text.strip())


def _locate(path, span: tuple[int, int], query: str):
    loc = locate(LocateRequest(file=str(path), evidence=_chunk(path, *span), query=query))
    assert loc is not None
    return loc


def test_a_named_section_chooses_among_its_own_paragraphs() -> None:
    got = {q: _locate(path, span, q).paragraph_index for path, span, q, _ in QUESTIONS}
    assert got == {q: want for _, _, q, want in QUESTIONS}


def test_the_place_says_the_section_is_named_and_the_evidence_place_stands_behind() -> None:
    loc = _locate(MINERU, (70, 103), "the bold list item of section 1.3")
    assert loc.paragraph_index == 91 and loc.locator_precision == "paragraph" and not loc.locator_degraded
    assert "section 1.3" in (loc.locator_reason or "")
    assert loc.place_headings == ["1. 有序列表构成的章节标题", "1.3. 多级列表"]
    # the evidence's own place is next, approximate: a "bold" of another section (1.2 or 1.4)
    behind = loc.runners_up[0]
    assert behind.paragraph_index not in SECTION_1_3 and behind.locator_degraded
    assert "bold" in load_docx(MINERU).paragraphs[behind.paragraph_index].text.casefold()


def test_a_section_the_file_lacks_or_a_number_that_names_none_moves_nothing() -> None:
    for query in ("the bold list item of section 9.7", "the bold list item in version 1.3",
                  "the bold list item, 1.3 kg"):
        loc = _locate(MINERU, (70, 103), query)
        assert loc.paragraph_index not in SECTION_1_3 and "section" not in (loc.locator_reason or ""), query
    # and the named section does move it (the same file, the same chunk)
    assert _locate(MINERU, (70, 103), "the bold list item of section 1.3").paragraph_index in SECTION_1_3


def test_outside_the_passage_a_section_must_hold_the_words_as_well() -> None:
    """The tender's heading "5. Требования к сроку и объему предоставления" is split over two paragraphs, the
    second unnumbered; its clauses sit under that one. Section 5 of the contract above holds "срок" only: the
    clause holding every word the query asks stays cited."""
    loc = _locate(TENDER, (272, 291), "раздел 5: гарантийный срок на материалы")
    assert loc.paragraph_index == 285 and "section" not in (loc.locator_reason or "")
    moved = _locate(TENDER, (276, 297), "раздел 7: Приложение к Техническому заданию")
    # since round 27 "Приложение" meets the clause's "Приложению" (``queryterms.stem``): the clause holds every word
    # the query asks and is cited by them; before, the named section moved it there
    assert moved.paragraph_index == 296 and ("section 7" in (moved.locator_reason or "")
                                             or (moved.locator_reason or "").startswith("matched query terms"))


@pytest.mark.parametrize(("query", "numbers"), [
    ("what does section 6.2.1 say about X", ["6.2.1"]), ("第3章 术语", ["3"]), ("第三章的术语", ["3"]),
    ("§ 4.2 deadlines", ["4.2"]), ("6.2.1节", ["6.2.1"]), ("sections 2 and 3", ["2", "3"]),
    ("раздел 7", ["7"]), ("п. 4.2.8", ["4.2.8"]), ("clause 12", ["12"]), ("chapter 2", ["2"]),
    ("in 1.2 and 3.4", ["1.2", "3.4"]),
    ("version 2.1 changes", []), ("2.5 kg of flour", []), ("a 3.5% rise", []), ("on 02.12.2015", []),
    ("section of pipe", []), ("第2版", []), ("the 3 sections", []), ("核安全法第十六条 定期安全评价", []),
])
def test_named_sections_reads_the_numbers_a_query_names(query: str, numbers: list[str]) -> None:
    assert named_sections(query) == numbers


PART1 = CORPUS / "docx" / "chatchat__核电厂定期安全审查指南 第1部分：通用要求（征求意见稿）.docx"
PART12 = CORPUS / "docx" / "chatchat__核电厂定期安全评价 第12部分：设计（征求意见稿20230317）.docx"
#: Written from reading the two standards before the rule (round 22): Part 1 numbers its clauses in their text
#: ("5.3.2 设计相近核电厂的PSR联合评价", paragraph 123, a title line; "5.4.1 核电厂定期安全评价的责任主体为...",
#: a clause), Part 12 in Word's heading numbers. (file, the chunk's paragraphs, query, the paragraph that answers)
STANDARDS = [
    (PART1, (118, 125), "What does section 5.3.2 say about plants with similar designs?", 124),
    (PART1, (123, 123), "What does section 5.3.2 say about plants with similar designs?", 124),  # nc21b: the title
    (PART1, (118, 125), "5.3.2节说了什么？", 124),
    (PART12, (213, 223), "第6.3.3.3节弱项如何处理？", 220),
]


@pytest.mark.parametrize(("path", "span", "query", "want"), STANDARDS)
def test_a_clause_numbered_in_its_text_is_cited_on_its_words_not_its_title(path, span, query, want) -> None:
    loc = _locate(path, span, query)
    assert loc.paragraph_index == want
    doc = load_docx(path)
    # the title line of a typed clause reads as the place's last heading, as the reader sees it
    if doc.paragraphs[want - 1].text.startswith("5.3.2"):
        assert loc.place_headings[-1] == "5.3.2 设计相近核电厂的PSR联合评价"
    # a number the file's clauses do not carry moves nothing: the title stays where the words put it
    if want == 124:
        lacks = _locate(path, span, query.replace("5.3.2", "9.9.9"))
        assert lacks.paragraph_index != want and "section" not in (lacks.locator_reason or "")
