"""The rows behind a workbook's cited one come from the passage's own rows, never from another sheet
that happens to repeat their words ("Total", a year, a sum)."""

from __future__ import annotations

import hashlib
import json
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


CORPUS = Path(__file__).resolve().parents[3] / "tests" / "data" / "corpus"


def _books(tmp_path: Path) -> Path:
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Books"
    for row in (["Title", "Author", "Publisher", "Year"],
                ["The Hound of the Baskervilles", "Arthur Conan Doyle", "George Newnes", 1902],
                ["A Brief History of Time", "Stephen Hawking", "Bantam Books", 1988],
                ["Dune", "Frank Herbert", "Chilton Books", 1965]):
        ws.append(row)
    path = tmp_path / "books.xlsx"
    wb.save(path)
    return path


def test_a_cited_cell_has_its_rows_cell_the_query_words_hold_behind_it(no_vectors: None) -> None:
    """docling's catalog: "who published ..." cites the Publisher cell; the Title cell holding the
    question's other words is the first place behind it (docling's ground truth gives both cells)."""
    book = CORPUS / "xlsx" / "docling__xlsx_09_section_label_header.xlsx"
    truth = json.loads((CORPUS / "groundtruth" / "docling" / f"{book.name}.json").read_text(encoding="utf-8"))
    (table,) = truth["tables"]
    top, left = int(table["prov"][0]["bbox"]["t"]), int(table["prov"][0]["bbox"]["l"])
    cells = {(c["start_row_offset_idx"], c["start_col_offset_idx"]): c["text"] for c in table["data"]["table_cells"]}
    at = {text: (r, c) for (r, c), text in cells.items()}
    r, title = at["A Brief History of Time"]
    _, publisher = at["Bantam Books"]
    before = hashlib.sha256(book.read_bytes()).digest()
    evidence = ("1\tFiction\tMystery\tThe Hound of the Baskervilles\tArthur Conan Doyle\tGeorge Newnes\t1902\n"
                "2\tNon-fiction\tScience\tA Brief History of Time\tStephen Hawking\tBantam Books\t1988")
    loc = load_plugins(None).locate(LocateRequest(file=str(book), evidence=evidence,
                                                  query="Who published A Brief History of Time"))
    assert loc.range == f"{chr(65 + left + publisher)}{top + r + 1}"
    first = loc.runners_up[0]
    assert (first.sheet, first.range, first.headers, first.locator_degraded) == (
        loc.sheet, f"{chr(65 + left + title)}{top + r + 1}", [cells[(0, title)]], True)
    assert first.quote == f"{cells[(0, 0)]}: {cells[(r, 0)]}; {cells[(0, title)]}: A Brief History of Time"
    assert [x for x in loc.runners_up if x.range[1:] == loc.range[1:]] == [first]  # one cell of the row
    assert hashlib.sha256(book.read_bytes()).digest() == before


def test_a_wrongly_guessed_header_leaves_the_named_cell_one_step_away(tmp_path: Path, no_vectors: None) -> None:
    """The title is the row's label, so the cell cited is the Publisher's the question also names; the
    reader steps to the Title cell, read as its header and value."""
    path = _books(tmp_path)
    text = load_plugins(None).extract_text(str(path))
    loc = load_plugins(None).locate(LocateRequest(file=str(path), evidence=text, passage=text,
                                                  query="What is the title of the book Bantam Books published?"))
    assert (loc.range, loc.runners_up[0].range) == ("C3", "A3")
    assert loc.runners_up[0].quote == "Title: A Brief History of Time"


def test_the_rows_other_cell_leaves_room_for_the_rows_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With vectors, the cell behind carries its row's cosine; the rows behind keep their places, and no more
    places are given than any locator gives; the two a reader is shown are a cell and another row."""
    from mnote_kr.citations.locate import placing
    from mnote_kr.citations.rank import meaning
    from mnote_kr.models import MAX_ALTERNATIVES

    path = _books(tmp_path)
    plugins = load_plugins(None)
    text = plugins.extract_text(str(path))
    near = {1: 0.5, 2: 0.9, 3: 0.6}  # paragraph index (0: the header row) to cosine
    monkeypatch.setattr(meaning, "cosines", lambda key, query, idx: {i: near.get(i, 0.1) for i in idx})
    monkeypatch.setattr(meaning, "nearest", lambda key, query, k: dict(sorted(near.items(), key=lambda x: -x[1])[:k]))
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")
    loc = plugins.locate(LocateRequest(file=str(path), evidence=text, passage=text,
                                       query="Who published A Brief History of Time?"))
    assert loc.range == "C3" and loc.meaning_score == 0.9
    assert [(r.range, r.meaning_score) for r in loc.runners_up] == [("A3", 0.9), ("C4", 0.6), ("C2", 0.5)]
    assert len(loc.runners_up) <= placing.RUNNERS_UP + placing.FILE_WIDE
    shown = sorted(loc.runners_up, key=lambda r: -r.meaning_score)[:MAX_ALTERNATIVES]
    assert [r.range for r in shown] == ["A3", "C4"]
