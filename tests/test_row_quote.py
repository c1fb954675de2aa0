"""A table row too long for a quote is quoted with the cell the question asks for: the label, the first cells
that fit, "…", then the asked cell (the tables builder, round 23: a PDF row's quote was cut before its Totals)."""

from __future__ import annotations

import hashlib

from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.quotes import located_quote

from mnote_kr.citations.cleaning.quote import QUOTE_CHARS, answer_quote

NICS = CORPUS / "pdf" / "pdfplumber__nics-background-checks-2015-11.pdf"
TEXAS = "What was the overall count of firearm background checks in Texas that month?"
#: LightRAG's chunk 6 of the PDF, as the retrieval benchmark's run (round 22) recorded it for TEXAS
#: (``retrieval_tables.json`` en02: the answer is Texas's Totals, 146,982).
CHUNK = (
    '0 0 58 0 0 0 0 0 0 446 147 0 0 0 0 0 0 0103,836\n'
    'Puerto Rico 01,033 170 11 20 0 0 0 0 6 1 0 0 0 0 0 0 0 0 1 01,242\n'
    'Rhode Island 0 954 932 57 135 0 0 0 0 3 4 0 0 0 0 12 2 1 1 0 02,101\n'
    'South Carolina 7,284 11,452 10,393 561 438 0 3 8 0 979 912 3 16 4 0 4 6 0 1 0 032,064\n'
    'South Dakota 819 2,765 5,484 143 151 0 0 1 0 123 239 0 0 0 0 1 1 0 0 0 09,727\n'
    'Tennessee 9,509 28,815 24,023 0 1,300 0 0 0 0 0 0 0 17 1 5 0 0 0 0 0 063,670\n'
    'Texas 21,550 56,941 51,670 2,532 3,048 0 29 20 05,7485,331 21 1 2 1 42 36 4 1 5 0146,982\n'
    'Utah 10,429 4,314 5,857 195 262 0 0 1 0 209 285 1 140 58 21 0 0 0 0 0'
)


def test_a_long_pdf_rows_quote_keeps_the_total_the_question_asks_for() -> None:
    before = hashlib.sha256(NICS.read_bytes()).digest()
    loc, shown = located_quote(NICS, CHUNK, TEXAS)
    assert (loc.locator_plugin, loc.page) == ("pdf_bbox", 1) and (loc.place_text or "").startswith("Texas: "), loc
    assert len(loc.place_text or "") > QUOTE_CHARS  # a row longer than a quote: it must be cut
    assert shown.startswith("Texas: Permit: 21,550; Handgun: 56,941;"), shown
    assert shown.endswith("; …; Totals: 146,982") and len(shown) <= QUOTE_CHARS, shown
    assert hashlib.sha256(NICS.read_bytes()).digest() == before


ROW = "; ".join(f"Col {n}: {n * 11}" for n in range(1, 41))


def test_a_long_rows_quote_keeps_the_cell_whose_header_the_question_names() -> None:
    """A header named in the question ("col 37") is kept with the row's first cells, "…" between and after; a
    question naming none, or a cell that fits anyway, is cut where the row's quote is cut."""
    quote = answer_quote("Station 9: " + ROW, "what is col 37 at station 9")
    assert quote.startswith("Station 9: Col 1: 11; Col 2: 22;") and quote.endswith("; …; Col 37: 407; …"), quote
    assert len(quote) <= QUOTE_CHARS
    plain = answer_quote("Station 9: " + ROW, "station 9 readings")
    assert "…; Col" not in plain and plain.endswith("…") and "Col 37" not in plain
    assert "…; Col" not in answer_quote("Station 9: " + ROW, "what is col 3 at station 9")


def test_a_cell_saying_its_header_itself_is_a_cell_of_the_long_row() -> None:
    """A cell that opens with its header's words reads as written in its row (``labelled_row``: "检测方法：提取…", not
    "检测方法: 检测方法：…"); the long row is still read as a row: the asked cell kept after its first cells, as
    written."""
    row = "Q9: " + "; ".join(f"列{n}: {n * 11}" for n in range(1, 60)) + "; 检测方法：提取外周血基因组 DNA"
    quote = answer_quote(row, "Q9的检测方法是什么")
    assert quote.startswith("Q9: 列1: 11; 列2: 22;") and quote.endswith("; …; 检测方法：提取外周血基因组 DNA"), quote
    assert len(quote) <= QUOTE_CHARS
