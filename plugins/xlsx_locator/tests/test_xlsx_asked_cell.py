"""The cell a question asks for, when the question's words name the row by another of its cells.

"Who wrote A Brief History of Time?" names the row by its title and asks for a column no word of it
names ("wrote": Author). The title's cell is what the question gives, not its answer: the row's cell
the question means is cited (its header chosen by meaning), the title's cell first behind it; without
the meaning model, the row (which holds the answer), never the given cell as if it answered.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins

CORPUS = Path(__file__).resolve().parents[3] / "tests" / "data" / "corpus"
CATALOG = CORPUS / "xlsx" / "docling__xlsx_09_section_label_header.xlsx"


@pytest.fixture
def words_only(monkeypatch: pytest.MonkeyPatch) -> None:
    from mnote_kr.citations.rank import meaning

    # no workbook vectors and no remembered answer: rows by words; headers still by the model
    monkeypatch.setattr(meaning, "cosines", lambda *a, **k: None)
    monkeypatch.setattr(meaning, "nearest", lambda *a, **k: {})
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")


def _catalog_cells() -> dict[str, str]:
    """docling's ground truth of the catalog: text -> A1 cell."""
    truth = json.loads((CORPUS / "groundtruth" / "docling" / f"{CATALOG.name}.json").read_text(encoding="utf-8"))
    (table,) = truth["tables"]
    top, left = int(table["prov"][0]["bbox"]["t"]), int(table["prov"][0]["bbox"]["l"])
    return {c["text"]: f"{chr(65 + left + c['start_col_offset_idx'])}{top + c['start_row_offset_idx'] + 1}"
            for c in table["data"]["table_cells"]}


def test_who_wrote_a_title_cites_its_author_cell_and_the_title_behind(words_only: None) -> None:
    """The newcomer's question over docling's catalog: cited before as the title's cell (D4)."""
    at = _catalog_cells()
    before = hashlib.sha256(CATALOG.read_bytes()).digest()
    plugins = load_plugins(None)
    text = plugins.extract_text(str(CATALOG))
    for query in ("Who wrote A Brief History of Time?", "who is the writer of A Brief History of Time"):
        loc = plugins.locate(LocateRequest(file=str(CATALOG), evidence=text, passage=text, query=query))
        assert (loc.range, loc.headers, loc.quote) == (
            at["Stephen Hawking"], ["Author"], "#: 2; Author: Stephen Hawking")
        assert loc.locator_precision == "cell" and "by meaning" in loc.locator_reason, loc.locator_reason
        assert (loc.runners_up[0].range, loc.runners_up[0].headers) == (at["A Brief History of Time"], ["Title"])
    # a header the question names in words still decides, as before
    loc = plugins.locate(LocateRequest(file=str(CATALOG), evidence=text, passage=text,
                                       query="author of A Brief History of Time"))
    assert loc.range == at["Stephen Hawking"] and "by meaning" not in loc.locator_reason
    assert hashlib.sha256(CATALOG.read_bytes()).digest() == before


