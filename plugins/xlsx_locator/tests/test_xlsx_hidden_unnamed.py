"""A row the evidence quotes whole is claimed exact only when the query names something in it.

nc25a (round 25): "recipe for sourdough bread starter hydration" (and "net retention rate") was cited exact on
``docling__xlsx_04_inflated.xlsx`` ``Sheet4!A1``, a hidden sheet's lone cell "header", the reason saying "the query
names this one: Sheet4!A1 (hidden)". LightRAG's chunk ended on that sheet ("# Sheet4 / header / 1"); the matcher
found no row above its threshold, and the row the evidence quotes whole was taken as named by the query."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS

from mnote_kr.models import LocateRequest
from mnote_kr_xlsx_locator import locate

BOOK = CORPUS / "xlsx" / "docling__xlsx_04_inflated.xlsx"
#: The end of LightRAG's chunk of the workbook as nc25a's index held it (chunk-001), and the evidence cut from it.
PASSAGE = "| 7\n\n8 | 9\n\n10\n\n# Sheet4\n\nheader\n\n1"
EVIDENCE = "# Sheet4\n\nheader\n\n1"


@pytest.fixture
def book(tmp_path: Path) -> Path:
    path = tmp_path / "inflated.xlsx"
    shutil.copyfile(BOOK, path)
    return path


@pytest.mark.parametrize("query", ["recipe for sourdough bread starter hydration", "net retention rate"])
def test_a_hidden_cell_the_query_names_nothing_of_is_not_exact(book: Path, query: str) -> None:
    before = hashlib.sha256(book.read_bytes()).digest()
    loc = locate(LocateRequest(file=str(book), evidence=EVIDENCE, passage=PASSAGE, query=query))
    assert loc.locator_degraded, loc.locator_reason
    reason = loc.locator_reason or ""
    assert "the query names this one" not in reason
    if loc.sheet == "Sheet4":  # still cited there: it says the cell is hidden
        assert "(hidden)" in reason
    assert hashlib.sha256(book.read_bytes()).digest() == before


def test_the_hidden_cell_the_query_names_stays_exact(book: Path) -> None:
    loc = locate(LocateRequest(file=str(book), evidence=EVIDENCE, passage=PASSAGE, query="header"))
    assert (loc.sheet, loc.range, loc.locator_degraded) == ("Sheet4", "A1", False), loc.locator_reason
    assert "(hidden)" in (loc.locator_reason or "")
