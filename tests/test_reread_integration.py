"""A file indexed by an older reading is read again by ``sync``, through the real engine: a DOCX with a
footnote indexed by an engine that did not read notes (``MNOTE_KR_ENGINE_DOCX_NOTES=0``, LightRAG's plain
reading) is re-read by the next ``sync`` once the engine reads notes, and its note becomes searchable; the
file is never touched."""

from __future__ import annotations

import copy
import hashlib
import shutil
from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.engine import seed_tiktoken

from mnote_kr.app.host import Host
from mnote_kr.core.config import DEFAULTS
from mnote_kr.sync.reconcile import reconcile_and_apply
from mnote_kr_lightrag.client import settings as lr_settings
from mnote_kr_lightrag.engine.managed import EngineInfo, start_engine, stop_engine

pytestmark = pytest.mark.integration
NAME = "tika__testWORD_2006ml.docx"
NOTE = "[Footnote 1: And this is the footnote]"
WORDS = "And this is the footnote"


def _host(ws: Path, info: EngineInfo, monkeypatch: pytest.MonkeyPatch) -> Host:
    config = copy.deepcopy(DEFAULTS)
    config["providers"] = {"lightrag": {"url": info.url, "input_dir": info.input_dir,
                                        "working_dir": info.working_dir}}
    monkeypatch.setenv("MNOTE_KR_LIGHTRAG_API_KEY", info.api_key)
    lr_settings.clear_cache()
    return Host(ws, config=config)


def _indexed_quotes(host: Host) -> list[str]:
    """The chunks LightRAG answers a search in the footnote's words with (``rawQuote``: its own text; the
    quote shown is read from the file, which holds the note either way)."""
    return [r.raw_quote or "" for r in host.search("And this is the footnote", scope=[f"kb/{NAME}"]).results]


def test_sync_rereads_a_docx_indexed_without_its_notes_and_its_note_becomes_searchable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = tmp_path / "engine"
    state_dir = base / "state"
    seed_tiktoken(base / "cache")
    ws = tmp_path / "ws"
    (ws / "kb").mkdir(parents=True)
    shutil.copyfile(CORPUS / "docx" / NAME, ws / "kb" / NAME)
    before = hashlib.sha256((ws / "kb" / NAME).read_bytes()).hexdigest()
    rel = f"kb/{NAME}"

    monkeypatch.setenv("MNOTE_KR_ENGINE_DOCX_NOTES", "0")  # an engine that reads no notes: the older reading
    info = start_engine(data_dir=base / "data", state_dir=state_dir, cache_dir=base / "cache", wait_s=120)
    try:
        host = _host(ws, info, monkeypatch)
        host.add_root("kb")
        report = host.ingest(["kb"], wait=True, wait_s=240)
        assert [(i.source_path, i.status) for i in report.items] == [(rel, "processed")], report.items
        assert host.registry().entries[rel].reading == "lightrag:4"
        assert not any(WORDS in q for q in _indexed_quotes(host))  # the note's words never reached LightRAG
        status = host.status()["readings"]
        assert status["older"]["count"] == 0  # this engine reads no notes: LightRAG's reading is its current one
    finally:
        stop_engine(state_dir)

    monkeypatch.delenv("MNOTE_KR_ENGINE_DOCX_NOTES")
    info = start_engine(data_dir=base / "data", state_dir=state_dir, cache_dir=base / "cache", wait_s=120)
    try:
        host = _host(ws, info, monkeypatch)
        status = host.status()["readings"]
        assert (status["older"]["count"], status["older"]["paths"], status["older"]["command"]) == (
            1, [rel], "mnote-kr sync"), status
        summary = reconcile_and_apply(host)["reread"]
        assert summary["sent"]["paths"] == [rel], summary
        assert "footnotes and endnotes" in summary["sent"]["reasons"][rel]
        host.sync(wait_s=240)  # follows the file sent again until LightRAG has indexed it
        entry = host.registry().entries[rel]
        assert (entry.status, entry.reading) == ("processed", "lightrag+notes:3"), entry
        assert any(NOTE in q for q in _indexed_quotes(host)), _indexed_quotes(host)
        assert host.status()["readings"]["older"]["count"] == 0
        again = reconcile_and_apply(host)["reread"]  # read once: the next sync sends nothing
        assert again["sent"]["count"] == 0, again
    finally:
        stop_engine(state_dir)
    assert hashlib.sha256((ws / "kb" / NAME).read_bytes()).hexdigest() == before  # never touched
