"""``mnote-kr engine stop`` during an ingest, on the real managed engine (nc28b surprises 2 and 3).

An ``ingest --wait`` follows a large DOCX its workspace's own server indexes; the engine is stopped as
``mnote-kr engine stop`` stops it. The ingest ends with one line saying the engine was stopped, and no engine is
started behind the user's back: no process of this test's home runs afterwards (checked by each process's working
directory), ``engine status`` has nothing to deny, and work that read the engine's record just before the stop
starts nothing either. Started again, a sync indexes every file, and the deck indexed from mnote-kr's own text
keeps its own reason. Placing by meaning (nc28c surprise 1): the files the stopped wait prepared are remembered as
not placed by meaning yet, and the sync embeds their places: vectors then exist for every file's places. The
user's files are never touched. Waits are on conditions, bounded only so a failure ends.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

import pytest
from mnote_kr_testkit.decks import add_table, harbour_deck
from mnote_kr_testkit.engine import seed_tiktoken
from mnote_kr_testkit.waiting import wait_until

from mnote_kr.app.host import Host
from mnote_kr.citations.rank import meaning, wordsonly
from mnote_kr.core import paths
from mnote_kr.core.config import load_config
from mnote_kr.errors import ProviderError
from mnote_kr.sync.reconcile import reconcile_and_apply
from mnote_kr_lightrag.client import workspaces
from mnote_kr_lightrag.client.http import EngineStoppedError
from mnote_kr_lightrag.engine.managed import (
    default_engine_dirs,
    engine_status,
    running_workspace_engines,
    start_engine,
    stop_engine,
)
from tests.test_engine_interrupted_integration import manual_docx

pytestmark = [pytest.mark.integration, pytest.mark.timeout(1200)]
STARTING = "starting this workspace's LightRAG engine"


def _processes_under(home: Path) -> list[int]:
    """PIDs of every process whose working directory is under ``home`` (the engine's run from its state dir)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                cwd = Path(os.readlink(entry / "cwd"))
            except OSError:
                continue
            if cwd.is_relative_to(home):
                found.append(int(entry.name))
    return found


def _without_vectors(host: Host, rels: list[str]) -> list[str]:
    """The files whose places (as their locator reads them now: the keys it queues) have no vectors stored."""
    out = []
    for rel in rels:
        keys: list[str] = []
        token = meaning.collected.set(keys)
        try:
            host.plugins.prepare_locate(str(host.workspace.rel_to_abs(rel)))
        finally:
            meaning.collected.reset(token)
        if not keys or not all(meaning.has_vectors(k) for k in keys):
            out.append(rel)
    meaning._queue.clear()  # only looked at: nothing to embed in this process
    return out


def _sha(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_engine_stop_during_an_ingest_ends_it_in_one_line_and_starts_no_engine_behind_the_user(
        tmp_path: Path) -> None:
    home = Path(os.environ["MNOTE_KR_HOME"])  # this test's own (conftest)
    seed_tiktoken(paths.cache_dir())
    dirs = default_engine_dirs()
    state = dirs["state_dir"]
    ws = tmp_path / "ws"
    (ws / "kb").mkdir(parents=True)
    (ws / "kb" / "manual.docx").write_bytes(manual_docx("stopwins"))
    prs, slide = harbour_deck("Ashgrove", "Berth schedule")
    add_table(slide, [["Berth", "Vessel"], ["B4", "Ostrander Belle"]])
    slide.notes_slide.notes_text_frame.text = "The pilot boards the Ostrander Belle at the outer buoy."
    prs.save(ws / "kb" / "deck.pptx")
    (ws / "kb" / "note.md").write_text("# Tides\n\nThe spring tide at Ashgrove peaks at 5.1 m.\n", encoding="utf-8")
    before = _sha(ws / "kb")
    config = load_config(ws)
    config["providers"] = {"lightrag": {}}  # no URL: the managed engine, and this workspace's server on first use

    shared = start_engine(**dirs, wait_s=180)
    try:
        lines: list[str] = []
        host = Host(ws, config=config, progress=lines.append)
        host.roots_add("kb")
        outcome: dict[str, BaseException] = {}

        def ingest() -> None:
            try:
                host.ingest(["kb"], wait=True, wait_s=900)
            except ProviderError as exc:
                outcome["error"] = exc

        worker = threading.Thread(target=ingest)
        worker.start()
        # Sent, and LightRAG works on the manual on this workspace's own server: the wait follows it.
        wait_until(lambda: running_workspace_engines(state) and any("indexing now" in line or "indexed" in line
                                                                    for line in lines),
                   timeout_s=600, poll_s=0.1, what=lambda: f"the ingest never waited on LightRAG: {lines[-5:]}")
        assert host.registry().entries["kb/manual.docx"].status != "processed"
        said = len(lines)
        assert stop_engine(state)  # as 'mnote-kr engine stop' does
        worker.join(600)
        assert not worker.is_alive()

        error = outcome.get("error")
        assert isinstance(error, ProviderError), (outcome, lines[-5:])
        assert error.message.startswith("The managed LightRAG engine was stopped ('mnote-kr engine stop' at "), error
        assert "the wait stopped there" in error.message and "'mnote-kr engine start'" in (error.hint or ""), error
        assert not any(STARTING in line for line in lines[said:]), lines[said:]
        assert engine_status(state) is None and running_workspace_engines(state) == []
        assert _processes_under(home) == []  # nothing left listening: no hidden engine

        # Work that read the engine's record just before the stop (the race nc28b met) starts nothing either.
        with pytest.raises(EngineStoppedError):
            workspaces.workspace_engine(host.context(), shared)
        assert _processes_under(home) == []
        files = ["kb/deck.pptx", "kb/manual.docx", "kb/note.md"]
        # the placing step never ran: every file prepared is remembered as not placed by meaning yet
        assert sorted((f.source_path, f.not_yet) for f in wordsonly.load(host).files) == [(f, True) for f in files]
        assert _without_vectors(host, files) == files

        # Started again: a sync (the disk first, as 'mnote-kr sync' does) indexes every file and places them by
        # meaning; the deck keeps its own reason.
        start_engine(**dirs, wait_s=180)
        lines.clear()
        placed = reconcile_and_apply(host)["wordsOnly"]
        host.sync(wait_s=900, wait_idle=False)
        entries = host.registry().entries
        assert {rel: e.status for rel, e in entries.items()} == {"kb/manual.docx": "processed",
                                                                 "kb/deck.pptx": "processed",
                                                                 "kb/note.md": "processed"}
        assert placed["notYet"] == 3 and sorted(placed["paths"]) == files, placed
        assert any(line.startswith("placing by meaning: 3 file(s)") for line in lines), lines[:5]
        assert any(line.startswith("embedding places: ") for line in lines), lines[:5]
        assert _without_vectors(host, files) == [] and wordsonly.load(host).files == []
        assert host.status()["meaning"]["wordsOnly"]["count"] == 0
        reasons = {f["sourcePath"]: f["reason"] for f in host.status()["registry"]["fallbacks"]}
        assert "not reachable" not in str(reasons) and "stopped" not in str(reasons), reasons
        if "kb/deck.pptx" in reasons:  # sent as mnote-kr's own text (its table cells): said why
            assert reasons["kb/deck.pptx"].startswith("indexed from the text mnote-kr reads in it"), reasons
    finally:
        stop_engine(state)
    assert _processes_under(home) == []
    assert _sha(ws / "kb") == before  # never touched
