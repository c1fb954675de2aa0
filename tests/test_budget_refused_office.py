"""Workbooks and decks over their locator's budgets are refused before the provider sees them, as DOCX
and PDF are (``test_budget_refused.py``): checked from the zip directory and a streaming count of the XML,
never loaded with openpyxl or python-pptx. A corpus workbook or deck, and a broken one, are sent.

The limits are lowered where the file would otherwise have to be large: each is a module constant of the
reader, read when the check runs. The provider is the in-process ``FakeProvider`` (it records what it is sent).
"""

from __future__ import annotations

import hashlib
import shutil
import zipfile
from pathlib import Path

import pytest
from mnote_kr_testkit.fakes import fake_host
from mnote_kr_testkit.workbooks import formatted_far_down

from mnote_kr_pptx_locator import reader as deck_reader
from mnote_kr_xlsx_locator import reader as book_reader

CORPUS = Path(__file__).resolve().parent / "data" / "corpus"
BOOK = CORPUS / "xlsx" / "docling__xlsx_01.xlsx"
INFLATED = CORPUS / "xlsx" / "docling__xlsx_04_inflated.xlsx"  # a <dimension> of 1,048,496 rows; 40 hold a value
DECK = CORPUS / "pptx" / "docling__powerpoint_sample.pptx"  # three slides


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _damaged_part(src: Path, dst: Path, part: str) -> Path:
    """``src`` with the deflated bytes of ``part`` overwritten: the zip directory reads, the part does not."""
    data = bytearray(src.read_bytes())
    with zipfile.ZipFile(src) as zf:
        info = zf.getinfo(part)
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data[start:start + min(info.compress_size, 64)] = b"\xff" * min(info.compress_size, 64)
    dst.write_bytes(bytes(data))
    return dst


def _loads_in_check(monkeypatch: pytest.MonkeyPatch, host: object, module: object, name: str) -> list[object]:
    """The files ``module.name`` (the library's loader) is called on inside the host's budget check (the
    host would take an exception raised there for a failed check and send the file: they are recorded)."""
    plugins = host.plugins  # type: ignore[attr-defined]
    load, check = getattr(module, name), plugins.check_budget
    checking: list[bool] = []
    loaded: list[object] = []

    def guarded(*args: object, **kwargs: object) -> object:
        if checking:
            loaded.append(args[0] if args else kwargs)
        return load(*args, **kwargs)

    def checked(*args: object, **kwargs: object) -> object:
        checking.append(True)
        try:
            return check(*args, **kwargs)
        finally:
            checking.pop()

    monkeypatch.setattr(module, name, guarded)
    monkeypatch.setattr(plugins, "check_budget", checked)
    return loaded


def _workbook_with_text(path: Path, rows: int) -> Path:
    """A sheet of ``rows`` rows, each a label and 30,000 letters (a cell holds at most 32,767)."""
    from openpyxl import Workbook

    wb = Workbook()
    for r in range(rows):
        wb.active.append([f"Note {r}", "".join(chr(65 + (i * 7919 + r) % 26) for i in range(30_000))])
    wb.save(path)
    return path


