"""A cell comment is an exact place only when its words hold what the query asks, and a table's crossing the
query names by its row label and its column header outranks a comment holding a part of the query's words.
The evidence is the host's query-centred window of the workbook's text (``clean_text``), as ``search`` sends
it; the expected cells are read from the workbook with openpyxl, not from this plugin."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from mnote_kr.models import LocateRequest

CORPUS = Path(__file__).resolve().parents[3] / "tests" / "data" / "corpus"
COMMENTED = CORPUS / "xlsx" / "docling__xlsx_comments.xlsx"


@pytest.fixture(autouse=True)
def _no_locate_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")


def _locate(plugins, query: str):  # type: ignore[no-untyped-def]
    text = plugins.extract_text(str(COMMENTED))
    evidence = plugins.clean_text(text, query, None).locator_evidence_text
    return plugins.locate(LocateRequest(file=str(COMMENTED), evidence=evidence, passage=text, query=query))


def test_the_row_and_column_the_query_names_beat_a_note_holding_one_of_its_words(plugins) -> None:  # type: ignore[no-untyped-def]
    from openpyxl import load_workbook

    before = hashlib.sha256(COMMENTED.read_bytes()).digest()
    sheet = load_workbook(COMMENTED).active
    assert (sheet["D9"].value, sheet["E6"].value, sheet["E9"].value) == (2021, "Freshwater Ducks", 150)
    assert sheet["F7"].comment is not None and sheet["F6"].value == "Saltwater Ducks"
    loc = _locate(plugins, "freshwater ducks 2021")
    assert (loc.locator_precision, loc.locator_degraded, loc.sheet, loc.range) == ("cell", False, "Sheet1", "E9"), \
        loc.locator_reason
    assert loc.quote == "Year: 2021; Freshwater Ducks: 150"
    # the note on the 2019 saltwater count is behind it, never exact
    assert all(r.range != "F7" or r.locator_degraded for r in loc.runners_up)
    assert hashlib.sha256(COMMENTED.read_bytes()).digest() == before


def test_a_note_whose_author_holds_the_querys_word_is_not_exact(plugins) -> None:  # type: ignore[no-untyped-def]
    """"sample reviewer comment": "reviewer" is only in the author's name (John Reviewer) and "sample" in
    no cell: the note on A1 says "Why Python specifically?", none of the query's words. "comment by John
    Reviewer" names the author whole: that note is what is asked for."""
    loc = _locate(plugins, "sample reviewer comment")
    assert loc.range == "A1" and loc.locator_degraded, loc.locator_reason
    assert "only some of the query's" in loc.locator_reason
    # asked for by its author's whole name, or in its own words, a note stays exact
    by_name = _locate(plugins, "comment by John Reviewer")
    assert (by_name.range, by_name.locator_degraded, by_name.quote) == ("A1", False, "Why Python specifically?")
    by_words = _locate(plugins, "Minimum number of saltwater ducks")
    assert (by_words.range, by_words.locator_degraded) == ("F7", False)
