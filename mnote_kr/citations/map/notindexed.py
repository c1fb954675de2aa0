"""Files a query names that are in the workspace but not citable, and why (``notIndexed``)."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path
from typing import Any

from mnote_kr.citations.hostview import HostView as Host
from mnote_kr.citations.map.reindexing import reindexing
from mnote_kr.citations.map.stillindexing import still_indexing
from mnote_kr.citations.text.textnorm import lazy_compile
from mnote_kr.core import registry_format as fmt
from mnote_kr.core import watchmark
from mnote_kr.core.newseen import new_files_seen
from mnote_kr.core.ondisk import moved_on_disk
from mnote_kr.core.pending import (
    CHANGED_SINCE_INDEXED,
    MISSING_SINCE_INDEXED,
    MOVED,
    NEW_IN_ROOT,
    ingest_command,
    left_behind,
    left_new,
)
from mnote_kr.core.registry import Registry
from mnote_kr.core.skipped import EMPTY_REASON, PASSED_OVER, SKIPPED_SHOWN, still_skipped
from mnote_kr.core.workspace import SKIP_DIRS, bad_name, excluded_by, innermost_root, leaves_workspace, under
from mnote_kr.models import INDEXED_STATUSES, NotIndexed

#: ``name.ext``: a word, a dot, an extension of 2-5 letters/digits starting with a letter.
#: Compiled at the first query with a dot (its wide class costs a fresh process milliseconds).
_FILENAME_RE = lazy_compile(r"(?<![\w.])[\w\u00c0-\uffff][\w\u00c0-\uffff.\-]*\.([A-Za-z][A-Za-z0-9]{1,4})(?![\w])")
#: Extensions of the documents people keep in a knowledge base; with the workspace's own
#: extensions these decide what counts as the user's word for a file ("3.2", "e.g", "U.S",
#: "Node.js" are not file names).
DOCUMENT_EXTENSIONS = frozenset({
    "pdf", "docx", "doc", "odt", "rtf", "md", "markdown", "txt", "pptx", "ppt", "odp", "xlsx", "xls", "ods",
    "csv", "tsv", "html", "htm", "epub", "json", "xml", "png", "jpg", "jpeg", "gif", "webp", "tif", "tiff", "bmp",
})


#: Why an entry of each status cannot be cited, when it records no reason of its own.
STATUS_WHY = {
    "pending": "waiting to be sent to the provider",
    "submitted": "sent, not indexed yet",
    "processing": "being indexed",
    "failed": "indexing failed",
    "refused": "over a reader's budget, not sent to the index",
    "duplicate": "identical content is indexed under another file",
    "delete_submitted": "deleted from the knowledge base",
    "delete_completed": "deleted from the knowledge base",
}


def file_names(query: str, known_extensions: frozenset[str] = frozenset()) -> set[str]:
    """The file names a query mentions, lower-cased: ``name.ext`` with a document extension."""
    exts = DOCUMENT_EXTENSIONS | known_extensions
    return {_nfc(m.group(0)).lower().rstrip(".") for m in _FILENAME_RE.finditer(query) if m.group(1).lower() in exts}


def _nfc(name: str) -> str:
    """A name in one Unicode form (a file copied from a Mac may spell é as e and an accent)."""
    return unicodedata.normalize("NFC", name)


def _walk_root(host: Host, reg: Registry, root_rel: str, missing: set[str], out: list[NotIndexed]) -> None:
    """Files named in ``missing`` under one root, by the rules ingest applies: tool folders
    (``SKIP_DIRS``) are never taken, nested roots are walked with their own rules, and the
    root's exclude patterns (on folders and files) make a file ``excluded``."""
    root = reg.roots[root_rel]
    base = host.workspace.rel_to_abs(root_rel)
    nested = {r for r in reg.roots if r != root_rel and (not root_rel or r.startswith(root_rel + "/"))}
    stack: list[tuple[Path, str, str | None]] = [(base, root_rel, None)]
    while stack:
        folder, rel, inherited = stack.pop()
        try:
            with os.scandir(folder) as it:
                items = list(it)
        except OSError:
            continue
        for item in items:
            item_rel = f"{rel}/{item.name}" if rel else item.name
            if item.is_dir(follow_symlinks=False):
                if item.name in SKIP_DIRS or item_rel in nested or not root.recursive or bad_name(item.name):
                    continue
                folder_pattern = inherited or excluded_by(item_rel, root.exclude_patterns, root_rel)
                stack.append((Path(item.path), item_rel, folder_pattern))
            elif _nfc(item.name).lower() in missing and item.is_file():
                pattern = inherited or excluded_by(item_rel, root.exclude_patterns, root_rel)
                if pattern:
                    status, reason = "excluded", f"excluded by pattern {pattern!r}"
                elif item.is_symlink() and leaves_workspace(item.path, host.workspace.root):
                    # ingest never takes it either: it is not waiting to be ingested
                    status, reason = "skipped", "a symlink to a file outside the workspace; ingest never follows it"
                elif not root.run_on_change:  # as status and every search name it once sync saw it
                    left = left_new(item_rel, root)
                    status, reason = left.status, f"{left.reason}; {left.fix}"
                else:
                    status, reason = "not_indexed", NEW_IN_ROOT
                out.append(NotIndexed(source_path=item_rel, status=status, reason=reason))


