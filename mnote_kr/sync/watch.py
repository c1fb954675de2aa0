"""The folder watcher: keep the index following the disk while the user works.

Three layers, so that each can be tested on its own:

1. ``_Handler`` (watchdog thread) only puts ``(event type, src, dest, is_dir)`` on a
   queue: O(1) per event, so a burst of thousands of creations never blocks inotify.
2. The worker thread drains the queue. A deletion, a move away or a write to an indexed
   file stops its citations *at once* with a provisional stale mark (no provider call).
   Every touched path is remembered as "dirty".
3. When the dirty paths have been quiet for ``debounce_s`` (an editor's save sequence, a
   copy of a thousand files), ``reconcile.plan_changes`` / ``reconcile.apply_plan`` run on
   just those paths: confirmed deletions get their reason and a best-effort index delete
   (``delete_file=false``), moves are recognised by hash and re-indexed under the new
   path, changes re-ingest in ``runOnChange`` roots, new files are ingested or listed in
   ``.mnote/index/pending-new.json``; a provisional mark whose file turns out unchanged is
   lifted.

When the provider is down nothing is lost: stale marks are local, deletes stay queued as
``pending_action="delete"`` and ingests as ``pending``; the worker replays them through
``Host.sync`` every ``sync_interval_s``. No exception ends the worker loop.

Desktop shells use ``Watcher`` in a thread (``start``/``stop``/``flush``/``wait_idle``,
``on_action`` callback); the CLI uses ``watchcli.run_watch``; ``mnote-kr sync`` uses
``reconcile_and_apply``. While it runs, the watcher's mark (``core.watchmark``) tells a search that queued
files are sent by it, not by a ``sync`` to run.
"""

from __future__ import annotations

import functools
import os
import queue
import stat
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver, ObservedWatch

from mnote_kr.citations.rank.wordsonly import sync_lines
from mnote_kr.core import watchmark
from mnote_kr.core.pending import load_pending_new
from mnote_kr.core.registry import Registry, now_ms
from mnote_kr.core.scan import admitted, scan_tree, stat_rel
from mnote_kr.core.workspace import BAD_FOLDER_REASON, BAD_NAME_REASON, SKIP_DIRS, bad_name, shown_path, special_reason
from mnote_kr.errors import MnoteKrError, ProviderError, UsageError
from mnote_kr.sync.reconcile import (
    PROVISIONAL_CHANGED,
    PROVISIONAL_MISSING,
    apply_plan,
    file_hasher,
    is_tracked,
    pair_late_moves,
    plan_changes,
    reconcile_and_apply,
    summarize,
    update_pending_new,
)

if TYPE_CHECKING:
    from mnote_kr.app.host import Host

__all__ = ["WatchAction", "Watcher", "reconcile_and_apply"]

_IGNORED = frozenset({"opened", "closed_no_write"})  # reads (ours included) are not changes
_GONE = "gone"
_TOUCHED = "touched"


#: What the watcher's frequent follow-up looks at (see ``_maintain``).
_FOLLOW_STATUSES = frozenset({"submitted", "processing", "pending"})


@dataclass(frozen=True)
class WatchAction:
    """One thing the watcher did, for the ``on_action`` callback and the CLI's lines.

    ``kind``: ``stale`` (citations stopped; ``detail`` is the reason), ``changed`` (a changed file being
    re-indexed: said before its ingest's progress lines), ``restored``,
    ``ingested``, ``moved`` (renamed or moved: cited under the new path, its document kept),
    ``queued`` (provider down; replayed later), ``new`` (not ingested:
    root added with --no-follow), ``skipped`` (a type the provider cannot index: passed over, as a
    folder ingest does; or an entry no pass can index: a FIFO, socket or device, a name that is not
    valid UTF-8), ``replayed``, ``indexed`` (submitted work finished), ``reconciled``,
    ``watching``, ``embedded`` (places of files placed by words only embedded again), ``error``.
    """

    kind: str
    path: str
    detail: str = ""
    at_ms: int = field(default_factory=now_ms)

    def line(self) -> str:
        detail = f" ({self.detail})" if self.detail else ""
        return f"{self.kind:<9} {self.path}{detail}"


OnAction = Callable[[WatchAction], None]


class _Handler(FileSystemEventHandler):
    """Runs on watchdog's thread: only queues the paths."""

    def __init__(self, events: queue.Queue[tuple[str, str, str, bool]]) -> None:
        self._events = events

    def dispatch(self, event: FileSystemEvent) -> None:
        if event.event_type in _IGNORED:
            return
        self._events.put((event.event_type, os.fsdecode(event.src_path), os.fsdecode(event.dest_path or ""),
                          event.is_directory))


