"""Small file helpers for tests: write a file (parents made), fingerprint a tree of sources."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import Any


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def digest_tree(root: Path) -> dict[str, tuple[str, int]]:
    """``rel path -> (sha256, mtime_ns)`` of every file under ``root`` but ``.mnote/``.

    Taken before and after an operation, it proves the user's files were not touched. An entry
    that is no regular file (a FIFO, a socket) is fingerprinted by its kind, never opened.
    """
    out: dict[str, tuple[str, int]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".mnote"]
        for name in filenames:
            p = Path(dirpath) / name
            st = p.stat()
            digest = hashlib.sha256(p.read_bytes()).hexdigest() if stat.S_ISREG(st.st_mode) else f"mode {st.st_mode:o}"
            out[p.relative_to(root).as_posix()] = (digest, st.st_mtime_ns)
    return out


def spy_opens(monkeypatch: Any) -> list[str]:
    """Every path ``open`` and ``os.open`` are given from now on (``monkeypatch.undo()`` stops it): a test
    that a step reads no file of the user's."""
    import builtins

    opened: list[str] = []
    real_open, real_os_open = builtins.open, os.open

    def spy_open(file: Any, *args: Any, **kw: Any) -> Any:  # noqa: ANN401
        opened.append(str(file))
        return real_open(file, *args, **kw)

    def spy_os_open(path: Any, *args: Any, **kw: Any) -> Any:  # noqa: ANN401
        opened.append(str(path))
        return real_os_open(path, *args, **kw)

    monkeypatch.setattr(builtins, "open", spy_open)
    monkeypatch.setattr(os, "open", spy_os_open)
    return opened