def not_indexed(host: Host, reg: Registry, query: str) -> list[NotIndexed]:
    """Files the query names that are in the workspace but not citable, and why."""
    if "." not in query:  # no "name.ext" in it (and no need to list the registry's extensions)
        return []
    # Only the extensions the query names are looked up among the registry's paths (and only
    # the entries the query names are decoded): a search must not walk 100,000 entries.
    asked = {m.group(1).lower() for m in _FILENAME_RE.finditer(query)} - DOCUMENT_EXTENSIONS
    known = frozenset(ext for ext in asked if any(rel.lower().endswith("." + ext) for rel in reg.entries))
    names = file_names(query, known)
    documents = set(names)  # named as documents are: said to be missing when no file has the name
    if asked - known:
        # "data.bin": a type the provider cannot index is the user's word for a file too (a folder
        # ingest passes it over, so no entry says so); "Node.js", a type it indexes, is not.
        others = file_names(query, frozenset(asked - known)) - names
        names |= set(host.plugins.unindexable(host.context(), sorted(others))) if others else set()
    if not names:
        return []
    out: list[NotIndexed] = []
    found: set[str] = set()
    tails: set[str] = set()  # typed names no file has in full: "report.pdf" for "2024_report.pdf"
    for exact in (True, False):
        if not exact:
            tails = documents - found
            if not tails:
                break
        for rel in reg.entries:
            name = _nfc(rel.rpartition("/")[2]).lower()
            hit = (name if name in names else None) if exact else _tail_of(name, tails)
            if hit is None:
                continue
            entry = reg.entries[rel]
            found.add(hit)
            if entry.status == "processed" and not entry.stale:
                continue
            status: str = "stale" if entry.stale else entry.status
            reason = entry.stale_reason or entry.last_error or STATUS_WHY.get(entry.status, entry.status)
            out.append(NotIndexed(source_path=entry.source_root_relative_path, status=status, reason=reason))
    missing = names - found
    if missing:
        walked: list[NotIndexed] = []
        for root_rel in sorted(reg.roots):
            _walk_root(host, reg, root_rel, missing, walked)
        out.extend(_passed_over(host, walked))
        # a name no file of the library has: say so, or the cards look like that file's
        there = {_nfc(n.source_path.rpartition("/")[2]).lower() for n in walked}
        out.extend(NotIndexed(source_path=typed, status="not_found",
                              reason="no file of this name among those the library indexes")
                   for typed in _typed_documents(query, (missing - there) & documents))
    return out


def _tail_of(name: str, typed: set[str]) -> str | None:
    """The name among ``typed`` that ends ``name`` after a separator, or None: a person types
    "report.pdf" for "2024-05_report.pdf" or "unstructured__report.pdf"."""
    for t in sorted(typed, key=lambda t: (-len(t), t)):  # the longest ("final_report.pdf" before "report.pdf")
        if len(name) > len(t) and name.endswith(t) and not name[-len(t) - 1].isalnum():
            return t
    return None


