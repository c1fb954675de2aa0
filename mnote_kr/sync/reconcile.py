"""Reconcile the source registry with the disk: plain functions, no watchdog.

One pass finds, for the indexed roots (or a subset of paths the watcher saw change):

- **missing**: a live entry whose file is gone;
- **moved**: a missing entry plus a file without a live entry that has the same
  sha256 somewhere inside the roots (re-indexed under its new path);
- **changed**: a live entry whose file's size or mtime differs *and* whose hash differs;
- **emptied**: a live entry whose file is 0 bytes now (its indexed text is gone: stale, not re-indexed);
- **new**: a file in a root that no live entry covers (ingested when the root has
  ``runOnChange``, else listed in ``.mnote/index/pending-new.json``).

Only files whose size or mtime differ from the entry are hashed, plus, for move
detection, new files whose size equals a missing entry's size. Source files are only
ever stat'ed and read; nothing here writes outside ``.mnote/``.

Which files are candidates at all is :mod:`mnote_kr.core.scan`. ``plan_changes`` is pure (stat
results and a hash function in, a ``Plan`` out);
``apply_plan`` turns a plan into registry changes and provider calls through ``Host``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import filelock

from mnote_kr.app import rereading
from mnote_kr.app.moves import moved_reason, take_over
from mnote_kr.core.atomic import write_atomic
from mnote_kr.core.pending import (
    PROVISIONAL_CHANGED,
    PROVISIONAL_REASONS,
    REASON_CHANGED,
    REASON_EMPTIED,
    REASON_MISSING,
    USER_DELETED,
    PendingNew,
    PendingNewFile,
    follow_command,
    ingest_command,
    load_pending_new,
    pending_encoder,
    pending_new_path,
)
from mnote_kr.core.pending import (
    PROVISIONAL_MISSING as PROVISIONAL_MISSING,  # the watcher and tests import it from here
)
from mnote_kr.core.registry import Registry, now_ms
from mnote_kr.core.registry_tags import STALE
from mnote_kr.core.scan import Stat, admitted, scan_roots, stat_rel
from mnote_kr.core.skipped import record_skipped
from mnote_kr.core.workspace import (
    excluded_entries,
    innermost_root,
    sha256_file,
)
from mnote_kr.errors import MnoteKrError, ProviderError, UsageError
from mnote_kr.models import IndexedRoot, IngestReport, SourceEntry

if TYPE_CHECKING:
    from mnote_kr.app.host import Host


# The stale reasons (imported above) live in the core: search, status, open and the viewer name them.

_DEAD = frozenset({"delete_submitted", "delete_completed"})

Action = Callable[[str, str, str], None]  # (kind, rel path, detail)


def _no_action(kind: str, rel: str, detail: str) -> None:
    return None


def is_provisional(entry: SourceEntry) -> bool:
    """Stale only because the watcher saw an event it has not confirmed yet."""
    return entry.stale and entry.stale_reason in PROVISIONAL_REASONS and entry.status not in _DEAD


def is_tracked(entry: SourceEntry) -> bool:
    """Entries reconcile checks against the disk: live ones and provisional stale ones."""
    if entry.status in _DEAD:
        return False
    return not entry.stale or entry.stale_reason in PROVISIONAL_REASONS


# --------------------------------------------------------------------------- planning


@dataclass
class Plan:
    """What changed between the registry and the disk (paths are workspace-relative)."""

    missing: list[str] = field(default_factory=list)
    moved: list[tuple[str, str]] = field(default_factory=list)  # (old, new)
    changed: list[str] = field(default_factory=list)
    #: Emptied on disk (0 bytes): nothing to re-index, its indexed text no longer in the file (review30 finding 3).
    emptied: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    touched: dict[str, Stat] = field(default_factory=dict)  # same bytes, new size/mtime
    restored: list[str] = field(default_factory=list)  # provisional stale, file unchanged
    unindexed: list[str] = field(default_factory=list)  # on disk, entry stale or deleted (not new)
    #: Live entries their root's rules now leave out (``roots add --exclude`` after ingest): rel -> reason.
    excluded: dict[str, str] = field(default_factory=dict)
    hashed: int = 0
    new_hashes: dict[str, str] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not (self.missing or self.moved or self.changed or self.emptied or self.new or self.touched
                    or self.restored or self.unindexed or self.excluded)


def plan_changes(
    entries: Mapping[str, SourceEntry],
    disk: Mapping[str, Stat],
    candidates: Iterable[str],
    hasher: Callable[[str], str | None],
    known: Container[str] = (),
) -> Plan:
    """Compare tracked ``entries`` with ``disk`` stat results; pure apart from ``hasher``.

    ``disk`` holds the stat of every tracked entry's file that exists, and of every
    ``candidates`` file (files found in the roots); a candidate without a tracked entry
    is new, unless its hash pairs it with a missing entry (a move), or ``known`` (the
    registry) holds a stale or deleted entry for it (``unindexed``). ``hasher(rel)``
    returns ``sha256:<hex>`` or None when the file cannot be read (then it is left
    alone for the next pass).
    """
    plan = Plan()
    for rel, entry in entries.items():
        st = disk.get(rel)
        if st is None:
            plan.missing.append(rel)
            continue
        if st == (entry.size, entry.mtime_ns) and entry.source_hash:
            if is_provisional(entry):
                plan.restored.append(rel)
            continue
        if st[0] == 0:  # nothing to hash, nor to send (a provider fails a 0-byte file)
            plan.emptied.append(rel)
            continue
        digest = hasher(rel)
        plan.hashed += 1
        if digest is None:
            continue
        if digest == entry.source_hash:
            plan.touched[rel] = st
            if is_provisional(entry):
                plan.restored.append(rel)
        else:
            plan.changed.append(rel)
    pool = candidates if isinstance(candidates, (set, frozenset, dict)) else set(candidates)
    fresh = sorted(c for c in pool if c not in entries and c in disk)
    if plan.missing and fresh:
        by_hash: dict[str, list[str]] = {}
        sizes: set[int] = set()
        for rel in plan.missing:
            entry = entries[rel]
            if entry.source_hash:
                by_hash.setdefault(entry.source_hash, []).append(rel)
                sizes.add(entry.size)
        for rel in fresh:
            if disk[rel][0] not in sizes:
                continue
            digest = hasher(rel)
            plan.hashed += 1
            if digest is None:
                continue
            plan.new_hashes[rel] = digest
            olds = by_hash.get(digest)
            if olds:
                old = olds.pop(0)
                plan.moved.append((old, rel))
    moved_old = {o for o, _ in plan.moved}
    moved_new = {n for _, n in plan.moved}
    plan.missing = [m for m in plan.missing if m not in moved_old]
    plan.new = [f for f in fresh if f not in moved_new and f not in known]
    plan.unindexed = [f for f in fresh if f not in moved_new and f in known and not _user_deleted(known, f)]
    return plan


def _user_deleted(known: Container[str], rel: str) -> bool:
    """The user took this file out with 'mnote-kr delete': following the disk does not bring it back."""
    entry = known[rel] if isinstance(known, Mapping) else None
    return entry is not None and entry.stale_reason == USER_DELETED


def pair_late_moves(
    plan: Plan,
    entries: Mapping[str, SourceEntry],
    partners: Mapping[str, int],
    hasher: Callable[[str], str | None],
) -> None:
    """Pair ``plan.missing`` entries with files that appeared in an *earlier* batch.

    A move between two watched roots reaches the watcher as a creation in one and, up to
    half a second later (watchdog holds unpaired moves to pair them), a deletion in the
    other, so the new side may already be listed as pending-new or ingested. ``partners``
    maps such recent files to their size; a same-size, same-hash partner turns a missing
    entry into a move (re-ingesting an already ingested partner is a no-op).
    """
    if not plan.missing or not partners:
        return
    by_size: dict[int, list[str]] = {}
    for rel, size in partners.items():
        by_size.setdefault(size, []).append(rel)
    taken = {n for _, n in plan.moved}
    digests: dict[str, str | None] = {}
    still: list[str] = []
    for old in plan.missing:
        entry = entries[old]
        match = None
        for rel in by_size.get(entry.size, []):
            if rel in taken or not entry.source_hash:
                continue
            if rel not in digests:
                digests[rel] = hasher(rel)
                plan.hashed += 1
            if digests[rel] == entry.source_hash:
                match = rel
                break
        if match is None:
            still.append(old)
        else:
            taken.add(match)
            plan.moved.append((old, match))
            if match in plan.new:
                plan.new.remove(match)
    plan.missing = still


# --------------------------------------------------------------------------- applying


def _sort_report(report: IngestReport, batch: list[str], out: dict[str, list[str]], on_action: Action) -> None:
    """Say what ingest really did with each file: a provider may take the call but leave files pending."""
    status = {item.source_path: item for item in report.items}
    for rel in batch:
        item = status.get(rel)
        if item is not None and item.status == "pending":
            out["queued"].append(rel)
            on_action("queued", rel, item.reason or "left pending; 'mnote-kr sync' sends it later")
        elif item is not None and item.status == "failed":
            out["failed"].append(rel)
            on_action("error", rel, item.reason or "the provider could not index it")
        else:
            out["ingested"].append(rel)
            on_action("ingested", rel, "")


def ingest_paths(host: Host, rels: list[str], on_action: Action = _no_action) -> dict[str, list[str]]:
    """Ingest in batches of the per-call limit; never raises for provider or vanished files.

    Returns ``{"ingested": [...], "queued": [...], "failed": [...]}``; ``queued`` are
    files the provider could not take now (left ``pending`` for ``Host.sync``).
    """
    out: dict[str, list[str]] = {"ingested": [], "queued": [], "failed": []}
    limit = max(1, int(host.config.get("max_files_per_call", 200)))
    todo = [r for r in rels if stat_rel(host.root, r) is not None]
    for i in range(0, len(todo), limit):
        batch = todo[i : i + limit]
        try:
            _sort_report(host.ingest(batch, force=False, embed=True), batch, out, on_action)
        except ProviderError as exc:
            out["queued"].extend(batch)
            for rel in batch:
                on_action("queued", rel, exc.message)
        except UsageError:
            # A file vanished between the stat and the ingest: take the batch one by one.
            for rel in batch:
                try:
                    _sort_report(host.ingest([rel], force=False, embed=True), [rel], out, on_action)
                except ProviderError as exc:
                    out["queued"].append(rel)
                    on_action("queued", rel, exc.message)
                except MnoteKrError as exc:
                    out["failed"].append(rel)
                    on_action("error", rel, exc.message)
        except MnoteKrError as exc:  # a broken plugin: report, keep the other batches going
            out["failed"].extend(batch)
            for rel in batch:
                on_action("error", rel, exc.message)
    return out


#: What the watch log says of a changed file in a root that follows changes, before re-indexing it.
CHANGED_WORDS = "re-indexing it: its old version is removed from LightRAG, then the new one sent"


def apply_plan(
    host: Host, plan: Plan, roots: Mapping[str, IndexedRoot], on_action: Action = _no_action
) -> dict[str, Any]:
    """Carry out a plan: restore, stale-mark (with delete), re-ingest, record new files.

    ``roots`` are the registry's indexed roots (they decide ``runOnChange``).
    """
    result: dict[str, Any] = {"ingest": {"ingested": [], "queued": [], "failed": []}, "skipped": {}}
    # New files of a type the provider cannot index are passed over (no entry, not sent), as a
    # folder ingest passes over them.
    candidates = [*plan.new, *plan.unindexed]
    skipped = host.unindexable(candidates) if candidates else {}
    record_skipped(host, skipped, candidates)  # named by status and searches (core/skipped.py)
    if skipped:
        plan.new = [rel for rel in plan.new if rel not in skipped]
        plan.unindexed = [rel for rel in plan.unindexed if rel not in skipped]
        result["skipped"] = skipped
        for rel, why in skipped.items():
            on_action("skipped", rel, why)
    if plan.touched or plan.restored:
        restored = set(plan.restored)
        with host.store.transaction() as live_reg:
            for rel in set(plan.touched) | restored:
                entry = live_reg.entries.get(rel)
                if entry is None or entry.status in _DEAD:
                    continue
                changes: dict[str, Any] = {}
                if rel in plan.touched:
                    changes["size"], changes["mtime_ns"] = plan.touched[rel]
                if rel in restored and is_provisional(entry):
                    changes.update(stale=False, stale_reason=None)
                if changes:
                    live_reg.update(rel, **changes)
        for rel in plan.restored:
            on_action("restored", rel, "unchanged on disk")
    reasons: dict[str, str] = dict(plan.excluded)  # out of the scope now: like a file gone from it
    to_ingest: list[str] = []
    left_behind: list[str] = []  # changed in a root added with --no-follow: nothing re-indexes them
    for rel in plan.missing:
        reasons[rel] = REASON_MISSING
    for rel in plan.emptied:  # not cited, its document deleted; back on disk once it has content ('unindexed')
        reasons[rel] = REASON_EMPTIED
    # A move keeps its document (the same bytes, cited under the new path at once, nothing re-indexed);
    # one that cannot (an image, a document not indexed yet) is re-indexed: old deleted, new sent.
    moves = [(o, n, st) for o, n in plan.moved if (st := stat_rel(host.root, n)) is not None]
    kept = set(take_over(host.store, host.workspace, moves, provisional=PROVISIONAL_REASONS))
    for old, new in plan.moved:
        if (old, new) in kept:
            on_action("moved", new, f"from {old}: cited under its new path, its document kept")
            continue
        reasons[old] = moved_reason(new)
        to_ingest.append(new)
    for rel in plan.changed:
        root = innermost_root(rel, roots)
        if root is not None and root.run_on_change:
            to_ingest.append(rel)  # Host.ingest deletes the old index entry, then adds anew
            on_action("changed", rel, CHANGED_WORDS)  # named before the progress lines of its ingest
            with host.store.transaction() as live_reg:
                if rel in live_reg.entries and not live_reg.entries[rel].stale:
                    live_reg.update(rel, stale=True, stale_reason=PROVISIONAL_CHANGED)
        else:
            reasons[rel] = REASON_CHANGED
            left_behind.append(rel)
    if reasons:
        host.mark_stale(reasons)
        for rel, reason in reasons.items():
            root = innermost_root(rel, roots)
            if reason == REASON_CHANGED and root is not None:  # a root that opted out: nothing re-indexes it
                reason += (f"; not re-indexed (root {root.root_relative_path or '.'} does not follow changes): "
                           f"'{ingest_command(rel)}' re-indexes it, '{follow_command(root)}' makes the root follow")
            on_action("stale", rel, reason)
    for rel in plan.unindexed:
        root = admitted(rel, roots)
        if root is not None and root.run_on_change:
            to_ingest.append(rel)  # back on disk, or never re-indexed, in a runOnChange root
    pending_new: list[str] = []
    for rel in plan.new:
        root = admitted(rel, roots)
        if root is not None and root.run_on_change:
            to_ingest.append(rel)
        else:
            pending_new.append(rel)
            where = f"root {root.root_relative_path or '.'} does not follow changes" if root else "outside the roots"
            fix = f", '{follow_command(root)}' makes the root follow" if root else ""
            on_action("new", rel, f"not ingested ({where}): '{ingest_command(rel)}' adds it{fix}")
    if to_ingest:
        result["ingest"] = ingest_paths(host, to_ingest, on_action)
    result["pendingNew"] = pending_new
    result["changedLeftBehind"] = left_behind
    return result


def follow_waiting(host: Host, root_rel: str, on_action: Action = _no_action) -> dict[str, list[str]]:
    """Re-index what waited under ``root_rel`` once its root follows (``roots add`` again, without
    ``--no-follow``): changed files not re-indexed and new files not ingested while it did not.

    Only what was recorded as left behind is sent (the next ``sync`` or ``watch`` start-up catches
    anything changed while nobody watched); a provider that is down leaves them queued. Returns
    ``ingest_paths``' result (empty when nothing waited)."""
    reg = host.registry()
    roots = dict(reg.roots)

    def waits(rel: str) -> bool:
        inside = not root_rel or rel == root_rel or rel.startswith(root_rel + "/")
        root = innermost_root(rel, roots) if inside else None
        return root is not None and root.run_on_change

    waited = [e.source_root_relative_path for e in (reg.select(lambda tag: bool(tag & STALE))
                                                    if reg.stale_count() else [])
              if e.stale_reason == REASON_CHANGED and waits(e.source_root_relative_path)]
    waited += [f.source_path for f in load_pending_new(host).files if waits(f.source_path)]
    if not waited:
        return {}
    del reg
    done = ingest_paths(host, list(dict.fromkeys(waited)), on_action)
    update_pending_new(host, drop=[*done["ingested"], *done["queued"]])
    return done


