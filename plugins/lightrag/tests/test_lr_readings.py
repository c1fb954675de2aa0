"""How a file was read for LightRAG's index (``client/readings.py``): the reading each send records, the
engine saying whether it reads DOCX notes, and which indexed files ``check_readings`` finds read by an
older reading, checked cheaply for files indexed before readings were recorded."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.data import CORPUS, SAMPLES
from mnote_kr_testkit.docx_docs import DocxBuilder
from mnote_kr_testkit.docx_notes import note_para, ref, with_notes
from mnote_kr_testkit.replay import ReadingsProvider as _Prov
from mnote_kr_testkit.replay import replayed_provider
from mnote_kr_testkit.replay import source_file as _source
from mnote_kr_testkit.replay import stored_entry as _entry

import mnote_kr_lightrag as plugin
from mnote_kr.plugins import load_plugins
from mnote_kr_lightrag.client import links, readings, settings
from mnote_kr_lightrag.client.recognized import OwnText
from mnote_kr_lightrag.engine.guard import READINGS_PATH, EngineGuard

from .test_lr_decks import deck, listing


def _docx(path: Path, note: str | None) -> Path:
    b = DocxBuilder()
    if note is None:
        b.para("Harbour tonnage stayed flat.")
        data = b.build()
    else:
        note_para(b, "Harbour tonnage stayed flat.", ref("footnote", "1"))
        data = with_notes(b.build(), footnotes={"1": note})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path




@pytest.fixture
def env(tmp_path: Path) -> dict[str, Any]:
    settings.clear_cache()
    readings._NOTES_SEEN.clear()
    env = replayed_provider(tmp_path, SAMPLES)
    env["ctx"] = dataclasses.replace(env["ctx"], extract_text=load_plugins().extract_text)
    replay = env["replay"]
    replay.json("POST", "/documents/paginated", listing([]))
    replay.sample("GET", "/documents/supported_file_types", "05_supported_file_types.json")
    replay.sample("POST", "/documents/scan", "10_scan_started.json")
    return env


def test_lr_guard_says_whether_the_engine_reads_docx_notes_and_only_with_the_key() -> None:
    sent: list[dict[str, Any]] = []
    reached: list[bool] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(True)

    async def send(message: Any) -> None:
        sent.append(dict(message))

    guard = EngineGuard(app, port=4242, api_key="k", readings={"docxNotes": True})
    for key, status in (("k", 200), ("wrong", 403)):
        sent.clear()
        scope = {"type": "http", "path": READINGS_PATH, "method": "GET",
                 "headers": [(b"host", b"127.0.0.1:4242"), (b"x-api-key", key.encode())]}
        asyncio.run(guard(scope, None, send))
        assert sent[0]["status"] == status
    assert json.loads(sent[-1]["body"]) == {"detail": "Invalid API Key"}
    sent.clear()
    asyncio.run(guard({"type": "http", "path": READINGS_PATH, "method": "GET",
                       "headers": [(b"host", b"127.0.0.1:4242"), (b"x-api-key", b"k")]}, None, send))
    assert json.loads(sent[-1]["body"]) == {"docxNotes": True} and not reached


@pytest.mark.parametrize(("engine", "expected"), [({"docxNotes": True, "docxComments": True}, "lightrag+notes:3"),
                                                  # an engine started before comments were read: notes only
                                                  ({"docxNotes": True}, "lightrag+notes:1"),
                                                  ({"docxNotes": False}, "lightrag:4"),
                                                  (None, "lightrag:4")],  # another server: 404
                         ids=["reads-comments", "reads-notes", "patch-off", "own-server"])
def test_lr_a_linked_docx_records_the_notes_reading_only_when_the_engine_says_it_reads_them(
        env: dict[str, Any], engine: dict[str, Any] | None, expected: str) -> None:
    ws = env["ws"]
    _docx(ws / "a.docx", "Dredging starts in May.")
    (ws / "b.md").write_text("# Harbour\n\nTonnage.\n", encoding="utf-8")
    if engine is not None:
        env["replay"].json("GET", READINGS_PATH, engine)
    updates = plugin.ingest(ctx=env["ctx"], sources=[_source(ws, "a.docx"), _source(ws, "b.md")], force=False)
    assert [(u.source_root_relative_path, u.status, u.reading) for u in updates] == [
        ("a.docx", "submitted", expected), ("b.md", "submitted", "lightrag:4")]
    assert len(env["replay"].sent("GET", READINGS_PATH)) == 1  # asked for the DOCX only, once


def test_lr_a_deck_sent_as_its_text_records_the_deck_reading(env: dict[str, Any]) -> None:
    ws = env["ws"]
    deck(ws / "talk.pptx", "Remind the board of the Saltmarsh crossing.")
    [update] = plugin.ingest(ctx=env["ctx"], sources=[_source(ws, "talk.pptx")], force=False)
    assert (update.kind, update.reading) == ("text_fallback", "deck:4")
    assert not env["replay"].sent("GET", READINGS_PATH)  # no DOCX linked: the engine is not asked


def test_lr_check_finds_recorded_readings_older_than_now(tmp_path: Path) -> None:
    _docx(tmp_path / "notes.docx", "Dredging starts in May.")
    _docx(tmp_path / "plain.docx", None)
    deck(tmp_path / "deck.pptx", "Remind the board of the Saltmarsh crossing.")
    (tmp_path / "commented.pptx").write_bytes((CORPUS / "pptx" / "docling__powerpoint_comments.pptx").read_bytes())
    entries = [_entry("old-deck.pptx", "deck:1", "text_fallback"), _entry("deck.pptx", "deck:2", "text_fallback"),
               _entry("commented.pptx", "deck:2", "text_fallback"), _entry("now-deck.pptx", "deck:4", "text_fallback"),
               _entry("notes.docx", "lightrag:1"), _entry("plain.docx", "lightrag:1"),
               _entry("now.docx", "lightrag+notes:1"), _entry("a.md", "lightrag:1")]
    prov = _Prov(tmp_path, tmp_path / "inputs")
    looked = readings.check(prov, entries, look=True, notes=True)
    assert set(looked.older) == {"old-deck.pptx", "commented.pptx", "notes.docx"}, looked
    assert "footnotes and endnotes" in looked.older["notes.docx"]
    assert "tables, grouped shapes' text and chart data" in looked.older["old-deck.pptx"]
    assert "review comments" in looked.older["commented.pptx"]
    # no notes, no review comments: LightRAG reads it the same
    assert looked.record == {"plain.docx": "lightrag+notes:3", "deck.pptx": "deck:4", "now.docx": "lightrag+notes:3"}
    assert looked.unknown == {}
    # A report reads no file: each DOCX of LightRAG's plain reading, each deck of the second, counted for sync.
    told = readings.check(None, entries, look=False, notes=True)
    assert set(told.older) == {"old-deck.pptx", "deck.pptx", "commented.pptx", "notes.docx", "plain.docx",
                               "now.docx"}  # the notes reading's first version read no comments: sync checks
    assert not told.record
    # A server that reads no notes: LightRAG's plain reading is its current one.
    assert set(readings.check(prov, entries, look=True, notes=False).older) == {"old-deck.pptx", "commented.pptx"}


def test_lr_a_deck_of_the_third_reading_holding_a_table_is_read_again(tmp_path: Path) -> None:
    """The deck reading's fourth version reads a table row labelled by a number under its header ("Berth: 7;
    Arrivals: 150", not "7: Arrivals: 150"): a deck holding a table is read again by sync; one holding none, or
    notes only, reads the same and is recorded as read by it."""
    from mnote_kr_testkit.decks import add_table, harbour_deck

    prs, slide = harbour_deck("Ashgrove", "Berths")
    add_table(slide, [["Berth", "Arrivals"], ["7", "150"], ["12", "95"]])
    prs.save(tmp_path / "berths.pptx")
    deck(tmp_path / "talk.pptx", "Remind the board of the Saltmarsh crossing.")
    entries = [_entry("berths.pptx", "deck:3", "text_fallback"), _entry("talk.pptx", "deck:3", "text_fallback")]
    looked = readings.check(_Prov(tmp_path, tmp_path / "inputs"), entries, look=True, notes=True)
    assert set(looked.older) == {"berths.pptx"}, looked
    assert "labelled by a number" in looked.older["berths.pptx"]
    assert looked.record == {"talk.pptx": "deck:4"}


def test_lr_check_of_files_indexed_before_readings_looks_only_at_cheap_structure(tmp_path: Path) -> None:
    inputs = tmp_path / "inputs"
    (inputs / links.PARSED_DIR).mkdir(parents=True)
    _docx(tmp_path / "notes.docx", "Dredging starts in May.")
    _docx(tmp_path / "plain.docx", None)
    deck(tmp_path / "linked.pptx", "Speaker notes LightRAG's parser skipped.")
    deck(tmp_path / "bare.pptx", None)
    old_wrapper = "old.pptx.abc.md"
    (inputs / links.PARSED_DIR / old_wrapper).write_text(f"{links.NOTES_WRAPPER_MARK} old.pptx\n\nNotes: x\n")
    (inputs / "book.xlsm.md").write_text(f"{links.MACRO_WORKBOOK_WRAPPER_MARK} book.xlsm\n\n# Sheet1\n")
    # decks sent by the second deck reading (its mark), before review comments were read: re-read if they hold one
    deck(tmp_path / "wrapped.pptx", "Speaker notes.")
    (tmp_path / "commented.pptx").write_bytes((CORPUS / "pptx" / "docling__powerpoint_comments.pptx").read_bytes())
    for name in ("wrapped", "commented"):
        (inputs / f"{name}.pptx.md").write_text(f"{links.DECK_WRAPPER_MARK} {name}.pptx\n\nNotes: x\n")
    entries = [_entry("wrapped.pptx", None, "text_fallback", light_rag_file_path="wrapped.pptx.md"),
               _entry("commented.pptx", None, "text_fallback", light_rag_file_path="commented.pptx.md"),
               _entry("notes.docx", None), _entry("plain.docx", None), _entry("linked.pptx", None),
               _entry("bare.pptx", None), _entry("old.pptx", None, "text_fallback", light_rag_file_path=old_wrapper),
               _entry("book.xlsm", None, "text_fallback", light_rag_file_path="book.xlsm.md"),
               _entry("scan.pdf", None), _entry("photo.png", None, "image"), _entry("a.md", None),
               _entry("lost.pptx", None, "text_fallback", light_rag_file_path="lost.pptx.md")]
    check = readings.check(_Prov(tmp_path, inputs), entries, look=True, notes=True)
    assert set(check.older) == {"notes.docx", "linked.pptx", "old.pptx", "commented.pptx", "book.xlsm"}, check
    assert "speaker notes" in check.older["linked.pptx"]
    assert "review comments" in check.older["commented.pptx"]
    assert "label" in check.older["book.xlsm"]  # the macro-enabled workbook's text is read differently since
    assert check.record == {"plain.docx": "lightrag+notes:3", "bare.pptx": "lightrag:4", "a.md": "lightrag:4",
                            "wrapped.pptx": "deck:4"}
    # Not checked: a PDF's pages and an image's text would have to be read whole; a wrapper not found.
    assert set(check.unknown) == {"scan.pdf", "photo.png", "lost.pptx"}
    assert "OCR" in check.unknown["scan.pdf"]


def test_a_report_asks_the_server_only_when_its_answer_can_change_the_count() -> None:
    """``status`` asks the engine whether it reads DOCX notes only for a DOCX read the plain way or before
    readings were recorded: a library of notes, decks and DOCX read with their notes is reported from the
    records alone (one round trip less per status)."""
    plain = [_entry("a.md", "lightrag:1"), _entry("b.pptx", None, kind="text"), _entry("c.docx", "lightrag+notes:3")]
    assert not readings.asks_server(plain)
    assert readings.asks_server([*plain, _entry("d.docx", "lightrag:1")])
    assert readings.asks_server([*plain, _entry("e.DOCX", None)])
    assert readings.asks_server([*plain, _entry("f.docx", "lightrag+notes:1")])  # older only if it reads comments


def test_lr_check_finds_files_read_by_the_readers_that_changed_since(tmp_path: Path) -> None:
    """OCR joins a scanned table's cells on one baseline into one row (images' text too), workbooks' text joins
    a data sheet's label with its value across empty columns, and a linked workbook declaring far more rows
    than it holds is now sent as mnote-kr's text: the files those readers read before are read again."""
    inflated, normal = tmp_path / "inflated.xlsx", tmp_path / "normal.xlsx"
    inflated.write_bytes((CORPUS / "xlsx" / "docling__xlsx_04_inflated.xlsx").read_bytes())
    normal.write_bytes((CORPUS / "xlsx" / "docling__xlsx_05_table_with_title.xlsx").read_bytes())
    before = {p: p.read_bytes() for p in (inflated, normal)}
    entries = [_entry("scan.pdf", "ocr:1", "text_fallback"), _entry("photo.png", "image:1", "image"),
               _entry("book.xlsx", "workbook:1", "text_fallback"), _entry("book.xlsm", "xlsm:1", "text_fallback"),
               _entry("inflated.xlsx", "lightrag:1"), _entry("normal.xlsx", "lightrag:1"),
               _entry("a.pdf", "lightrag:1"), _entry("b.docx", "lightrag:1"), _entry("c.md", "lightrag:2")]
    for look in (False, True):
        check = readings.check(_Prov(tmp_path, tmp_path / "inputs"), entries, look=look, notes=False)
        assert {"scan.pdf", "photo.png", "book.xlsx", "book.xlsm"} <= set(check.older), check
        assert "one row" in check.older["scan.pdf"] and "one row" in check.older["photo.png"]
        assert "label" in check.older["book.xlsx"] and "label" in check.older["book.xlsm"]
        assert not {"a.pdf", "c.md"} & set(check.older)  # the plain reading changed for workbooks, decks and DOCX
    # A report reads no file: each workbook linked by the plain reading's first version is left to sync's check.
    told = readings.check(None, entries, look=False, notes=False)
    assert {"inflated.xlsx", "normal.xlsx"} <= set(told.older) and "declares" in told.older["normal.xlsx"]
    # Sync checks the declared rows, the test the send makes: only the inflated workbook is read differently.
    looked = readings.check(_Prov(tmp_path, tmp_path / "inputs"), entries, look=True, notes=False)
    assert "1,048,496 rows" in looked.older["inflated.xlsx"] and "normal.xlsx" not in looked.older
    assert looked.record == {"normal.xlsx": "lightrag:4", "b.docx": "lightrag:4"}
    assert {p: p.read_bytes() for p in (inflated, normal)} == before


