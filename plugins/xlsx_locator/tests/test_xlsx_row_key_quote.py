"""A cited cell's quote tells its row from the others of the same label: the first column that does rides with it.

nc24d asked docling's sales workbook for Widget C's revenue on 7 January 2024: the cited D8 read
"Widget C, Revenue: 15000" and another place behind it "Widget C, Revenue: 5000": Widget C has several rows, and
without their dates the two could not be told apart without opening the file. A row whose label is its own keeps
the short quote ("Buzzard, Wingspan (cm): 120").
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import openpyxl
import pytest

from mnote_kr.models import LocateRequest, Locator
from mnote_kr.plugins import load_plugins

# Region | Quarter | Units | Sales: every region has four quarters; units repeat across them, quarters never do
ROWS = [
    ["North", "Q1", 10, 1200], ["North", "Q2", 10, 1350], ["North", "Q3", 12, 1500], ["North", "Q4", 9, 1100],
    ["South", "Q1", 7, 800], ["South", "Q2", 8, 950], ["South", "Q3", 7, 870], ["South", "Q4", 11, 1400],
]


@pytest.fixture
def book(tmp_path: Path) -> Path:
    wb = openpyxl.Workbook()
    sheet = wb.active
    assert sheet is not None
    sheet.title = "Sales"
    for row in [["Region", "Quarter", "Units", "Sales"], *ROWS]:
        sheet.append(row)
    sheet["F1"], sheet["G1"] = "Team", "Lead"  # a second table, each label once
    for n, (team, lead) in enumerate([("Alpha", "Ana"), ("Beta", "Ben"), ("Gamma", "Gil")], start=2):
        sheet[f"F{n}"], sheet[f"G{n}"] = team, lead
    path = tmp_path / "sales.xlsx"
    wb.save(path)
    return path


def _locate(path: Path, query: str) -> Locator:
    plugins = load_plugins(None)
    return plugins.locate(LocateRequest(file=str(path), evidence=plugins.extract_text(str(path)), query=query))


def test_a_cell_of_a_label_with_many_rows_is_quoted_with_the_column_telling_them_apart(book: Path) -> None:
    before = hashlib.sha256(book.read_bytes()).digest()
    loc = _locate(book, "North sales in Q3")
    assert (loc.range, loc.row_label) == ("D4", "North"), loc.locator_reason
    # Quarter, not Units: North's units repeat (10, 10), its quarters do not
    assert loc.quote == "North: Quarter: Q3; Sales: 1500", loc.quote
    assert hashlib.sha256(book.read_bytes()).digest() == before


def test_a_cell_of_a_label_with_one_row_keeps_its_short_quote(book: Path) -> None:
    loc = _locate(book, "Who is the lead of team Beta?")
    assert (loc.range, loc.quote) == ("G3", "Beta, Lead: Ben"), (loc.range, loc.quote, loc.locator_reason)


def test_a_label_cell_cited_alone_is_quoted_with_the_column_telling_its_rows_apart(book: Path) -> None:
    # nc24d's place behind Widget C's revenue read "Product: Widget C": which of Widget C's rows, it did not say
    from mnote_kr_xlsx_locator.locating import reading
    from mnote_kr_xlsx_locator.reader import load_xlsx

    (row,) = [p for p in load_xlsx(book).paragraphs if p.sheet == "Sales" and p.row == 7]  # South, Q2
    assert reading(row, [1]) == "Region: South; Quarter: Q2"
    (beta,) = [p for p in load_xlsx(book).paragraphs if p.cells and p.cells[0] == (6, "Beta")]
    assert reading(beta, [6]) == "Team: Beta"
