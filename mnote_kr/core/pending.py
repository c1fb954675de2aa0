"""What sync and watch left behind: new files in indexed roots that are not ingested yet
(``.mnote/index/pending-new.json``), and changed files not re-indexed, in roots that do not follow.

The watcher and reconcile write the list (``mnote_kr.sync.reconcile.update_pending_new``);
``status`` and search read it (:func:`left_behind`). It is a derived cache: absent or unreadable
means empty.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol

import msgspec

from mnote_kr.core.registry import Registry, RegistryStore
from mnote_kr.core.registry_tags import STALE
from mnote_kr.core.scan import Stat, scan_roots
from mnote_kr.core.workspace import innermost_root
from mnote_kr.models import IndexedRoot

#: The stale reason of a file whose content changed on disk and that nothing re-indexed yet.
REASON_CHANGED = "content changed on disk"
#: The stale reason of an indexed file emptied on disk (0 bytes): its indexed text is no longer in it (review30
#: finding 3: sync sent it, the provider failed it, and sync exited 1). Taken again, once it has content, as a file
#: back on disk is.
REASON_EMPTIED = ("emptied on disk (0 bytes): its indexed text is no longer in the file; 'mnote-kr ingest', or a sync "
                  "of a root that follows changes, indexes it again once it has content")
#: The stale reason of a file gone from its path (sync and watch); ``open`` and the viewer say it too.
REASON_MISSING = "source missing on disk (deleted, or moved out of the indexed roots)"
#: Reasons the watcher uses for a stale mark it has not confirmed yet (the burst is not
#: over). Such an entry is not cited; a later pass confirms it, or restores it when the
#: file turns out unchanged (an editor's save sequence, a file moved away and back).
PROVISIONAL_MISSING = "missing on disk (confirming)"
PROVISIONAL_CHANGED = "changed on disk (confirming)"
PROVISIONAL_REASONS = frozenset({PROVISIONAL_MISSING, PROVISIONAL_CHANGED})
#: The stale reason ``delete`` records: a root that follows the disk does not ingest such a file
#: again by itself ('mnote-kr ingest FILE' does).
USER_DELETED = "deleted from the knowledge base by the user"

#: How a search names a file it would have cited that changed (or went) on disk since it was indexed,
#: before any sync saw it (``notIndexed`` reasons start so; the text prints ``PREFIX: FILE: fix``).
CHANGED_SINCE_INDEXED = "changed since indexed"
MISSING_SINCE_INDEXED = "deleted from disk since indexed"
#: A search's words for a file gone since indexed whose bytes are at a new path (status: "Moved:").
MOVED = "moved"

#: How a search names a file of a root that follows that no entry records (never ingested), before its command.
NEW_IN_ROOT = "in an indexed root but not ingested yet"
#: What a new file of a root that does not follow is, in ``leftBehind`` (the root's words follow).
NEW_NOT_INGESTED = "new in an indexed root; not ingested"

PENDING_NEW_FILE = "pending-new.json"
PENDING_NEW_VERSION = 1


class HasStore(Protocol):
    @property
    def store(self) -> RegistryStore: ...


class PendingNewFile(msgspec.Struct, kw_only=True, rename="camel"):
    """One file in a root that is on disk but not in the index."""

    source_path: str
    root: str
    size: int = 0
    seen_at_ms: int = 0


class PendingNew(msgspec.Struct, kw_only=True, rename="camel"):
    """``.mnote/index/pending-new.json``: new files waiting for an ingest."""

    version: int = PENDING_NEW_VERSION
    updated_at_ms: int = 0
    files: list[PendingNewFile] = []


pending_decoder = msgspec.json.Decoder(PendingNew)
pending_encoder = msgspec.json.Encoder()


def pending_new_path(host: HasStore) -> Path:
    """Where the list lives: beside the registry, in ``.mnote/index/``."""
    return host.store.index_dir / PENDING_NEW_FILE


def load_pending_new(host: HasStore) -> PendingNew:
    """The pending-new list (empty when absent or unreadable: it is a derived cache)."""
    try:
        return pending_decoder.decode(pending_new_path(host).read_bytes())
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return PendingNew()


def follow_command(root: IndexedRoot) -> str:
    """The ``roots add`` that makes ``root`` follow with its other rules unchanged (adding again
    replaces a root's rules: a bare ``roots add PATH`` would drop its excludes)."""
    words = ["mnote-kr", "roots", "add", root.root_relative_path or "."]
    if not root.recursive:
        words.append("--no-recursive")
    for pattern in root.exclude_patterns:
        words += ["--exclude", pattern]
    return " ".join(_quoted(w) for w in words)


def _quoted(word: str) -> str:
    """A shell word in double quotes when it needs quoting (the messages put commands in single ones)."""
    if shlex.quote(word) == word:
        return word
    return '"' + "".join("\\" + c if c in '"\\$`' else c for c in word) + '"'


def ingest_command(rel: str) -> str:
    return f"mnote-kr ingest {_quoted(rel)}"


def locate_command(path: str, query: str) -> str:
    """The ``locate`` that finds the place of ``query`` in the file at ``path`` (absolute: it runs from any folder),
    each word in single quotes when it needs quoting (``shlex.quote``): in double ones a "!" of the query is bash's
    history expansion when pasted (review r28 finding 2), and a "$" or "`" would need escaping."""
    return f"mnote-kr locate {shlex.quote(path)} --query {shlex.quote(' '.join(query.split()))}"


class LeftBehind(msgspec.Struct, kw_only=True, rename="camel"):
    """A file of a root that does not follow, not citable as it is on disk, and the commands that fix it."""

    source_path: str
    status: str  # "stale" (changed, not re-indexed) or "not_indexed" (new, not ingested)
    reason: str
    fix: str


def left_behind(host: HasStore, reg: Registry, new: Iterable[str] | None = None) -> Iterator[LeftBehind]:
    """Changed files not re-indexed and new files not ingested in roots that do not follow
    (``roots add --no-follow``), changed ones first. Only stale entries are decoded.

    The new files are those of ``new`` (``status``: its walk of the roots, the disk as of now), else
    those sync and watch recorded (a search walks no root)."""
    roots = reg.roots
    if all(r.run_on_change for r in roots.values()):
        return
    if reg.stale_count():
        for e in reg.select(lambda tag: bool(tag & STALE)):
            root = innermost_root(e.source_root_relative_path, roots)
            if e.stale_reason == REASON_CHANGED and root is not None and not root.run_on_change:
                yield _left(e.source_root_relative_path, "stale", "changed on disk since it was indexed; "
                            "not re-indexed", root)
    for rel in (f.source_path for f in load_pending_new(host).files) if new is None else new:
        root = innermost_root(rel, roots)
        if root is not None and not root.run_on_change:
            yield left_new(rel, root)


def left_new(rel: str, root: IndexedRoot) -> LeftBehind:
    """A new file of ``root`` (added with --no-follow) not ingested, with the commands that fix it."""
    return _left(rel, "not_indexed", NEW_NOT_INGESTED, root)


def _left(rel: str, status: str, what: str, root: IndexedRoot) -> LeftBehind:
    name = root.root_relative_path or "."
    fix = f"'{ingest_command(rel)}' indexes it; '{follow_command(root)}' makes the root follow from now on"
    return LeftBehind(source_path=rel, status=status, fix=fix,
                      reason=f"{what}: root {name} does not follow changes (added with --no-follow)")


def new_files(ws_root: Path, reg: Registry, unindexable: Callable[[list[str]], Mapping[str, str]],
              disk: dict[str, Stat] | None = None, folders: dict[str, int] | None = None) -> list[str]:
    """The files the indexed roots' rules admit that no registry entry records: never ingested, whoever
    wrote them and whether or not ``sync`` or ``watch`` ran; sorted.

    Found by walking the roots as ``sync`` does, one stat per file: no file is opened (a folder of
    thousands counts in milliseconds). The types the provider does not index are left out (by name,
    as a folder ingest passes them over). ``disk`` receives the walk (rel -> (size, mtime_ns)) when given,
    ``folders`` the folders walked (rel -> mtime_ns)."""
    disk = {} if disk is None else disk
    scan_roots(ws_root, reg.roots, disk, folders=folders)
    entries = reg.entries
    new = sorted(rel for rel in disk if rel not in entries)
    passed = unindexable(new) if new else {}
    return [rel for rel in new if rel not in passed] if passed else new


def new_in_roots(reg: Registry, new: list[str], shown: int = 50) -> dict[str, Any]:
    """``status``'s ``pendingNew``: the files of ``new`` (:func:`new_files`) in roots that follow, each
    root with the command that indexes them (``byRoot``: ingest passes over those already indexed).
    A root added with ``--no-follow`` names its own in ``leftBehind`` (:func:`left_behind`), each with
    both fixes: a file is in one list."""
    counts: dict[str, int] = {}
    waiting: list[str] = []
    for rel in new:
        root = innermost_root(rel, reg.roots)
        if root is not None and not root.run_on_change:
            continue
        waiting.append(rel)
        name = root.root_relative_path if root is not None else ""
        counts[name] = counts.get(name, 0) + 1
    by_root = [{"root": name or ".", "count": n, "fix": ingest_command(name or ".")}
               for name, n in sorted(counts.items())]
    return {"count": len(waiting), "paths": waiting[:shown], "byRoot": by_root}
