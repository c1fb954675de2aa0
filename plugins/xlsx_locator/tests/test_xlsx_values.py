"""Dates and numbers chose rows as values (``cellvalues``): "12,155" is the cell's 12155, not the words
"12" and "155" another row holds; "3.0" its 3; "1/7/2024" either 7 January or 1 July, whichever the rows
hold, and neither when they hold both. Workbooks written here with openpyxl, dates as real date cells."""

from __future__ import annotations

import datetime
import hashlib
from pathlib import Path

from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins


def _book(path: Path, head: list[str], rows: list[list[object]]) -> Path:
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Data"
    ws.append(head)
    for row in rows:
        ws.append(row)
    wb.save(path)
    return path


def _cited_row(path: Path, query: str) -> tuple[int, bool, str]:
    plugins = load_plugins(None)
    text = plugins.extract_text(str(path))
    loc = plugins.locate(LocateRequest(file=str(path), evidence=text, passage=text, query=query))
    return int("".join(ch for ch in (loc.range or "").split(":")[0] if ch.isdigit())), loc.locator_degraded, \
        loc.locator_reason


def test_a_number_written_with_separators_is_the_cells_value_not_its_pieces(tmp_path: Path) -> None:
    path = _book(tmp_path / "checks.xlsx", ["State", "Permit", "Long gun"],
                 [["Ohio", 12, 155], ["Kentucky", 12155, 3], ["Alabama", 30, 0.3]])
    before = hashlib.sha256(path.read_bytes()).digest()
    assert _cited_row(path, "Which state ran 12,155 checks?")[0] == 3  # Ohio's 12 and 155 are other numbers
    assert _cited_row(path, "Which state had 3.0 long guns?")[0] == 3  # Alabama's 30 and 0.3 are not 3
    assert _cited_row(path, "Which state had 30 permits?")[0] == 4  # a plain number as the cell writes it
    assert hashlib.sha256(path.read_bytes()).digest() == before


def _sales(path: Path, days: list[tuple[str, datetime.date]]) -> Path:
    return _book(path, ["Product", "Date", "Revenue"],
                 [[name, datetime.datetime.combine(day, datetime.time()), 100 * (i + 1)]
                  for i, (name, day) in enumerate(days)])


def test_a_day_and_month_either_way_round_finds_the_one_reading_the_rows_hold(tmp_path: Path) -> None:
    path = _sales(tmp_path / "july.xlsx", [("Widget C", datetime.date(2024, 3, 3)),
                                           ("Widget C", datetime.date(2024, 7, 1)),
                                           ("Widget C", datetime.date(2024, 1, 8))])
    row, degraded, why = _cited_row(path, "Widget C revenue on 1/7/2024")
    assert (row, degraded) == (3, False), why  # 1 July: no row holds 7 January


def test_a_day_and_month_the_rows_hold_both_ways_round_chooses_no_row_by_the_date(tmp_path: Path) -> None:
    from mnote_kr_xlsx_locator.cellvalues import asked_values, decisive
    from mnote_kr_xlsx_locator.locating import named_row
    from mnote_kr_xlsx_locator.reader import load_xlsx

    days = [("Widget C", datetime.date(2024, 7, 1)), ("Widget C", datetime.date(2024, 1, 7)),
            ("Widget C", datetime.date(2024, 1, 8))]
    both = load_xlsx(_sales(tmp_path / "both.xlsx", days)).paragraphs[1:]
    query = "Widget C revenue on 1/7/2024"
    assert decisive(asked_values(query), both) == ()
    assert named_row(both, query) is None  # a tie: the date tells 1 July and 7 January apart no better
    assert named_row(both, "Widget C revenue on 13/1/2024") is None  # no row of that day: words alone tie
    assert named_row(both, "Widget C revenue on 7 January 2024") is both[1]  # written unambiguously


def test_a_row_past_the_evidence_holding_the_date_only_does_not_replace_the_items_row(tmp_path: Path) -> None:
    """A daily log whose first column (its rows' label) is the date. LightRAG's chunk starts with the last sale of
    2024-01-07 (Widget E) and goes on with 2024-01-08; the evidence's window is Widget C's row of the 8th. Asked
    "Widget C on 2024-01-07", that row holds the item and not the day (an approximate place, said so); Widget E's
    row holds the day and not the item: citing it as the exact answer names the wrong product."""
    from mnote_kr_xlsx_locator.reader import load_xlsx

    days = [datetime.datetime(2024, 1, d) for d in (7, 8)]
    path = _book(tmp_path / "log.xlsx", ["Date", "Product", "Units", "Revenue"],
                 [[day, f"Widget {p}", 10 * k + i, 100 * (10 * k + i)] for k, day in enumerate(days)
                  for i, p in enumerate("ABCDE")])
    before = hashlib.sha256(path.read_bytes()).digest()
    rows = [p.text for p in load_xlsx(path).paragraphs]
    passage = "\n".join(rows[5:])  # Widget E of the 7th, then the 8th
    assert rows[5].startswith("2024-01-07") and "Widget E" in rows[5]
    loc = load_plugins(None).locate(LocateRequest(file=str(path), evidence="\n".join(rows[7:10]), passage=passage,
                                                  query="What was the revenue of Widget C on 2024-01-07?"))
    cited = int("".join(ch for ch in (loc.range or "").split(":")[0] if ch.isdigit()))
    assert cited == 9, (loc.range, loc.quote)  # Widget C's row of the 8th, not Widget E's (row 6)
    assert loc.locator_degraded and "another date" in loc.locator_reason, loc.locator_reason
    assert hashlib.sha256(path.read_bytes()).digest() == before
