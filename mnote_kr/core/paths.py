"""Where mnote-kr keeps its own files (never inside a user's folder, except ``.mnote/``).

platformdirs decides; ``MNOTE_KR_HOME`` overrides every directory (tests, portable
installs): ``$MNOTE_KR_HOME/{config,data,cache,state}``.
"""

from __future__ import annotations

import os
from pathlib import Path

APP = "mnote-kr"


def _home() -> Path | None:
    home = os.environ.get("MNOTE_KR_HOME")
    return Path(home).expanduser() if home else None


def _dir(kind: str) -> Path:
    home = _home()
    if home is not None:
        path = home / kind
    else:
        import platformdirs  # not with MNOTE_KR_HOME: its import is a sizeable part of a light command

        path = Path(getattr(platformdirs, f"user_{kind}_dir")(APP, appauthor=False))
    path.mkdir(parents=True, exist_ok=True, mode=0o700)  # tokens, logs, the engine's stores: the user's only
    return path


def config_dir() -> Path:
    """User configuration (``config.toml``)."""
    return _dir("config")


def data_dir() -> Path:
    """Durable data, e.g. the managed LightRAG engine's working and input dirs."""
    return _dir("data")


def cache_dir() -> Path:
    """Caches that can be rebuilt (tiktoken files, parsed documents)."""
    return _dir("cache")


def state_dir() -> Path:
    """Run state: PIDs of managed processes, API tokens, logs."""
    return _dir("state")
