"""Whether a file on disk is still the version its registry entry indexed, asked where a file is cited
(search, ``open``, the viewer) and by ``status`` (:func:`since_indexed`) before any ``sync`` has looked at it.

A stat answers almost always: the size and time the entry recorded. A file whose time changed but not its
size may only have been touched (``touch``, a backup or sync tool, ``git checkout``): it is hashed and
compared with the indexed hash, once per version of it in a process (its inode, size and time), so a
touched file is neither dropped from search nor refused by ``open`` while a same-size edit still is. A
file of another size is changed without reading it.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mnote_kr.core import workspace
from mnote_kr.core.pending import ingest_command
from mnote_kr.core.registry import Registry
from mnote_kr.core.scan import Stat
from mnote_kr.core.workspace import excluded_entries, innermost_root
from mnote_kr.models import SourceEntry

#: Entries whose document is gone or going: nothing on disk to compare them with.
_DEAD = frozenset({"delete_submitted", "delete_completed"})

#: Versions of touched files this process hashed: (path, inode, size, mtime_ns) -> ``sha256:<hex>``.
_hashed: OrderedDict[tuple[str, int, int, int], str] = OrderedDict()
_HASHED_MAX = 512
_lock = threading.Lock()


def changed_since_indexed(entry: SourceEntry, path: str | Path, st: os.stat_result) -> bool:
    """Whether the file at ``path`` (stat ``st``) is not the version ``entry`` indexed. An entry that
    recorded no size or time (0) is not compared by it; a touched file is compared by its hash."""
    size_differs = bool(entry.size and st.st_size != entry.size)
    time_differs = bool(entry.mtime_ns and st.st_mtime_ns != entry.mtime_ns)
    if size_differs or not time_differs:
        return size_differs
    if not entry.source_hash:
        return True
    key = (str(path), st.st_ino, st.st_size, st.st_mtime_ns)
    with _lock:
        digest = _hashed.get(key)
    if digest is None:
        try:
            digest = workspace.sha256_file(path)
        except OSError:
            return True
        with _lock:
            _hashed[key] = digest
            while len(_hashed) > _HASHED_MAX:
                _hashed.popitem(last=False)
    return digest != entry.source_hash


def moved_on_disk(ws_root: Path, reg: Registry, missing: list[str], new: list[str], disk: Mapping[str, Stat],
                  hashed_max: int = 200) -> list[tuple[str, str]]:
    """The (old, new) pairs of ``missing`` entries whose bytes sit at a ``new`` path: a rename or move that
    ``sync`` follows (it recognises the file by its content). Only a new file of a missing entry's size is
    read (hashed), at most ``hashed_max`` of them, so a status over a folder of new files stays a walk."""
    by_size: dict[int, list[str]] = {}
    for rel in missing:
        entry = reg.entries.get(rel)
        if entry is not None and entry.size and entry.source_hash:
            by_size.setdefault(entry.size, []).append(rel)
    if not by_size:
        return []
    pairs: list[tuple[str, str]] = []
    taken: set[str] = set()
    for rel in new:
        seen = disk.get(rel)
        olds = by_size.get(seen[0]) if seen is not None else None
        if not olds or hashed_max <= 0:
            continue
        hashed_max -= 1
        try:
            digest = workspace.sha256_file(os.path.join(ws_root, rel))
        except OSError:
            continue
        old = next((o for o in olds if o not in taken and reg.entries[o].source_hash == digest), None)
        if old is not None:
            taken.add(old)
            pairs.append((old, rel))
    return sorted(pairs)


def since_indexed(ws_root: Path, reg: Registry, disk: Mapping[str, Stat], shown: int = 50,
                  new: list[str] | None = None, gone: set[str] | None = None) -> dict[str, Any]:
    """``status``'s ``changedSinceIndexed`` and ``missingSinceIndexed``: the registered files (live or queued,
    not yet marked stale, in scope) that a search would no longer cite as they are on disk, before any
    ``sync`` has looked, each part with the command that brings them back.

    ``disk`` is the walk of the roots ``status`` already made (rel -> (size, mtime_ns)); an entry outside
    it is stat'ed once. No file is read, but a touched one of the indexed size (hashed by
    :func:`changed_since_indexed`, as search does). Given the roots' ``new`` files, a missing file whose
    bytes are at a new path is a move (:func:`moved_on_disk`): ``movedSinceIndexed`` names it, and it is
    not counted as missing (its new path, not new, is left out of ``new`` by the caller). ``gone``, when
    given, receives every such path (changed, missing, and the old path of a move), not only the first
    ``shown``: what ``status`` leaves out of the files citable now."""
    entries = [e for e in reg.entries.values() if e.status not in _DEAD and not e.stale]
    excluded = excluded_entries(entries, reg.roots)
    changed: list[str] = []
    missing: list[str] = []
    no_follow: list[str] = []
    for entry in entries:
        rel = entry.source_root_relative_path
        if rel in excluded:
            continue
        seen = disk.get(rel)
        if seen is not None and seen == (entry.size, entry.mtime_ns) and entry.size and entry.mtime_ns:
            continue  # the indexed version: what nearly every entry is, decided without a system call
        path = os.path.join(ws_root, rel)
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            missing.append(rel)
            continue
        if changed_since_indexed(entry, path, st):
            changed.append(rel)
            root = innermost_root(rel, reg.roots)
            if root is not None and not root.run_on_change:
                no_follow.append(rel)
    changed.sort()
    missing.sort()
    moves = moved_on_disk(ws_root, reg, missing, new or [], disk) if missing and new else []
    if gone is not None:
        gone.update(changed, missing)
    if moves:
        olds = {old for old, _ in moves}
        missing = [rel for rel in missing if rel not in olds]
    if not no_follow:
        fix = f"'mnote-kr sync' re-indexes {'it' if len(changed) == 1 else 'them'} (not cited until then)"
    elif len(changed) == 1:
        fix = (f"'{ingest_command(no_follow[0])}' re-indexes it (its root was added with --no-follow; "
               "not cited until then)")
    else:
        fix = ("'mnote-kr sync' re-indexes them; in a root added with --no-follow, 'mnote-kr ingest FILE' does "
               "(not cited until then)")
    return {
        "changedSinceIndexed": {"count": len(changed), "paths": changed[:shown], "fix": fix},
        "missingSinceIndexed": {
            "count": len(missing), "paths": missing[:shown],
            "fix": "'mnote-kr sync' stops citing them (a file moved or renamed inside the roots is recognised "
                   "by its content and cited under its new path)",
        },
        "movedSinceIndexed": {
            "count": len(moves), "moves": [{"from": old, "to": to} for old, to in moves[:shown]],
            "fix": "'mnote-kr sync' follows the move (same content: cited under the new path, not indexed again)",
        },
    }