# --------------------------------------------------------------------------- pending-new.json


def update_pending_new(
    host: Host,
    *,
    add: Mapping[str, Stat] | None = None,
    drop: Iterable[str] = (),
    scope: Callable[[str], bool] | None = None,
    replace: bool = False,
    reg: Registry | None = None,
) -> PendingNew:
    """Edit the pending-new list atomically under its own lock.

    ``replace`` rebuilds it from ``add`` (a full reconcile); otherwise files in ``drop``,
    and files inside ``scope`` that are not in ``add``, are removed, and ``add`` merged in.
    Files that now have a live registry entry or no longer exist are dropped too.
    ``reg``: the current registry when the caller has just loaded it (saves a load).
    The file is only rewritten when its list changes.
    """
    path = pending_new_path(host)
    path.parent.mkdir(parents=True, exist_ok=True)
    add = add or {}
    with filelock.FileLock(str(path) + ".lock", timeout=30):
        current = load_pending_new(host)
        reg = reg if reg is not None else host.registry()
        dropped = set(drop)
        files: dict[str, PendingNewFile] = {}
        for f in [] if replace else current.files:
            if f.source_path in dropped or (scope is not None and scope(f.source_path) and f.source_path not in add):
                continue
            files[f.source_path] = f
        now = now_ms()
        seen_before = {f.source_path: f.seen_at_ms for f in current.files}
        for rel, (size, _) in add.items():
            root = innermost_root(rel, reg.roots)
            files[rel] = PendingNewFile(source_path=rel, root=root.root_relative_path if root else "",
                                        size=size, seen_at_ms=seen_before.get(rel) or now)
        kept = [
            f for rel, f in sorted(files.items())
            if not (rel in reg.entries and is_tracked(reg.entries[rel]))
            and (rel in add or stat_rel(host.root, rel) is not None)
        ]
        if kept == current.files:
            return current
        snapshot = PendingNew(updated_at_ms=now, files=kept)
        write_atomic(path, pending_encoder.encode(snapshot))
        return snapshot


