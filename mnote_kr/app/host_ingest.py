"""Ingest, the host's side: plan what to send, record intent, send in batches, apply the provider's reports.

``HostIngest`` is the part of ``Host`` (``mnote_kr.app.host``) that feeds the provider and
writes what it reports into the registry; ``Host`` inherits it.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from mnote_kr.app.host_passover import (
    DROPPED,
    HostPassOver,
    emptied_item,
    never_indexed,
    still_refused,
    without_dropped,
)
from mnote_kr.app.host_places import placing_runs
from mnote_kr.app.patience import Patience, moves
from mnote_kr.app.syncwait import lost_error
from mnote_kr.app.waitprogress import WaitProgress, elapsed_text, steps_note
from mnote_kr.core import known
from mnote_kr.core.registry import (
    NOT_TERMINAL,
    Registry,
    RegistryStore,
    failed_tag,
    now_ms,
    waiting_tag,
)
from mnote_kr.core.registry_format import tag_status
from mnote_kr.core.skipped import empty_files, record_skipped
from mnote_kr.core.workspace import Workspace, excluded_in_root
from mnote_kr.errors import ProviderError
from mnote_kr.models import (
    EntryUpdate,
    IndexedRoot,
    IngestItem,
    IngestReport,
    ProviderActivity,
    SourceEntry,
    SourceFile,
    WaitTimeout,
)

if TYPE_CHECKING:
    from mnote_kr.context import ProviderContext
    from mnote_kr.plugins import Plugins

#: A round of ``ingest --wait``'s following of the provider, at most (``waitprogress.HEARTBEAT_S``: a line a round).
WAIT_ROUND_S = 4.0


class HostIngest(HostPassOver):
    """Ingest and the registry writes of provider reports (a part of ``Host``, which defines the
    attributes and methods declared here for the type checker); the places a search ranks by
    meaning are prepared and embedded by ``HostPlaces``; what it passes over is ``HostPassOver``'s."""

    #: The clock a wait for the provider runs on (``app.patience``; a test drives it round by round).
    wait_clock: Callable[[], float] = staticmethod(time.monotonic)

    if TYPE_CHECKING:
        workspace: Workspace
        config: dict[str, Any]
        store: RegistryStore
        progress: Callable[[str], None]

        @property
        def plugins(self) -> Plugins: ...

        def context(self) -> ProviderContext: ...

        def registry(self) -> Registry: ...

        def root_for(self, rel_path: str, reg: Registry | None = None) -> IndexedRoot | None: ...

    # ------------------------------------------------------------------ ingest

    def plan_ingest(
        self, paths_: Iterable[str | Path], *, force: bool = False, limit: int | None = None
    ) -> tuple[list[SourceFile], IngestReport]:
        """Expand, hash and diff against the registry; nothing is sent and nothing written.

        Every file is taken. ``limit`` (only where a caller asks for a cap: an API request, an
        agent tool) stops after that many files *to send*, after the diff, so the next call
        continues where this one stopped; the report then says how many are left.
        """
        sources, report, _ = self._plan_ingest(paths_, force=force, limit=limit)
        return sources, report

    def _plan_ingest(
        self, paths_: Iterable[str | Path], *, force: bool, limit: int | None
    ) -> tuple[list[SourceFile], IngestReport, dict[str, tuple[int, int]]]:
        """:meth:`plan_ingest`, and the files found unchanged by their hash whose size or time is not the
        registry's (touched): rel -> (size, mtime_ns)."""
        touched: dict[str, tuple[int, int]] = {}
        reg = self.registry()
        expansion = self.workspace.expand(paths_, limit=None)
        report = IngestReport(skipped=list(expansion.skipped))
        total, checked, started = len(expansion.files), 0, time.monotonic()
        to_send: list[SourceFile] = []
        any_excludes = any(r.exclude_patterns for r in reg.roots.values())
        # Found in a folder and of a type the provider cannot index: passed over, not sent. A file
        # the user names is sent, and fails with the provider's reason (one hook call, by name).
        # Only files without a record, or with a failed or queued one, can be passed over: an unchanged
        # folder asks nothing (and loads no plugin).
        retried = {rel for rel, _ in reg.notes(failed_tag)} | {rel for rel, _ in reg.notes(waiting_tag)}
        unindexable = self.unindexable([rel for _, rel in expansion.files if rel not in expansion.named
                                        and (rel not in reg.entries or rel in retried)])
        for abs_path, rel in expansion.files:
            checked += 1
            if checked % 200 == 0:
                self.progress(_count_line("checked", checked, total, started))
            if limit is not None and len(to_send) >= limit:
                report.remaining += self._needs_sending(reg.entries.get(rel), expansion.stats.get(rel), abs_path, force)
                continue
            root = self.root_for(rel, reg) if any_excludes else None
            if root is not None and root.exclude_patterns:
                pattern = excluded_in_root(rel, root.root_relative_path, root.exclude_patterns)
                if pattern:
                    report.items.append(IngestItem(source_path=rel, status="excluded", reason=f"pattern {pattern!r}"))
                    continue
            existing = reg.entries.get(rel)
            if rel in expansion.named and (existing is None or never_indexed(existing)):
                # named: sent, to fail with the provider's reason; an empty one is passed over (a stat)
                unindexable.update(empty_files(self.root, [rel]))
            if rel in unindexable and (existing is None or never_indexed(existing)):
                reason = unindexable[rel]
                if existing is not None:  # recorded by an earlier version (failed, or queued): ingest drops it
                    reason += DROPPED.format('queued' if existing.status == 'pending' else 'failed')
                report.items.append(IngestItem(source_path=rel, status="skipped", reason=reason))
                continue
            try:
                st = expansion.stats.get(rel) or os.stat(abs_path)
                if st.st_size == 0 and existing is not None:  # emptied since indexed: nothing of it to send
                    report.items.append(emptied_item(existing))
                    continue
                if (
                    existing is not None
                    and not force
                    and existing.size == st.st_size
                    and existing.mtime_ns == st.st_mtime_ns
                    and existing.source_hash
                    and (self._is_registered(existing) or still_refused(existing))
                ):
                    report.items.append(self._already(existing))
                    continue
                source = self.workspace.source_file(abs_path, rel, st)
            except OSError as exc:
                report.items.append(IngestItem(source_path=rel, status="failed", reason=f"cannot read: {exc.strerror}"))
                continue
            unchanged = existing is not None and existing.source_hash == source.sha256
            if unchanged and not force and existing is not None and (self._is_registered(existing)
                                                                     or still_refused(existing)):
                report.items.append(self._already(existing))
                touched[rel] = (source.size, source.mtime_ns)
                continue
            to_send.append(source)
            self.progress(f"hashed {rel}")
        if report.remaining:
            report.next_call = (f"{report.remaining} more file(s) to send: call ingest again with the same paths "
                                f"(each call sends up to {limit})")
        return to_send, report, touched

    def _record_touched(self, touched: dict[str, tuple[int, int]]) -> None:
        """The new size and time of files whose bytes are the indexed ones (touched): the registry's stat
        then matches the disk again, and nothing hashes them to know they are unchanged."""
        if not touched:
            return
        with self.store.transaction() as reg:
            for rel, (size, mtime_ns) in touched.items():
                entry = reg.entries.get(rel)
                if entry is not None and (entry.size, entry.mtime_ns) != (size, mtime_ns):
                    reg.update(rel, size=size, mtime_ns=mtime_ns)

    def _needs_sending(self, existing: SourceEntry | None, st: os.stat_result | None, path: str | Path,
                       force: bool) -> int:
        """1 when a file past the caller's cap would be sent (new, changed by size/mtime, or forced)."""
        if force or existing is None or not self._is_registered(existing):
            return 1
        try:
            st = st or os.stat(path)
        except OSError:
            return 0
        return int(existing.size != st.st_size or existing.mtime_ns != st.st_mtime_ns)

    @staticmethod
    def _is_registered(entry: SourceEntry) -> bool:
        # ``pending`` is not registered yet: an explicit ingest retries it at once.
        return not entry.stale and entry.status in ("submitted", "processing", "processed")

    @staticmethod
    def _already(entry: SourceEntry) -> IngestItem:
        if still_refused(entry):  # unchanged since it was refused: the same limit still holds
            return IngestItem(source_path=entry.source_root_relative_path, status="refused", reason=entry.last_error)
        return IngestItem(
            source_path=entry.source_root_relative_path,
            status="already_registered",
            reason=f"unchanged ({entry.status})",
            light_rag_doc_id=entry.light_rag_doc_id,
        )

    def ingest(
        self, paths_: Iterable[str | Path], *, force: bool = False, wait: bool = False, wait_s: float = 300.0,
        limit: int | None = None, embed: bool | None = None, wait_idle: bool = True,
    ) -> IngestReport:
        """Index files and folders in place. Sources are never copied, moved or changed.

        Every file is taken (``limit``: see :meth:`plan_ingest`), and sent to the provider in
        batches of ``ingest_batch_files`` (one link-and-scan each), with a progress line per batch.
        ``embed`` (default: ``wait``) embeds the files' places for ranking by meaning before
        returning; a long-lived follower (``watch``) asks for it without waiting. ``wait_s`` bounds the
        time without progress (``wait_idle``, the CLI's ``--timeout``), else the whole wait (``app.patience``).
        """
        sources, report, touched = self._plan_ingest(paths_, force=force, limit=limit)
        self._record_touched(touched)
        if not force:  # (--force prepares every file it sends again anyway)
            self.recount_words()  # the library's word counts of an older format: made again, nothing sent
        passed = {item.source_path: without_dropped(item.reason or "") for item in report.items
                  if item.status == "skipped"}
        self._drop_never_indexed(list(passed))
        self._stale_emptied(passed)
        # named by status and searches until taken (core/skipped.py); the others looked at leave the list
        record_skipped(self, passed, [*(item.source_path for item in report.items), *(s.rel_path for s in sources)])
        sources = self._take_over_moves(sources, report) if not force else sources
        sources = self._refuse_over_budget(sources, report)
        # Sent by an earlier ingest and still being indexed: a wait follows them too; without one, one look
        # (the provider sends again a file its engine stopped in the middle of: nothing else would index it).
        in_flight = self._in_flight(report)
        if in_flight and not wait:
            self._look_at(in_flight, report)
            in_flight = []
        if not sources and not in_flight:
            if wait if embed is None else embed:  # files a search placed by words only (their places changed)
                self._embed_places(after_wait_s=None, scope=_looked_at(report, sources))
            else:
                report.words_only = self._words_only_left(_looked_at(report, sources))
            report.counts = _count(report.items)
            return report
        sources, error = self._send(sources, force)
        # an ingested folder is a library as a root is: 'mnote-kr mcp' started elsewhere finds it (agents.library)
        known.remember(self.workspace.root)
        still: list[str] = []
        lost: ProviderError | None = None  # the provider stopped answering during the wait
        keys: dict[str, list[str]] = {}  # the places keys each file queued (remembered when not embedded here)
        prepare = [(s.path, s.rel_path) for s in sources] + [
            (str(self.workspace.rel_to_abs(e.source_root_relative_path)), e.source_root_relative_path)
            for e in in_flight]  # the registry travels with the folder: its absolute paths may not
        placing = error is None and (wait if embed is None else embed) and placing_runs()
        with self._remembered_if_cut(keys, [rel for _, rel in prepare]):  # recorded first: a kill -9 loses none
            if wait and error is None:
                if placing and prepare:
                    self.progress(steps_note(len(prepare)))  # both steps named before the first one's lines
                # Parse for locating while LightRAG indexes: done before the wait, a large library's
                # parsing kept the wait loop from sending LightRAG its next batch when it went idle.
                preparing = threading.Thread(target=self._prepare_locate, args=(prepare, keys), daemon=True,
                                             name="mnote-kr-prepare-locate")
                preparing.start()
                try:
                    still = self._wait_for([rel for _, rel in prepare], wait_s, idle=wait_idle)
                except ProviderError as exc:  # its engine stopped: what was done is reported, then this error
                    lost = exc
                finally:
                    preparing.join()
                if still:
                    report.wait_timed_out = WaitTimeout(seconds=wait_s, still_waiting=still)
            else:
                self._prepare_locate(prepare, keys)
            if error is None and lost is None and (wait if embed is None else embed):
                # Citable by words from here; placed by meaning once their paragraphs' vectors exist
                # (not after a provider failure: its one error line is what the person needs then).
                # An ingest that does not wait returns as soon as its files are sent (the CLI without
                # --wait, the HTTP API's job): those stay placed by words unless the caller asks.
                self._embed_places(after_wait_s=wait_s if still else None, scope=_looked_at(report, sources),
                                   prepared={rel for _, rel in prepare},
                                   announce=bool(wait and placing and prepare))
            elif error is None:  # queued, not embedded (no --wait, or its engine stopped): remembered, sync embeds them
                report.words_only = self._words_only_left(_looked_at(report, sources), keys)
        reg = self.registry()
        for src in sources:
            entry = reg.entries[src.rel_path]
            report.items.append(
                IngestItem(
                    source_path=src.rel_path,
                    status=entry.status,
                    reason=entry.last_error,
                    light_rag_doc_id=entry.light_rag_doc_id,
                )
            )
        if in_flight:  # followed, not sent: reported as they ended, a failure with its reason
            followed = {e.source_root_relative_path for e in in_flight}
            report.items = [_followed(reg.entries[i.source_path]) if i.source_path in followed else i
                            for i in report.items]
        report.counts = _count(report.items)
        if lost is not None:
            raise lost_error(lost, report, [rel for _, rel in prepare])
        if error is not None:
            raise ProviderError(
                f"{error.message}; {len(sources)} file(s) queued in the registry",
                url=error.url,
                hint=error.hint or "they are sent by 'mnote-kr sync' once the provider answers",
            )
        return report

    def _in_flight(self, report: IngestReport) -> list[SourceEntry]:
        """The entries of files reported unchanged that an earlier ingest sent and the provider is
        still indexing (``submitted``, ``processing``): what ``--wait`` must follow, not skip."""
        unchanged = [item.source_path for item in report.items if item.status == "already_registered"]
        if not unchanged:
            return []
        reg = self.registry()
        return [e for rel in unchanged if (e := reg.entries.get(rel)) is not None
                and e.status in ("submitted", "processing") and not e.stale]

    def _look_at(self, in_flight: list[SourceEntry], report: IngestReport) -> None:
        """One look (no wait) at files an earlier ingest sent, reported unchanged: the provider records how they
        stand and sends again the ones its engine stopped in the middle of. A file it said something new of is
        reported as it stands now; the provider not answering changes nothing (they were not sent now). One that
        simply finished stays reported unchanged: a capped ingest's next call lists what it sends, not what an
        earlier call's files became (tests/test_scale_integration.py)."""
        try:
            updates = list(self.plugins.sync(self.context(), in_flight, 0.0) or [])
        except ProviderError:
            return
        self.apply_updates(updates)
        before = {e.source_root_relative_path: e for e in in_flight}
        told = {u.source_root_relative_path for u in updates if (b := before.get(u.source_root_relative_path))
                and (u.status == "failed" or u.last_error)
                and (u.status != b.status or (u.last_error or None) != (b.last_error or None))}
        if told:
            reg = self.registry()
            report.items = [_followed(reg.entries[i.source_path]) if i.source_path in told else i
                            for i in report.items]

    def _send(self, sources: list[SourceFile], force: bool) -> tuple[list[SourceFile], ProviderError | None]:
        """Record each source's intent, then send them in batches: the sources as sent (with the
        name of the version each replaces), and the provider's error when it failed (the rest queued)."""
        if not sources:
            return sources, None
        ctx = self.context()
        # 1. Record intent first: if the provider is down or we crash, the work is still queued.
        previous: dict[str, str] = {}  # a renamed file's document, kept under its old path's name
        replaced: set[str] = set()  # documents the new versions replace
        with self.store.transaction() as reg:
            for src in sources:
                old = reg.entries.get(src.rel_path)
                if old is not None and old.light_rag_file_path:
                    previous[src.rel_path] = old.light_rag_file_path
                if old is not None and old.light_rag_doc_id:
                    replaced.add(old.light_rag_doc_id)
                reg.put(
                    SourceEntry(
                        source_id=src.source_id,
                        source_path=src.path,
                        source_root_relative_path=src.rel_path,
                        source_hash=src.sha256,
                        size=src.size,
                        mtime_ns=src.mtime_ns,
                        status="pending",
                        pending_action="ingest",
                        updated_at_ms=now_ms(),
                        kind=old.kind if old else "document",
                        # The version this one replaces, until the provider names the new one: a
                        # send that waits (provider down or busy) still deletes it (previous_name).
                        light_rag_file_path=old.light_rag_file_path if old else None,
                        # An earlier version was indexed: until the new one is, every search names the
                        # file as being re-indexed (``citations.map.reindexing``).
                        indexed_at_ms=old.indexed_at_ms if old else None,
                    )
                )
            _requeue_duplicates_of(reg, replaced, {s.rel_path for s in sources})
        # 2. Send. A changed (or forced) file: the provider deletes the old version, then adds anew.
        sources = [msgspec.structs.replace(s, previous_name=previous[s.rel_path]) if s.rel_path in previous else s
                   for s in sources]
        error: ProviderError | None = None
        batch = max(1, int(self.config.get("ingest_batch_files", 200)))
        started = time.monotonic()
        queued = 0  # taken by the call but left queued (a busy LightRAG refuses the scan): not sent
        for at in range(0, len(sources), batch):
            part = sources[at : at + batch]
            try:
                updates = self.plugins.ingest(ctx, part, force) if error is None else []
            except ProviderError as exc:
                error = exc
            if error is not None:  # the rest stays queued (pending) for 'sync'
                updates = [
                    EntryUpdate(
                        source_root_relative_path=s.rel_path, status="pending", pending_action="ingest",
                        last_error=error.message,
                    )
                    for s in part
                ]
            self.apply_updates(updates)
            if error is None:  # after an error, its one line is all a piped stderr gets
                queued += sum(1 for u in updates if u.status == "pending")
                self.progress(_count_line("sent", at + len(part) - queued, len(sources), started, queued=queued))
        return sources, error

    def _wait_for(self, rel_paths: list[str], wait_s: float, *, idle: bool = True) -> list[str]:
        """Follow these files until the provider indexed or failed each, until ``wait_s`` seconds pass
        without progress (``idle``; else ``wait_s`` in all: ``app.patience``); the ones still being indexed
        when the wait ends (none: all done). Its progress lines (``waitprogress``): a line when something
        changed, else a heartbeat, each with the time so far, the files the provider works on now and the
        first few still waiting."""
        view = WaitProgress(len(rel_paths), clock=self.wait_clock)
        bound = Patience(wait_s, idle=idle, clock=self.wait_clock)
        activity: dict[str, ProviderActivity] = {}
        shown = False
        while True:
            reg = self.registry()
            waiting = [reg.entries[r] for r in rel_paths if r in reg.entries and reg.entries[r].status in NOT_TERMINAL]
            failed = {r: reg.entries[r].last_error or "indexing failed" for r in rel_paths
                      if r in reg.entries and reg.entries[r].status == "failed"}
            if not waiting:
                if shown:
                    self.progress(view.finished(failed))
                return []
            bound.saw(moves(waiting, activity))
            remaining = bound.remaining()
            if remaining <= 0:  # the caller says so (the CLI: one line and exit 1)
                return [e.source_root_relative_path for e in waiting]
            line = view.step([e.source_root_relative_path for e in waiting], activity, failed)
            if line is not None:
                shown = True
                self.progress(line)
            updates = list(self.plugins.sync(self.context(), waiting, min(remaining, WAIT_ROUND_S)) or [])
            activity = {u.source_root_relative_path: u.activity for u in updates if u.activity is not None}
            self.apply_updates(updates)

    def apply_updates(self, updates: Iterable[EntryUpdate]) -> None:
        """Apply provider reports to the registry (the only place provider output is written)."""
        updates = list(updates)
        if not updates:
            return
        with self.store.transaction() as reg:
            for up in updates:
                if up.source_root_relative_path not in reg.entries:
                    continue
                entry = reg.entries[up.source_root_relative_path]
                changes: dict[str, Any] = {"status": up.status, "last_error": up.last_error}
                for field in ("light_rag_doc_id", "light_rag_file_path", "chunk_ids", "track_id",
                              "duplicate_of", "wrapper_path", "kind", "reading"):
                    value = getattr(up, field)
                    if value is not None:
                        changes[field] = value
                changes["pending_action"] = up.pending_action
                now = now_ms()
                if up.status == "pending":
                    changes["retry_count"] = entry.retry_count + 1
                    changes["next_retry_at_ms"] = now + int(1000 * (up.retry_after_s or 0))
                else:
                    changes["retry_count"] = 0
                    changes["next_retry_at_ms"] = 0
                if up.status == "submitted":
                    changes["submitted_at_ms"] = now
                if up.status == "processed":
                    changes["indexed_at_ms"] = now
                if up.status in ("delete_submitted", "delete_completed"):
                    changes["deleted_at_ms"] = entry.deleted_at_ms or now
                    changes["stale"] = True
                    changes["stale_reason"] = entry.stale_reason or "deleted from the index"
                reg.update(up.source_root_relative_path, **changes)


