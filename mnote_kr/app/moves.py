"""A renamed or moved file keeps its document: the registry entry moves, the index is not touched.

A plain ``mv`` leaves the same bytes under a new path. Sending them to the provider again as a new
document is what lost such files from search: LightRAG de-duplicates by content, so while the old
path's document exists the new one is taken as its duplicate, and the old document is deleted a
moment later (its file is gone), leaving the renamed file cited from nowhere. Deleting first and
sending after works, but the file is out of search until the provider has indexed it again (three
``sync`` runs, or ``sync --wait``; with a real language model, minutes and money).

So a move *takes over* the old entry's document: the new path's entry gets the old entry's provider
name, document id and chunk ids (the provider keeps citing the same chunks, now mapped to the new
path), and the old path's entry is left stale, "moved to NEW", holding no document, so that nothing
ever sends a delete for the document its successor now holds. The provider learns of it the next
time the file changes: the host names the old document (``SourceFile.previous_name``) so that the
provider deletes it with the new version's ingest. Until then that name is the new path's entry's, not
the old path's: the host gives the provider every entry's name (``ProviderContext.entry_columns``),
so a new file or the same bytes at the old path never delete or share it, and the re-ingested entry
keeps the old name while it waits for the provider (down or busy), so the old document still goes.

Only a plain document is taken over: an image or a text wrapper has the file's name or path in its
indexed text, so it is indexed again under the new name. Both ``sync`` (reconcile's moves) and
``ingest`` (a new file whose bytes are those of an entry whose file is gone) use :func:`take_over`.
"""

from __future__ import annotations

import os
from collections.abc import Container, Iterable, Mapping

import msgspec

from mnote_kr.core.registry import Registry, RegistryStore, now_ms
from mnote_kr.core.workspace import Workspace, source_id_for
from mnote_kr.models import SourceEntry

Stat = tuple[int, int]  # (size, mtime_ns)


def moved_reason(new: str) -> str:
    """The stale reason of a moved file's old entry (``status`` shows it as "Moved: OLD -> NEW")."""
    return f"moved to {new}"


def can_take_over(old: SourceEntry | None, new: SourceEntry | None = None, *,
                  provisional: Container[str] = ()) -> bool:
    """Whether ``old``'s document can pass to a file of the same bytes at another path: ``old`` is
    indexed and cited (processed, not stale, or stale only for one of the ``provisional`` reasons:
    the watcher's unconfirmed marks), a plain document, and the new path holds no entry of its own
    in the index (none, or one that never reached it)."""
    if old is None or old.status != "processed" or old.kind != "document":
        return False
    if old.stale and old.stale_reason not in provisional:
        return False
    if not (old.light_rag_doc_id and old.light_rag_file_path and old.source_hash):
        return False
    return new is None or (not new.light_rag_doc_id and new.status in ("pending", "failed", "stale"))


def take_over(store: RegistryStore, workspace: Workspace, moves: Iterable[tuple[str, str, Stat]], *,
              provisional: Container[str] = ()) -> list[tuple[str, str]]:
    """Move each ``(old, new, (size, mtime_ns))`` entry's document to ``new`` in one registry write.

    A pair is taken only when :func:`can_take_over` still holds inside the transaction and ``new``'s
    file still has ``old``'s bytes' size; returns the pairs taken (the others are the caller's to
    index the ordinary way: delete the old document, send the new file).
    """
    taken: list[tuple[str, str]] = []
    moves = list(moves)
    if not moves:
        return taken
    with store.transaction() as reg:
        for old_rel, new_rel, (size, mtime_ns) in moves:
            old = reg.entries.get(old_rel)
            if (old is None or old.size != size
                    or not can_take_over(old, reg.entries.get(new_rel), provisional=provisional)):
                continue
            now = now_ms()
            reg.put(msgspec.structs.replace(
                old, source_id=source_id_for(new_rel), source_path=str(workspace.rel_to_abs(new_rel)),
                source_root_relative_path=new_rel, size=size, mtime_ns=mtime_ns, updated_at_ms=now,
                stale=False, stale_reason=None,
                last_error=None, pending_action=None, retry_count=0, next_retry_at_ms=0))
            reg.update(old_rel, status="stale", stale=True, stale_reason=moved_reason(new_rel),
                       light_rag_doc_id=None, light_rag_file_path=None, chunk_ids=[], track_id=None,
                       duplicate_of=None, pending_action=None, last_error=None)
            taken.append((old_rel, new_rel))
    return taken


def gone_twins(workspace: Workspace, reg: Registry, fresh: Mapping[str, tuple[str, Stat]],
               seen: Iterable[str]) -> list[tuple[str, str, Stat]]:
    """Pairs ``(old, new, stat)`` for ``ingest``: each new file of ``fresh`` (rel -> (sha256, stat),
    files without an indexed entry) whose bytes are those of a cited entry whose file is gone.

    Only cited entries outside ``seen`` (the files this ingest found) are stat'ed, and only those
    gone are decoded; nothing is read when ``fresh`` is empty.
    """
    if not fresh:
        return []
    seen = set(seen)
    cols = reg.all_entries().columns()
    gone: list[str] = [path for path, live in zip(cols.paths, cols.live, strict=True)
                       if live and path not in seen and not os.path.lexists(workspace.rel_to_abs(path))]
    if not gone:
        return []
    by_hash: dict[str, list[str]] = {}
    for rel in gone:
        entry = reg.entries.get(rel)
        if can_take_over(entry) and entry is not None:
            by_hash.setdefault(entry.source_hash, []).append(rel)
    pairs: list[tuple[str, str, Stat]] = []
    for new_rel, (digest, st) in sorted(fresh.items()):
        olds = by_hash.get(digest)
        if olds:
            pairs.append((olds.pop(0), new_rel, st))
    return pairs