def test_lr_check_of_a_workbook_indexed_before_readings_finds_its_declared_rows(tmp_path: Path) -> None:
    (tmp_path / "inflated.xlsx").write_bytes((CORPUS / "xlsx" / "docling__xlsx_04_inflated.xlsx").read_bytes())
    (tmp_path / "normal.xlsx").write_bytes((CORPUS / "xlsx" / "docling__xlsx_05_table_with_title.xlsx").read_bytes())
    check = readings.check(_Prov(tmp_path, tmp_path / "inputs"),
                           [_entry("inflated.xlsx", None), _entry("normal.xlsx", None)], look=True, notes=False)
    assert set(check.older) == {"inflated.xlsx"} and "1,048,496 rows" in check.older["inflated.xlsx"]
    assert check.record == {"normal.xlsx": "lightrag:4"}


def test_lr_a_send_records_the_readings_of_now() -> None:
    """What a send records is the current version of its reader: an entry recorded so is never older."""
    assert readings.of_send("a.md", False, None, False) == "lightrag:4"
    assert readings.of_send("a.png", True, None, False) == "image:2"
    for mark, now in ((links.RECOGNIZED_WRAPPER_MARK, "ocr:2"), (links.WORKBOOK_WRAPPER_MARK, "workbook:2"),
                      (links.MACRO_WORKBOOK_WRAPPER_MARK, "xlsm:2")):
        assert readings.of_send("x", False, OwnText("text", mark, "note"), False) == now
    now = [_entry(f"f{i}{suffix}", reading) for i, (suffix, reading) in enumerate(
        ((".md", "lightrag:4"), (".xlsx", "lightrag:2"), (".pptx", "lightrag:4"), (".docx", "lightrag:4"),
         (".png", "image:2"), (".pdf", "ocr:2"), (".xlsx", "workbook:2"), (".xlsm", "xlsm:2")))]
    assert readings.check(None, now, look=False, notes=False).older == {}


