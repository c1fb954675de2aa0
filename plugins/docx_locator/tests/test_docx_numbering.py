"""The numbers Word shows before numbered headings and list items, drawn from numbering.xml (a newcomer saw
"术语和定义" in the heading path where the reader sees "3 术语和定义", nc18a problem 9).

The chatchat standard's headings are numbered by their style: 章标题 (styleId 45) has ``numPr`` numId 2, ilvl 0;
num 2 is abstractNum 9, whose level 0 is decimal from 1 with lvlText "%1　" (an ideographic space) and
``suff`` nothing, level 1 "%1.%2　" (style 42), level 2 "%1.%2.%3　" (style 46). The style-45 paragraphs read
范围, 规范性引用文件, 术语和定义: Word shows "3　术语和定义". The document itself refers to "6.2.1节" for
核电厂文件和记录 (6 评价要求 > 6.2 评价输入 > 6.2.1), which is what the count gives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.docx_docs import NS, STYLES, W, package

from mnote_kr.models import LocateRequest
from mnote_kr_docx_locator import cache as docx_cache
from mnote_kr_docx_locator import document_model, locate
from mnote_kr_docx_locator.cache import load_docx
from mnote_kr_docx_locator.numbering import draw

CHATCHAT = CORPUS / "docx" / "chatchat__核电厂定期安全评价 第12部分：设计（征求意见稿20230317）.docx"


@pytest.fixture(autouse=True)
def _fresh_cache():
    docx_cache.clear_cache()
    yield
    docx_cache.clear_cache()


def _heading(text: str, style: str = "Heading1", num: tuple[str, int] | None = None) -> str:
    numpr = (f'<w:numPr><w:ilvl w:val="{num[1]}"/><w:numId w:val="{num[0]}"/></w:numPr>' if num else "")
    return f'<w:p><w:pPr><w:pStyle w:val="{style}"/>{numpr}</w:pPr><w:r><w:t>{text}</w:t></w:r></w:p>'


def _lvl(ilvl: int, fmt: str, text: str, *, extra: str = "", start: int = 1) -> str:
    return (f'<w:lvl w:ilvl="{ilvl}"><w:start w:val="{start}"/><w:numFmt w:val="{fmt}"/>{extra}'
            f'<w:lvlText w:val="{text}"/></w:lvl>')


def _docx(tmp_path: Path, body: str, numbering: str, styles: str = STYLES) -> Path:
    xml = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document {NS}><w:body>{body}</w:body>'
           "</w:document>")
    path = tmp_path / "numbered.docx"
    path.write_bytes(package(xml.encode(), styles=styles.encode(), numbering=(
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:numbering xmlns:w="{W}">{numbering}'
        "</w:numbering>").encode()))
    return path


def test_chatchat_heading_path_shows_words_number_3_before_its_terms_heading() -> None:
    doc = load_docx(CHATCHAT)
    terms = next(p for p in doc.paragraphs if p.heading_level and p.text == "术语和定义")
    assert (terms.label, terms.shown_headings) == ("3", ("3 术语和定义",))
    assert terms.heading_path == ("术语和定义",)  # the words the provider reads, as matching sees them
    records = next(p for p in doc.paragraphs if p.heading_level and p.text == "核电厂文件和记录")
    assert records.shown_headings == ("6 评价要求", "6.2 评价输入", "6.2.1 核电厂文件和记录")
    item = next(p for p in doc.paragraphs if p.text.startswith("核电厂最终安全分析报告（FSAR）"))
    assert item.label == "b)" and item.shown_headings[-1] == "6.2.1 核电厂文件和记录"
    # the cited place's headingPath shows the numbers; the viewer's model carries the label
    loc = locate(LocateRequest(file=str(CHATCHAT), evidence="核电厂最终安全分析报告（FSAR）；", query="FSAR"))
    assert loc is not None and loc.paragraph_index == item.index
    assert loc.place_headings == ["6 评价要求", "6.2 评价输入", "6.2.1 核电厂文件和记录"]
    model = document_model(str(CHATCHAT))
    assert model is not None and model.paragraphs[terms.index].label == "3"


def test_multilevel_decimal_restarts_below_an_advancing_level_and_start_override_restarts_a_list(
        tmp_path: Path) -> None:
    numbering = ('<w:abstractNum w:abstractNumId="1">' + _lvl(0, "decimal", "%1") + _lvl(1, "decimal", "%1.%2")
                 # level 3 restarts only when level 1 is used: not when level 2 advances
                 + _lvl(2, "lowerRoman", "(%3)", extra='<w:lvlRestart w:val="1"/>') + "</w:abstractNum>"
                 '<w:num w:numId="1"><w:abstractNumId w:val="1"/></w:num>'
                 '<w:num w:numId="2"><w:abstractNumId w:val="1"/>'
                 '<w:lvlOverride w:ilvl="0"><w:startOverride w:val="7"/></w:lvlOverride></w:num>')
    seq = [("Scope", "Heading1", ("1", 0)), ("Aims", "Heading2", ("1", 1)), ("Item", "31", ("1", 2)),
           ("Terms", "Heading2", ("1", 1)), ("Item", "31", ("1", 2)), ("Design", "Heading1", ("1", 0)),
           ("Loads", "Heading2", ("1", 1)), ("Item", "31", ("1", 2)),
           ("Annex", "Heading1", ("2", 0)), ("Tables", "Heading2", ("2", 1))]
    doc = load_docx(_docx(tmp_path, "".join(_heading(t, s, n) for t, s, n in seq), numbering))
    assert [p.label for p in doc.paragraphs] == ["1", "1.1", "(i)", "1.2", "(ii)", "2", "2.1", "(i)", "7", "7.1"]
    assert doc.paragraphs[4].shown_headings == ("1 Scope", "1.2 Terms", "(ii) Item")
    assert doc.paragraphs[9].shown_headings == ("7 Annex", "7.1 Tables")


def test_numbering_defined_on_the_heading_style_with_literal_text_and_legal_numbers(tmp_path: Path) -> None:
    styles = STYLES.replace("</w:styles>", (
        '<w:style w:type="paragraph" w:styleId="Chapter"><w:name w:val="Chapter"/><w:basedOn w:val="Heading1"/>'
        '<w:pPr><w:numPr><w:numId w:val="5"/></w:numPr></w:pPr></w:style>'
        '<w:style w:type="paragraph" w:styleId="Section"><w:name w:val="Section"/><w:basedOn w:val="Heading2"/>'
        '<w:pPr><w:numPr><w:numId w:val="5"/></w:numPr></w:pPr></w:style>'
        '<w:style w:type="paragraph" w:styleId="Annex"><w:name w:val="Annex"/><w:basedOn w:val="Heading1"/>'
        '<w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="6"/></w:numPr></w:pPr></w:style></w:styles>'))
    numbering = ('<w:abstractNum w:abstractNumId="4">'
                 # the style's level is the one whose pStyle names it (the style's numPr gives no ilvl)
                 + _lvl(0, "chineseCounting", "第%1章", extra='<w:pStyle w:val="Chapter"/><w:suff w:val="space"/>')
                 + _lvl(1, "decimal", "%1.%2", extra='<w:pStyle w:val="Section"/><w:isLgl/>') + "</w:abstractNum>"
                 '<w:abstractNum w:abstractNumId="5">' + _lvl(0, "upperLetter", "Appendix %1") + "</w:abstractNum>"
                 '<w:num w:numId="5"><w:abstractNumId w:val="4"/></w:num>'
                 '<w:num w:numId="6"><w:abstractNumId w:val="5"/></w:num>')
    body = "".join([_heading("总则", "Chapter"), _heading("目的", "Section"), _heading("适用范围", "Section"),
                    _heading("要求", "Chapter"), _heading("设计", "Section"),
                    _heading("前言", "Chapter", ("0", 0)),  # numId 0: numbering switched off, not counted
                    _heading("细则", "Chapter"), _heading("Forms", "Annex")])
    doc = load_docx(_docx(tmp_path, body, numbering, styles))
    assert [p.label for p in doc.paragraphs] == ["第一章", "1.1", "1.2", "第二章", "2.1", None, "第三章", "Appendix A"]
    assert doc.paragraphs[4].shown_headings == ("第二章 要求", "2.1 设计")
    assert doc.paragraphs[5].shown_headings == ("前言",)
    assert doc.paragraphs[7].shown_headings == ("Appendix A Forms",)


def test_unknown_number_format_and_a_level_without_a_number_leave_the_heading_unnumbered(tmp_path: Path) -> None:
    numbering = ('<w:abstractNum w:abstractNumId="1">' + _lvl(0, "hebrew2", "%1.")
                 + _lvl(1, "decimal", "%1.%2") + "</w:abstractNum>"
                 '<w:abstractNum w:abstractNumId="2">' + _lvl(0, "decimal", "%1") + _lvl(1, "decimal", "%1.%2")
                 + "</w:abstractNum>"
                 '<w:num w:numId="1"><w:abstractNumId w:val="1"/></w:num>'
                 '<w:num w:numId="2"><w:abstractNumId w:val="2"/></w:num>')
    body = "".join([_heading("Alef", "Heading1", ("1", 0)), _heading("Bet", "Heading2", ("1", 1)),
                    # a second level before any first one: Word's "0.1" or "1.1" is not told for sure
                    _heading("Orphan", "Heading2", ("2", 1)), _heading("First", "Heading1", ("2", 0)),
                    _heading("Second", "Heading2", ("2", 1))])
    doc = load_docx(_docx(tmp_path, body, numbering))
    assert [p.label for p in doc.paragraphs] == [None, None, None, "1", "1.1"]
    assert doc.paragraphs[1].shown_headings == ("Alef", "Bet")
    assert doc.paragraphs[1].heading_numbers == ()


@pytest.mark.parametrize(("n", "fmt", "want"), [
    (3, "decimal", "3"), (3, "decimalZero", "03"), (27, "upperLetter", "AA"), (2, "lowerLetter", "b"),
    (4, "lowerRoman", "iv"), (14, "upperRoman", "XIV"), (1, "chineseCounting", "一"),
    (10, "chineseCounting", "十"), (11, "chineseCounting", "十一"), (21, "chineseCounting", "二十一"),
    (101, "chineseCountingThousand", "一百〇一"), (3, "ideographTraditional", "丙"),
    (2, "decimalEnclosedCircle", "②"), (12, "decimalFullWidth", "１２"),
    (3, "hebrew2", None), (3, "ordinalText", None), (0, "decimal", None),
])
def test_number_formats_drawn_and_unknown_ones_not(n: int, fmt: str, want: str | None) -> None:
    assert draw(n, fmt) == want


def test_viewer_shows_the_heading_and_list_numbers_as_the_file_does() -> None:
    from mnote_kr.models import Locator
    from mnote_kr.viewer.webpages import paragraphs_html

    model = document_model(str(CHATCHAT))
    assert model is not None
    html = paragraphs_html(model, None, Locator(locator_precision="file"))
    assert '<span class="marker">3</span>术语和定义' in html
    assert '<span class="marker">6.2.1</span>核电厂文件和记录' in html
    assert '<span class="marker">b)</span>核电厂最终安全分析报告（FSAR）' in html
