"""A file indexed by an older reading is read again by ``sync``, through the real engine: a DOCX with a
footnote indexed by an engine that did not read notes (``MNOTE_KR_ENGINE_DOCX_NOTES=0``, LightRAG's plain
reading) is re-read by the next ``sync`` once the engine reads notes, and its note becomes searchable; the
file is never touched."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS

from mnote_kr.app.host import Host
from mnote_kr.models import Citation, QueryRequest
from mnote_kr.sync.reconcile import reconcile_and_apply
from mnote_kr_lightrag.engine.managed import start_engine, stop_engine
from tests.surfaces import engine_host, own_engine

pytestmark = pytest.mark.integration
NAME = "tika__testWORD_2006ml.docx"
NOTE = "[Footnote 1: And this is the footnote]"
WORDS = "And this is the footnote"


def _indexed_chunks(host: Host) -> list[str]:
    """Every chunk of the file LightRAG answers a search in the footnote's words with, as the provider hands
    them to the host (what LightRAG indexed; the host then cites one chunk per place)."""
    name = host.registry().entries[f"kb/{NAME}"].light_rag_file_path
    result = host.plugins.query(host.context(), QueryRequest(query=WORDS))
    return [r.content or "" for r in result.references if r.file_path == name]


def _card(host: Host) -> Citation:
    """The file's one citation for a search in the footnote's words (the quote shown is read from the file,
    which holds the note either way; ``rawQuote`` is the chunk cited)."""
    (card,) = host.search(WORDS, scope=[f"kb/{NAME}"]).results
    return card


def test_sync_rereads_a_docx_indexed_without_its_notes_and_its_note_becomes_searchable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = own_engine(tmp_path, 120)
    state_dir = engine["state_dir"]
    ws = tmp_path / "ws"
    (ws / "kb").mkdir(parents=True)
    shutil.copyfile(CORPUS / "docx" / NAME, ws / "kb" / NAME)
    before = hashlib.sha256((ws / "kb" / NAME).read_bytes()).hexdigest()
    rel = f"kb/{NAME}"

    monkeypatch.setenv("MNOTE_KR_ENGINE_DOCX_NOTES", "0")  # an engine that reads no notes: the older reading
    info = start_engine(**engine)
    try:
        host = engine_host(ws, info, monkeypatch)
        host.add_root("kb")
        report = host.ingest(["kb"], wait=True, wait_s=240)
        assert [(i.source_path, i.status) for i in report.items] == [(rel, "processed")], report.items
        assert host.registry().entries[rel].reading == "lightrag:4"
        chunks = _indexed_chunks(host)
        assert chunks and not any(WORDS in c for c in chunks), chunks  # the note's words never reached LightRAG
        status = host.status()["readings"]
        assert status["older"]["count"] == 0  # this engine reads no notes: LightRAG's reading is its current one
    finally:
        stop_engine(state_dir)

    monkeypatch.delenv("MNOTE_KR_ENGINE_DOCX_NOTES")
    info = start_engine(**engine)
    try:
        host = engine_host(ws, info, monkeypatch)
        status = host.status()["readings"]
        assert (status["older"]["count"], status["older"]["paths"], status["older"]["command"]) == (
            1, [rel], "mnote-kr sync"), status
        summary = reconcile_and_apply(host)["reread"]
        assert summary["sent"]["paths"] == [rel], summary
        assert "footnotes and endnotes" in summary["sent"]["reasons"][rel]
        host.sync(wait_s=240)  # follows the file sent again until LightRAG has indexed it
        entry = host.registry().entries[rel]
        assert (entry.status, entry.reading) == ("processed", "lightrag+notes:3"), entry
        assert any(NOTE in c for c in _indexed_chunks(host)), _indexed_chunks(host)  # the note reached LightRAG
        # and is cited from the chunk that holds it, whichever chunk of the file LightRAG returned first (where
        # its windows fall moves with the workspace's path: tests/test_place_chunk.py)
        card = _card(host)
        assert NOTE in (card.display_quote or "") and NOTE in (card.raw_quote or ""), card
        assert host.status()["readings"]["older"]["count"] == 0
        again = reconcile_and_apply(host)["reread"]  # read once: the next sync sends nothing
        assert again["sent"]["count"] == 0, again
    finally:
        stop_engine(state_dir)
    assert hashlib.sha256((ws / "kb" / NAME).read_bytes()).hexdigest() == before  # never touched
