"""Where the files of pruned "moved" records went, so that an ID issued before a rename opens after ``prune``.

A move leaves the old path's entry stale, "moved to NEW" (``app.moves``), and ``open`` and the viewer follow
it to NEW (``citations.render.moved``). ``prune`` drops stale entries, and that record went with them: an
old ID of a renamed file then opened nothing ("the file is no longer in the knowledge base"), though its
bytes were indexed at NEW. So ``prune`` keeps here each move whose record it drops, and the lookup reads
it where the registry has no entry for the old path any more.

* **File:** ``<root>/.mnote/index/pruned-moves.json``, beside the registry (it travels with the folder):
  ``{"version": 1, "moves": [[old, new], ...]}``, oldest first, written whole (``write_atomic``) by
  ``prune`` under the registry's lock.
* **Bound:** the latest :data:`MAX_MOVES` moves (a move from a path already kept replaces it): about
  100 bytes each, a megabyte at most.
* **What it says:** only where a file went. Whether the bytes there are still those a citation was issued
  from is the open's check (the content hash), as for a move not pruned; an entry for the old path in the
  registry (a new file there) wins over a kept move.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from pathlib import Path

import msgspec

from mnote_kr.core.atomic import write_atomic

PRUNED_MOVES_FILE = "pruned-moves.json"
#: Moves kept: the latest ones.
MAX_MOVES = 10_000
#: The stale reason of a moved file's old entry (``app.moves.moved_reason``).
MOVED_PREFIX = "moved to "


class _Moves(msgspec.Struct, frozen=True, kw_only=True):
    version: int = 1
    moves: list[tuple[str, str]] = []


_decoder = msgspec.json.Decoder(_Moves)
_encoder = msgspec.json.Encoder()
#: path -> (file identity, moves): a long-running ``serve`` reads the file again only when it changed.
_cache: dict[str, tuple[tuple[int, ...], dict[str, str]]] = {}
_cache_lock = threading.Lock()


def moved_to(stale_reason: str | None) -> str | None:
    """The path a stale entry's file moved to, from its stale reason; None for any other reason."""
    if stale_reason and stale_reason.startswith(MOVED_PREFIX):
        return stale_reason[len(MOVED_PREFIX):] or None
    return None


def load(index_dir: Path) -> dict[str, str]:
    """The kept moves, old path -> new path; empty when there are none or the file cannot be read (a lookup
    then says what it says without them, never fails for this file)."""
    path = Path(index_dir) / PRUNED_MOVES_FILE
    try:
        st = os.stat(path)
    except OSError:
        return {}
    identity = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    with _cache_lock:
        hit = _cache.get(str(path))
        if hit is not None and hit[0] == identity:
            return hit[1]
    try:
        moves = dict(_decoder.decode(path.read_bytes()).moves)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return {}
    with _cache_lock:
        _cache[str(path)] = (identity, moves)
    return moves


def keep(index_dir: Path, moves: Mapping[str, str]) -> None:
    """Add ``moves`` (old path -> new path; the caller holds the registry's lock), keeping the latest
    :data:`MAX_MOVES`."""
    if not moves:
        return
    kept = dict(load(index_dir))
    for old, new in moves.items():
        kept.pop(old, None)  # moved again: the latest move, last
        kept[old] = new
    latest = list(kept.items())[-MAX_MOVES:]
    write_atomic(Path(index_dir) / PRUNED_MOVES_FILE, _encoder.encode(_Moves(moves=latest)), durable=True)
