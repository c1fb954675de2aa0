"""A question about a row of a PDF table cites that row: the cell under the header it names.

Truth comes from PDFium's own reading of the page (where a word is drawn, what text stands inside a
box, the row's numbers in the page's text), never from the locator's geometry.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.pdfwords import page_text, text_in, word_boxes

from mnote_kr.models import LocateRequest
from mnote_kr.plugin_api import labelled_row
from mnote_kr_pdf_bbox import clear_cache, locate
from mnote_kr_pdf_bbox.blocks import place_texts
from mnote_kr_pdf_bbox.pdftext import line_text, read_document

PDF = CORPUS / "pdf"
NICS = PDF / "pdfplumber__nics-background-checks-2015-11.pdf"
REPORT = PDF / "mineru__test_rearch_report.pdf"


@pytest.fixture(autouse=True)
def _fresh() -> None:
    clear_cache()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _row_tokens(path: Path, page: int, label: str) -> list[str]:
    """The words after ``label`` on its line of the page's text as PDFium writes it."""
    line = next(ln for ln in page_text(path, page).splitlines() if ln.strip().startswith(label + " "))
    return line.strip()[len(label):].split()


def _letters(text: str) -> str:
    return "".join(ch for ch in text if ch.isalnum())


def test_kentucky_handgun_question_cites_kentuckys_handgun_cell() -> None:
    before = _digest(NICS)
    loc = locate(LocateRequest(file=str(NICS), evidence=page_text(NICS, 1),
                               query="How many handgun checks were there in Kentucky in November 2015?"))
    assert loc.locator_precision == "bbox" and not loc.locator_degraded and loc.page == 1
    (kentucky,) = word_boxes(NICS, 1, "Kentucky")
    mid = (kentucky[1] + kentucky[3]) / 2
    assert loc.bbox[1] <= mid <= loc.bbox[3]  # Kentucky's row, not the title
    handguns = sorted(word_boxes(NICS, 1, "Handgun"), key=lambda b: (b[1], b[0]))
    first = min(handguns, key=lambda b: b[0])  # the plain Handgun column; the others stand under a group heading
    # the cell stands in the first Handgun column (numbers set flush right: within its header's width)
    assert first[0] - 5 <= loc.bbox[0] and loc.bbox[2] <= first[2] + 5
    assert all(loc.bbox[2] < b[0] for b in handguns if b is not first)
    value = _row_tokens(NICS, 1, "Kentucky")[1]  # Permit, then Handgun
    assert text_in(NICS, 1, loc.bbox).strip() == value
    assert loc.place_text is not None and "Kentucky" in loc.place_text and value in loc.place_text
    assert _digest(NICS) == before


def test_a_row_and_a_header_named_in_a_short_query_cite_that_cell() -> None:
    loc = locate(LocateRequest(file=str(NICS), evidence=page_text(NICS, 1), query="Illinois permit checks total"))
    assert not loc.locator_degraded
    (illinois,) = word_boxes(NICS, 1, "Illinois")
    assert loc.bbox[1] <= (illinois[1] + illinois[3]) / 2 <= loc.bbox[3]
    assert text_in(NICS, 1, loc.bbox).strip() == _row_tokens(NICS, 1, "Illinois")[0]  # Permit: the first column


def test_a_chinese_question_naming_an_english_row_and_header_cites_that_cell() -> None:
    """伊利诺伊州 names the row "Illinois" and 许可证 the header "Permit" by the dictionary (``named_in_chinese``):
    the cell under Permit in Illinois's row, exact, as the English question gets it."""
    before = _digest(NICS)
    loc = locate(LocateRequest(file=str(NICS), evidence=page_text(NICS, 1), query="伊利诺伊州的持枪许可证核查有多少次"))
    assert loc.locator_precision == "bbox" and not loc.locator_degraded and loc.page == 1
    (illinois,) = word_boxes(NICS, 1, "Illinois")
    assert loc.bbox[1] <= (illinois[1] + illinois[3]) / 2 <= loc.bbox[3]
    assert text_in(NICS, 1, loc.bbox).strip() == _row_tokens(NICS, 1, "Illinois")[0]  # Permit: the first column
    assert _digest(NICS) == before


