"""A stop that begins while work starts a workspace's server ends that work at once (nc28c b-2: a CLI search caught
by 'mnote-kr engine stop' said so only after 12.0 s). The search had begun starting its workspace's server; the stop
waited for that server's lock until the server answered /health (its whole start-up), stopped it, and only then did the
search fail. The start now asks again at every /health poll whether it is still wanted (``start_engine``'s
``go_ahead``): once the stop is recorded it stops what it started and raises the stop's one-line error.

The process is a stand-in that only waits on its stdin (it never answers /health); it is killed at the end."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from mnote_kr_testkit.replay import make_context

from mnote_kr.plugin_api import ProviderError
from mnote_kr_lightrag.client import settings, workspaces
from mnote_kr_lightrag.client.http import EngineStoppedError
from mnote_kr_lightrag.engine import health, managed


@pytest.fixture
def silent() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    yield proc
    proc.kill()
    proc.wait(10)
    if proc.stdin:
        proc.stdin.close()


def test_a_start_waiting_for_health_gives_up_once_it_is_no_longer_wanted(
        tmp_path: Path, silent: subprocess.Popen[bytes]) -> None:
    asked: list[int] = []

    def still_wanted() -> None:
        asked.append(1)
        if len(asked) >= 3:  # the stop is recorded while the server starts
            raise EngineStoppedError({"at": 1e9}, "this work")

    t0 = time.monotonic()
    with pytest.raises(EngineStoppedError, match="while this work was under way"):
        health.wait_until("http://127.0.0.1:9", silent, time.monotonic() + 120, "lightrag-server",
                          [tmp_path / "server.out"], still_wanted=still_wanted)
    assert len(asked) == 3
    assert time.monotonic() - t0 < 30  # three polls, not the 120 s start-up bound
    assert silent.poll() is None  # the caller stops what it started (``_start_locked``)


def test_a_start_nobody_refuses_still_waits_to_its_deadline(tmp_path: Path,
                                                            silent: subprocess.Popen[bytes]) -> None:
    asked: list[int] = []
    with pytest.raises(ProviderError, match="did not answer"):
        health.wait_until("http://127.0.0.1:9", silent, time.monotonic() + 0.6, "lightrag-server",
                          [tmp_path / "server.out"], still_wanted=lambda: asked.append(1))
    assert asked  # asked at each poll


def test_start_engine_asks_its_go_ahead_during_the_wait_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, object] = {}
    monkeypatch.setattr(managed, "_start_locked", lambda **kw: seen.update(kw) or "started")

    def go_ahead() -> None:
        return None

    assert managed.start_engine(data_dir=tmp_path / "d", state_dir=tmp_path / "s", cache_dir=tmp_path / "c",
                                workspace="mnote_x", go_ahead=go_ahead) == "started"
    assert seen["still_wanted"] is go_ahead


def test_a_workspace_server_start_is_no_longer_wanted_once_the_shared_engine_stop_is_recorded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the workspace's start asks at each poll: the stop record of the engine it started beside."""
    settings.clear_cache()
    ctx = make_context(tmp_path, None, url="")
    shared = managed.EngineInfo(url="http://127.0.0.1:9", api_key="k", input_dir=str(tmp_path / "in"),
                                working_dir=str(tmp_path / "w"), pids={"server": 1}, offline_models=True,
                                started_at=100.0)
    managed._write_state(ctx.state_dir / managed.STATE_FILE, shared)
    monkeypatch.setattr(workspaces, "engine_status", lambda state_dir, **kw: None)
    checks: list[object] = []

    def fake_start(**kw: object) -> managed.EngineInfo:
        check = kw["still_wanted"]
        assert callable(check)
        check()  # the engine still runs: the start goes on
        (ctx.state_dir / managed.STOPPED_FILE).write_text(json.dumps({"at": 1e9, "startedAt": 100.0}))
        checks.append(check)
        check()  # the stop is recorded: raises
        pytest.fail("the start went on after the stop")

    monkeypatch.setattr(managed, "_start_locked", fake_start)
    with pytest.raises(EngineStoppedError, match="while this work was under way"):
        workspaces.workspace_engine(ctx, shared)
    assert len(checks) == 1
    settings.clear_cache()
