"""A header row holding the asked attribute over a single data row: the data row answers, not the header.

nc17b: "what is the objective on the second sheet" over docling's xlsx_emf.xlsx (each sheet a "Name |
Objective" header on row 12 over one row) was cited on the header cell C12 "Name, Objective"; the answer,
"Test image in EMF format", is row 13. The header holds every word the question asks with, so the host's
header-to-row rule (``tablerows.asked_row``) found no other word to choose a row by; with one data row under
the header there is nothing to choose: it is the row.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mnote_kr.citations.text.tablerows import asked_row
from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins
from tests.test_named_place_of_file import emf_like_workbook


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")


def test_asked_row_is_the_single_row_under_a_header_holding_the_asked_word() -> None:
    assert asked_row("what is the objective", ["Name", "Objective"], [["Vector in emf", "Test image"]]) == (0, 1)
    # two rows under it: which one is meant is not said
    assert asked_row("what is the objective", ["Name", "Objective"], [["a", "x"], ["b", "y"]]) is None


@pytest.mark.parametrize(("query", "sheet", "value"), [
    ("what is the objective on the second sheet", "Vector in emf", "Test image in EMF format"),
    ("what is the objective on the third sheet", "Raster in webp", "Test image in WebP format"),
    ("what is the objective on the sheet 'Vector in emf'", "Vector in emf", "Test image in EMF format"),
])
def test_a_sheets_objective_is_cited_on_its_value_row(tmp_path: Path, query: str, sheet: str, value: str) -> None:
    book = emf_like_workbook(tmp_path / "xlsx_emf.xlsx")
    plugins = load_plugins(None)
    text = plugins.extract_text(str(book))
    loc = plugins.locate(LocateRequest(file=str(book), evidence=text, passage=text, query=query))
    assert loc.sheet == sheet and (loc.range or "").endswith("13"), (loc.sheet, loc.range, loc.locator_reason)
    assert value in (loc.quote or ""), loc.quote


def test_a_docx_header_over_one_row_cites_the_row(tmp_path: Path) -> None:
    import docx

    d = docx.Document()
    d.add_paragraph("Test images")
    table = d.add_table(rows=2, cols=2)
    for cell, text in zip(table.rows[0].cells + table.rows[1].cells,
                          ("Name", "Objective", "Vector in emf", "Test image in EMF format"), strict=True):
        cell.text = text
    path = tmp_path / "objective.docx"
    d.save(str(path))
    plugins = load_plugins(None)
    evidence = "Test images\nName Objective"
    request = LocateRequest(file=str(path), evidence=evidence, passage=evidence, query="what is the objective")
    loc = plugins.locate(request)
    assert "Test image in EMF format" in (loc.quote or ""), (loc.paragraph_index, loc.quote, loc.locator_reason)