@pytest.mark.parametrize(("query", "label", "column"), [
    # 德克萨斯州 is "state of Texas" in the dictionary; 手枪 is "pistol" there, read as 手 "hand" + 枪 "gun"
    ("德克萨斯州的手枪背景核查有多少次", "Texas", 1),
    # 纽约州 is "New York state", a name of two words; 长枪 is "pike" in the dictionary, read as 长 "long" + 枪 "gun":
    # the Long Gun column, after Permit and Handgun
    ("纽约州长枪核查多少次", "New York", 2),
])
def test_a_chinese_question_names_a_state_and_a_gun_column_the_dictionary_words_otherwise(
        query: str, label: str, column: int) -> None:
    before = _digest(NICS)
    loc = locate(LocateRequest(file=str(NICS), evidence=page_text(NICS, 1), query=query))
    assert loc.locator_precision == "bbox" and not loc.locator_degraded and loc.page == 1
    (row,) = word_boxes(NICS, 1, label)
    assert loc.bbox[1] <= (row[1] + row[3]) / 2 <= loc.bbox[3]
    assert text_in(NICS, 1, loc.bbox).strip() == _row_tokens(NICS, 1, label)[column]
    assert _digest(NICS) == before


def _from_wyoming_to_notes() -> str:
    """The page's text as PDFium writes it from Wyoming's row to "NOTES:": the last rows of the table, its
    title and the titles of its column groups, as LightRAG's chunk 8 of this PDF holds them (nc24c), no Texas."""
    text = page_text(NICS, 1)
    start = text.index("Wyoming ")
    return text[start:text.index("NOTES:", start) + len("NOTES:")]


@pytest.mark.parametrize("query", ["得克萨斯州的手枪背景调查有多少", "Texas handgun"])
def test_a_passage_of_other_rows_gives_way_to_the_row_of_its_table_the_query_names(query: str) -> None:
    """The passage holds Wyoming's and the Totals row; the question names Texas and the Handgun column of that
    table: Texas's Handgun cell, exact, not Wyoming's (nc24c problem 3: 得克萨斯州 cited Wyoming's Handgun)."""
    before = _digest(NICS)
    evidence = _from_wyoming_to_notes()
    assert "Texas" not in evidence
    loc = locate(LocateRequest(file=str(NICS), evidence=evidence, query=query))
    assert loc.locator_precision == "bbox" and not loc.locator_degraded and loc.page == 1
    (texas,) = word_boxes(NICS, 1, "Texas")
    assert loc.bbox[1] <= (texas[1] + texas[3]) / 2 <= loc.bbox[3]
    assert text_in(NICS, 1, loc.bbox).strip() == _row_tokens(NICS, 1, "Texas")[1]  # Permit, then Handgun
    assert _digest(NICS) == before


def test_title_holding_common_query_words_is_not_exact_over_the_row_holding_the_rarest() -> None:
    loc = locate(LocateRequest(file=str(NICS), evidence=page_text(NICS, 1),
                               query="firearm checks in Kentucky November 2015"))
    (kentucky,) = word_boxes(NICS, 1, "Kentucky")
    on_row = loc.bbox[1] <= (kentucky[1] + kentucky[3]) / 2 <= loc.bbox[3]
    assert on_row or loc.locator_degraded


def test_side_by_side_financial_tables_cite_the_named_rows_year() -> None:
    loc = locate(LocateRequest(file=str(REPORT), evidence=page_text(REPORT, 3), query="P/E ratio 2023E"))
    assert loc.page == 3 and not loc.locator_degraded
    years = [w for w in page_text(REPORT, 3).split() if w[:2] == "20" and len(w) <= 5][:4]  # the header's years
    value = _row_tokens(REPORT, 3, "P/E")[years.index("2023E")]
    assert text_in(REPORT, 3, loc.bbox).strip() == value
    (pe,) = word_boxes(REPORT, 3, "P/E")
    assert loc.bbox[1] <= (pe[1] + pe[3]) / 2 <= loc.bbox[3]


def test_a_table_row_reads_as_the_host_reads_rows() -> None:
    doc = read_document(NICS)
    page = doc.pages[0]
    (bi,) = [bi for bi in page.row_cells if any(line_text(page, li).strip() == "Kentucky" for li in page.blocks[bi])]
    (label, _, parts), = page.row_cells[bi]
    text = place_texts(doc)[bi]
    assert text == labelled_row(label, [(h, v) for h, v, _ in parts])
    values = _row_tokens(NICS, 1, "Kentucky")
    assert [v for _, v, _ in parts] == values  # every number of the row, in order, each under a header
    assert "Permit: " + values[0] in text and "Handgun: " + values[1] in text