def test_lr_a_docx_sent_as_the_fallback_text_before_the_docx_reader_changed_is_read_again(tmp_path: Path) -> None:
    """The DOCX reader's text changed since the fallback's first version (an equation read as c^2, a heading-styled
    table cell and a contents line ending 'N/A' no heading): a DOCX LightRAG failed on and indexed by that text is
    read again; a fallback of another type reads the same and is left alone, recorded or not."""
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    for name in ("before.docx", "before.pdf"):
        (inputs / f"{name}.md").write_text(f"{links.TEXT_WRAPPER_MARK} {name}\n\nWords.\n", encoding="utf-8")
    entries = [_entry("old.docx", "fallback:1", "text_fallback"), _entry("old.pdf", "fallback:1", "text_fallback"),
               _entry("OLD.DOCX", "fallback:1", "text_fallback"),
               _entry("before.docx", None, "text_fallback", light_rag_file_path="before.docx.md"),
               _entry("before.pdf", None, "text_fallback", light_rag_file_path="before.pdf.md")]
    for look in (False, True):
        check = readings.check(_Prov(tmp_path, inputs), entries, look=look, notes=False)
        assert {"old.docx", "OLD.DOCX"} <= set(check.older) and "old.pdf" not in check.older, check
        assert "c^2" in check.older["old.docx"]
    looked = readings.check(_Prov(tmp_path, inputs), entries, look=True, notes=False)
    assert set(looked.older) == {"old.docx", "OLD.DOCX", "before.docx"}
    # the third version adds review comments at their marks: a fallback:2 DOCX is read again only when it holds one
    (tmp_path / "commented.docx").write_bytes((CORPUS / "docx" / "markitdown__test_with_comment.docx").read_bytes())
    _docx(tmp_path / "plain.docx", None)
    second = [_entry("commented.docx", "fallback:2", "text_fallback"),
              _entry("plain.docx", "fallback:2", "text_fallback")]
    third = readings.check(_Prov(tmp_path, inputs), second, look=True, notes=False)
    assert set(third.older) == {"commented.docx"} and "review comments" in third.older["commented.docx"]
    assert third.record == {"plain.docx": "fallback:4"}
    assert set(readings.check(None, second, look=False, notes=False).older) == {"commented.docx", "plain.docx"}
    assert looked.record == {"before.pdf": readings.current(readings.FALLBACK)}
    assert readings.of_send("a.docx", False, OwnText("text", links.TEXT_WRAPPER_MARK, "note"), False) == "fallback:4"