# --------------------------------------------------------------------------- full reconcile


def reconcile_and_apply(host: Host, on_action: Action = _no_action, *, reread: bool = False) -> dict[str, Any]:
    """Reconcile the whole registry with the disk and act on it; a JSON-able summary.

    Walks every indexed root once (scandir + stat), stats registry entries outside the
    walk, hashes only what changed, then marks stale / re-ingests / records new files, and
    re-reads the files indexed by an older reading (``rereading``; ``reread``: those whose
    reading is not known too), and embeds the places of files searches placed by words only
    (``wordsonly``: their places changed since ingest embedded them).
    """
    started = time.perf_counter()
    reg = host.registry()
    disk: dict[str, Stat] = {}
    passed: dict[str, str] = {}  # FIFOs, sockets, devices, names that are not UTF-8: one line each
    scan_roots(host.root, reg.roots, disk, passed)
    for rel, why in passed.items():
        on_action("skipped", rel, why)
    in_roots = set(disk)
    dead = _DEAD
    tracked = {
        rel: e for rel, e in reg.entries.items()
        if e.status not in dead and (not e.stale or e.stale_reason in PROVISIONAL_REASONS)
    }  # is_tracked, inlined: this runs once per entry on every pass
    for rel in tracked:
        if rel not in disk:
            st = stat_rel(host.root, rel)
            if st is not None:
                disk[rel] = st
    excluded = excluded_entries(tracked.values(), reg.roots)
    for rel in excluded:  # left the scope: neither checked against the disk nor missing
        del tracked[rel]
    plan = plan_changes(tracked, disk, in_roots, file_hasher(host.root), known=reg.entries)
    plan.excluded = excluded
    del tracked
    applied: dict[str, Any] = {"ingest": {}, "pendingNew": []}
    empty = plan.empty  # (applying edits the plan: files the provider cannot index leave plan.new)
    if not empty:
        roots = dict(reg.roots)
        del reg  # ~1 KB per entry: not held while applying (which loads its own copies)
        applied = apply_plan(host, plan, roots, on_action)
    pending = update_pending_new(host, add={r: disk[r] for r in applied["pendingNew"]}, replace=True,
                                 reg=reg if empty else None)
    summary = summarize(plan, applied)
    summary["passedOver"] = passed_over(passed)
    summary["scanned"] = len(in_roots)
    summary["pendingNew"] = {"count": len(pending.files), "file": str(pending_new_path(host))}
    summary["reread"] = rereading.reread(host, everything=reread)
    host.recount_words()  # counts of an older format: made again from the indexed files (their places queued)
    summary["wordsOnly"] = host.embed_words_only()  # places that lost their vectors: embedded again
    summary["elapsedS"] = round(time.perf_counter() - started, 4)
    return summary


