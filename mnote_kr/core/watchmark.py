"""Whether a watcher follows this workspace now: a small mark it leaves in ``.mnote/index`` while it runs.

What a search or ``status`` advises for a file on its way into the index depends on it: with ``mnote-kr
watch`` running, the watcher sends a queued file itself, and telling the person to run ``mnote-kr sync``
is wrong advice (nc18b problem 6). The watcher writes its pid to :data:`MARK_FILE` when it starts and
removes the mark when it stops (only its own: a second watcher's mark stays); a reader believes a mark
only while that pid runs, so a watcher killed without stopping leaves no lasting claim.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from mnote_kr.core.atomic import write_atomic
from mnote_kr.core.procs import pid_alive

MARK_FILE = "watcher.pid"


def mark(index_dir: Path) -> None:
    """Say that this process watches the workspace whose index is ``index_dir``."""
    index_dir.mkdir(parents=True, exist_ok=True)
    write_atomic(index_dir / MARK_FILE, f"{os.getpid()}\n")


def unmark(index_dir: Path) -> None:
    """Take this process's mark away (a mark another process left is kept)."""
    path = index_dir / MARK_FILE
    if _pid(path) == os.getpid():
        with contextlib.suppress(OSError):
            path.unlink()


def watching(index_dir: Path) -> bool:
    """Whether a watcher runs for the workspace whose index is ``index_dir`` (its mark, its pid alive)."""
    pid = _pid(index_dir / MARK_FILE)
    return pid is not None and pid_alive(pid)


def _pid(path: Path) -> int | None:
    try:
        return int(path.read_text(encoding="ascii").strip())
    except (OSError, ValueError, UnicodeDecodeError):
        return None


__all__ = ["MARK_FILE", "mark", "unmark", "watching"]