def test_a_workbook_over_the_cell_budget_is_refused_at_ingest_and_corpus_and_broken_ones_are_sent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    # Three rows hold a value; 24,000 cells below them hold a fill and nothing else (openpyxl builds each).
    filled = formatted_far_down(ws / "filled.xlsx", 2, last_row=4003, styled_rows=4000)
    shutil.copy(BOOK, ws / "book.xlsx")
    shutil.copy(INFLATED, ws / "inflated.xlsx")
    (ws / "truncated.xlsx").write_bytes(BOOK.read_bytes()[: BOOK.stat().st_size // 2])
    _damaged_part(BOOK, ws / "damaged.xlsx", "xl/worksheets/sheet1.xml")
    before = {p: _sha(p) for p in ws.iterdir()}
    monkeypatch.setattr(book_reader, "MAX_XML_CELLS", 20_000)  # the corpus books hold 131 and 132 cells
    host, provider = fake_host(ws)
    import openpyxl
    loaded = _loads_in_check(monkeypatch, host, openpyxl, "load_workbook")

    items = {i.source_path: i for i in host.ingest(["."]).items}

    assert items["filled.xlsx"].status == "refused"
    reason = items["filled.xlsx"].reason or ""
    assert "xl/worksheets/sheet1.xml of filled.xlsx" in reason and "limit 20000" in reason, reason
    assert str(ws) not in reason  # named by the file's name, as the other refusals
    assert "filled.xlsx" not in provider.ingested
    assert sorted(provider.ingested) == ["book.xlsx", "damaged.xlsx", "inflated.xlsx", "truncated.xlsx"]
    entry = host.registry().entries["filled.xlsx"]
    assert entry.status == "refused" and entry.last_error == reason and not entry.light_rag_doc_id
    status = host.status()
    assert status["registry"]["refused"] == [{"sourcePath": "filled.xlsx", "reason": reason}]
    assert loaded == []  # the check read the zip directory and counted the XML, nothing loaded
    assert {p: _sha(p) for p in ws.iterdir() if p.name != ".mnote"} == before
    assert _sha(filled) == before[filled]


def test_a_workbook_over_the_row_or_part_budget_is_refused_naming_it(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    formatted_far_down(ws / "tides.xlsx", 40)  # 41 rows hold a value; its <dimension> says 200,000
    _workbook_with_text(ws / "long.xlsx", 10)  # 10 rows, 20 cells, a 300 KB sheet part: past 256 KiB
    before = {p: _sha(p) for p in ws.iterdir()}
    monkeypatch.setattr(book_reader, "MAX_ROWS", 30)
    monkeypatch.setattr(book_reader, "MAX_PART_BYTES", 256 * 1024)
    host, provider = fake_host(ws)

    items = {i.source_path: i for i in host.ingest(["."]).items}

    assert {k: v.status for k, v in items.items()} == {"tides.xlsx": "refused", "long.xlsx": "refused"}
    assert "more than 30 rows (limit 30)" in (items["tides.xlsx"].reason or ""), items["tides.xlsx"].reason
    assert "(limit 262144)" in (items["long.xlsx"].reason or ""), items["long.xlsx"].reason
    assert provider.ingested == []
    assert {p: _sha(p) for p in ws.iterdir() if p.name != ".mnote"} == before


def test_a_deck_over_the_slide_or_zip_budget_is_refused_and_corpus_and_broken_decks_are_sent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    shutil.copy(DECK, ws / "deck.pptx")
    with zipfile.ZipFile(DECK) as src, zipfile.ZipFile(ws / "bomb.pptx", "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info, src.read(info))
        dst.writestr("ppt/media/padding.xml", b"\0" * (80 << 20))  # 80 MiB from 80 KB
    (ws / "truncated.pptx").write_bytes(DECK.read_bytes()[: DECK.stat().st_size // 2])
    _damaged_part(DECK, ws / "damaged.pptx", "ppt/presentation.xml")
    before = {p: _sha(p) for p in ws.iterdir()}
    host, provider = fake_host(ws)
    import pptx
    loaded = _loads_in_check(monkeypatch, host, pptx, "Presentation")
    items = {i.source_path: i for i in host.ingest(["."]).items}

    assert items["bomb.pptx"].status == "refused"
    assert "ppt/media/padding.xml of bomb.pptx" in (items["bomb.pptx"].reason or ""), items["bomb.pptx"].reason
    assert sorted(provider.ingested) == ["damaged.pptx", "deck.pptx", "truncated.pptx"]
    assert loaded == []

    monkeypatch.setattr(deck_reader, "MAX_SLIDES", 2)  # the sample lists three
    again = {i.source_path: i for i in host.ingest(["deck.pptx"], force=True).items}
    assert again["deck.pptx"].status == "refused"
    assert "more than 2 slides in deck.pptx (limit 2)" in (again["deck.pptx"].reason or ""), again["deck.pptx"].reason
    assert sorted(provider.ingested) == ["damaged.pptx", "deck.pptx", "truncated.pptx"]  # not sent again
    assert {p: _sha(p) for p in ws.iterdir() if p.name != ".mnote"} == before
