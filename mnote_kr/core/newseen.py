"""The files of the roots never ingested, for every search: the last walk's answer while no folder changed.

``status`` walks the roots for them (:func:`mnote_kr.core.pending.new_files`: a stat per file). A search names
them too (nc22b: status said "New: x.docx", a search nothing), and must stay cheap: a file added, removed or
renamed in a folder changes that folder's mtime, so while every folder walked last keeps its mtime, and the roots'
rules and the registry are as they were, the last walk's list still holds: a stat per folder, none per file. Else
the roots are walked again and the answer kept in ``.mnote/index/new-files-seen.json`` (a derived cache: absent
or unreadable means walk).

A folder whose mtime was within ``RECENT_NS`` of the walk is not trusted (a file created in the same clock tick
after the folder was read would leave its mtime as it was): the next search walks again.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import msgspec

from mnote_kr.core.atomic import write_atomic
from mnote_kr.core.pending import new_files
from mnote_kr.core.registry import Registry

NEW_SEEN_FILE = "new-files-seen.json"
#: A folder changed this recently when walked is walked again next time (mtime ticks are coarser than a walk).
RECENT_NS = 2_000_000_000


class NewSeen(msgspec.Struct, kw_only=True):
    """What the last walk found: ``key`` (the roots' rules and the registry file's version), every folder
    walked with its mtime (-1: too recent to trust), and the files no entry recorded."""

    version: int = 1
    key: str = ""
    folders: dict[str, int] = {}
    new: list[str] = []


_decoder = msgspec.json.Decoder(NewSeen)
_encoder = msgspec.json.Encoder()


def _key(reg: Registry, registry_path: Path) -> str:
    try:
        st = os.stat(registry_path)
        version = f"{st.st_size}:{st.st_mtime_ns}"
    except OSError:
        version = "none"
    roots = msgspec.json.encode(sorted(reg.roots.items()))
    return hashlib.sha256(roots + version.encode()).hexdigest()[:32]


def _unchanged(ws_root: Path, folders: Mapping[str, int]) -> bool:
    for rel, mtime in folders.items():
        try:
            if mtime < 0 or os.stat(os.path.join(ws_root, rel) if rel else ws_root).st_mtime_ns != mtime:
                return False
        except OSError:
            return False
    return True


def new_files_seen(ws_root: Path, index_dir: Path, registry_path: Path, reg: Registry,
                   unindexable: Callable[[list[str]], Mapping[str, str]]) -> list[str]:
    """:func:`~mnote_kr.core.pending.new_files`, walked again only when a folder, the roots' rules or the registry
    changed since the last walk (see the module's notes); the files no entry records, sorted."""
    key = _key(reg, registry_path)
    path = index_dir / NEW_SEEN_FILE
    try:
        seen: NewSeen | None = _decoder.decode(path.read_bytes())
    except (OSError, msgspec.DecodeError):
        seen = None
    if seen is not None and seen.version == 1 and seen.key == key and _unchanged(ws_root, seen.folders):
        return [rel for rel in seen.new if rel not in reg.entries]
    folders: dict[str, int] = {}
    new = new_files(ws_root, reg, unindexable, folders=folders)
    now = time.time_ns()
    folders = {rel: (m if now - m > RECENT_NS else -1) for rel, m in folders.items()}
    try:
        write_atomic(path, _encoder.encode(NewSeen(key=key, folders=folders, new=new)))
    except OSError:
        pass  # a read-only .mnote: walked again next time
    return new