#: The extensions of a document a person names (not a config or web file: "package.json", "index.html").
_NAMED_DOCUMENTS = frozenset({"pdf", "docx", "doc", "odt", "rtf", "md", "markdown", "txt", "pptx", "ppt", "odp",
                              "xlsx", "xls", "ods", "csv", "epub", "png", "jpg", "jpeg", "tif", "tiff"})


def _typed_documents(query: str, names: set[str]) -> list[str]:
    """The names among ``names`` as the query writes them, when written as a document's name: not inside
    a web address or path (``https://x.org/docs/index.html``), and of a document's type."""
    out: list[str] = []
    for m in _FILENAME_RE.finditer(query):
        name = m.group(0)
        start = query.rfind(" ", 0, m.start()) + 1
        if _nfc(name).lower().rstrip(".") not in names or m.group(1).lower() not in _NAMED_DOCUMENTS or name in out:
            continue
        if "/" in query[start:m.start()] or "\\" in query[start:m.start()]:
            continue  # part of an address or a path: its folders are not the library's
        out.append(name)
    return out


def _passed_over(host: Host, walked: list[NotIndexed]) -> list[NotIndexed]:
    """A file found in a root is "not ingested yet" only when ingest would take it: one of a type
    the provider cannot index is passed over by a folder ingest, and says so."""
    waiting = [n.source_path for n in walked if n.status == "not_indexed"]
    cannot = host.plugins.unindexable(host.context(), waiting) if waiting else {}
    if not cannot:
        return walked
    return [NotIndexed(source_path=n.source_path, status="skipped",
                       reason=f"{cannot[n.source_path]}; {PASSED_OVER}")
            if n.source_path in cannot else n for n in walked]


def absent_scope(host: Host, reg: Registry, scope_rels: list[str]) -> list[str]:
    """The searched paths, when not one of them is on disk or in the index (a mistyped path), else []."""
    gone = [s for s in scope_rels if s and s not in reg.entries and not any(under(r, s) for r in reg.entries)
            and not host.workspace.rel_to_abs(s).exists()]
    return gone if gone and len(gone) == len(scope_rels) else []


def scope_not_indexed(host: Host, reg: Registry, scope_rels: list[str]) -> list[NotIndexed]:
    """Files inside a search's scope (``--scope``, ``sourcePaths``) that cannot be cited, and why,
    so that a scope holding only failed, stale or never-ingested files is never silently empty."""
    out: list[NotIndexed] = []
    # Only the entries not indexed for good are decoded (by their tag), not the whole scope; the
    # search leaves out those it cited (a file being indexed is cited once the provider answers).
    uncitable = reg.select(lambda tag: bool(tag & fmt.STALE) or fmt.tag_status(tag) not in INDEXED_STATUSES)
    for scope in scope_rels:
        for e in uncitable:
            if under(e.source_root_relative_path, scope) and (e.stale or e.status not in INDEXED_STATUSES):
                status = "stale" if e.stale else e.status
                reason = e.stale_reason or e.last_error or STATUS_WHY.get(e.status, e.status)
                out.append(NotIndexed(source_path=e.source_root_relative_path, status=status, reason=reason))
        if scope not in reg.entries and not any(under(rel, scope) for rel in reg.entries):
            path = host.workspace.rel_to_abs(scope)
            what = "no such file or folder" if not path.exists() else "not in the knowledge base (never ingested)"
            absent = [NotIndexed(source_path=scope or ".", status="not_indexed", reason=what)]
            out.extend(_passed_over(host, absent) if path.is_file() else absent)
    return out


#: How many files left behind by roots that do not follow a search names (all are counted).
LEFT_BEHIND_SHOWN = 50


def left_behind_not_indexed(host: Host, reg: Registry, shown: int | None = None) -> tuple[list[NotIndexed], int]:
    """Files that roots added with ``--no-follow`` left behind (changed and not re-indexed, new and
    not ingested), named in every search with the commands that fix them: the first ``shown``, and
    how many there are in all."""
    shown = LEFT_BEHIND_SHOWN if shown is None else shown
    out: list[NotIndexed] = []
    count = 0
    for lb in left_behind(host, reg):
        count += 1
        if len(out) < shown:
            out.append(NotIndexed(source_path=lb.source_path, status=lb.status, reason=f"{lb.reason}; {lb.fix}"))
    return out, count


