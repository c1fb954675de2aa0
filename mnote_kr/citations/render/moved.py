"""A citation issued before its file was renamed: where the same bytes are now.

A move (``mnote_kr.app.moves``) leaves the old path's entry stale, "moved to NEW", and gives NEW the
document. When NEW's entry still holds the bytes the citation was issued from (the same content hash),
the place the citation names is the same place in NEW: ``open`` and the viewer open it there and say
the file moved. A file moved again is followed along its moves; one whose bytes changed is not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mnote_kr.core.registry_format import entry_tag, is_citable_tag

if TYPE_CHECKING:
    from mnote_kr.core.registry import Registry
    from mnote_kr.models.registry import SourceEntry

_MOVED = "moved to "
#: Moves followed at most (a cycle of renames ends here, not in a loop).
MAX_HOPS = 16


def moved_target(reg: Registry, entry: SourceEntry | None) -> tuple[str, SourceEntry] | None:
    """The path and citable entry ``entry``'s file moved to (followed along later moves), when ``entry``
    is stale because its file moved; None otherwise. Whether it still holds the bytes a citation was
    issued from is the caller's check (``openplan.changed_since_issued``)."""
    seen: set[str] = set()
    while entry is not None and entry.stale and (entry.stale_reason or "").startswith(_MOVED):
        new_rel = (entry.stale_reason or "")[len(_MOVED):]
        if new_rel in seen or len(seen) >= MAX_HOPS:
            return None
        seen.add(new_rel)
        entry = reg.entries.get(new_rel)
        if entry is not None and is_citable_tag(entry_tag(entry)):
            return new_rel, entry
    return None


def moved_note(old: str, new: str) -> str:
    """What ``open`` and the viewer say about a citation opened at its file's new path."""
    return f"the file was moved to {new} since this citation was issued; the same place is opened there"
