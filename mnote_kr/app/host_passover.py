"""What an ingest passes over or keeps from the provider: files it cannot index (their type, or empty), files an
indexed version of which was emptied on disk, files over a reader's budget (refused), and new files that take over the
document of a cited file that moved.

``HostPassOver`` is the part of ``Host`` (``mnote_kr.app.host``) that ``HostIngest`` builds on, moved out of
``host_ingest`` (at its size limit) with the pass-over rules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from mnote_kr.app.host_places import HostPlaces
from mnote_kr.app.moves import gone_twins, take_over
from mnote_kr.core.pending import REASON_EMPTIED
from mnote_kr.core.registry import Registry, RegistryStore, now_ms
from mnote_kr.core.workspace import Workspace
from mnote_kr.errors import MnoteKrError
from mnote_kr.models import IngestItem, IngestReport, SourceEntry, SourceFile

if TYPE_CHECKING:
    from mnote_kr.context import ProviderContext
    from mnote_kr.plugins import Plugins

#: See ``max_index_chars`` in ``mnote_kr.core.config`` (a config without it: a test's, an embedder's).
DEFAULT_MAX_INDEX_CHARS = 8_000_000

#: What a passed-over file's reason adds when ingest drops its earlier record (failed, or queued).
DROPPED = "; its {} record is dropped"


def without_dropped(reason: str) -> str:
    """The provider's reason for passing a file over, without what ingest did to its earlier record."""
    return reason.removesuffix(DROPPED.format("queued")).removesuffix(DROPPED.format("failed"))


class HostPassOver(HostPlaces):
    """The files an ingest does not send, and why (a part of ``Host``, which defines the attributes and methods
    declared here for the type checker)."""

    if TYPE_CHECKING:
        workspace: Workspace
        config: dict[str, Any]
        store: RegistryStore
        progress: Callable[[str], None]

        @property
        def plugins(self) -> Plugins: ...

        def context(self) -> ProviderContext: ...

        def registry(self) -> Registry: ...

        def mark_stale(self, rel_paths: Iterable[str] | Mapping[str, str], reason: str | None = None,
                       *, send_delete: bool = True) -> list[SourceEntry]: ...

    def _stale_emptied(self, passed: Mapping[str, str]) -> None:
        """The files of ``passed`` (path -> reason) passed over as emptied (:func:`emptied_item`): no longer cited,
        their documents deleted from the index (DESIGN: stale, not silent); a record stale already is left as it is."""
        emptied = [rel for rel, why in passed.items() if why == REASON_EMPTIED]
        if emptied:
            reg = self.registry()
            self.mark_stale([rel for rel in emptied if (e := reg.entries.get(rel)) is not None and not e.stale],
                            REASON_EMPTIED)

    def _take_over_moves(self, sources: list[SourceFile], report: IngestReport) -> list[SourceFile]:
        """The sources still to send: a new file whose bytes are those of a cited entry whose file is
        gone (a plain 'mv' before this ingest) takes over that entry's document (``moves``) and is
        reported ``moved``, never sent (LightRAG would call it a duplicate of a document that is about
        to be deleted)."""
        reg = self.registry()
        fresh = {s.rel_path: (s.sha256, (s.size, s.mtime_ns)) for s in sources
                 if (e := reg.entries.get(s.rel_path)) is None or not e.light_rag_doc_id}
        seen = [*(s.rel_path for s in sources), *(i.source_path for i in report.items)]
        pairs = gone_twins(self.workspace, reg, fresh, seen)
        del reg
        taken = dict((new, old) for old, new in take_over(self.store, self.workspace, pairs))
        if not taken:
            return sources
        for rel, old in taken.items():
            report.items.append(IngestItem(source_path=rel, status="moved",
                                           reason=f"renamed from {old}: cited under its new path, its document kept"))
        return [s for s in sources if s.rel_path not in taken]

    def _refuse_over_budget(self, sources: list[SourceFile], report: IngestReport) -> list[SourceFile]:
        """The sources within their readers' budgets (``check_budget``); the others are recorded
        ``refused`` with the limit named and reported, and never reach the provider. A refused
        file's earlier version keeps its provider names, so 'sync' deletes its document there."""
        refused: dict[str, str] = {}
        max_chars = int(self.config.get("max_index_chars", DEFAULT_MAX_INDEX_CHARS))
        for src in sources:
            try:
                reason = self.plugins.check_budget(src.path, max_chars)
            except MnoteKrError as exc:  # the check itself failed: the provider decides, as before
                self.progress(f"budget check of {src.rel_path} failed: {exc.message}")
                continue
            if reason:
                refused[src.rel_path] = f"{reason}; not sent to the index"
        if not refused:
            return sources
        with self.store.transaction() as reg:
            for src in sources:
                if src.rel_path not in refused:
                    continue
                old = reg.entries.get(src.rel_path)
                reg.put(SourceEntry(
                    source_id=src.source_id, source_path=src.path, source_root_relative_path=src.rel_path,
                    source_hash=src.sha256, size=src.size, mtime_ns=src.mtime_ns, status="refused",
                    last_error=refused[src.rel_path], updated_at_ms=now_ms(),
                    light_rag_doc_id=old.light_rag_doc_id if old else None,
                    light_rag_file_path=old.light_rag_file_path if old else None,
                    kind=old.kind if old else "document",
                ))
        report.items.extend(IngestItem(source_path=rel, status="refused", reason=why) for rel, why in refused.items())
        return [src for src in sources if src.rel_path not in refused]

    def unindexable(self, rel_paths: list[str]) -> dict[str, str]:
        """Which of these files the provider says it cannot index, with its reason (by name only)."""
        if not rel_paths:
            return {}
        return self.plugins.unindexable(self.context(), rel_paths)

    def _drop_never_indexed(self, rel_paths: list[str]) -> None:
        """Drop the records of passed-over files that never reached the index (failed, queued)."""
        if not rel_paths:
            return
        reg = self.registry()
        if not any(r in reg.entries for r in rel_paths):
            return
        with self.store.transaction() as reg_w:
            for rel in rel_paths:
                entry = reg_w.entries.get(rel)
                if entry is not None and never_indexed(entry):
                    del reg_w.entries[rel]


def still_refused(entry: SourceEntry) -> bool:
    """Refused (over a reader's budget) and not marked stale since."""
    return entry.status == "refused" and not entry.stale


def never_indexed(entry: SourceEntry) -> bool:
    """A record of a file that never reached the provider's index: failed or queued, no document."""
    return not entry.light_rag_doc_id and entry.status in ("failed", "pending")


def emptied_item(entry: SourceEntry) -> IngestItem:
    """The report line of a file with a record (one indexed once: ``never_indexed`` records go as a new empty file's)
    that is empty on disk now: passed over, never sent (the provider fails a 0-byte file, and the ingest exited 1:
    review30 finding 3); :meth:`HostPassOver._stale_emptied` stops citing its indexed version."""
    return IngestItem(source_path=entry.source_root_relative_path, status="skipped", reason=REASON_EMPTIED)