def test_lr_a_docx_the_fallback_read_before_symbol_characters_were_read_is_read_again_only_with_one(
        tmp_path: Path) -> None:
    """The fallback's fourth version reads a form's symbol characters (``w:sym``, ☐ ☑ from Wingdings) in the DOCX
    reader's text: a DOCX its second or third version read is read again by sync only when its main part holds one
    (a fallback:2 one also when it holds a review comment); one without reads the same and is recorded. ``status``
    reads no file: it counts them all for sync to check. Nothing is written into the files."""
    from docx import Document
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls

    form = Document()
    p = form.add_paragraph("Married ")
    p._p.append(parse_xml(f'<w:r {nsdecls("w")}><w:sym w:font="Wingdings" w:char="F0FE"/></w:r>'))
    p.add_run(" Yes")
    form.save(tmp_path / "form.docx")
    (tmp_path / "form2.docx").write_bytes((tmp_path / "form.docx").read_bytes())
    _docx(tmp_path / "plain.docx", None)
    before = {f.name: f.read_bytes() for f in tmp_path.glob("*.docx")}
    entries = [_entry("form.docx", "fallback:3", "text_fallback"), _entry("form2.docx", "fallback:2", "text_fallback"),
               _entry("plain.docx", "fallback:3", "text_fallback"), _entry("now.docx", "fallback:4", "text_fallback")]
    looked = readings.check(_Prov(tmp_path, tmp_path), entries, look=True, notes=False)
    assert set(looked.older) == {"form.docx", "form2.docx"}, looked
    assert "symbol characters" in looked.older["form.docx"]
    assert looked.record == {"plain.docx": "fallback:4"}
    assert set(readings.check(None, entries, look=False, notes=False).older) == {"form.docx", "form2.docx",
                                                                                 "plain.docx"}
    assert {f.name: f.read_bytes() for f in tmp_path.glob("*.docx")} == before


