"""A citation issued before its file was renamed: where the same bytes are now.

A move (``mnote_kr.app.moves``) leaves the old path's entry stale, "moved to NEW", and gives NEW the
document. When NEW's entry still holds the bytes the citation was issued from (the same content hash),
the place the citation names is the same place in NEW: ``open`` and the viewer open it there and say
the file moved. A file moved again is followed along its moves; one whose bytes changed is not. A move
whose record ``prune`` dropped is followed too (``core.pruned_moves`` keeps where the file went).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mnote_kr.core import pruned_moves
from mnote_kr.core.pruned_moves import moved_to
from mnote_kr.core.registry_format import entry_tag, is_citable_tag

if TYPE_CHECKING:
    from pathlib import Path

    from mnote_kr.core.registry import Registry
    from mnote_kr.models.registry import SourceEntry

#: Moves followed at most (a cycle of renames ends here, not in a loop).
MAX_HOPS = 16


def moved_target(reg: Registry, entry: SourceEntry | None, rel: str = "",
                 index_dir: Path | None = None) -> tuple[str, SourceEntry] | None:
    """The path and citable entry ``entry``'s file moved to (followed along later moves), when ``entry``
    is stale because its file moved; None otherwise. Whether it still holds the bytes a citation was
    issued from is the caller's check (``openplan.changed_since_issued``).

    Where the registry has no entry for a path on the way (``rel`` for ``entry``), ``prune`` dropped its
    record: the move it kept in ``index_dir`` (``core.pruned_moves``) is followed."""
    seen: set[str] = set()
    pruned: dict[str, str] | None = None
    while True:
        if entry is not None:
            new_rel = moved_to(entry.stale_reason) if entry.stale else None
        else:
            if pruned is None:
                pruned = pruned_moves.load(index_dir) if index_dir is not None and rel else {}
            new_rel = pruned.get(rel)
        if new_rel is None or new_rel in seen or len(seen) >= MAX_HOPS:
            return None
        seen.add(new_rel)
        rel, entry = new_rel, reg.entries.get(new_rel)
        if entry is not None and is_citable_tag(entry_tag(entry)):
            return new_rel, entry


def moved_note(old: str, new: str) -> str:
    """What ``open`` and the viewer say about a citation opened at its file's new path."""
    return f"the file was moved to {new} since this citation was issued; the same place is opened there"
