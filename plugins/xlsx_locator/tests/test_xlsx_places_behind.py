"""The rows behind a workbook's cited one come from the passage's own rows, never from another sheet
that happens to repeat their words ("Total", a year, a sum)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins


@pytest.fixture()
def no_vectors(monkeypatch: pytest.MonkeyPatch) -> None:
    from mnote_kr.citations.rank import meaning

    # by words alone: no vectors for the workbook, no remembered answer
    monkeypatch.setattr(meaning, "cosines", lambda *a, **k: None)
    monkeypatch.setattr(meaning, "nearest", lambda *a, **k: {})
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")


def test_a_row_of_another_sheet_repeating_the_passages_words_is_not_behind_it(tmp_path: Path,
                                                                                no_vectors: None) -> None:
    from openpyxl import Workbook

    wb = Workbook()
    birds = wb.active
    birds.title = "Birds"
    for row in (["Species", "2022", "2023"], ["Mallard", 60, 80], ["Eider", 90, 95], ["Total", 150, 175]):
        birds.append(row)
    costs = wb.create_sheet("Costs")
    for row in (["Item", "2022", "2023"], ["Fuel", 70, 90], ["Nets", 80, 85], ["Total", 150, 175]):
        costs.append(row)
    path = tmp_path / "survey.xlsx"
    wb.save(path)
    plugins = load_plugins(None)
    text = plugins.extract_text(str(path))
    passage = text[:text.index("# Costs")]  # the provider's passage: sheet Birds only
    loc = plugins.locate(LocateRequest(file=str(path), evidence=passage, query="total in 2023", passage=passage))
    assert loc.sheet == "Birds"
    assert [r.sheet for r in loc.runners_up if r.sheet != "Birds"] == []
    # the same rows, the passage being sheet Costs: its rows stand behind, Birds' do not
    passage = text[text.index("# Costs"):]
    loc = plugins.locate(LocateRequest(file=str(path), evidence=passage, query="fuel and total in 2023",
                                       passage=passage))
    assert loc.sheet == "Costs" and loc.runners_up
    assert {r.sheet for r in loc.runners_up} == {"Costs"}


def test_ingest_does_not_parse_a_workbook_too_large_to_embed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from openpyxl import Workbook

    import mnote_kr_xlsx_locator as plugin
    from mnote_kr.citations.rank import meaning
    from mnote_kr_xlsx_locator import reader

    queued: list[int] = []
    monkeypatch.setattr(meaning, "queue", lambda texts: queued.append(len(texts)))
    monkeypatch.setattr(plugin, "MEANING_ROWS", 300)
    for rows in (400, 200):
        wb = Workbook(write_only=True)
        ws = wb.create_sheet("Tide gauge")
        ws.append(["Reading", "Metres"])
        for r in range(rows - 1):
            ws.append([f"reading {r}", r % 7])
        path = tmp_path / f"tides-{rows}.xlsx"
        wb.save(path)
        reader._cache.clear()
        plugin.prepare_locate(str(path))
        # over the cap: skipped before openpyxl reads a row; under it: parsed and its rows queued
        assert (reader._cache.stats["parses"], queued) == ((0, []) if rows > 300 else (1, [rows]))


def test_a_workbook_formatted_far_below_its_rows_is_still_embedded(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from openpyxl import Workbook
    from openpyxl.styles import PatternFill

    import mnote_kr_xlsx_locator as plugin
    from mnote_kr.citations.rank import meaning
    from mnote_kr_xlsx_locator import reader

    queued: list[int] = []
    monkeypatch.setattr(meaning, "queue", lambda texts: queued.append(len(texts)))
    wb = Workbook()
    ws = wb.active
    ws.title = "Tide gauge"
    ws.append(["Reading", "Metres"])
    for r in range(100):
        ws.append([f"reading {r}", r % 7])
    fill = PatternFill("solid", fgColor="FFFF00")
    for r in range(102, 9001):  # formatted down to row 9000, no values there
        ws.cell(r, 1).fill = fill
        ws.cell(r, 2).fill = fill
    path = tmp_path / "tides.xlsx"
    wb.save(path)
    with zipfile.ZipFile(path) as zf:
        assert b'<dimension ref="A1:B9000"/>' in zf.read("xl/worksheets/sheet1.xml")
    reader._cache.clear()
    plugin.prepare_locate(str(path))
    assert queued == [101]  # its 101 rows, not skipped as 9,000
    assert reader.count_rows(path, plugin.MEANING_ROWS) == 101
