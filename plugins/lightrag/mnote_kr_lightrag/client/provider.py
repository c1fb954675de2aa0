"""The LightRAG provider's lifecycle: ingest, sync and delete (its status: ``statusreport``).

The host owns the registry; everything here *returns* ``EntryUpdate``s. LightRAG's
busy answers are not failures: the work is reported ``pending`` with a
``pending_action`` (``ingest``, ``reindex`` or ``delete``) and ``retry_after_s``, and
``sync`` retries it with a bounded backoff.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mnote_kr.plugin_api import (
    EntryUpdate,
    MnoteKrError,
    ProviderBusyError,
    ProviderContext,
    ProviderError,
    SourceEntry,
    SourceFile,
)

from . import busywait, filetypes, links, naming, readings, recognized
from .docrows import DocIndex, as_dict, update_from_row
from .holders import Holders
from .http import LightRagClient, ProviderHTTPError, ProviderUnavailableError
from .http import _one_line as client_one_line
from .recognized import OwnText
from .settings import Settings, effective_input_dir, open_client, resolve_settings

PROVIDER = "lightrag"
SCAN_BUSY = "scanning_skipped_pipeline_busy"
TERMINAL = frozenset({"processed", "failed", "duplicate", "delete_completed", "stale"})
MAX_BACKOFF_S = 300.0
DELETE_BUSY_RETRIES = 3
#: A moved or renamed file waits (pending, re-tried by sync) while LightRAG still lists the
#: document of the same bytes under the old name: scanned earlier, LightRAG would mark it a
#: duplicate of a document about to be deleted, and it would never be cited. After this many
#: waits it is sent anyway (the old document was not ours to wait for, e.g. left by a crash).
#: The count grows with every sync that sees the entry pending, not only with real attempts,
#: so it is generous: a delete queued behind a long pipeline run still gets its minutes.
TWIN_WAIT_RETRIES = 60
#: A file whose link we no longer hold while LightRAG still lists its document is taken for one
#: whose delete we sent (excluded, then taken back) and waits this many times even when LightRAG's
#: pipeline does not say it is deleting: a delete it accepted sets its busy flag only when its
#: background task starts, a delete queued behind other work is not running yet, and a listing taken
#: just before a delete ended still shows the row. Those gaps last well under a second, and once
#: the delete runs it is waited for up to TWIN_WAIT_RETRIES. Three waits (1 s, 2 s, 3 s at least,
#: one per host sync round, so some 10-15 s while the host waits) cover them; a link gone for another
#: reason (a registry restored on a machine whose input dir lost its links) then adopts the document
#: after seconds, not the ~13 minutes TWIN_WAIT_RETRIES would take.
LINK_GONE_RETRIES = 3


def twin_wait_s(retry_count: int) -> float:
    """Seconds before a waiting move looks again: 1 s, 2 s, ... at most 15 s."""
    return min(15.0, 1.0 + retry_count)

# Injectable clock and sleep (tests).
now_s: Callable[[], float] = time.time
sleep: Callable[[float], None] = time.sleep


def backoff_s(retry_count: int, server_hint: float | None = None) -> float:
    """Bounded exponential backoff: 5 s, 10 s, 20 s ... at most 5 min (or the server's Retry-After)."""
    if server_hint is not None and server_hint > 0:
        return min(MAX_BACKOFF_S, server_hint)
    return min(MAX_BACKOFF_S, 5.0 * (2 ** max(0, min(retry_count, 10))))


def _one_line(text: str | None, limit: int = 300) -> str | None:
    if not text:
        return None
    return client_one_line(str(text).replace("=", " "), limit)


class LightRagProvider:
    """One hook call's worth of LightRAG: resolved settings and one HTTP client."""

    def __init__(self, ctx: ProviderContext) -> None:
        self.ctx = ctx
        self.settings: Settings = resolve_settings(ctx)
        self.client: LightRagClient = open_client(ctx, self.settings)
        #: This workspace's tag in link names: its documents are apart from any other's.
        self.ws: str = naming.workspace_tag(ctx.workspace_root)
        self.root = Path(ctx.workspace_root)
        #: Which entries hold which names and documents (a renamed file's kept name is not its old path's).
        self.holders = Holders(ctx)

    def close(self) -> None:
        """Release the HTTP client."""
        self.client.close()

    def __enter__(self) -> LightRagProvider:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ helpers

    def input_dir(self) -> Path | None:
        """LightRAG's input dir as a local path (may ask ``/health``)."""
        return effective_input_dir(self.ctx, self.settings, self.client)

    def owns_legacy_fn(self, input_dir: Path | None) -> Callable[[str], bool]:
        """Whether a legacy (untagged) name is this workspace's: its link points inside our root."""
        if input_dir is None or not input_dir.is_dir():
            return lambda name: False
        return lambda name: links.owns_legacy(input_dir, name, self.root)

    def old_versions(self, docs: DocIndex, rel_path: str, keep: str | None,
                     input_dir: Path | None) -> list[dict[str, Any]]:
        """This workspace's older documents of ``rel_path`` (never another workspace's, nor one
        another entry holds)."""
        return [r for r in docs.other_versions(rel_path, keep, self.ws, self.owns_legacy_fn(input_dir))
                if not self.holders.held_elsewhere(str(r.get("file_path", "")), rel_path)]

    def documents(self) -> DocIndex:
        """All documents LightRAG lists (every page)."""
        rows, _ = self.client.all_documents()
        return DocIndex(rows)

    def supported_suffixes(self) -> set[str]:
        """Suffixes a scan picks up: the server's list, else LightRAG 1.5.7's."""
        try:
            found = self.client.supported_suffixes()
        except ProviderError:
            found = set()
        if found:
            filetypes.remember(self.settings.url, self.ctx, found)
        return found or set(naming.DEFAULT_SUPPORTED_SUFFIXES)

    def delete_ids(self, doc_ids: list[str], *, retries: int = DELETE_BUSY_RETRIES) -> tuple[str, float | None]:
        """Send a delete (``delete_file=false``), retrying ``busy`` a few times.

        Returns ``("started", None)`` or ``("busy", retry_after_s)``.
        """
        delay = 0.5
        for attempt in range(retries + 1):
            try:
                body = self.client.delete_documents(doc_ids)
            except ProviderBusyError as exc:
                if attempt == retries:
                    return "busy", exc.retry_after
            else:
                if body.get("status") not in ("busy", "not_allowed"):
                    from .crossquery import Languages

                    Languages(self.ctx.state_dir, self.ws).forget(doc_ids)
                    return "started", None
                if attempt == retries:
                    return "busy", None
            sleep(delay)
            delay *= 2
        return "busy", None

    def _recognized(self, source: SourceFile) -> str | None:
        """The text an OCR plugin reads in an image, for its wrapper (None: none, or unreadable:
        said in one line, and the image is indexed by its name alone)."""
        try:
            return self.ctx.extract_text(source.path)
        except MnoteKrError as exc:
            self.ctx.progress(f"Error: OCR of {source.rel_path}: {exc.message}; indexed by its name alone"
                              + (f" ({exc.hint})" if exc.hint and exc.hint not in exc.message else ""))
            return None

    def scan(self) -> tuple[str, str | None, float | None, str | None]:
        """``POST /documents/scan`` → (``started``|``busy``|``down``, track_id, retry_after, error)."""
        try:
            body = self.client.scan()
        except ProviderBusyError as exc:
            return "busy", None, exc.retry_after, exc.message
        except ProviderUnavailableError as exc:
            return "down", None, None, exc.message
        if body.get("status") == SCAN_BUSY or "skipped" in str(body.get("status", "")):
            return "busy", None, None, _one_line(body.get("message"))
        return "started", body.get("track_id"), None, None

    # ------------------------------------------------------------------ ingest

    def ingest(self, sources: list[SourceFile], force: bool) -> list[EntryUpdate]:
        """Link each source into LightRAG's input dir under a unique name and scan once."""
        if not sources:
            return []
        down: str | None = None
        docs = DocIndex([])
        input_dir: Path | None = None
        try:
            docs = self.documents()  # also proves the key is right before anything is touched
            input_dir = self.input_dir()
        except (ProviderUnavailableError, ProviderBusyError, ProviderHTTPError) as exc:
            if isinstance(exc, ProviderUnavailableError):
                # Not reachable: say so. The host has already queued the sources as pending,
                # and sync links and scans them once LightRAG answers again.
                raise
            if isinstance(exc, ProviderHTTPError) and not exc.transient:
                raise
            down = exc.message
            input_dir = self.settings.input_dir
            if input_dir is not None and self.settings.workspace:
                input_dir = input_dir / self.settings.workspace
        if input_dir is None:
            if down:
                return [self._pending(s.rel_path, "ingest", 0, None, down) for s in sources]
            raise ProviderError(f"LightRAG at {self.settings.url} did not report its input directory",
                                hint="set [providers.lightrag] input_dir")
        if not input_dir.is_dir():
            if self.settings.upload_fallback and not down:
                return self._upload(sources, docs)
            message = (f"LightRAG's input directory {input_dir} is not visible from this machine; ingest by "
                       "symlink needs a shared file system (set [providers.lightrag] input_dir to where it is "
                       "mounted here, or upload_fallback = true to send copies)")
            return [EntryUpdate(source_root_relative_path=s.rel_path, status="failed", last_error=message)
                    for s in sources]
        suffixes = set(naming.DEFAULT_SUPPORTED_SUFFIXES) if down else self.supported_suffixes()
        return self._link_and_scan(sources, input_dir, docs, force=force, down=down, suffixes=suffixes)

    def _pending(self, rel_path: str, action: str, retry_count: int, retry_after: float | None,
                 error: str | None, **extra: Any) -> EntryUpdate:
        return EntryUpdate(source_root_relative_path=rel_path, status="pending", pending_action=action,
                           retry_after_s=backoff_s(retry_count, retry_after), last_error=error, **extra)

    def _link_and_scan(self, sources: list[SourceFile], input_dir: Path, docs: DocIndex, *, force: bool,
                       down: str | None, suffixes: set[str], retry_counts: dict[str, int] | None = None,
                       reindex: frozenset[str] = frozenset()) -> list[EntryUpdate]:
        retry_counts = retry_counts or {}
        results: dict[str, EntryUpdate] = {}
        plans: list[tuple[SourceFile, str, str | None, OwnText | None]] = []  # (source, name, wrapper path, text)
        to_delete: list[str] = []
        own_old: set[str] = set()  # files whose old version this call deletes (a busy scan is then that delete)
        same_name_reindex: dict[str, SourceFile] = {}
        listing = links.Listing()
        deleting_now: bool | None = None  # is LightRAG running a delete? asked once, when it matters
        for source in recognized.reading(self.ctx, sources):  # each named as it is read: OCR may take minutes
            rel = source.rel_path
            suffix = naming.safe_suffix(rel)
            is_image = suffix in naming.IMAGE_SUFFIXES
            by_plugin = recognized.plugin_type(self.ctx, suffix, suffixes)  # a type a plugin reads as text
            if not is_image and suffix not in suffixes and suffix not in naming.TEXT_ONLY_SUFFIXES and not by_plugin:
                results[rel] = EntryUpdate(source_root_relative_path=rel, status="failed",
                                           last_error=recognized.not_taken(suffix))
                continue
            if not Path(source.path).is_file():
                results[rel] = EntryUpdate(source_root_relative_path=rel, status="failed",
                                           last_error=f"Source file is missing: {source.path}")
                continue
            try:
                own = (None if is_image else recognized.plugin_text(self.ctx, source) if by_plugin
                       else recognized.own_text(self.ctx, source))  # scanned pages, speaker notes
            except MnoteKrError as exc:  # an .xlsm (or a plugin's type) without text: LightRAG would not take it
                results[rel] = EntryUpdate(source_root_relative_path=rel, status="failed", last_error=str(exc))
                continue
            wrapped = is_image or own is not None
            name = (naming.wrapper_name(rel, source.sha256, self.ws) if wrapped
                    else naming.link_name(rel, source.sha256, self.ws))
            # Older versions of this source: delete their documents and remove their links.
            for old_row in self.old_versions(docs, rel, name, input_dir):
                to_delete.append(str(old_row["id"]))
                own_old.add(rel)
            for old in links.names_of_source(input_dir, rel, self.ws, self.root, listing) - {name}:
                if not self.holders.held_elsewhere(old, rel):
                    links.remove_ours(input_dir, old)
            prev = getattr(source, "previous_name", None)  # (a host before previous_name: None)
            if (prev and prev != name and naming.workspace_of(prev) == self.ws
                    and not naming.same_source(prev, rel, self.ws) and not self.holders.held_elsewhere(prev, rel)):
                # A renamed file kept its document under its old path's name: that version goes too.
                prev_row = docs.by_id.get(naming.doc_id_for(prev))
                if prev_row is not None:
                    to_delete.append(str(prev_row["id"]))
                links.remove_ours(input_dir, prev)
            row = docs.find(name)
            count = retry_counts.get(rel, 0)
            if row is not None and count < TWIN_WAIT_RETRIES and self.orphaned_duplicate(docs, row, input_dir):
                if str(row.get("id", "")).startswith("doc-"):
                    # Our own name holds a duplicate record of a document since deleted (a move
                    # scanned before the old name's delete): clear it, then send anew.
                    to_delete.append(str(row["id"]))
                    results[rel] = self._pending(
                        rel, "ingest", count, twin_wait_s(count),
                        "LightRAG took it as a duplicate of a document that is deleted now; it is sent again "
                        "once LightRAG has dropped that duplicate record")
                    continue
                row = None  # a ``dup-`` attempt record: it does not hold our document id
            is_dup = row is not None and not str(row.get("id", "")).startswith("doc-")
            if row is not None and (force or rel in reindex) and not is_dup:
                to_delete.append(str(row["id"]))
                same_name_reindex[rel] = source
            elif row is not None and (is_dup or str(row.get("status", "")).lower() != "failed"):
                if not is_dup and count < TWIN_WAIT_RETRIES and links.link_state(input_dir, name) == "missing":
                    others = self.holders.recorded_elsewhere(str(row.get("id", "")), rel)
                    if deleting_now is None and not others and count >= LINK_GONE_RETRIES:
                        deleting_now = self._deletion_running()
                    if count < LINK_GONE_RETRIES or deleting_now or others:
                        # Our link is gone and LightRAG is deleting (or may be about to: see
                        # LINK_GONE_RETRIES), or another entry's delete holds it (a renamed file's
                        # kept name, deleted): the delete we sent for this very document (the file
                        # was excluded, then taken back). Adopting the row would record as indexed a
                        # document about to vanish; it is sent anew once gone.
                        results[rel] = self._pending(
                            rel, "ingest", count, twin_wait_s(count),
                            "waiting for LightRAG to finish deleting this file's earlier document before sending "
                            "it again")
                        continue
                if not is_dup and self.holders.held_elsewhere(name, rel):
                    # The same bytes back under a renamed file's old path: that name is the renamed
                    # file's kept document. Two entries never hold one document (deleting either
                    # would leave the other cited from nowhere): this one is its duplicate, and is
                    # sent under its own name once that document goes.
                    results[rel] = EntryUpdate(source_root_relative_path=rel, status="duplicate",
                                               duplicate_of=str(row["id"]), kind=recognized.kind(is_image, own))
                    continue
                # Already known to LightRAG under this exact name and content: adopt it.
                results[rel] = recognized.noted(update_from_row(
                    rel, name, row, kind=recognized.kind(is_image, own),
                    wrapper_path=str(input_dir / name) if wrapped else None), own)
                continue
            deleting = self._deleting_twin(docs, name, input_dir)
            if deleting is not None and count < TWIN_WAIT_RETRIES:
                links.remove_ours(input_dir, name)  # placed while LightRAG was down: no scan may take it yet
                results[rel] = self._pending(
                    rel, "ingest", count, twin_wait_s(count),
                    f"waiting for LightRAG to finish deleting {deleting} (the same content under its old "
                    "name) before sending it, or it would be taken as a duplicate")
                continue
            plans.append((source, name, str(input_dir / name) if wrapped else None, own))
        if to_delete and not down:
            outcome, retry_after = self.delete_ids(to_delete)
            own_old = own_old if outcome == "started" else set()
            if outcome == "busy" and same_name_reindex:
                for rel in same_name_reindex:
                    results[rel] = self._pending(rel, "reindex", retry_counts.get(rel, 0), retry_after,
                                                 "LightRAG was busy; the re-index is retried by 'mnote-kr sync'")
                plans = [p for p in plans if p[0].rel_path not in same_name_reindex]
        planned = {p[0].rel_path: p[1] for p in plans}
        for rel in same_name_reindex:
            if rel not in results:  # old document deletion started: its moved link must go too
                links.remove_ours(input_dir, planned[rel])
        linked: list[tuple[SourceFile, str, str | None, OwnText | None]] = []
        for source, name, wrapper, own in plans:
            try:
                if own is not None:
                    links.write_text_wrapper(input_dir, name, source.rel_path, own.text, own.mark)
                elif wrapper is not None:
                    links.write_wrapper(input_dir, name, Path(source.path), source.rel_path, source.size,
                                        self._recognized(source))
                else:
                    links.place_link(input_dir, name, Path(source.path))
            except ProviderError as exc:
                results[source.rel_path] = EntryUpdate(source_root_relative_path=source.rel_path, status="failed",
                                                       last_error=exc.message)
                continue
            except OSError as exc:
                results[source.rel_path] = EntryUpdate(
                    source_root_relative_path=source.rel_path, status="failed",
                    last_error=f"Cannot place a link in LightRAG's input dir {input_dir}: {exc.strerror or exc}")
                continue
            linked.append((source, name, wrapper, own))
        if linked:
            scanned: tuple[str, str | None, float | None, str | None] = (
                ("down", None, None, down) if down else self.scan())
            outcome, track_id, retry_after, error = scanned
            for source, name, wrapper, own in linked:
                rel = source.rel_path
                extra: dict[str, Any] = {"light_rag_file_path": name, "light_rag_doc_id": naming.doc_id_for(name),
                         "kind": recognized.kind(wrapper is not None and own is None, own), "wrapper_path": wrapper,
                         "reading": readings.for_send(self, rel, wrapper is not None and own is None, own)}
                if outcome == "started":
                    results[rel] = recognized.noted(EntryUpdate(source_root_relative_path=rel, status="submitted",
                                                                track_id=track_id, **extra), own)
                else:
                    # The link stays in place: a later scan (ours or anyone's) picks it up.
                    why = error if outcome == "down" else busywait.refusal(error, rel in own_old)
                    results[rel] = self._pending(rel, "ingest", retry_counts.get(rel, 0), retry_after, why, **extra)
        return [results[s.rel_path] for s in sources if s.rel_path in results]

    def orphaned_duplicate(self, docs: DocIndex, row: dict[str, Any], input_dir: Path | None) -> bool:
        """Whether ``row`` is a duplicate record whose original is gone from LightRAG, or is one
        of this workspace's documents whose link we removed (its delete sent or queued)."""
        metadata = as_dict(row.get("metadata"))
        if not (str(row.get("id", "")).startswith("dup-") or metadata.get("is_duplicate")):
            return False
        original = metadata.get("original_doc_id")
        if not original:
            return False
        original_row = docs.by_id.get(str(original))
        if original_row is None:
            return True
        name = str(original_row.get("file_path", ""))
        return (input_dir is not None and input_dir.is_dir() and naming.workspace_of(name) == self.ws
                and links.link_state(input_dir, name) == "missing")

    def _deletion_running(self) -> bool:
        """Is LightRAG running a delete now? (``busy`` with its deletion job; unknown counts as no.)"""
        try:
            status = self.client.pipeline_status()
        except ProviderError:
            return False
        return bool(status.get("busy")) and (bool(status.get("destructive_busy"))
                                             or str(status.get("job_name", "")).startswith("Deleting"))

    def _deleting_twin(self, docs: DocIndex, name: str, input_dir: Path) -> str | None:
        """The name of a document of the same bytes in this workspace whose link we have
        removed (a move's old name, its delete sent or queued), while LightRAG still lists it."""
        for row in docs.twins(name):
            old = str(row.get("file_path", ""))
            if links.link_state(input_dir, old) == "missing":
                return old
        return None

    def _upload(self, sources: list[SourceFile], docs: DocIndex) -> list[EntryUpdate]:
        """Send copies through ``/documents/upload`` (only when ``upload_fallback`` is set)."""
        out: list[EntryUpdate] = []
        note = "copied to LightRAG by upload: its input directory is not visible here (upload_fallback)"
        for source in sources:
            rel = source.rel_path
            suffix = naming.safe_suffix(rel)
            if (suffix in naming.IMAGE_SUFFIXES or suffix in naming.TEXT_ONLY_SUFFIXES  # sent as mnote-kr's text
                    or recognized.plugin_type(self.ctx, suffix, naming.DEFAULT_SUPPORTED_SUFFIXES)):
                image = suffix in naming.IMAGE_SUFFIXES
                out.append(EntryUpdate(source_root_relative_path=rel, status="failed", kind="image" if image else None,
                                       last_error=f"{'Images' if image else repr(suffix) + ' files'} need LightRAG's "
                                       "input directory (no upload fallback)"))
                continue
            name = naming.link_name(rel, source.sha256, self.ws)
            row = docs.find(name)
            if row is not None:
                out.append(update_from_row(rel, name, row, last_error=note))
                continue
            old = [str(r["id"]) for r in docs.other_versions(rel, name, self.ws)]
            if old:
                self.delete_ids(old)
            try:
                data = Path(source.path).read_bytes()
                body = self.client.upload(name, data)
            except OSError as exc:
                out.append(EntryUpdate(source_root_relative_path=rel, status="failed",
                                       last_error=f"Cannot read {source.path}: {exc.strerror or exc}"))
                continue
            except (ProviderBusyError, ProviderUnavailableError) as exc:
                out.append(self._pending(rel, "ingest", 0, getattr(exc, "retry_after", None), exc.message))
                continue
            except ProviderHTTPError as exc:
                out.append(EntryUpdate(source_root_relative_path=rel, status="failed", last_error=exc.message))
                continue
            out.append(EntryUpdate(source_root_relative_path=rel, status="submitted", light_rag_file_path=name,
                                   light_rag_doc_id=naming.doc_id_for(name), track_id=body.get("track_id"),
                                   last_error=note, reading=readings.for_send(self, rel, False, None)))
        return out

    # ------------------------------------------------------------------ delete

    def delete(self, entries: list[SourceEntry]) -> list[EntryUpdate]:
        """Delete LightRAG's derived index (``delete_file=false``) and remove our links."""
        if not entries:
            return []
        input_dir: Path | None
        try:
            input_dir = self.input_dir()
        except (ProviderUnavailableError, ProviderBusyError):
            input_dir = self.settings.input_dir
        out: list[EntryUpdate] = []
        doc_ids: list[str] = []
        visible = input_dir is not None and input_dir.is_dir()
        not_ours: set[str] = set()
        for entry in entries:
            name = entry.light_rag_file_path
            doc_id = entry.light_rag_doc_id or (naming.doc_id_for(name) if name else None)
            if (name and visible and naming.workspace_of(name) is None and naming.is_our_name(name)
                    and links.link_state(input_dir, name) != "missing"  # type: ignore[arg-type]
                    and not links.owns_legacy(input_dir, name, self.root)):  # type: ignore[arg-type]
                # A legacy name another workspace re-linked to its own file: the document is
                # theirs too now, so only our registry entry goes (see docs/workspaces.md).
                doc_id, name = None, None
                not_ours.add(entry.source_root_relative_path)
            if visible:
                if name:
                    links.remove_ours(input_dir, name)  # type: ignore[arg-type]
                for old in links.names_of_source(input_dir, entry.source_root_relative_path,  # type: ignore[arg-type]
                                                 self.ws, self.root):
                    if not self.holders.held_elsewhere(old, entry.source_root_relative_path):
                        links.remove_ours(input_dir, old)  # type: ignore[arg-type]
            if doc_id:
                doc_ids.append(doc_id)
        outcome, retry_after, error = "started", None, None
        if doc_ids:
            try:
                outcome, retry_after = self.delete_ids(doc_ids)
                error = "LightRAG is busy; the delete is retried by 'mnote-kr sync'" if outcome == "busy" else None
            except ProviderUnavailableError as exc:
                outcome, error = "down", exc.message
        for entry in entries:
            rel = entry.source_root_relative_path
            if not (entry.light_rag_doc_id or entry.light_rag_file_path) or rel in not_ours:
                out.append(EntryUpdate(source_root_relative_path=rel, status="delete_completed"))
            elif outcome == "started":
                out.append(EntryUpdate(source_root_relative_path=rel, status="delete_submitted",
                                       light_rag_doc_id=entry.light_rag_doc_id))
            else:
                out.append(self._pending(rel, "delete", entry.retry_count, retry_after, error))
        return out
