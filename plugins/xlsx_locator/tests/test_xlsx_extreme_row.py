"""A which-question with a superlative naming a numeric column is answered by the row holding its extreme.

nc18b problem 4: "Which product had the highest quantity sold in a single day?" over docling's sales workbook
cited the header row SalesData!A1:D1, and the rows behind it held a quantity of 9; the highest, 12, is in rows
8 (Widget C) and 19 (Widget B). The evidence window holds the header and the first rows only: no row it
quotes answers, the whole column does. Ties: the first tied row is cited, the others first behind it, and
the place is claimed approximate (the question has more than one answer). The rule does not fire when the
question names no column, or the column holds text.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import openpyxl
import pytest
from mnote_kr_testkit.workbooks import locate_in_whole_book

SALES = Path(__file__).resolve().parents[3] / "tests" / "data" / "corpus" / "xlsx" / \
    "docling__xlsx_02_sample_sales_data.xlsm"


def _extreme_rows(column: str, pick) -> list[int]:  # type: ignore[no-untyped-def]
    """The rows of SalesData holding ``pick`` (max or min) of ``column``, read with openpyxl."""
    wb = openpyxl.load_workbook(SALES, read_only=True)
    try:
        rows = list(wb["SalesData"].iter_rows(values_only=True))
    finally:
        wb.close()
    k = rows[0].index(column)
    best = pick(r[k] for r in rows[1:] if isinstance(r[k], int | float))
    return [i + 2 for i, r in enumerate(rows[1:]) if r[k] == best]


def _row(rng: str | None) -> int:
    return int("".join(ch for ch in (rng or "").split(":")[0] if ch.isdigit()))


def test_the_row_holding_the_highest_quantity_answers_ties_behind_it(plugins) -> None:  # type: ignore[no-untyped-def]
    before = hashlib.sha256(SALES.read_bytes()).digest()
    tied = _extreme_rows("Quantity", max)
    assert len(tied) == 2  # the workbook's own tie: 12 on two days
    loc = locate_in_whole_book(plugins, SALES, "Which product had the highest quantity sold in a single day?")
    assert (loc.sheet, _row(loc.range)) == ("SalesData", tied[0]), (loc.range, loc.locator_reason)
    assert loc.quote is not None and "12" in loc.quote and "Widget C" in loc.quote, loc.quote
    assert loc.locator_degraded, "two rows tie: the place is one answer of two, claimed approximate"
    assert "highest Quantity" in loc.locator_reason and f"row {tied[1]}" in loc.locator_reason, loc.locator_reason
    assert _row(loc.runners_up[0].range) == tied[1], [r.range for r in loc.runners_up]
    assert hashlib.sha256(SALES.read_bytes()).digest() == before


@pytest.mark.parametrize(("query", "column", "pick"), [
    ("Which product had the lowest revenue?", "Revenue", min),
    ("Which product had the largest revenue?", "Revenue", max),
    ("哪个产品的Revenue最高？", "Revenue", max),
])
def test_a_single_extreme_row_is_cited(plugins, query: str, column: str, pick) -> None:  # type: ignore[no-untyped-def]
    (row,) = _extreme_rows(column, pick)
    loc = locate_in_whole_book(plugins, SALES, query)
    assert (loc.sheet, _row(loc.range)) == ("SalesData", row), (loc.range, loc.locator_reason)


def _grades(tmp_path: Path) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Grades"
    ws.append(["Student", "Grade", "Score"])
    for name, grade, score in [("Ann", "B", 71), ("Bob", "A", 93), ("Cid", "C", 58), ("Dee", "B", 77)]:
        ws.append([name, grade, score])
    path = tmp_path / "grades.xlsx"
    wb.save(path)
    return path


def test_a_unique_extreme_in_distinct_rows_is_exact(plugins, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    book = _grades(tmp_path)
    loc = locate_in_whole_book(plugins, book, "Which student had the lowest score?")
    assert (loc.sheet, _row(loc.range), loc.locator_degraded) == ("Grades", 4, False), (loc.range, loc.locator_reason)
    assert "Cid" in (loc.quote or ""), loc.quote


def test_no_extreme_for_a_column_of_text(plugins, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    book = _grades(tmp_path)
    loc = locate_in_whole_book(plugins, book, "Which student had the highest grade?")
    assert "highest" not in (loc.locator_reason or ""), loc.locator_reason
    assert _row(loc.range) != 3 or loc.locator_degraded, (loc.range, loc.locator_reason)  # "A" is no maximum


def test_no_extreme_when_the_question_names_no_column(plugins) -> None:  # type: ignore[no-untyped-def]
    loc = locate_in_whole_book(plugins, SALES, "Which product was the most popular?")
    assert "most" not in (loc.locator_reason or "").split(":")[0], loc.locator_reason
    assert _row(loc.range) not in _extreme_rows("Quantity", max) + _extreme_rows("Revenue", max), loc.range


BOOK = SALES.parent / "docling__xlsx_01.xlsx"


@pytest.mark.parametrize("query", ["Sheet1 中 third 列最小的值是多少", "Sheet1 third 列最小值"])
def test_a_chinese_question_asking_a_columns_lowest_value_is_cited_on_that_cell(plugins, query: str) -> None:  # type: ignore[no-untyped-def]
    # nc21a Q23: the header C1 was cited; Sheet1's column "third" (C) holds 9, 6, 3, 0, -3, -6, lowest in C7
    before = hashlib.sha256(BOOK.read_bytes()).digest()
    wb = openpyxl.load_workbook(BOOK, read_only=True)
    try:
        rows = list(wb["Sheet1"].iter_rows(values_only=True))
    finally:
        wb.close()
    k = [str(h).strip() for h in rows[0]].index("third")
    lowest = min(r[k] for r in rows[1:])
    row = next(i + 2 for i, r in enumerate(rows[1:]) if r[k] == lowest)
    loc = locate_in_whole_book(plugins, BOOK, query)
    assert (loc.sheet, loc.range, loc.locator_degraded) == ("Sheet1", f"C{row}", False), (loc.range, loc.locator_reason)
    assert str(lowest) in (loc.quote or ""), loc.quote
    assert hashlib.sha256(BOOK.read_bytes()).digest() == before


DUCKS = SALES.parent / "docling__xlsx_05_table_with_title.xlsx"


@pytest.mark.parametrize(("query", "pick"), [
    ("淡水鸭数量最多的是哪一年？", max),
    ("淡水鸭数量最少的是哪一年？", min),
    ("哪一年的淡水鸭最多？", max),
])
def test_a_chinese_which_year_question_over_english_headers_is_cited_on_the_extreme_row(
        plugins, query: str, pick) -> None:  # type: ignore[no-untyped-def]
    # nc22a Q5: the title B2 "Number of freshwater ducks per year" was cited (approximate), and the row asked was not
    # behind it; the English "Which year had the most freshwater ducks?" reached B10:C10. 淡水 is "fresh water",
    # 鸭 "duck" (the dictionary): the question names the column Freshwater Ducks; 哪一年 asks Year, no column to rank
    before = hashlib.sha256(DUCKS.read_bytes()).digest()
    wb = openpyxl.load_workbook(DUCKS, read_only=True)
    try:
        cells = {c.coordinate: c.value for r in wb["Duck Observations"].iter_rows() for c in r if c.value is not None}
    finally:
        wb.close()
    ducks = {int(k[1:]): v for k, v in cells.items() if k.startswith("C") and isinstance(v, int)}
    row = next(r for r, v in ducks.items() if v == pick(ducks.values()))
    loc = locate_in_whole_book(plugins, DUCKS, query)
    assert (loc.sheet, loc.range, loc.locator_degraded) == ("Duck Observations", f"B{row}:C{row}", False), \
        (loc.range, loc.locator_reason)
    assert "Freshwater Ducks" in (loc.locator_reason or ""), loc.locator_reason
    assert str(cells[f"B{row}"]) in (loc.quote or "") and str(ducks[row]) in (loc.quote or ""), loc.quote
    assert hashlib.sha256(DUCKS.read_bytes()).digest() == before