def _looked_at(report: IngestReport, sources: list[SourceFile]) -> set[str]:
    """The files an ingest looked at (sent, or found unchanged): its scope for files placed by words only."""
    return {*(item.source_path for item in report.items), *(s.rel_path for s in sources)}


def _followed(entry: SourceEntry) -> IngestItem:
    """The report line of a file an earlier ingest sent and this one followed: how it ended (still in flight with
    the provider's word on it, e.g. sent again after its engine stopped: that word)."""
    said = entry.status == "failed" or (entry.status in ("submitted", "processing") and entry.last_error)
    reason = entry.last_error if said else "sent by an earlier ingest, unchanged since"
    return IngestItem(source_path=entry.source_root_relative_path, status=entry.status,
                      reason=reason or "indexing failed", light_rag_doc_id=entry.light_rag_doc_id)


#: A rate is shown from this many files on: a few files' rate is one file's time (a scan recognised for
#: 45 s read "sent 1/1 files (0.0 files/s)").
RATE_FROM_FILES = 20


def _count_line(what: str, done: int, total: int, started: float, *, queued: int = 0) -> str:
    """``sent 400/1000 files (52.1 files/s; 8 s so far)``: the shape the CLI draws as a bar. Checking
    and sending do the same small work per file, so over many files their rate means something (a
    wait's does not); under ``RATE_FROM_FILES`` files only the time is said. ``queued``: files the provider
    left queued (LightRAG busy), never counted as sent: ``sent 0/2 files (2 queued until LightRAG is free, then sent;
    ...)`` (the queue is replayed: "1 queued, not sent" read as a failure in a watch log, nc30a)."""
    elapsed = max(time.monotonic() - started, 1e-6)
    rate = f"{done / elapsed:.1f} files/s; " if done >= RATE_FROM_FILES else ""
    held = f"{queued} queued until LightRAG is free, then sent; " if queued else ""
    return f"{what} {done}/{total} files ({held}{rate}{elapsed_text(elapsed)} so far)"


def _count(items: list[IngestItem]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for item in items:
        counts[item.status] = counts.get(item.status, 0) + 1
    return dict(sorted(counts.items()))


def _requeue_duplicates_of(reg: Registry, doc_ids: set[str], sending: set[str]) -> None:
    """Queue for sending under their own names the duplicates of ``doc_ids`` (documents whose files
    changed: the provider deletes them with the new versions), or nothing would cite their bytes."""
    if not doc_ids or not reg.counts().get("duplicate"):
        return
    for entry in reg.select(lambda tag: tag_status(tag) == "duplicate"):
        rel = entry.source_root_relative_path
        if entry.duplicate_of in doc_ids and not entry.stale and rel not in sending:
            reg.update(rel, status="pending", pending_action="ingest", retry_count=0, next_retry_at_ms=0,
                       last_error="the file it duplicated changed: sent under its own name")