def test_without_the_meaning_model_the_row_is_cited_not_the_given_cell(words_only: None,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from mnote_kr.citations.rank import meaning

    monkeypatch.setattr(meaning, "query_vector", lambda text: None)  # the model is not installed
    at = _catalog_cells()
    plugins = load_plugins(None)
    text = plugins.extract_text(str(CATALOG))
    loc = plugins.locate(LocateRequest(file=str(CATALOG), evidence=text, passage=text,
                                       query="Who wrote A Brief History of Time?"))
    row = at["A Brief History of Time"][1:]
    assert loc.range == f"A{row}:G{row}" and "Author: Stephen Hawking" in (loc.quote or ""), (loc.range, loc.quote)


def test_a_label_naming_the_row_leaves_the_asked_value_to_its_header_by_meaning(tmp_path: Path,
                                                                                words_only: None) -> None:
    """Not the catalog: a staff sheet whose first column labels the rows and a countries sheet whose label
    is the country. The question names the row by the label or a value and asks in other words."""
    from openpyxl import Workbook

    wb = Workbook()
    staff = wb.active
    staff.title = "Staff"
    for row in (["#", "Name", "Department", "Salary", "Start date"], [1, "Maria Lopez", "Finance", 72000, "2019-03-04"],
                [2, "Tom Baker", "Sales", 55000, "2021-07-12"]):
        staff.append(row)
    countries = wb.create_sheet("Countries")
    for row in (["Country", "Capital", "Population", "Currency"], ["Japan", "Tokyo", "125 million", "Yen"],
                ["Kenya", "Nairobi", "54 million", "Shilling"]):
        countries.append(row)
    path = tmp_path / "people.xlsx"
    wb.save(path)
    before = hashlib.sha256(path.read_bytes()).digest()
    plugins = load_plugins(None)
    text = plugins.extract_text(str(path))
    for query, sheet, cell in (("How much does Maria Lopez earn?", "Staff", "D2"),
                               ("How many people live in Kenya?", "Countries", "C3")):
        loc = plugins.locate(LocateRequest(file=str(path), evidence=text, passage=text, query=query))
        assert (loc.sheet, loc.range) == (sheet, cell), (query, loc.sheet, loc.range, loc.locator_reason)
    # the question's words all stand in one cell and it asks nothing more: that cell, as before
    loc = plugins.locate(LocateRequest(file=str(path), evidence=text, passage=text, query="Maria Lopez"))
    assert (loc.sheet, loc.range) == ("Staff", "B2")
    assert hashlib.sha256(path.read_bytes()).digest() == before


def _staff_workbook(path: Path) -> Path:
    from openpyxl import Workbook

    wb = Workbook()
    staff = wb.active
    staff.title = "Staff"
    for row in (["#", "Name", "Department", "Salary", "Start date"], [1, "Maria Lopez", "Finance", 72000, "2019-03-04"],
                [2, "Tom Baker", "Sales", 55000, "2021-07-12"]):
        staff.append(row)
    wb.save(path)
    return path


def test_a_column_the_sheet_does_not_have_is_not_cited_as_another_chosen_by_meaning(tmp_path: Path,
                                                                                      words_only: None) -> None:
    """Review of r13: "Maria Lopez email" over a staff sheet without an email column was cited on Salary, "the
    column it asks for ... chosen by meaning". The Name cell holding the query's words (or the row) is cited."""
    path = _staff_workbook(tmp_path / "staff.xlsx")
    before = hashlib.sha256(path.read_bytes()).digest()
    plugins = load_plugins(None)
    text = plugins.extract_text(str(path))
    for query in ("Maria Lopez email", "What is Maria Lopez's email address?"):
        loc = plugins.locate(LocateRequest(file=str(path), evidence=text, passage=text, query=query))
        assert loc.range in ("B2", "A2:E2") and "by meaning" not in loc.locator_reason, (loc.range,
                                                                                         loc.locator_reason)
    # a column the sheet has, asked in other words, is still chosen
    loc = plugins.locate(LocateRequest(file=str(path), evidence=text, passage=text,
                                       query="How much does Maria Lopez earn?"))
    assert loc.range == "D2" and "by meaning" in loc.locator_reason
    assert hashlib.sha256(path.read_bytes()).digest() == before


@pytest.mark.parametrize("model", [True, False])
def test_a_two_column_sheet_does_not_cite_its_other_column_for_any_unrelated_question(
        tmp_path: Path, words_only: None, monkeypatch: pytest.MonkeyPatch, model: bool) -> None:
    """Review of r13: with one other header meant_header returned it unasked, model or not: "Is Maria Lopez on
    holiday?" over Name | Phone cited the phone cell, "chosen by meaning"."""
    from openpyxl import Workbook

    from mnote_kr.citations.rank import meaning

    if not model:
        monkeypatch.setattr(meaning, "query_vector", lambda text: None)  # the model is not installed
    wb = Workbook()
    sheet = wb.active
    sheet.title = "Contacts"
    for row in (["Name", "Phone"], ["Maria Lopez", "555-0101"], ["Tom Baker", "555-0199"]):
        sheet.append(row)
    path = tmp_path / "contacts.xlsx"
    wb.save(path)
    plugins = load_plugins(None)
    text = plugins.extract_text(str(path))
    loc = plugins.locate(LocateRequest(file=str(path), evidence=text, passage=text, query="Is Maria Lopez on holiday?"))
    assert "by meaning" not in (loc.locator_reason or ""), (loc.range, loc.locator_reason)
    assert loc.range in ("A2", "A2:B2"), loc.range
