"""A table's header names a column for every row: the row holding the query's other words is the place.

A newcomer asked "kestrel wingspan" over a sheet headed ``Bird | Wingspan (cm) | Weight (g) | ...`` and was
cited the header row, because the header holds "wingspan" and the host's evidence window (centred where the
query's words cluster) held the header and the rows under it, not Kestrel's row further down the chunk. The
row key ("kestrel") is in the chunk LightRAG returned (the passage): that row, under the header's column, is
the answer. A query only about the columns still cites the header. The chunk goes through the host's
cleaning to the locator's evidence window, as ``pipeline.search`` sends it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import openpyxl
import pytest

from mnote_kr.citations.cleaning import clean_citation_text
from mnote_kr.models import LocateRequest, Locator
from mnote_kr.plugins import load_plugins

HEADER = ["Bird", "Wingspan (cm)", "Weight (g)", "Habitat", "Diet", "Status"]
BIRDS = [
    ["Buzzard", 120, 900, "woodland", "rabbits", "green"],
    ["Barn owl", 89, 300, "farmland", "voles", "amber"],
    ["Sparrowhawk", 62, 250, "woodland", "small birds", "green"],
    ["Peregrine", 102, 800, "coast", "pigeons", "green"],
    ["Red kite", 175, 1000, "farmland", "carrion", "green"],
    ["Hobby", 80, 220, "heath", "dragonflies", "green"],
    ["Merlin", 60, 190, "moor", "pipits", "red"],
    ["Kestrel", 76, 200, "farmland", "voles", "amber"],
    ["Goshawk", 150, 1100, "forest", "pigeons", "green"],
    ["Osprey", 160, 1500, "lakes", "fish", "amber"],
]


@pytest.fixture
def book(tmp_path: Path) -> Path:
    wb = openpyxl.Workbook()
    sheet = wb.active
    assert sheet is not None
    sheet.title = "Birds"
    for row in [HEADER, *BIRDS]:
        sheet.append(row)
    path = tmp_path / "birds.xlsx"
    wb.save(path)
    return path


def _locate(path: Path, query: str) -> Locator:
    plugins = load_plugins(None)
    chunk = plugins.extract_text(str(path))  # the whole sheet: one chunk, as LightRAG gets it
    evidence = clean_citation_text(chunk, query).locator_evidence_text  # the window search sends
    return plugins.locate(LocateRequest(file=str(path), evidence=evidence, passage=chunk, query=query))


def test_a_row_key_and_a_column_word_cite_the_keyed_rows_cell_not_the_header(book: Path) -> None:
    before = hashlib.sha256(book.read_bytes()).digest()
    kestrel = 2 + [b[0] for b in BIRDS].index("Kestrel")
    for query in ("kestrel wingspan", "What is the wingspan of a kestrel?"):
        loc = _locate(book, query)
        assert (loc.locator_precision, loc.sheet, loc.range, loc.locator_degraded) == (
            "cell", "Birds", f"B{kestrel}", False), (query, loc.locator_reason)
        assert loc.quote == "Kestrel, Wingspan (cm): 76"
        assert "past the evidence" in loc.locator_reason
    assert hashlib.sha256(book.read_bytes()).digest() == before


def test_a_query_only_about_the_columns_still_cites_the_header(book: Path) -> None:
    loc = _locate(book, "which columns does the bird table have")
    assert (loc.locator_precision, loc.range) == ("cell", "A1:F1")


def test_a_plural_row_key_cites_the_keyed_rows_cell_not_the_header(book: Path) -> None:
    """ "Kestrels wingspan": the query says the row key in the plural, the sheet says "Kestrel" (as the
    host's query terms meet a plural elsewhere, ``queryterms``); the row is still the place, not the header."""
    kestrel = 2 + [b[0] for b in BIRDS].index("Kestrel")
    for query in ("Kestrels wingspan", "What wingspan do kestrels have?"):
        loc = _locate(book, query)
        assert (loc.locator_precision, loc.sheet, loc.range, loc.locator_degraded) == (
            "cell", "Birds", f"B{kestrel}", False), (query, loc.locator_reason)
        assert loc.quote == "Kestrel, Wingspan (cm): 76"
