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
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mnote_kr_lightrag.engine.managed import EngineInfo, start_engine, stop_engine
from mnote_kr_lightrag.engine.tiktoken_cache import ENCODINGS, default_cache_dir, is_valid

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
        terminal = config.pluginmanager.get_plugin("terminalreporter")
        if terminal is not None:
            terminal.write_line(f"lightrag engine started in {info_wall:.1f}s at {info.url}")
    yield config.stash[_KEY][0]


@pytest.fixture(scope="session")
def lightrag_engine(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[EngineInfo]:
    """Session fixture: a running managed LightRAG engine (offline models, API key set)."""
    yield from lightrag_engine_fixture(tmp_path_factory, request)
