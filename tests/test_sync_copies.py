"""A file a sync sent that turns out a copy of one indexed already is named as such (nc17b P12).

The sync said "sent 2/2 files", "indexed 2/2 files", then "Synced: indexed 1 new file" and "Registry: 1
duplicate", never naming the copy: the report's counts disagreed and the person was left to guess which
file was not indexed. The Synced line now accounts for every file sent: the copy by name, with its twin."""

from __future__ import annotations

from pathlib import Path

from mnote_kr.citations.render.synctext import render_sync
from mnote_kr.cli.outcome import copies_now, sent_now
from mnote_kr.core.registry import RegistryStore
from tests.registry_helpers import entry


def _registry(tmp_path: Path, twin_doc: str) -> RegistryStore:
    store = RegistryStore(tmp_path / "index")
    with store.transaction() as reg:
        reg.put(entry("kb/switchboard.xlsx", status="processed", light_rag_doc_id="doc-1"))
        reg.put(entry("kb/edited.docx", status="processed", light_rag_doc_id="doc-2"))
        reg.put(entry("kb/switchboard_copy.xlsx", status="duplicate", duplicate_of=twin_doc))
    return store


SYNC = {"reconcile": {"new": {"count": 2, "paths": ["kb/edited.docx", "kb/switchboard_copy.xlsx"]},
                      "ingest": {"ingested": ["kb/edited.docx", "kb/switchboard_copy.xlsx"]}},
        "provider": {"after": {"processed": 2, "duplicate": 1}}}


def test_the_copy_a_sync_sent_is_named_with_the_file_it_copies(tmp_path: Path) -> None:
    entries = _registry(tmp_path, "doc-1").load().entries
    text = render_sync(SYNC, sent_now(SYNC, entries), copies_now(SYNC, entries))
    synced = next(line for line in text.splitlines() if line.startswith("Synced:"))
    assert synced == ("Synced: indexed 1 new file, kb/switchboard_copy.xlsx is a copy of kb/switchboard.xlsx "
                      "(cited from there, not indexed twice)"), text


def test_a_copy_of_a_document_no_file_here_holds_is_said_so(tmp_path: Path) -> None:
    entries = _registry(tmp_path, "doc-elsewhere").load().entries
    text = render_sync(SYNC, sent_now(SYNC, entries), copies_now(SYNC, entries))
    assert ("kb/switchboard_copy.xlsx is a copy of a document indexed already (cited from there, not indexed "
            "twice)") in text, text
