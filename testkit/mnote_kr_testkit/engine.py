"""pytest support: one real managed LightRAG engine per test session.

The fixture starts the engine through the same :func:`~mnote_kr_lightrag.engine.managed.start_engine`
that ``mnote-kr engine start`` uses, with every directory under pytest's temporary base dir,
and stops it when the session ends. It never skips: if the server cannot start, the test that
asked for it errors with the server's log tail.

Use it from any test module or ``conftest.py``::

    from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (a fixture)

    @pytest.mark.integration
    def test_something(lightrag_engine):
        httpx.get(f"{lightrag_engine.url}/health", headers={"X-API-Key": lightrag_engine.api_key})

or define your own fixture around the plain generator::

    @pytest.fixture(scope="session")
    def engine(tmp_path_factory, request):
        yield from lightrag_engine_fixture(tmp_path_factory, request)

However many modules import it, one engine runs per session (it is kept on ``config.stash``).

Each workspace gets a LightRAG server of its own from that engine (``client/workspaces.py``), a few
hundred MB each. A workspace inside a test's own ``tmp_path`` can serve no later test, so its server
is stopped when that test ends (:class:`WorkspaceEngineReaper`); the session engine and the servers
of workspaces elsewhere (a module's fixture) keep running.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from mnote_kr_lightrag.client.naming import workspace_tag
from mnote_kr_lightrag.client.workspaces import PREFIX
from mnote_kr_lightrag.engine.managed import (
    STATE_FILE,
    EngineInfo,
    start_engine,
    stop_engine,
    workspace_state_dir,
    workspace_state_dirs,
)
from mnote_kr_lightrag.engine.tiktoken_cache import ENCODINGS, default_cache_dir, is_valid

from .waiting import wait_until

_KEY = pytest.StashKey[tuple[EngineInfo, Path]]()


def seed_tiktoken(cache_dir: Path) -> None:
    """Copy already verified tiktoken files from the user's cache (read only) to save a rebuild."""
    try:
        source = default_cache_dir()
    except OSError:
        return
    target = cache_dir / "tiktoken"
    target.mkdir(parents=True, exist_ok=True)
    for encoding, (name, _sha) in ENCODINGS.items():
        if is_valid(source, encoding) and not (target / name).exists():
            shutil.copyfile(source / name, target / name)


class WorkspaceEngineReaper:
    """Stops, when a test ends, the servers of workspaces inside that test's ``tmp_path``.

    Only those: nothing after the test can use a workspace in its ``tmp_path``, while a workspace
    of a module's fixture (``tmp_path_factory``) serves the module's later tests. The session
    engine and its model service are never touched (``stop_engine`` of a workspace's state dir).
    """

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        #: How many workspace servers were stopped (for a test of this class).
        self.stopped = 0

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Generator[None, None, None]:
        funcargs = getattr(item, "funcargs", None) or {}
        tmp = funcargs.get("tmp_path")
        yield  # the test's own fixtures finish first: they may still use their workspace
        if isinstance(tmp, Path):
            self.reap(tmp)

    def reap(self, tmp: Path) -> None:
        """Stop the servers of the workspaces (folders holding ``.mnote/``) under ``tmp``."""
        if not any((sub / STATE_FILE).exists() for sub in workspace_state_dirs(self.state_dir)):
            return  # no workspace server runs: nothing to look for
        for folder, dirs, _ in os.walk(tmp):
            if ".mnote" in dirs:
                sub = workspace_state_dir(self.state_dir, PREFIX + workspace_tag(Path(folder).resolve()))
                if (sub / STATE_FILE).exists() and stop_engine(sub):
                    self.stopped += 1
            dirs[:] = [d for d in dirs if d not in (".mnote", ".git", "node_modules")]


def lightrag_engine_fixture(tmp_path_factory: pytest.TempPathFactory,
                            request: pytest.FixtureRequest) -> Iterator[EngineInfo]:
    """Yield the session's :class:`EngineInfo`, starting the engine on first use.

    ``info.start_seconds`` says how long the start took (tiktoken cache, model service, server).
    """
    config = request.config
    if _KEY not in config.stash:
        base = tmp_path_factory.mktemp("lightrag-engine")
        state_dir = base / "state"
        seed_tiktoken(base / "cache")
        t0 = time.monotonic()
        info = start_engine(data_dir=base / "data", state_dir=state_dir, cache_dir=base / "cache", wait_s=120)
        info_wall = time.monotonic() - t0
        config.stash[_KEY] = (info, state_dir)

        def _stop() -> None:
            stop_engine(state_dir)

        config.add_cleanup(_stop)
        config.pluginmanager.register(WorkspaceEngineReaper(state_dir), "mnote-kr-workspace-engine-reaper")
        terminal = config.pluginmanager.get_plugin("terminalreporter")
        if terminal is not None:
            terminal.write_line(f"lightrag engine started in {info_wall:.1f}s at {info.url}")
    yield config.stash[_KEY][0]


@pytest.fixture(scope="session")
def lightrag_engine(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[EngineInfo]:
    """Session fixture: a running managed LightRAG engine (offline models, API key set)."""
    yield from lightrag_engine_fixture(tmp_path_factory, request)


def wait_no_unmapped(host: Any, *, processed: int, timeout_s: float = 90) -> None:  # noqa: ANN401
    """Wait until ``host.status()``'s provider lists no unmapped document (one LightRAG holds that no
    registry entry names) and ``processed`` processed ones: no document left behind."""

    def settled() -> bool:
        prov = host.status()["provider"]
        return prov["unmapped"] == [] and prov["documentsByStatus"].get("processed") == processed

    wait_until(settled, timeout_s=timeout_s, what=lambda: repr(host.status()["provider"]["unmapped"]))
