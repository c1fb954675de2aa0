"""What sending files to LightRAG says while it reads them (nc18a: ``ingest . --wait`` over 14 files printed
nothing for 53 s but two files' OCR lines, "sent 14/14 files" only at the end).

Before linking, each file is read for the text mnote-kr may send in its place (scanned pages recognised,
a deck's or workbook's own text): a step line per file names it and counts the files read (the CLI's
writer keeps a piped log to a line every few seconds), and one line says when all are read.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.data import SAMPLES
from mnote_kr_testkit.replay import replayed_provider
from mnote_kr_testkit.replay import source_file as source

import mnote_kr_lightrag as plugin
from mnote_kr.cli.reports import _STEP_RE


@pytest.fixture
def env(tmp_path: Path) -> dict[str, Any]:
    return replayed_provider(tmp_path, SAMPLES)


def test_lr_sending_says_each_file_it_reads_and_how_many_are_read(env: dict[str, Any]) -> None:
    ws, replay = env["ws"], env["replay"]
    names = ["a/one.md", "a/two.md", "b/three.md"]
    for i, rel in enumerate(names):
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(f"# {i}\nwords {i}\n", encoding="utf-8")
    replay.json("POST", "/documents/paginated", {"documents": [], "pagination": {
        "page": 1, "page_size": 200, "total_count": 0, "total_pages": 1, "has_next": False, "has_prev": False},
        "status_counts": {"all": 0}})
    replay.sample("GET", "/documents/supported_file_types", "05_supported_file_types.json")
    replay.sample("POST", "/documents/scan", "10_scan_started.json")
    lines: list[str] = []
    ctx = dataclasses.replace(env["ctx"], progress=lines.append)
    updates = plugin.ingest(ctx=ctx, sources=[source(ws, rel) for rel in names], force=False)
    assert [u.status for u in updates] == ["submitted"] * 3
    reading = [line for line in lines if line.startswith("reading files for LightRAG: ")]
    assert [line.split(": ")[1].split(";")[0].split(" ")[0] for line in reading] == ["0/3", "1/3", "2/3", "3/3"]
    for line, rel in zip(reading, names, strict=False):
        assert f"now {rel}" in line  # the file being read, by name
    assert " in " in reading[-1] and "now " not in reading[-1]  # how long reading them all took
    assert all(_STEP_RE.search(line) for line in reading)  # a step the CLI's piped writer throttles


def test_lr_starting_a_workspaces_engine_says_so_and_its_time_while_it_starts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """nc18a's run: 6.6 s of nothing while this workspace's LightRAG server came up (the note said it began,
    nothing after). While it starts, a line every ``START_HEARTBEAT_S`` says for how long."""
    import threading

    from mnote_kr_testkit.replay import make_context

    from mnote_kr_lightrag.client import workspaces
    from mnote_kr_lightrag.engine.managed import EngineInfo

    monkeypatch.setattr(workspaces, "START_HEARTBEAT_S", 0.01)
    lines: list[str] = []
    beats = threading.Event()

    def progress(line: str) -> None:
        lines.append(line)
        if sum(1 for x in lines if "s so far" in x) >= 2:
            beats.set()

    shared = EngineInfo(url="http://127.0.0.1:9", api_key="k", input_dir=str(tmp_path / "in"),
                        working_dir=str(tmp_path / "engine" / "rag"), pids={"server": 1}, offline_models=True)

    def slow_start(**kwargs: Any) -> EngineInfo:
        assert beats.wait(30), lines  # said again while the server comes up
        return shared

    monkeypatch.setattr(workspaces, "start_engine", slow_start)
    ctx = dataclasses.replace(make_context(tmp_path, None, url=""), progress=progress)
    assert workspaces._start(ctx, shared, "mnote_ab12", tmp_path / "state") is shared
    assert lines[0].startswith("note: starting this workspace's LightRAG engine (mnote_ab12)")
    assert all(x.startswith("starting this workspace's LightRAG engine (mnote_ab12): ") for x in lines[1:3])
