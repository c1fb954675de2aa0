"""A stop the user asked for wins (nc28b surprise 2): ``mnote-kr engine stop`` while a search or ingest runs must
not make that work start a workspace's server again (it did, from the shared engine's record read a moment
before, and ``engine status`` then denied it). What tells a deliberate stop from a first use is the stop's own
record, written before anything is signalled and removed by the next start. Work in flight ends with one line
saying the engine was stopped; ``engine status`` names any workspace server left running.

The process layer is faked by sleepers whose command line carries the engine's markers (``procs.MARKERS``): the
stop signals them as ours. Every one is killed at the end. The real engine: tests/test_engine_stop_integration.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mnote_kr_testkit.replay import make_context
from mnote_kr_testkit.waiting import wait_until

from mnote_kr_lightrag.client import settings, workspaces
from mnote_kr_lightrag.client.http import EngineNotRunningError, EngineStoppedError, LightRagClient
from mnote_kr_lightrag.engine import managed
from mnote_kr_lightrag.engine.procs import MARKERS


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    settings.clear_cache()
    yield
    settings.clear_cache()


@pytest.fixture
def sleepers() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Processes that look like the engine's (their command line names its module) and only wait on their stdin:
    alive until killed here, or until the test process ends and the pipe closes (no timed lifetime)."""
    made: list[subprocess.Popen[bytes]] = []
    yield made
    for proc in made:
        proc.kill()
        proc.wait(10)
        if proc.stdin:
            proc.stdin.close()


def _sleeper(made: list[subprocess.Popen[bytes]], role: str) -> int:
    proc = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()", MARKERS[role]],
                            stdin=subprocess.PIPE)
    made.append(proc)
    return proc.pid


def _info(tmp_path: Path, pids: dict[str, int], started_at: float = 100.0, **more: object) -> managed.EngineInfo:
    fields: dict[str, object] = {"url": "http://127.0.0.1:9", **more}
    return managed.EngineInfo(api_key="k", input_dir=str(tmp_path / "inputs"),  # type: ignore[arg-type]
                              working_dir=str(tmp_path / "data" / "engine" / "rag_storage"), pids=pids,
                              offline_models=True, started_at=started_at, **fields)


def _ctx(tmp_path: Path) -> object:
    return make_context(tmp_path, None, url="")  # no URL: the managed engine decides