class Watcher:
    """Watch every indexed root of ``host`` and keep the registry following the disk.

    ``debounce_s``: quiet time before acting on a burst; ``max_delay_s``: act anyway when
    events never stop; ``sync_interval_s``: how often queued provider work is replayed;
    ``reconcile``: reconcile with the disk first (catches changes made while nobody
    watched). ``on_action`` is called from the worker thread, one call per action.
    """

    def __init__(
        self,
        host: Host,
        *,
        debounce_s: float = 1.0,
        max_delay_s: float | None = None,
        sync_interval_s: float = 30.0,
        reconcile: bool = True,
        on_action: OnAction | None = None,
        follow_interval_s: float = 1.0,
    ) -> None:
        self.host = host
        #: While work it submitted is in flight, the watcher follows it this often (not every
        #: ``sync_interval_s``), so a changed or renamed file is citable soon after LightRAG is done.
        self.follow_interval_s = follow_interval_s
        self.debounce_s = max(0.0, debounce_s)
        self.max_delay_s = max_delay_s if max_delay_s is not None else max(5.0, 10 * self.debounce_s)
        self.sync_interval_s = sync_interval_s
        self.reconcile = reconcile
        self.on_action = on_action
        self.last_reconcile: dict[str, Any] | None = None
        self.last_applied: dict[str, Any] | None = None
        self.last_error: str | None = None
        self.applied_batches = 0
        self._events: queue.Queue[tuple[str, str, str, bool]] = queue.Queue()
        self._handler = _Handler(self._events)
        self._observer: BaseObserver | None = None
        self._watches: dict[str, ObservedWatch] = {}
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._flush = threading.Event()
        self._ready = threading.Event()
        self._working = False
        self._dirty: dict[str, bool] = {}  # rel -> is a folder
        self._first_dirty = 0.0
        self._last_event = 0.0
        self._next_sync = 0.0
        self._next_full_sync = 0.0
        # Live entries only, rel -> (size, mtime_ns): all the immediate path needs, and far
        # smaller than a loaded registry (which the watcher never keeps between batches).
        self._live_cache: tuple[tuple[int, int, int], dict[str, tuple[int, int]]] | None = None
        self._ws = str(host.root)
        self._recent: dict[str, tuple[int, float]] = {}  # rel -> (size, when it appeared)

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Start watching (returns at once; the start-up reconcile runs on the worker)."""
        if self._thread is not None:
            raise UsageError("The watcher is already running")
        self._stop.clear()
        self._observer = Observer()
        self._sync_watches(self.host.registry())
        self._observer.start()
        self._thread = threading.Thread(target=self._run, name="mnote-kr-watch", daemon=True)
        self._thread.start()
        watchmark.mark(self.host.store.index_dir)

    def stop(self, timeout: float = 10.0) -> None:
        """Stop watching; work already noted is finished first when it takes under ``timeout``."""
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout)
            self._observer = None
            self._watches.clear()
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        watchmark.unmark(self.host.store.index_dir)

    def __enter__(self) -> Watcher:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def watched_roots(self) -> list[str]:
        return sorted(self._watches)

    def idle(self) -> bool:
        """Nothing queued, nothing dirty, nothing being applied (events still inside
        watchdog's own ~0.5 s move-pairing buffer are not visible here)."""
        return (
            self._ready.is_set()
            and self._events.unfinished_tasks == 0
            and not self._dirty
            and not self._working
        )

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Wait until ``idle()`` holds twice in a row; False on timeout."""
        deadline = time.monotonic() + timeout
        streak = 0
        while time.monotonic() < deadline:
            streak = streak + 1 if self.idle() else 0
            if streak >= 2:
                return True
            time.sleep(0.02)
        return False

    def flush(self, timeout: float = 30.0) -> bool:
        """Act on every noted path now, without waiting for the quiet period."""
        self._flush.set()
        return self.wait_idle(timeout)

    def replay_now(self) -> None:
        """Retry queued provider work on the next tick (normally every ``sync_interval_s``)."""
        self._next_sync = 0.0

    def status(self) -> dict[str, Any]:
        """What the watcher is doing and what waits for the provider (JSON-able)."""
        reg = self.host.registry()
        waiting = [
            {"sourcePath": e.source_root_relative_path, "action": e.pending_action or e.status,
             "lastError": e.last_error}
            for e in reg.entries.values() if e.pending_action or e.status == "pending"
        ]
        return {
            "running": self.running,
            "watchedRoots": self.watched_roots(),
            "queuedEvents": self._events.qsize(),
            "dirtyPaths": len(self._dirty),
            "waitingForProvider": waiting,
            "lastError": self.last_error,
            "lastReconcile": self.last_reconcile,
        }

    # ------------------------------------------------------------------ worker

    def _emit(self, kind: str, path: str, detail: str = "") -> None:
        if self.on_action is None:
            return
        try:
            self.on_action(WatchAction(kind=kind, path=path, detail=detail))
        except Exception:  # noqa: BLE001 - a caller's callback must not stop the watcher
            traceback.print_exc(file=sys.stderr)

    def _run(self) -> None:
        if self.reconcile:
            self._guard(self._startup_reconcile)
        self._ready.set()
        tick = 0.05
        while not self._stop.is_set():
            self._working = False
            try:
                first = self._events.get(timeout=tick)
            except queue.Empty:
                first = None
            self._working = True
            if first is not None:
                batch = [first]
                while len(batch) < 10_000:
                    try:
                        batch.append(self._events.get_nowait())
                    except queue.Empty:
                        break
                self._guard(functools.partial(self._note, batch))
                for _ in batch:
                    self._events.task_done()
            now = time.monotonic()
            if self._dirty and (
                self._flush.is_set()
                or now - self._last_event >= self.debounce_s
                or now - self._first_dirty >= self.max_delay_s
            ):
                self._guard(self._apply_dirty)
            if not self._dirty and self._events.unfinished_tasks == 0:
                self._flush.clear()
            if now >= self._next_sync:
                self._next_sync = now + self.sync_interval_s
                self._guard(self._maintain)
        # Finish what was already noted, so a stop right after a change loses nothing.
        if self._dirty:
            self._guard(self._apply_dirty)
        self._working = False

    def _guard(self, fn: Callable[[], object]) -> None:
        try:
            fn()
        except MnoteKrError as exc:
            self.last_error = exc.message
            self._emit("error", "", exc.message)
        except Exception as exc:  # noqa: BLE001 - nothing may end the watcher loop
            self.last_error = f"{type(exc).__name__}: {exc}"
            self._emit("error", "", self.last_error)
            traceback.print_exc(file=sys.stderr)

    def _startup_reconcile(self) -> None:
        self.last_reconcile = reconcile_and_apply(self.host, self._emit)
        r = self.last_reconcile
        self._emit("reconciled", "", ", ".join(
            f"{k}: {r[k]['count']}" for k in ("missing", "moved", "changed", "new")) + f", hashed: {r['hashed']}")
        for line in sync_lines(r.get("wordsOnly")):
            self._emit("embedded", "", line)

    def _live(self) -> dict[str, tuple[int, int]]:
        """Live entries' (size, mtime_ns), re-read only when the registry file changed
        (the store replaces it on every save, so inode + mtime + size identify a version)."""
        try:
            st = os.stat(self.host.store.path)
            key = (st.st_ino, st.st_mtime_ns, st.st_size)
        except OSError:
            key = (0, 0, 0)
        if self._live_cache is None or self._live_cache[0] != key:
            entries = self.host.registry().entries
            live = {rel: (e.size, e.mtime_ns) for rel, e in entries.items() if not e.stale and is_tracked(e)}
            del entries
            self._live_cache = (key, live)
        return self._live_cache[1]

    def _rel(self, path: str) -> str | None:
        ws = self._ws
        if not path.startswith(ws) or (len(path) > len(ws) and path[len(ws)] != os.sep):
            return None
        rel = path[len(ws) + 1 :]
        if os.sep != "/":
            rel = rel.replace(os.sep, "/")
        if not rel or any(part in SKIP_DIRS for part in rel.split("/")):
            return None
        return rel

    def _note(self, batch: list[tuple[str, str, str, bool]]) -> None:
        """Remember dirty paths; stop citing indexed files that vanished or changed at once."""
        now = time.monotonic()
        noted = False
        gone: list[tuple[str, bool]] = []
        touched: list[str] = []
        for event_type, src, dest, is_dir in batch:
            if is_dir and event_type not in ("created", "deleted", "moved"):
                continue  # a folder "modified" only means its listing changed: the children say how
            pairs = [(src, _GONE if event_type in ("deleted", "moved") else _TOUCHED)]
            if event_type == "moved":
                pairs.append((dest, _TOUCHED))
            for path, role in pairs:
                rel = self._rel(path)
                if rel is None:
                    continue
                if not self._dirty:
                    self._first_dirty = now
                noted = True
                self._dirty[rel] = self._dirty.get(rel, False) or is_dir
                if role == _GONE:
                    gone.append((rel, is_dir))
                elif not is_dir and event_type != "created":
                    touched.append(rel)
        if noted:  # our own writes under .mnote/ must not keep the quiet period from ending
            self._last_event = now
        if not gone and not touched:
            return
        live = self._live()
        marks: dict[str, str] = {}
        for rel, is_dir in gone:
            if is_dir:
                prefix = rel + "/"
                for key in live:
                    if key.startswith(prefix) and stat_rel(self.host.root, key) is None:
                        marks[key] = PROVISIONAL_MISSING
            elif rel in live and stat_rel(self.host.root, rel) is None:
                marks[rel] = PROVISIONAL_MISSING
        for rel in touched:
            if rel not in live or rel in marks:
                continue
            st = stat_rel(self.host.root, rel)
            if st is None:
                marks[rel] = PROVISIONAL_MISSING
            elif st != live[rel]:
                marks[rel] = PROVISIONAL_CHANGED
        if not marks:
            return
        done: list[tuple[str, str]] = []
        with self.host.store.transaction() as reg:
            for rel, reason in marks.items():
                current = reg.entries.get(rel)
                if current is not None and not current.stale and is_tracked(current):
                    reg.update(rel, stale=True, stale_reason=reason)
                    done.append((rel, reason))
        for rel, reason in done:
            self._emit("stale", rel, reason)

    def _apply_dirty(self) -> None:
        """Targeted reconcile of the dirty paths (the burst is over)."""
        # Whatever this sends is followed on the next ticks, not after a full sync interval.
        self._next_sync = min(self._next_sync, time.monotonic() + self.follow_interval_s)
        dirty = self._dirty
        self._dirty = {}
        self._flush.clear()
        reg = self.host.registry()
        root = self.host.root
        disk: dict[str, tuple[int, int]] = {}
        candidates: set[str] = set()
        dirs: set[str] = set()
        passed: dict[str, str] = {}  # what no pass can index, named once per batch
        for rel, was_dir in dirty.items():
            try:
                mode = os.lstat(os.path.join(self._ws, rel)).st_mode
            except OSError:
                if was_dir:
                    dirs.add(rel)
                continue
            if stat.S_ISDIR(mode):
                dirs.add(rel)
                if bad_name(rel):
                    if admitted(rel, reg.roots, is_dir=True) is not None:
                        passed[shown_path(rel)] = BAD_FOLDER_REASON
                    continue
                found: dict[str, tuple[int, int]] = {}
                scan_tree(root, rel, reg.roots, found, passed)
                disk.update(found)
                candidates.update(found)
            elif admitted(rel, reg.roots) is not None:
                st = stat_rel(root, rel)
                if bad_name(rel):
                    passed[shown_path(rel)] = BAD_NAME_REASON
                elif st is not None:
                    disk[rel] = st
                    candidates.add(rel)
                elif not stat.S_ISLNK(mode):  # a FIFO, socket or device (stat'ed, never opened)
                    passed[rel] = special_reason(mode)
        for rel, why in passed.items():
            self._emit("skipped", rel, why)

        def in_scope(rel: str) -> bool:
            if rel in dirty:
                return True
            if not dirs:
                return False
            parts = rel.split("/")
            return any("/".join(parts[:i]) in dirs for i in range(1, len(parts)))

        if dirs:
            tracked = {k: e for k, e in reg.entries.items() if is_tracked(e) and in_scope(k)}
        else:
            tracked = {k: reg.entries[k] for k in dirty if k in reg.entries and is_tracked(reg.entries[k])}
        for rel in tracked:
            if rel not in disk:
                st = stat_rel(root, rel)
                if st is not None:
                    disk[rel] = st
        hasher = file_hasher(root)
        plan = plan_changes(tracked, disk, candidates, hasher, known=reg.entries)
        if plan.missing:
            pair_late_moves(plan, tracked, self._late_partners(reg, candidates), hasher)
        roots = dict(reg.roots)
        del reg, tracked  # a loaded registry is ~1 KB per entry: do not hold it while applying
        applied = apply_plan(self.host, plan, roots, self._emit) if not plan.empty else {"pendingNew": []}
        update_pending_new(self.host, add={r: disk[r] for r in applied["pendingNew"]}, scope=in_scope)
        self.applied_batches += 1
        self.last_applied = summarize(plan, applied)
        now = time.monotonic()
        for rel in (*plan.new, *plan.unindexed, *(n for _, n in plan.moved)):
            if rel in disk:
                self._recent[rel] = (disk[rel][0], now)
        horizon = now - max(30.0, 3 * self.max_delay_s)
        self._recent = {k: v for k, v in self._recent.items() if v[1] >= horizon}

    def _late_partners(self, reg: Registry, exclude: set[str]) -> dict[str, int]:
        """Files that appeared in earlier batches and may be the far side of a move."""
        partners = {rel: size for rel, (size, _) in self._recent.items() if rel not in exclude}
        for f in load_pending_new(self.host).files:
            if f.source_path not in exclude:
                partners.setdefault(f.source_path, f.size)
        return {
            rel: size for rel, size in partners.items()
            if not (rel in reg.entries and reg.entries[rel].stale) and stat_rel(self.host.root, rel) is not None
        }

    def _maintain(self) -> None:
        """Periodic: follow root changes, replay work queued while the provider was down."""
        for line in sync_lines(self.host.embed_words_only(again=False)):  # a search met places without vectors
            self._emit("embedded", "", line)
        reg = self.host.registry()
        self._sync_watches(reg)
        waiting = [e for e in reg.entries.values() if e.pending_action or e.status == "pending"]
        # Work submitted (by us or anyone) is followed to processed/failed by the watcher itself.
        in_flight = sum(1 for e in reg.entries.values() if e.status in ("submitted", "processing") and not e.stale)
        if not waiting and not in_flight:
            return
        now = time.monotonic()
        full = now >= self._next_full_sync
        if full:
            self._next_full_sync = now + self.sync_interval_s
        try:
            # Between full syncs only what is being indexed or due for a retry: a delete LightRAG
            # is still working on is re-sent by the full sync, not every second (that would keep
            # its pipeline busy and every scan skipped).
            result = self.host.sync(wait_s=0.0, statuses=None if full else _FOLLOW_STATUSES)
        except ProviderError as exc:
            self.last_error = exc.message
            return
        after = self.host.registry()
        self._schedule_follow(after)
        if waiting:
            still = sum(1 for e in after.entries.values() if e.pending_action or e.status == "pending")
            self._emit("replayed", "", f"{len(waiting) - still} of {len(waiting)} queued action(s) done; "
                                       f"followed {result.get('followed', 0)}")
        done = in_flight - sum(1 for e in after.entries.values()
                               if e.status in ("submitted", "processing") and not e.stale)
        if in_flight and done > 0:
            self._emit("indexed", "", f"{done} of {in_flight} file(s) being indexed finished")

    def _schedule_follow(self, reg: Registry) -> None:
        """Come back soon while work is in flight: every ``follow_interval_s`` for submitted or
        processing entries, and when the earliest queued retry is due (a busy LightRAG, e.g.
        still deleting a renamed file's old document), instead of after ``sync_interval_s``."""
        now = time.monotonic()
        live = reg.entries.values()
        if any(e.status in ("submitted", "processing") and not e.stale for e in live):
            self._next_sync = min(self._next_sync, now + self.follow_interval_s)
            return
        due = [e.next_retry_at_ms for e in live if e.pending_action or e.status == "pending"]
        if due:
            wait_s = (min(due) - time.time() * 1000) / 1000
            self._next_sync = min(self._next_sync, now + min(self.sync_interval_s,
                                                             max(self.follow_interval_s, wait_s)))

    def _sync_watches(self, reg: Registry) -> None:
        """Schedule one watch per root not already covered by a recursive outer root."""
        if self._observer is None:
            return
        wanted: dict[str, bool] = {}
        for rel, root in reg.roots.items():
            covered = any(
                other.recursive and other_rel != rel and (not other_rel or rel.startswith(other_rel + "/"))
                for other_rel, other in reg.roots.items()
            )
            if not covered:
                wanted[rel] = root.recursive
        for rel in list(self._watches):
            if rel not in wanted:
                self._observer.unschedule(self._watches.pop(rel))
        for rel, recursive in wanted.items():
            if rel in self._watches:
                continue
            path = os.path.join(self._ws, rel) if rel else self._ws
            try:
                self._watches[rel] = self._observer.schedule(self._handler, path, recursive=recursive)
            except OSError as exc:
                self.last_error = f"cannot watch {rel or '.'}: {exc.strerror or exc}"
                self._emit("error", rel or ".", f"cannot watch: {exc.strerror or exc}")
                continue
            self._emit("watching", rel or ".", "recursive" if recursive else "top level only")
