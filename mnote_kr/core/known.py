"""The workspaces this user has: every folder where an indexed root was added or files were ingested.

Kept in ``<state dir>/workspaces.json`` (0600), so that a command started outside any workspace
(an agent's ``mnote-kr mcp``, launched from wherever its client runs it) can find the user's
library instead of opening an empty one. A folder that no longer holds ``.mnote/`` is dropped
when the list is read. Only folder paths are kept, never file names or content.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from mnote_kr.core import paths
from mnote_kr.core.atomic import write_private
from mnote_kr.core.locks import exclusive

FILE = "workspaces.json"
_LOCK_S = 10.0


def _path() -> Path:
    return paths.state_dir() / FILE


def _read(path: Path) -> list[str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    folders = data.get("workspaces") if isinstance(data, dict) else None
    return [f for f in folders if isinstance(f, str)] if isinstance(folders, list) else []


def remember(root: Path) -> None:
    """Record ``root`` (a workspace folder) as one of the user's workspaces."""
    path = _path()
    folder = os.fspath(Path(root).resolve())
    with exclusive(str(path) + ".lock", _LOCK_S):
        folders = _read(path)
        if folder in folders:
            return
        write_private(path, json.dumps({"workspaces": sorted([*folders, folder])}, indent=1) + "\n")


def known() -> list[Path]:
    """The user's workspaces that still exist (hold ``.mnote/``), sorted."""
    return [Path(f) for f in _read(_path()) if (Path(f) / ".mnote").is_dir()]
