"""A root's rules changed: what comes back into its scope, and the stale notes that say where a file went.

``roots add . --exclude decks`` drops the deck from the index (its entry stale, "excluded by pattern
'decks' of root ."); ``roots add .`` again takes the exclude away. Nothing is indexed then, as nothing is
for a root just added (``sync`` or ``watch`` indexes a following root's files; ``ingest`` any): the files
back in the scope are named, with the command that indexes them, and their entries' stale reason says so
instead of the exclude that no longer holds (nc17b P7).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from mnote_kr.core.pruned_moves import MOVED_PREFIX, moved_to
from mnote_kr.core.workspace import excluded_in_root, excluded_reason

if TYPE_CHECKING:
    from mnote_kr.core.registry import Registry
    from mnote_kr.core.workspace import Workspace
    from mnote_kr.models import IndexedRoot, SourceEntry


def back_fix(root: IndexedRoot, rel: str) -> str:
    """The command that indexes a file back in ``root``'s scope."""
    return "'mnote-kr sync' indexes it" if root.run_on_change else f"'mnote-kr ingest {rel}' indexes it"


def back_in_scope(reg: Registry, workspace: Workspace, old: IndexedRoot | None, new: IndexedRoot) -> list[str]:
    """The files ``old``'s excludes left out that ``new``'s rules take in (on disk, or recorded), sorted; the
    recorded ones' stale reason becomes "back in the scope of root R (no longer excluded); FIX". Called inside
    the registry transaction that set ``new`` (``reg`` is the one being written)."""
    if old is None or not (set(old.exclude_patterns) - set(new.exclude_patterns)):
        return []
    root_rel, was = new.root_relative_path, list(old.exclude_patterns)

    def came_back(rel: str) -> bool:
        return bool(excluded_in_root(rel, root_rel, was)) and excluded_reason(rel, reg.roots) is None

    found: set[str] = set()
    expansion = workspace.expand([workspace.rel_to_abs(root_rel)], exclude=new.exclude_patterns,
                                 recursive=new.recursive, limit=None)
    found.update(rel for _, rel in expansion.files if came_back(rel))
    inside = (lambda rel: True) if not root_rel else (lambda rel: rel.startswith(root_rel + "/"))
    recorded: list[SourceEntry] = [e for e in _stale(reg) if inside(e.source_root_relative_path)
                                   and (e.stale_reason or "").startswith("excluded by pattern ")
                                   and came_back(e.source_root_relative_path)]
    name = root_rel or "."
    for e in recorded:
        rel = e.source_root_relative_path
        reg.update(rel, stale_reason=f"back in the scope of root {name} (no longer excluded); {back_fix(new, rel)}")
        found.add(rel)
    return sorted(found)


def _stale(reg: Registry) -> Iterable[SourceEntry]:
    from mnote_kr.core.registry_format import STALE

    return reg.select(lambda tag: bool(tag & STALE)) if reg.stale_count() else []


def stale_note(reg: Registry, entry: SourceEntry) -> dict[str, Any]:
    """A stale entry as ``status`` lists it. A moved file's old record says "moved to NEW" (shown as "Moved: OLD
    -> NEW", followed: cited under the new path) only while NEW is cited; else it says where the file went and
    why it is not cited there (an exclude, a restored exclude waiting for sync, a delete)."""
    reason = entry.stale_reason or "stale"
    new = moved_to(entry.stale_reason) if entry.stale_reason else None
    if new is not None:
        from mnote_kr.citations.render.moved import moved_target

        there = reg.entries.get(new)
        if moved_target(reg, entry) is None:  # followed along later moves to a citable entry, or not
            why = (there.stale_reason or there.status) if there is not None else "no record"
            reason = f"its file moved to {new}, which is not cited: {why}"
    return {"sourcePath": entry.source_root_relative_path, "reason": reason}


def stale_notes(reg: Registry, shown: int) -> tuple[list[dict[str, Any]], int]:
    """The first ``shown`` stale entries as ``status`` lists them (:func:`stale_note`), and how many of all the
    stale entries are the old records of moves followed (their note "moved to NEW": NEW is cited). Only the
    stale entries are decoded, none when nothing is stale."""
    notes, followed = [], 0
    for entry in _stale(reg):
        moved = (entry.stale_reason or "").startswith(MOVED_PREFIX)
        if not moved and len(notes) >= shown:
            continue
        note = stale_note(reg, entry)
        followed += note["reason"].startswith(MOVED_PREFIX)
        if len(notes) < shown:
            notes.append(note)
    return notes, followed