def file_hasher(ws_root: Path) -> Callable[[str], str | None]:
    """``rel -> sha256:<hex>`` for files under ``ws_root``; None when unreadable."""

    def digest(rel: str) -> str | None:
        try:
            return sha256_file(ws_root / rel)
        except OSError:
            return None

    return digest


def passed_over(passed: Mapping[str, str]) -> dict[str, Any]:
    """The summary's ``passedOver``: entries no pass can index (not regular files, names not UTF-8)."""
    return {"count": len(passed), "paths": list(passed), "reasons": dict(passed)}


def summarize(plan: Plan, applied: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON-able summary ``mnote-kr sync`` prints."""
    ingest = applied.get("ingest") or {}
    return {
        "missing": {"count": len(plan.missing), "paths": list(plan.missing)},
        "moved": {"count": len(plan.moved), "paths": [{"from": o, "to": n} for o, n in plan.moved]},
        "changed": {"count": len(plan.changed), "paths": list(plan.changed),
                    "notReindexed": list(applied.get("changedLeftBehind", []))},
        "emptied": {"count": len(plan.emptied), "paths": list(plan.emptied)},
        "new": {"count": len(plan.new), "paths": list(plan.new),
                "notIngested": list(applied.get("pendingNew", []))},
        "restored": {"count": len(plan.restored), "paths": list(plan.restored)},
        "unindexed": {"count": len(plan.unindexed), "paths": list(plan.unindexed)},
        "touched": len(plan.touched),
        "excluded": {"count": len(plan.excluded), "paths": list(plan.excluded), "reasons": dict(plan.excluded)},
        "skipped": {"count": len(applied.get("skipped") or {}), "paths": list(applied.get("skipped") or {}),
                    "reasons": dict(applied.get("skipped") or {})},
        "ingest": {k: list(v) for k, v in ingest.items()},
        "hashed": plan.hashed,
    }