def test_lr_a_docx_read_with_its_notes_before_comments_were_read_is_read_again_only_with_comments(
        tmp_path: Path) -> None:
    """The notes reading's second version reads a DOCX's review comments at their marks: a DOCX its first version
    read is read again by sync when its comments part holds a comment (its parts alone are read); one without
    reads the same and is recorded. ``status`` reads no file: it counts them for sync to check."""
    commented = tmp_path / "commented.docx"
    commented.write_bytes((CORPUS / "docx" / "markitdown__test_with_comment.docx").read_bytes())
    (tmp_path / "before.docx").write_bytes(commented.read_bytes())
    _docx(tmp_path / "plain.docx", None)
    _docx(tmp_path / "notes.docx", "Dredging starts in May.")
    before = {p.name: p.read_bytes() for p in tmp_path.glob("*.docx")}
    entries = [_entry("commented.docx", "lightrag+notes:1"), _entry("plain.docx", "lightrag+notes:1"),
               _entry("notes.docx", "lightrag+notes:1"), _entry("now.docx", "lightrag+notes:2"),
               _entry("before.docx", None), _entry("linked.docx", "lightrag:3")]
    prov = _Prov(tmp_path, tmp_path / "inputs")
    looked = readings.check(prov, entries, look=True, notes=True)
    assert set(looked.older) == {"commented.docx", "before.docx"}, looked
    assert looked.older["commented.docx"] == "read again for its review comments"
    assert "review comments" in looked.older["before.docx"]
    assert looked.record == {"plain.docx": "lightrag+notes:3", "notes.docx": "lightrag+notes:3",
                             "linked.docx": "lightrag+notes:3", "now.docx": "lightrag+notes:3"}
    told = readings.check(None, entries, look=False, notes=True)
    assert set(told.older) == {"commented.docx", "plain.docx", "notes.docx", "before.docx", "linked.docx", "now.docx"}
    assert "review comments" in told.older["plain.docx"] and "mnote-kr sync" in told.older["plain.docx"]
    assert {p.name: p.read_bytes() for p in tmp_path.glob("*.docx")} == before
    assert readings.of_send("a.docx", False, None, True) == "lightrag+notes:3"
