"""Paths a person types in a shell, made into paths the workspace takes (no click here).

A shell user in ``kb/decks`` types ``../notes.md`` as a matter of course. ``Workspace.resolve``
refuses every ``..`` because HTTP and MCP take paths from other programs, where ``..`` is how an
escape is tried; the command line takes the person's own paths, so a ``..`` is resolved here the
way the shell means it (from the folder a relative path is read from, symlinks followed as the
system does) and kept when it lands inside the workspace. One that lands outside is refused with
the path as typed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from mnote_kr.errors import PathNotAllowedError


def local_path(root: Path, raw: str) -> str:
    """``raw`` with its ``..`` resolved: an absolute path inside ``root``; ``raw`` itself without ``..``.

    A relative path is read from the current folder when it lies inside the workspace, else from
    the workspace root (as ``Workspace.resolve`` reads it). Only the part up to the last ``..`` is
    resolved, so a symlink named after it keeps its own name (``Workspace.resolve`` judges it)."""
    parts = Path(raw).expanduser().parts if raw and "\x00" not in raw else ()
    if ".." not in parts:
        return raw
    last = len(parts) - 1 - parts[::-1].index("..")
    head = Path(*parts[: last + 1])
    if not head.is_absolute():
        cwd = Path.cwd().resolve()
        head = (cwd if cwd.is_relative_to(root) else root) / head
    try:
        head = head.resolve()
    except (OSError, RuntimeError) as exc:  # a symlink loop
        raise PathNotAllowedError(raw, f"cannot be resolved: {exc}") from exc
    joined = head.joinpath(*parts[last + 1:])
    if not joined.is_relative_to(root):
        raise PathNotAllowedError(raw, f"outside the workspace {root}")
    return os.fspath(joined)


def local_paths(root: Path, raws: Iterable[str]) -> tuple[str, ...]:
    """``local_path`` of each."""
    return tuple(local_path(root, raw) for raw in raws)