@pytest.mark.parametrize("name", ["pdfjs__tracemonkey.pdf", "pdfminer__naacl06-shinyama.pdf",
                                  "pdfplumber__issue-982-example.pdf", "unstructured__multi-column-2p.pdf"])
def test_prose_pages_keep_their_places_as_written(name: str) -> None:
    doc = read_document(PDF / name)
    texts = place_texts(doc)
    n = 0
    for page in doc.pages:
        for lines in page.blocks:
            written = " ".join(" ".join(line_text(page, li).split()) for li in lines)
            said = texts[n]
            n += 1
            if said:  # the block's own letters and digits, in order: no header read into prose
                assert _letters(said) == _letters(written), said


SCOTUS = PDF / "pdfplumber__scotus-transcript-p1.pdf"
#: a value as tables print it, for the test's own check (signs, currency, separators, a percent, a dash)
_VALUE = re.compile(r"[(+\-\u2212\u2013]?[$€£¥]?\d(?:[\d,.]| (?=\d{3}\b))*%?\)?|[-\u2013\u2014]|na|n/a")


def test_numbered_transcript_lines_do_not_make_a_right_answer_approximate() -> None:
    before = _digest(SCOTUS)
    query = "Who is the Deputy Attorney General from Los Angeles?"
    loc = locate(LocateRequest(file=str(SCOTUS), evidence=page_text(SCOTUS, 1), query=query))
    assert loc.page == 1 and loc.locator_precision == "bbox"
    boxed = " ".join(text_in(SCOTUS, 1, loc.bbox).split())
    assert "Deputy Attorney General" in boxed  # the right place, by PDFium's text
    assert not loc.locator_degraded, loc.locator_reason  # and so an exact one: no table row holds more
    assert _digest(SCOTUS) == before


@pytest.mark.parametrize("name", ["mineru__demo1.pdf", "mineru__demo3.pdf", "mineru__test_rearch_report.pdf",
                                  "pdfplumber__chelsea_pdta.pdf", NICS.name])
def test_a_row_read_under_headers_pairs_each_header_with_a_number_and_keeps_its_label_whole(name: str) -> None:
    doc = read_document(PDF / name)
    for page in doc.pages:
        for bi, segments in page.row_cells.items():
            written = [w for li in page.blocks[bi] for w in line_text(page, li).split()]
            lead = " ".join(itertools.takewhile(lambda w: not _VALUE.fullmatch(w), written))
            label, _, parts = segments[0]
            assert not (label and parts) or label == lead, (name, label, written)
            for _, _, parts in segments:
                for header, value, _ in parts:
                    assert not header or _VALUE.fullmatch(value), (name, header, value, written)


def test_a_long_label_reads_whole_in_the_quote() -> None:
    doc = read_document(PDF / "mineru__demo3.pdf")
    texts = place_texts(doc)
    said = [t for t in texts if t and "Britain" in t and "Gold" in t]
    assert said and all("Great Britain: " in t for t in said)


@pytest.mark.parametrize(("query", "label", "year"), [
    # a forecast column is headed "2024E" (E: estimated); a question says the year, "2024年"
    ("高测股份2023年每股收益预测是多少？", "每股收益", "2023E"),
    # a Chinese label touching the year: no space sets them apart in Chinese
    ("每股净资产2023年预测", "每股净资产", "2023E"),
    # nc24a Q11: the row is 营业总收入 (total operating revenue); the question says 营业收入, which no row is labelled
    ("高测股份2024年营业收入预测是多少？", "营业总收入", "2024E"),
])
def test_a_year_and_a_row_named_in_a_chinese_question_cite_the_forecast_cell(query: str, label: str,
                                                                             year: str) -> None:
    before = _digest(REPORT)
    loc = locate(LocateRequest(file=str(REPORT), evidence=page_text(REPORT, 3), query=query))
    assert loc.page == 3 and not loc.locator_degraded, loc.locator_reason
    years = [w for w in page_text(REPORT, 3).split() if w[:2] == "20" and len(w) <= 5][:4]  # the header's years
    line = next(ln for ln in page_text(REPORT, 3).splitlines() if f" {label} " in f" {ln} ")  # 营业总收入 follows
    value = line.split(f"{label} ", 1)[1].split()[years.index(year)]  # the 每股指标(元) group label on its line
    assert text_in(REPORT, 3, loc.bbox).strip() == value
    (row,) = word_boxes(REPORT, 3, label)
    assert loc.bbox[1] <= (row[1] + row[3]) / 2 <= loc.bbox[3]
    assert _digest(REPORT) == before