#: How many such files a search names (all are counted).
NEW_SHOWN = 50


def new_not_ingested(host: Host, reg: Registry, scope_rels: list[str],
                     shown: int = NEW_SHOWN) -> tuple[list[NotIndexed], int]:
    """Files of the roots that follow (in the search's scope, if any) that no entry records, as ``status``
    names them ("New:"), each with the ingest that indexes it: the first ``shown``, and how many in all. Found by
    the walk status makes (a stat per entry; no file opened, nothing hashed), kept while no folder changes
    (``newseen``: then a stat per folder); none while a watcher runs, which ingests them itself. A root added with
    --no-follow names its own (``left_behind_not_indexed``)."""
    if not any(r.run_on_change for r in reg.roots.values()) or watchmark.watching(host.store.index_dir):
        return [], 0
    ctx = host.context()
    new = new_files_seen(host.workspace.root, host.store.index_dir, host.store.path, reg,
                         lambda paths: host.plugins.unindexable(ctx, paths))
    out: list[NotIndexed] = []
    count = 0
    for rel in new:
        root = innermost_root(rel, reg.roots)
        if root is None or not root.run_on_change or (scope_rels and not any(under(rel, s) for s in scope_rels)):
            continue
        count += 1
        if len(out) < shown:
            fix = ingest_command(root.root_relative_path or ".")
            out.append(NotIndexed(source_path=rel, status="not_indexed", reason=f"{NEW_IN_ROOT}: '{fix}' indexes it"))
    return out, count


def skipped_not_indexed(host: Host, reg: Registry, scope_rels: list[str],
                        shown: int = SKIPPED_SHOWN) -> tuple[list[NotIndexed], int]:
    """Files in the search's scope (none: the whole workspace) that a folder ingest or sync passed over
    for a type no provider indexes (``core/skipped.py``): the first ``shown``, and how many in all. An empty
    file is not among them: it holds no text the search misses."""
    out: list[NotIndexed] = []
    count = 0
    ctx = host.context()
    for f in still_skipped(host, reg, scope_rels, lambda paths: host.plugins.unindexable(ctx, paths)):
        if f.reason == EMPTY_REASON:  # no text to miss: status names it, a search does not (nc29b)
            continue
        count += 1
        if len(out) < shown:
            out.append(NotIndexed(source_path=f.source_path, status="skipped", reason=f"{f.reason}; {PASSED_OVER}"))
    return out, count


def uncitable(host: Host, reg: Registry, query: str, scope_rels: list[str], cited: set[str],
              diagnostics: dict[str, Any]) -> list[NotIndexed]:
    """A result's ``notIndexed``: the files the query names, the scope's own files (a scope is never
    silently empty), the roots left behind and the files passed over for their type in the scope
    (none: the workspace) that cannot be cited, without those ``cited`` (a file being indexed is cited
    once the provider answers from it). Notes the roots left behind in ``diagnostics["leftBehind"]``,
    the files passed over in ``diagnostics["skipped"]``."""
    missing = not_indexed(host, reg, query)
    if scope_rels:
        named = {m.source_path for m in missing}
        missing += [m for m in scope_not_indexed(host, reg, scope_rels) if m.source_path not in named]
    named = {m.source_path for m in missing}
    missing += [m for m in since_indexed(reg, diagnostics) if m.source_path not in named]
    # being re-indexed (changed, its old version deleted, the new one not indexed yet): never silent
    again = reindexing(reg, scope_rels, cited, diagnostics, lambda: watchmark.watching(host.store.index_dir))
    if again:  # said as being re-indexed, rather than by its bare status where the query or scope named it
        missing = [m for m in missing if m.source_path not in {a.source_path for a in again}] + again
    # new files sent and not indexed yet (as the provider tells of its work): never silent either
    sent = still_indexing(reg, scope_rels, cited, diagnostics)
    if sent:
        missing = [m for m in missing if m.source_path not in {s.source_path for s in sent}] + sent
    behind, n_behind = left_behind_not_indexed(host, reg)  # roots that do not follow: never silent
    if behind:
        missing = [m for m in missing if m.source_path not in {b.source_path for b in behind}] + behind
        diagnostics["leftBehind"] = {"count": n_behind, "shown": len(behind),
                                     "hint": "'mnote-kr status --json' lists them all"}
    passed, n_passed = skipped_not_indexed(host, reg, scope_rels)  # never silent either
    if passed:
        named = {m.source_path for m in missing}
        missing += [p for p in passed if p.source_path not in named]
        diagnostics["skipped"] = {"count": n_passed, "shown": len(passed),
                                  "hint": "'mnote-kr status --json' lists the first 50"}
    fresh, n_fresh = new_not_ingested(host, reg, scope_rels)  # never ingested: as status says, never silent
    shown_fresh = len(fresh)
    missing, fresh = _moves(host, reg, missing, fresh)
    n_fresh -= shown_fresh - len(fresh)  # a moved file's new path is not a new file to ingest
    if fresh:
        named = {m.source_path for m in missing}
        missing += [f for f in fresh if f.source_path not in named]
        diagnostics["newNotIngested"] = {"count": n_fresh, "shown": len(fresh),
                                         "hint": "'mnote-kr status' names them with the commands that index them"}
    # a typed name (``not_found``) is answered by a cited file of that name in another Unicode form; a
    # path is answered only by itself (kb/new/report.md is not cited because kb/old/report.md is)
    cited_names = {_nfc(rel.rpartition("/")[2]).lower() for rel in cited}
    return [m for m in missing if m.source_path not in cited
            and not (m.status == "not_found" and _nfc(m.source_path).lower() in cited_names)]


