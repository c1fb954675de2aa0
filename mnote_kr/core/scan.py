"""Which files of the indexed roots are candidates for the index, found by walking the disk.

The rules are ingest's own: a file is admitted by the innermost root that covers it, with that
root's recursion and exclude patterns; tool folders are skipped; FIFOs, sockets, devices, names
that are not valid UTF-8 and symlinks leading out of the workspace are passed over with a reason.
Files are only ever stat'ed here, never opened.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

from mnote_kr.core.workspace import (
    BAD_FOLDER_REASON,
    BAD_NAME_REASON,
    SKIP_DIRS,
    bad_name,
    excluded_by,
    excluded_in_root,
    innermost_root,
    shown_path,
    special_kind,
    special_reason,
)
from mnote_kr.models import IndexedRoot

Stat = tuple[int, int]  # (size, mtime_ns)


def admitted(rel: str, roots: Mapping[str, IndexedRoot], *, is_dir: bool = False) -> IndexedRoot | None:
    """The root that would index ``rel`` (None: outside roots, excluded, tool folder).

    With ``is_dir`` the question is whether files below folder ``rel`` can be indexed.
    """
    parts = rel.split("/")
    if any(p in SKIP_DIRS for p in (parts if is_dir else parts[:-1])):
        return None
    root = innermost_root(rel, roots)
    if root is None:
        return None
    if rel == root.root_relative_path:
        return root if is_dir else None
    base = root.root_relative_path
    sub = rel[len(base) + 1 :] if base else rel
    if not root.recursive and len(sub.split("/")) > (0 if is_dir else 1):
        return None
    # An excluded folder excludes what is below it, as ingest does.
    if root.exclude_patterns and excluded_in_root(rel, base, root.exclude_patterns):
        return None
    return root


def scan_roots(ws_root: Path, roots: Mapping[str, IndexedRoot], out: dict[str, Stat],
               skipped: dict[str, str] | None = None, folders: dict[str, int] | None = None) -> None:
    """:func:`scan_tree` over every indexed root, each folder once (a nested root is walked from
    its outer root, with its own rules)."""
    for root_rel in sorted(roots):
        if innermost_root(root_rel, {k: v for k, v in roots.items() if k != root_rel}) is not None:
            continue
        scan_tree(ws_root, root_rel, roots, out, skipped, folders)


def scan_tree(
    ws_root: Path, start_rel: str, roots: Mapping[str, IndexedRoot], out: dict[str, Stat],
    skipped: dict[str, str] | None = None, folders: dict[str, int] | None = None,
) -> None:
    """Add every admitted file under ``start_rel`` to ``out`` (rel -> (size, mtime_ns)).

    ``os.scandir`` plus one stat per file; a folder that is itself a root is walked with
    that root's own rules (recursion, excludes), so nested roots are walked once.
    ``skipped`` (shown path -> reason) receives what is passed over that ingest would name too:
    a FIFO, socket or device (stat'ed, never opened), a name that is not valid UTF-8, a symlink
    leading out of the workspace. ``folders`` (rel -> mtime_ns, taken before the folder is read)
    receives every folder walked.
    """
    note = skipped.__setitem__ if skipped is not None else _no_note
    root = admitted(start_rel, roots, is_dir=True)
    if root is None:
        return
    ws = str(ws_root)
    stack: list[tuple[str, IndexedRoot]] = [(start_rel, root)]
    while stack:
        rel_dir, rule = stack.pop()
        abs_dir = os.path.join(ws, rel_dir) if rel_dir else ws
        try:
            if folders is not None:
                folders[rel_dir] = os.stat(abs_dir).st_mtime_ns
            it = os.scandir(abs_dir)
        except OSError:
            continue
        with it:
            for item in it:
                rel = f"{rel_dir}/{item.name}" if rel_dir else item.name
                try:
                    if item.is_dir(follow_symlinks=False):
                        if item.name in SKIP_DIRS:
                            continue
                        if bad_name(item.name):
                            note(shown_path(rel), BAD_FOLDER_REASON)
                            continue
                        sub_rule = roots.get(rel)
                        if sub_rule is None:
                            patterns = rule.exclude_patterns
                            if not rule.recursive or (patterns
                                                      and excluded_by(rel, patterns, rule.root_relative_path)):
                                continue
                            sub_rule = rule
                        stack.append((rel, sub_rule))
                        continue
                    if rule.exclude_patterns and excluded_by(rel, rule.exclude_patterns, rule.root_relative_path):
                        continue
                    if bad_name(item.name):
                        note(shown_path(rel), BAD_NAME_REASON)
                        continue
                    if item.is_symlink():
                        try:
                            target = Path(item.path).resolve()
                        except RuntimeError:  # Python 3.11's word for a symlink loop
                            note(rel, "symlink in a loop: not followed")
                            continue
                        if not target.is_relative_to(ws_root):
                            note(rel, "symlink leads outside the workspace")
                            continue
                        st = os.stat(item.path)
                        if not _is_reg(st.st_mode):
                            note(rel, f"a symlink to {special_kind(st.st_mode)}: not followed")
                            continue
                    elif item.is_file(follow_symlinks=False):
                        st = item.stat(follow_symlinks=False)
                    else:
                        note(rel, special_reason(item.stat(follow_symlinks=False).st_mode))
                        continue
                except OSError:
                    continue  # vanished while we looked: the next event or pass sees it
                out[rel] = (st.st_size, st.st_mtime_ns)


def _no_note(path: str, reason: str) -> None:
    return None


def stat_rel(ws_root: Path, rel: str) -> Stat | None:
    """(size, mtime_ns) of a regular file (symlinks followed), None when absent or not a file."""
    try:
        st = os.stat(os.path.join(ws_root, rel))
    except (OSError, ValueError):
        return None
    if not _is_reg(st.st_mode):
        return None
    return (st.st_size, st.st_mtime_ns)


def _is_reg(mode: int) -> bool:
    return stat.S_ISREG(mode)