def _never_start(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    started: list[str] = []
    monkeypatch.setattr(workspaces, "engine_status", lambda state_dir, **kw: None)  # this workspace's: not running
    monkeypatch.setattr(managed, "_start_locked", lambda **kw: started.append("start") or pytest.fail("started"))
    return started


def test_work_that_meets_a_stop_under_way_starts_no_workspace_server(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The shared engine's record still there (its stop has begun: model service first, then the workspaces'
    servers, then its own): work that read it a moment before must not start this workspace's server."""
    ctx = _ctx(tmp_path)
    shared = _info(tmp_path, {"server": 1})
    managed._write_state(ctx.state_dir / managed.STATE_FILE, shared)
    (ctx.state_dir / managed.STOPPED_FILE).write_text(json.dumps({"at": 1e9, "startedAt": 100.0}))
    started = _never_start(monkeypatch)
    with pytest.raises(EngineStoppedError) as caught:
        workspaces.workspace_engine(ctx, shared)
    assert started == []
    assert caught.value.message.startswith("The managed LightRAG engine was stopped ('mnote-kr engine stop' at ")
    assert caught.value.message.endswith(" while this work was under way"), caught.value.message
    assert caught.value.hint == "start it with 'mnote-kr engine start'"


def test_work_that_read_the_engine_before_its_stop_ended_starts_no_workspace_server(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = _ctx(tmp_path)
    shared = _info(tmp_path, {"server": 1})  # no process of ours: the stop signals nothing
    managed._write_state(ctx.state_dir / managed.STATE_FILE, shared)
    managed.stop_engine(ctx.state_dir)
    started = _never_start(monkeypatch)
    with pytest.raises(EngineStoppedError, match="while this work was under way"):
        workspaces.workspace_engine(ctx, shared)  # the record it holds is the stopped engine's
    assert started == []


def test_a_workspace_server_still_starts_on_first_use_beside_a_running_engine(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """By design: a workspace's server starts the first time work needs it, while the shared engine runs (a stop
    of an earlier engine, since started again, refuses nothing)."""
    ctx = _ctx(tmp_path)
    (ctx.state_dir / managed.STOPPED_FILE).write_text(json.dumps({"at": 1e9, "startedAt": 50.0}))  # the one before
    shared = _info(tmp_path, {"server": 1})
    managed._write_state(ctx.state_dir / managed.STATE_FILE, shared)
    monkeypatch.setattr(workspaces, "engine_status", lambda state_dir, **kw: None)
    ran: list[str] = []
    monkeypatch.setattr(managed, "_start_locked", lambda **kw: ran.append(kw["workspace"]) or shared)
    assert workspaces.workspace_engine(ctx, shared) is shared
    assert ran == [workspaces.lightrag_workspace(ctx)]


def test_a_stop_that_begins_while_a_workspace_server_waits_for_its_lock_wins(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """``go_ahead`` runs under the workspace server's own lock, before anything starts: a stop that began after the
    first look (its record written since) refuses the start there."""
    started: list[str] = []
    monkeypatch.setattr(managed, "_start_locked", lambda **kw: started.append("start") or pytest.fail("started"))

    def refuse() -> None:
        raise EngineStoppedError({"at": 1e9})

    with pytest.raises(EngineStoppedError):
        managed.start_engine(data_dir=tmp_path / "data", state_dir=tmp_path / "ws-state", cache_dir=tmp_path / "c",
                             workspace="mnote_x", go_ahead=refuse)
    assert started == []


def test_a_stop_records_itself_before_it_signals_anything(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          sleepers: list[subprocess.Popen[bytes]]) -> None:
    state = tmp_path / "state"
    shared = _info(tmp_path, {"server": _sleeper(sleepers, "server"), "models": _sleeper(sleepers, "models")})
    managed._write_state(state / managed.STATE_FILE, shared)
    sub = managed.workspace_state_dir(state, "mnote_x")
    managed._write_state(sub / managed.STATE_FILE, _info(tmp_path, {"server": _sleeper(sleepers, "server")}, 7.0))
    seen: list[tuple[int, dict[str, object] | None]] = []
    real = managed.terminate

    def watched(pid: int, role: str, timeout: float) -> bool:
        seen.append((pid, managed.stopped_record(state)))
        return real(pid, role, timeout)

    monkeypatch.setattr(managed, "terminate", watched)
    stopped = managed.stop_engine(state, timeout=5)
    assert sorted(stopped) == sorted(p.pid for p in sleepers)  # the three, and no other
    assert [pid for pid, _ in seen] and all(record is not None and record["startedAt"] == 100.0
                                            for _, record in seen), seen
    assert managed.read_state(state) is None and managed.stopped_record(state) is not None  # kept until a start
    assert all(p.wait(10) is not None for p in sleepers)


def test_engine_status_names_a_workspace_server_left_running_without_the_shared_one(
        tmp_path: Path, sleepers: list[subprocess.Popen[bytes]]) -> None:
    from click.testing import CliRunner

    from mnote_kr.cli.main import cli as main
    from mnote_kr.core import paths

    sub = managed.workspace_state_dir(paths.state_dir(), "mnote_9980c8ba")
    pid = _sleeper(sleepers, "server")
    info = _info(tmp_path, {"server": pid}, run_dir=str(sub / managed.RUN_DIR), url="http://127.0.0.1:36849")
    managed._write_state(sub / managed.STATE_FILE, info)
    out = CliRunner().invoke(main, ["engine", "status"])
    assert out.exit_code == 0, out.output
    assert "No managed engine is running" not in out.output, out.output
    assert (f"1 workspace server(s) it started still run: mnote_9980c8ba at http://127.0.0.1:36849 (server pid {pid}); "
            "'mnote-kr engine stop' stops them") in out.output, out.output
    shown = json.loads(CliRunner().invoke(main, ["engine", "status", "--json"]).output)
    assert shown["running"] is False and [w["url"] for w in shown["workspaceServers"]] == ["http://127.0.0.1:36849"]
    assert "apiKey" not in shown["workspaceServers"][0]
    assert CliRunner().invoke(main, ["engine", "stop"]).output.strip() == "Stopped 1 process(es)"
    assert "No managed engine is running" in CliRunner().invoke(main, ["engine", "status"]).output


def _refused(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("connection refused", request=request)


def test_a_search_whose_engine_is_stopped_under_it_says_so_in_one_line(tmp_path: Path) -> None:
    ctx = make_context(tmp_path, httpx.MockTransport(_refused))
    (ctx.state_dir / managed.STOPPED_FILE).write_text(json.dumps({"at": 1e9, "startedAt": 100.0}))
    with LightRagClient(ctx, "http://127.0.0.1:9", "k", engine_started_at=100.0) as client:
        with pytest.raises(EngineStoppedError) as caught:
            client.query_data({"query": "q"})
    assert caught.value.message.endswith(" while this search was under way"), caught.value.message
    assert caught.value.hint == "start it with 'mnote-kr engine start'"
    with LightRagClient(ctx, "http://127.0.0.1:9", "k", engine_started_at=100.0) as client:
        with pytest.raises(EngineStoppedError, match="while this work was under way"):
            client.status_counts()
    # Its model service went first: LightRAG answers 500 to the search it holds.
    failing = make_context(tmp_path, httpx.MockTransport(lambda r: httpx.Response(500, json={"detail": "x"})))
    with LightRagClient(failing, "http://127.0.0.1:9", "k", engine_started_at=100.0) as client:
        with pytest.raises(EngineStoppedError, match="this search"):
            client.query_data({"query": "q"})
    # Another engine's stop, or a configured URL: unreachable, as before.
    for started_at in (99.0, None):
        with LightRagClient(ctx, "http://127.0.0.1:9", "k", engine_started_at=started_at) as client:
            with pytest.raises(Exception) as plain:
                client.query_data({"query": "q"})
        assert not isinstance(plain.value, EngineStoppedError)
        assert "is not reachable" in str(plain.value)


def test_the_next_look_of_work_under_way_says_the_engine_was_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                      sleepers: list[subprocess.Popen[bytes]]) -> None:
    """An ``ingest --wait`` resolves its settings again at each look: after the stop, the engine it worked with was
    stopped (not "not running"); a process that never used it still hears that none runs."""
    ctx = _ctx(tmp_path)
    shared = _info(tmp_path, {"server": _sleeper(sleepers, "server")})
    managed._write_state(ctx.state_dir / managed.STATE_FILE, shared)
    monkeypatch.setattr(workspaces, "workspace_engine", lambda ctx, info: info)  # its own server: not the point
    assert settings.resolve_settings(ctx).engine_started_at == 100.0
    managed.stop_engine(ctx.state_dir, timeout=5)
    with pytest.raises(EngineStoppedError) as caught:
        settings.resolve_settings(ctx)
    assert caught.value.message.startswith("The managed LightRAG engine was stopped ('mnote-kr engine stop' at ")
    settings.clear_cache()  # a fresh process
    with pytest.raises(EngineNotRunningError) as fresh:
        settings.resolve_settings(ctx)
    assert not isinstance(fresh.value, EngineStoppedError)
    assert fresh.value.message == "The managed LightRAG engine is not running and no LightRAG URL is configured"


def test_a_server_of_ours_another_process_stopped_is_reaped_not_left_defunct(tmp_path: Path) -> None:
    """``serve`` started a workspace's server; ``engine stop`` (another process) ended it: the next look at the
    engine collects it (nc28b: the children stayed ``<defunct>`` under serve)."""
    from mnote_kr_lightrag.engine import procs

    child = procs.spawn([sys.executable, "-c", "pass"], cwd=tmp_path, env=procs.base_env(), log=tmp_path / "out")
    try:
        wait_until(lambda: procs._is_zombie(child.pid), timeout_s=60, what="the child never exited")
        assert managed.engine_status(tmp_path / "state") is None  # any look at the engine
        assert child.returncode == 0 and child.pid not in procs.CHILDREN
        assert not procs._is_zombie(child.pid)
    finally:
        procs.CHILDREN.pop(child.pid, None)