def since_indexed(reg: Registry, diagnostics: dict[str, Any]) -> list[NotIndexed]:
    """The files a search would have cited that changed or went on disk since they were indexed, no
    sync having seen it yet (the pipeline's stat of each cited file: ``changedSinceIndexed``,
    ``missingSinceIndexed``), each with what brings it back: 'sync' (it re-indexes a changed file of
    a root that follows, and follows a move), or 'ingest FILE' in a root added with --no-follow."""
    out: list[NotIndexed] = []
    for rel in (diagnostics.get("changedSinceIndexed") or {}).get("paths", []):
        root = innermost_root(rel, reg.roots)
        if root is None or root.run_on_change:
            why = f"{CHANGED_SINCE_INDEXED}: run 'mnote-kr sync' (not cited until it is re-indexed)"
        else:
            why = (f"{CHANGED_SINCE_INDEXED}: run '{ingest_command(rel)}' (its root does not follow changes; "
                   "not cited until it is re-indexed)")
        out.append(NotIndexed(source_path=rel, status="stale", reason=why))
    for rel in (diagnostics.get("missingSinceIndexed") or {}).get("paths", []):
        out.append(NotIndexed(source_path=rel, status="stale", reason=f"{MISSING_SINCE_INDEXED}: run 'mnote-kr sync' "
                              "(not cited; a file that moved inside the roots is then cited under its new path)"))
    return out


def _moves(host: Host, reg: Registry, missing: list[NotIndexed],
           fresh: list[NotIndexed]) -> tuple[list[NotIndexed], list[NotIndexed]]:
    """A file gone since indexed whose bytes sit at a new file's path is a move, read as ``status`` reads it
    (``moved_on_disk``: same size, same content hash): one ``moved: OLD -> NEW`` line with 'sync', not a
    deletion plus a new file to ingest (nc26c)."""
    gone = [m.source_path for m in missing if m.reason.startswith(MISSING_SINCE_INDEXED + ": ")]
    if not gone or not fresh:
        return missing, fresh
    disk: dict[str, tuple[int, int]] = {}
    for f in fresh:
        try:
            st = os.stat(host.workspace.rel_to_abs(f.source_path))
        except OSError:
            continue
        disk[f.source_path] = (st.st_size, st.st_mtime_ns)
    pairs = dict(moved_on_disk(host.workspace.root, reg, gone, list(disk), disk))
    if not pairs:
        return missing, fresh
    new_paths = set(pairs.values())
    moved = [NotIndexed(source_path=m.source_path, status="stale",
                        reason=f"{MOVED}: {m.source_path} -> {pairs[m.source_path]}: run 'mnote-kr sync' "
                        "(it follows the move; cited under the new path then)")
             if m.source_path in pairs else m for m in missing]
    return moved, [f for f in fresh if f.source_path not in new_paths]
