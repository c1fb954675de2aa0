"""A query naming a sheet ("North 2023 on the Costs sheet", "sheet 'Costs'", "the second sheet", "工作表
Costs") is cited on that sheet's row, the evidence's row first behind it; a sheet the workbook lacks
leaves the citation where the evidence is."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins


@pytest.fixture()
def ledger(tmp_path: Path) -> Path:
    from openpyxl import Workbook

    wb = Workbook()
    sales = wb.active
    sales.title = "Sales"
    for row in (["Region", "2022", "2023"], ["North", 120, 140], ["South", 90, 95], ["Total", 210, 235]):
        sales.append(row)
    costs = wb.create_sheet("Costs")
    for row in (["Region", "2022", "2023"], ["North", 70, 75], ["South", 60, 66], ["Total", 130, 141]):
        costs.append(row)
    path = tmp_path / "ledger.xlsx"
    wb.save(path)
    return path


def _locate(path: Path, query: str):  # type: ignore[no-untyped-def]
    """The locator of the workbook's own text as one passage (a small workbook is one chunk)."""
    plugins = load_plugins(None)
    text = plugins.extract_text(str(path))
    bundle = plugins.clean_text(text, query, None)
    return plugins.locate(LocateRequest(file=str(path), evidence=bundle.locator_evidence_text, query=query,
                                        passage=text))


@pytest.mark.parametrize("query", ["North 2023 on the Costs sheet", "what is North in 2023 on sheet 'Costs'",
                                   "North 2023, the second sheet", "工作表 Costs 中 North 2023"])
def test_a_question_naming_a_sheet_is_cited_on_that_sheets_row(ledger: Path, query: str) -> None:
    before = hashlib.sha256(ledger.read_bytes()).digest()
    assert (_locate(ledger, "North 2023").sheet, _locate(ledger, "North 2023").range) == ("Sales", "C2")
    loc = _locate(ledger, query)
    assert (loc.locator_precision, loc.locator_degraded, loc.sheet, loc.range, loc.quote) == (
        "cell", False, "Costs", "C2", "North, 2023: 75")
    behind = loc.runners_up[0]
    assert (behind.sheet, behind.range, behind.locator_degraded) == ("Sales", "C2", True)  # the evidence's row
    assert hashlib.sha256(ledger.read_bytes()).digest() == before


@pytest.mark.parametrize("query", ["North 2023 on the Profit sheet", "North 2023 on the fourth sheet",
                                   "North 2023 balance sheet", "North 2023 for 2 sheets"])
def test_a_sheet_the_workbook_lacks_leaves_the_evidences_row(ledger: Path, query: str) -> None:
    loc = _locate(ledger, query)
    assert (loc.sheet, loc.range) == ("Sales", "C2") and "names sheet" not in loc.reason


DOCLING_XLSX = Path(__file__).resolve().parents[3] / "tests" / "data" / "corpus" / "xlsx" / "docling__xlsx_01.xlsx"


@pytest.mark.parametrize("query", ["Sheet 4 values", "values on sheet 9", "the fourth sheet's values"])
def test_a_named_sheet_without_the_passages_rows_chooses_as_if_none_were_named(query: str) -> None:
    """Sheet4 of docling's workbook is empty: "Sheet 4" names no row there, and its 4 names no row label."""
    before = hashlib.sha256(DOCLING_XLSX.read_bytes()).digest()
    plain = _locate(DOCLING_XLSX, "values")
    loc = _locate(DOCLING_XLSX, query)
    assert (loc.sheet, loc.range, loc.locator_degraded, loc.quote) == (
        plain.sheet, plain.range, plain.locator_degraded, plain.quote)
    assert "the query names this one" not in loc.reason and "names sheet" not in loc.reason
    assert hashlib.sha256(DOCLING_XLSX.read_bytes()).digest() == before


@pytest.mark.parametrize("query, cell", [("what is the col-4 value in row 9 of Sheet2?", "D9"),
                                         ("col-4 in row 3 of Sheet2", "D3")])
def test_a_row_named_by_its_number_is_that_row_not_one_holding_the_number(query: str, cell: str) -> None:
    """nc23c problem 4: Sheet2's rows 2-9 read i, 2i, 3i, 4i (row 9: 8, 16, 24, 32); "row 9" cited D4, the row
    holding the value 9."""
    from openpyxl import load_workbook

    before = hashlib.sha256(DOCLING_XLSX.read_bytes()).digest()
    sheet = load_workbook(DOCLING_XLSX)["Sheet2"]
    loc = _locate(DOCLING_XLSX, query)
    assert (loc.sheet, loc.range, loc.locator_precision) == ("Sheet2", cell, "cell")
    assert loc.quote == f"col-1: {sheet[f'A{cell[1:]}'].value}; col-4: {sheet[cell].value}"
    assert hashlib.sha256(DOCLING_XLSX.read_bytes()).digest() == before
