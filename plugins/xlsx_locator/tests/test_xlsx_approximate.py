"""A workbook's row holding few of the query's words is an approximate place (``locatorDegraded``): one rule
with the DOCX, PDF, OCR and PPTX locators (``placing.QUERY_SHARE``). Before, the matcher's reason said the
row "holds few of the query's words" while the cell was claimed exactly."""

from __future__ import annotations

import hashlib
from pathlib import Path

from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins


def test_a_row_holding_few_of_the_querys_words_is_approximate(tmp_path: Path) -> None:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    for row in [("Step", "Owner"), ("Finalize pricing model", "Ann"), ("Launch APAC campaign", "Bo"),
                ("Hire 3 additional SEs", "Cy")]:
        ws.append(row)
    path = tmp_path / "plan.xlsx"
    wb.save(path)
    before = hashlib.sha256(path.read_bytes()).digest()
    plugins = load_plugins(None)
    text = plugins.extract_text(str(path))
    ask = lambda query: plugins.locate(LocateRequest(  # noqa: E731
        file=str(path), evidence=text, passage=text, query=query))
    loc = ask("how many sales engineers will be recruited")
    assert (loc.locator_precision, loc.locator_degraded) == ("cell", True), loc.locator_reason
    # a row holding the query's words stays exact
    loc = ask("who owns the APAC campaign launch")
    assert (loc.range, loc.locator_degraded) == ("B3", False), loc.locator_reason
    assert hashlib.sha256(path.read_bytes()).digest() == before


def test_a_row_holding_the_date_the_query_asks_for_stays_exact(tmp_path: Path) -> None:
    """A question in other words (Chinese over an English sheet) holds few of the row's words, but the row
    holds the date it asks for: that anchors it, as a word would (the xlsm question of the real-engine test)."""
    import datetime

    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "SalesData"
    ws.append(("Product", "Date", "Quantity", "Revenue"))
    for product, day, qty, revenue in [("Widget A", 5, 10, 12500), ("Widget B", 6, 8, 9600),
                                       ("Widget C", 7, 12, 15000), ("Widget A", 8, 11, 13750)]:
        ws.append((product, datetime.datetime(2024, 1, day), qty, revenue))
    path = tmp_path / "sales.xlsx"
    wb.save(path)
    plugins = load_plugins(None)
    text = plugins.extract_text(str(path))
    loc = plugins.locate(LocateRequest(file=str(path), evidence=text, passage=text,
                                       query="2024-01-07 的销售额"))  # "sales on 2024-01-07": no word of the sheet
    assert loc.range is not None and loc.range.endswith("4"), loc  # the row of 2024-01-07
    assert not loc.locator_degraded, loc.locator_reason
