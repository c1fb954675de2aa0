"""A fallback file's reason outlives a passing provider error (nc28b surprise 3): after ``engine stop`` during an
ingest, then ``engine start`` and ``sync --wait``, ``status`` kept "LightRAG is not reachable at <old port>" as a
deck's reason (speaker notes, table cells read by mnote-kr) until an ``ingest --force``. A sync that cannot reach
LightRAG no longer writes its error over such a reason; one already lost gives way, once the file is indexed
again, to the file's own reason read anew (or to none: ``status`` then says what the kind means)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from mnote_kr_testkit.replay import make_context

import mnote_kr_lightrag as plugin
from mnote_kr.models import EntryUpdate, SourceEntry
from mnote_kr_lightrag.client import decks, docxbreaks, fallback, recognized, settings, workbooks

DECK_NOTE = decks.note({"speaker notes": 3, "table cells": 2})
DOWN = "LightRAG is not reachable at http://127.0.0.1:45039 (is it running? 'mnote-kr engine start')"


@pytest.fixture(autouse=True)
def _fresh() -> None:
    settings.clear_cache()


def _entry(last_error: str | None, kind: str = fallback.KIND, rel: str = "deck.pptx") -> SourceEntry:
    return SourceEntry(source_id=rel, source_path=f"/nowhere/{rel}", source_root_relative_path=rel,
                       status="processing", kind=kind, light_rag_file_path=f"{rel}.w1.md", last_error=last_error)


def test_every_fallback_reason_starts_as_a_lasting_reason_is_told_apart() -> None:
    notes = [DECK_NOTE, fallback.note("docx parse error", "a.docx"), fallback.thin_note(10, 5000),
             docxbreaks.note({"line breaks": 2}), workbooks.note((2, 1)), workbooks.note(None, ".xlsm"),
             recognized._pages_note("## Page 1\n\ntext", (1, 1))]
    assert all(fallback.lasting(n) for n in notes), [n for n in notes if not fallback.lasting(n)]
    assert not any(fallback.lasting(n) for n in (DOWN, "the engine stopped while indexing it; sent again", None))


def test_a_passing_error_does_not_overwrite_a_fallback_files_reason() -> None:
    assert fallback.transient_note(_entry(DECK_NOTE), DOWN) == DECK_NOTE
    assert fallback.transient_note(_entry(None), DOWN) == DOWN
    assert fallback.transient_note(_entry("indexed from the text x", kind="document"), DOWN) == DOWN


def test_a_sync_that_cannot_reach_lightrag_keeps_the_decks_reason(tmp_path: Path) -> None:
    def refused(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    ctx = make_context(tmp_path, httpx.MockTransport(refused))
    updates = plugin.sync(ctx=ctx, entries=[_entry(DECK_NOTE), _entry(None, kind="document", rel="a.docx")],
                          wait_s=0)
    said = {u.source_root_relative_path: u.last_error for u in updates}
    assert said["deck.pptx"] == DECK_NOTE, said
    assert (said["a.docx"] or "").startswith("LightRAG is not reachable at "), said  # a plain file: said as before


def test_once_indexed_again_a_lost_reason_gives_way_to_the_files_own() -> None:
    processed = EntryUpdate(source_root_relative_path="deck.pptx", status="processed", kind=fallback.KIND)
    assert fallback.keep_note(processed, DOWN, lambda: DECK_NOTE).last_error == DECK_NOTE
    assert fallback.keep_note(processed, DOWN, lambda: None).last_error is None  # status says what the kind means
    assert fallback.keep_note(processed, DECK_NOTE, lambda: pytest.fail("read")).last_error == DECK_NOTE
    still = EntryUpdate(source_root_relative_path="deck.pptx", status="processing", kind=fallback.KIND)
    sent_again = "the engine stopped while indexing it; sent again: LightRAG indexes it anew"
    assert fallback.keep_note(still, sent_again, lambda: pytest.fail("read")).last_error == sent_again  # said meanwhile
    failed = EntryUpdate(source_root_relative_path="deck.pptx", status="failed", last_error="bad")
    assert fallback.keep_note(failed, DECK_NOTE).last_error == "bad"
