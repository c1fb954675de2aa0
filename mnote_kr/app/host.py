"""``Host``: the Python API a desktop shell embeds, and what the CLI and HTTP API call.

The host knows nothing about LightRAG: it owns the workspace, the registry, paths,
secrets and the citation contract, and calls the configured provider through hooks.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from mnote_kr.app.host_ingest import HostIngest
from mnote_kr.app.host_status import HostStatus
from mnote_kr.app.rootscope import back_in_scope, stale_notes
from mnote_kr.app.syncwait import being_indexed, follow, unfinished
from mnote_kr.context import ProviderContext
from mnote_kr.core import known, paths, pruned_moves
from mnote_kr.core.config import load_config
from mnote_kr.core.keys import resolve_secret
from mnote_kr.core.pending import USER_DELETED
from mnote_kr.core.registry import (
    PRUNABLE,
    Registry,
    RegistryStore,
    failed_tag,
    now_ms,
    refused_tag,
)
from mnote_kr.core.registry_format import STALE as STALE_BIT
from mnote_kr.core.registry_format import tag_status
from mnote_kr.core.scan import admitted
from mnote_kr.core.workspace import (
    Workspace,
    bad_name,
    excluded_entries,
    find_workspace,
    innermost_root,
    shown_path,
)
from mnote_kr.errors import NotFoundError, ProviderError, UsageError
from mnote_kr.models import (
    AgentQueryResult,
    EntryUpdate,
    IndexedRoot,
    LocateRequest,
    Locator,
    OpenPlan,
    SearchResults,
    SourceEntry,
    WaitTimeout,
)

if TYPE_CHECKING:
    import httpx

    from mnote_kr.citations.map.request import StartedQuery
    from mnote_kr.plugins import Plugins

Progress = Callable[[str], None]


def _quiet(message: str) -> None:
    return None


class Host(HostIngest, HostStatus):
    """One workspace's knowledge base.

    ``transport`` is handed to providers (``httpx.MockTransport`` in unit tests);
    ``progress`` receives one line per step of long work. Ingest, and the registry writes of
    what the provider reports, are its part ``HostIngest`` (``mnote_kr.app.host_ingest``); the
    status report is its part ``HostStatus`` (``mnote_kr.app.host_status``).
    """

    def __init__(
        self,
        workspace: str | Path | None = None,
        *,
        config: dict[str, Any] | None = None,
        plugins: Plugins | None = None,
        transport: httpx.BaseTransport | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.workspace = Workspace(workspace if workspace is not None else find_workspace())
        self.config = config if config is not None else load_config(self.workspace.root)
        self._plugins = plugins
        self.store = RegistryStore(
            self.workspace.index_dir, workspace_id=self.workspace.workspace_id, root_uri=self.workspace.root_uri
        )
        self.transport = transport
        self.progress: Progress = progress or _quiet

    @property
    def plugins(self) -> Plugins:
        """The loaded plugins, built at first use: ``roots list`` needs none of them (and
        entry-point discovery plus plugin imports are most of a light command's start)."""
        if self._plugins is None:
            from mnote_kr.plugins import load_plugins

            self._plugins = load_plugins(self.config)
        return self._plugins

    @plugins.setter
    def plugins(self, value: Plugins) -> None:
        self._plugins = value

    @property
    def root(self) -> Path:
        return self.workspace.root

    # ------------------------------------------------------------------ plumbing

    def provider_config(self) -> dict[str, Any]:
        providers = self.config.get("providers", {})
        section = providers.get(self.plugins.provider_name, {})
        return dict(section) if isinstance(section, dict) else {}

    def secret(self, name: str) -> str | None:
        value, _ = resolve_secret(name, dotenv_path=self.provider_config().get("env_file"))
        return value

    def context(self) -> ProviderContext:
        return ProviderContext(
            provider=self.plugins.provider_name,
            workspace_root=self.root,
            config=self.provider_config(),
            data_dir=paths.data_dir(),
            state_dir=paths.state_dir(),
            cache_dir=paths.cache_dir(),
            secret=self.secret,
            transport=self.transport,
            progress=self.progress,
            extract_text=lambda path: self.plugins.extract_text(path, self.progress),
            recognize_text=lambda path: self.plugins.recognize_text(path, self.progress),
            recognized_pages=self.plugins.recognized_pages,
            text_suffixes=self.plugins.text_suffixes,
            entry_columns=lambda: self.registry().all_entries().columns(),
        )

    def registry(self) -> Registry:
        return self.store.load()

    # ------------------------------------------------------------------ roots

    def roots_add(
        self, path: str | Path, *, recursive: bool = True, exclude: Iterable[str] = (), run_on_change: bool = True
    ) -> IndexedRoot:
        """Add (or replace the rules of) an indexed root; see :meth:`add_root`."""
        return self.add_root(path, recursive=recursive, exclude=exclude, run_on_change=run_on_change)[0]

    def add_root(
        self, path: str | Path, *, recursive: bool = True, exclude: Iterable[str] = (), run_on_change: bool = True
    ) -> tuple[IndexedRoot, dict[str, str], list[str]]:
        """Add (or replace the rules of) an indexed root, and make the index follow its rules:
        files it now excludes are no longer cited and their index is deleted (best effort), as for
        files deleted from disk. Returns the root, the files dropped (path -> reason) and the files
        its old excludes left out that it takes in again (``rootscope.back_in_scope``: indexed by
        the next sync, as a new root's files are).

        ``run_on_change`` (following, the default): sync and watch re-index its changed files and
        ingest its new ones; False opts out (what is then left behind is named by ``status`` and in
        search results). Re-indexing what waited when following is turned on is the faces' part
        (``mnote_kr.sync.reconcile.follow_waiting``): the core does not reach the provider here."""
        abs_path, rel = self.workspace.resolve(path)
        if not abs_path.is_dir():
            raise UsageError(f"Not a folder: {path}", hint="an indexed root is a folder inside the workspace")
        if bad_name(rel):
            raise UsageError(f"The folder name {shown_path(rel)} is not valid UTF-8",
                             hint="rename it (e.g. with 'mv'), then add it")
        root = IndexedRoot(
            root_relative_path=rel,
            recursive=recursive,
            exclude_patterns=list(exclude),
            run_on_change=run_on_change,
            run_on_change_set=True,
            updated_at_ms=now_ms(),
        )
        with self.store.transaction() as reg:
            old = reg.roots.get(rel)
            reg.roots[rel] = root
            back = back_in_scope(reg, self.workspace, old, root)
        known.remember(self.root)
        return root, self.follow_scope() if root.exclude_patterns else {}, back

    def follow_scope(self) -> dict[str, str]:
        """Stop citing the registered files the roots' rules now exclude, and delete their index
        (best effort; a provider that is down gets the delete from 'sync'). Path -> reason."""
        reg = self.registry()
        excluded = excluded_entries(reg.entries.values(), reg.roots)
        if excluded:
            self.mark_stale(excluded)
        return excluded

    def roots_list(self) -> list[IndexedRoot]:
        return sorted(self.registry().roots.values(), key=lambda r: r.root_relative_path)

    def roots_remove(self, path: str | Path) -> IndexedRoot:
        _, rel = self.workspace.resolve(path)
        with self.store.transaction() as reg:
            if rel not in reg.roots:
                raise NotFoundError(f"Not an indexed root: {rel or '.'}", hint="see 'mnote-kr roots list'")
            return reg.roots.pop(rel)

    def root_for(self, rel_path: str, reg: Registry | None = None) -> IndexedRoot | None:
        """The innermost indexed root containing a workspace-relative path."""
        return innermost_root(rel_path, (reg or self.registry()).roots)

    # ------------------------------------------------------------------ sync, delete, prune

    def sync(self, *, wait_s: float = 0.0, statuses: frozenset[str] | None = None,
             only: Collection[str] | None = None, wait_idle: bool = True) -> dict[str, Any]:
        """Retry queued work and follow submitted work; returns counts before and after.

        ``statuses`` limits the work to entries in those statuses (the watcher's frequent
        follow-up of what it submitted, which must not re-send every pending delete each time);
        ``only`` to these workspace-relative paths (``sync.busy``: the files a provider busy at
        the time left queued), and skips what a full sync also does (failed and refused files'
        documents, the provider's own clean-up). ``wait_s`` bounds the time without progress
        (``wait_idle``, the CLI's ``sync --wait N``), else the whole wait (``app.patience``).
        """
        reg = self.registry()
        before = reg.counts()
        if statuses is None and self._resend_orphaned_duplicates(reg):
            reg = self.registry()
        abandoned = [e for e in reg.entries.values()
                     if e.stale and e.pending_action in ("ingest", "reindex") and not e.light_rag_doc_id]
        if abandoned:  # the file went away while its ingest was queued: nothing to send or delete
            with self.store.transaction() as reg_w:
                for e in abandoned:
                    if e.source_root_relative_path in reg_w.entries:
                        reg_w.update(e.source_root_relative_path, status="stale", pending_action=None)
            reg = self.registry()
        waiting = [e for e in reg.entries.values() if unfinished(e) and (statuses is None or e.status in statuses)
                   and (only is None or e.source_root_relative_path in only)]
        if only is not None:
            statuses = frozenset(e.status for e in waiting)  # not a full sync
        # What the provider may still hold of failed and refused files goes too (a full sync only).
        held = [] if statuses is not None else [
            e for e in reg.select(_failed_or_refused_tag)
            if not e.pending_action and (e.light_rag_doc_id or e.light_rag_file_path)]
        if (waiting or held) and wait_s > 0:  # followed in short looks, each said (``syncwait``)
            follow(self, waiting + held, wait_s, idle=wait_idle)
        elif waiting or held or statuses is None:  # a full sync: the provider also drops what no entry holds
            self.apply_updates(self.plugins.sync(self.context(), waiting + held, wait_s))
        after = self.registry()
        # The files this sync saw fail (not those failed before it): named, with their reasons.
        failed = [{"path": now.source_root_relative_path, "reason": now.last_error or "indexing failed"}
                  for w in waiting if w.status != "failed"
                  and (now := after.entries.get(w.source_root_relative_path)) is not None and now.status == "failed"]
        # Asked to wait, and files it followed are still being indexed: the wait ended first.
        still = [w.source_root_relative_path for w in waiting if wait_s > 0
                 and (now := after.entries.get(w.source_root_relative_path)) is not None
                 and being_indexed(now)]
        timed_out = msgspec.to_builtins(WaitTimeout(seconds=wait_s, still_waiting=still)) if still else None
        # Sent and still in flight, with a new word of the provider's on them (e.g. sent again after its engine
        # stopped in the middle of them): said, as a sync that only "followed" them said nothing had changed.
        noted = [{"path": w.source_root_relative_path, "note": now.last_error} for w in waiting
                 if (now := after.entries.get(w.source_root_relative_path)) is not None
                 and now.status in ("submitted", "processing") and not now.stale and now.last_error
                 and now.last_error != w.last_error]
        # Failed before this sync and still failed (sync does not send an unchanged file again), each with the
        # time of the version that failed when the file on disk is still that version (``unchangedSinceMs``).
        seen = {f["path"] for f in failed}
        still_failed = [{"path": rel, "reason": note.last_error or "indexing failed",
                         "unchangedSinceMs": self._unchanged_since_ms(after.entries.get(rel))}
                        for rel, note in after.notes(failed_tag) if rel not in seen]
        # Of the stale records after, the old paths of moves followed: counted apart, as 'status' counts them.
        return {"before": before, "after": after.counts(), "movedFollowed": stale_notes(after, 0)[1],
                "followed": len(waiting), "inFlightNotes": noted, "failed": failed, "stillFailed": still_failed,
                "waitTimedOut": timed_out}

    def _unchanged_since_ms(self, entry: SourceEntry | None) -> int | None:
        """The modification time (ms) of the version ``entry`` recorded when the file on disk is still that
        version (its size and time), else None: a failed file sync will not send again until it changes."""
        if entry is None or not entry.mtime_ns:
            return None
        try:
            st = (self.root / entry.source_root_relative_path).stat()
        except (OSError, ValueError):
            return None
        if st.st_size != entry.size or st.st_mtime_ns != entry.mtime_ns:
            return None
        return entry.mtime_ns // 1_000_000

    def _resend_orphaned_duplicates(self, reg: Registry) -> bool:
        """Queue for sending again the duplicates whose original is a document of this workspace that
        no entry cites any more (its file renamed, deleted or changed since): nothing else would ever
        index them, and they would be cited from nowhere. The provider sends each once LightRAG has
        let the original go. Returns whether any was queued; decodes nothing without duplicates."""
        if not reg.counts().get("duplicate"):
            return False
        dups = reg.select(lambda tag: tag_status(tag) == "duplicate" and not tag & STALE_BIT)
        wanted = {e.duplicate_of for e in dups if e.duplicate_of}
        cols = reg.all_entries().columns()
        held: dict[str, bool] = {}  # doc id -> whether a cited entry holds it
        for doc, live in zip(cols.doc_ids, cols.live, strict=True):
            if doc in wanted:
                held[doc] = held.get(doc, False) or bool(live)
        orphans = [e.source_root_relative_path for e in dups
                   if e.duplicate_of in held and not held[e.duplicate_of]
                   and (self.root / e.source_root_relative_path).is_file()]
        if not orphans:
            return False
        with self.store.transaction() as reg_w:
            for rel in orphans:
                entry = reg_w.entries.get(rel)
                if entry is not None and entry.status == "duplicate" and not entry.stale:
                    reg_w.update(rel, status="pending", pending_action="ingest", retry_count=0, next_retry_at_ms=0,
                                 last_error="the file it duplicated is not cited any more: sent under its own name")
        return True

    def entries_under(self, paths_: Iterable[str | Path]) -> list[SourceEntry]:
        reg = self.registry()
        found: dict[str, SourceEntry] = {}
        for given in paths_:
            _, rel = self.workspace.resolve(given)
            for key, entry in reg.entries.items():
                if not rel or key == rel or key.startswith(rel + "/"):
                    found[key] = entry
            if not any(not rel or k == rel or k.startswith(rel + "/") for k in reg.entries):
                raise NotFoundError(f"Not in the registry: {given}", hint="see 'mnote-kr status'")
        return list(found.values())

    def delete(self, paths_: Iterable[str | Path]) -> list[SourceEntry]:
        """Remove the derived index of these sources (never the files). Citations stop at once."""
        entries = self.entries_under(paths_)
        with self.store.transaction() as reg:
            for e in entries:
                reg.update(e.source_root_relative_path, stale=True, stale_reason=USER_DELETED,
                           pending_action="delete")
        self._forget_words(e.source_root_relative_path for e in entries)
        live = [e for e in entries if _holds_document(e) and e.status != "delete_completed"]
        gone = [e for e in entries if not _holds_document(e)]
        if gone:
            self.apply_updates(
                EntryUpdate(source_root_relative_path=e.source_root_relative_path, status="delete_completed")
                for e in gone
            )
        if live:
            try:
                self.apply_updates(self.plugins.delete(self.context(), live))
            except ProviderError as exc:
                raise ProviderError(
                    f"{exc.message}; the delete is queued and the sources are no longer cited",
                    url=exc.url,
                    hint="'mnote-kr sync' sends it once the provider answers",
                ) from exc
        reg2 = self.registry()
        return [reg2.entries[e.source_root_relative_path] for e in entries]

    def mark_stale(self, rel_paths: Iterable[str] | Mapping[str, str], reason: str | None = None,
                   *, send_delete: bool = True) -> list[SourceEntry]:
        """Stop citing these sources at once; send one best-effort index delete.

        ``rel_paths`` is either paths sharing ``reason`` or a mapping of path to its own reason;
        either way it is one registry write. A provider that is down leaves
        ``pending_action="delete"`` for ``sync`` to replay.
        """
        reasons = dict(rel_paths) if isinstance(rel_paths, Mapping) else dict.fromkeys(rel_paths, reason or "stale")
        marked: list[SourceEntry] = []
        with self.store.transaction() as reg:
            for rel, why in reasons.items():
                entry = reg.entries.get(rel)
                if entry is None or entry.status in ("delete_submitted", "delete_completed"):
                    continue
                action = "delete" if send_delete and _holds_document(entry) else None
                marked.append(reg.update(rel, stale=True, stale_reason=why, pending_action=action))
        self._forget_words(e.source_root_relative_path for e in marked)
        live = [e for e in marked if _holds_document(e)] if send_delete else []
        if live:
            try:
                self.apply_updates(self.plugins.delete(self.context(), live))
            except ProviderError as exc:
                self.progress(f"index delete queued: {exc.message}")
        return marked

    def prune(self, *, keep_failed: bool = False) -> list[str]:
        """Drop deleted, stale and failed records (``keep_failed``: not the failed ones); never
        ``delete_submitted`` ones. The paths dropped (:meth:`prune_report` says of which kind)."""
        return self.prune_report(keep_failed=keep_failed)["removed"]

    def prune_report(self, *, keep_failed: bool = False) -> dict[str, Any]:
        """:meth:`prune`, and what it dropped by kind: ``removed`` (every path), ``byKind`` (``moved``: old paths
        of moves followed, their files cited under the new path; ``stale``: files deleted, moved away or changed;
        ``failed``: files that failed to index, whose files, still in a root, the next sync sends again;
        ``deleted``, ``duplicate``, ``refused``), ``keptFailed`` (the failed records ``keep_failed`` kept) and
        ``deletesWaiting`` (records kept until the provider confirms their delete), ``keptDeleted`` (records of
        files the user took out with ``delete``, kept while the file is on disk in an indexed root: :meth:`_kept_out`).
        Where a dropped
        record says its file moved, the move is kept (``core.pruned_moves``): an ID issued before it still opens."""
        kinds: dict[str, list[str]] = {k: [] for k in ("moved", "stale", "failed", "deleted", "duplicate", "refused")}
        removed: list[str] = []
        kept: list[str] = []
        kept_out: list[str] = []
        moved: dict[str, str] = {}
        with self.store.transaction() as reg:
            for key, entry in list(reg.entries.items()):
                if entry.status == "delete_submitted" or entry.pending_action == "delete":
                    continue
                if not (entry.status in PRUNABLE or entry.stale):
                    continue
                if self._kept_out(entry, reg.roots):
                    kept_out.append(key)
                    continue
                if entry.stale and (new := pruned_moves.moved_to(entry.stale_reason)):
                    moved[key] = new
                    kind = "moved"
                elif entry.stale or entry.status == "stale":
                    kind = "stale"
                else:
                    kind = {"delete_completed": "deleted"}.get(entry.status, entry.status)
                if kind == "failed" and keep_failed:
                    kept.append(key)
                    continue
                del reg.entries[key]
                removed.append(key)
                kinds.setdefault(kind, []).append(key)
            pruned_moves.keep(self.store.index_dir, moved)  # before the registry is saved without them
        return {"removed": removed, "byKind": kinds, "keptFailed": kept, "deletesWaiting": self.deletes_waiting(),
                "keptDeleted": kept_out}

    def _forget_words(self, rels: Iterable[str]) -> None:
        """Files no longer cited leave the library's word counts (``libwords``: the weak rule's IDF)."""
        from mnote_kr.citations.caches import libwords

        libwords.forget(self.workspace.index_dir, rels)

    def _kept_out(self, entry: SourceEntry, roots: Mapping[str, IndexedRoot]) -> bool:
        """A record of a file the user took out with ``delete``, the file still on disk where a sync would send it
        (in an indexed root, in a flat root's own folder, not excluded by its rules): the record is what keeps it out
        (``sync`` and ``watch`` never send it again), so ``prune`` keeps it. Once the file is gone, its root removed
        or the file excluded, no sync would send it, and the record goes (review r28 finding 9: kept forever). "Where
        a sync would send it" is the walk's own rule (``scan.admitted``: a folder no walk enters, node_modules, too)."""
        rel = entry.source_root_relative_path
        return entry.stale_reason == USER_DELETED and admitted(rel, roots) is not None and (self.root / rel).exists()

    def deletes_waiting(self) -> int:
        """Records ``prune`` keeps because the provider has not confirmed their delete yet."""
        return sum(1 for e in self.registry().entries.values()
                   if e.status == "delete_submitted" or e.pending_action == "delete")

    # ------------------------------------------------------------------ query side (see pipeline.py)

    def search(self, query: str, *, scope: Iterable[str] = (), top_k: int = 20, mode: str = "mix",
               rerank: bool | None = None) -> SearchResults:
        """Citations for ``query`` located in the workspace's files (``pipeline.search``)."""
        scope = self._checked_scope(scope)
        started = self._start_query(query, top_k=top_k, mode=mode, rerank=rerank, want_answer=False)
        from mnote_kr.citations.pipeline import search  # loads while the provider works on the query

        return search(self, query, scope=scope, top_k=top_k, mode=mode, rerank=rerank, started=started)

    def ask(self, query: str, *, scope: Iterable[str] = (), top_k: int = 20, mode: str = "mix",
            rerank: bool | None = None) -> AgentQueryResult:
        """The provider's answer and its citations (``answering.ask``)."""
        scope = self._checked_scope(scope)
        started = self._start_query(query, top_k=top_k, mode=mode, rerank=rerank, want_answer=True)
        from mnote_kr.citations.answering import ask

        return ask(self, query, scope=scope, top_k=top_k, mode=mode, rerank=rerank, started=started)

    def _checked_scope(self, scope: Iterable[str]) -> list[str]:
        """The scope as given; a path outside the workspace fails here, before the provider is asked."""
        scope = list(scope)
        for path in scope:
            self.workspace.resolve(path)
        return scope

    def _start_query(self, query: str, **kwargs: Any) -> StartedQuery:
        # A fresh process imports the citation pipeline while the provider answers (``citations.request``).
        from mnote_kr.citations.map.request import start_query

        return start_query(self, query, **kwargs)

    def open(self, citation_id: str) -> OpenPlan:
        from mnote_kr.citations.render.openplan import open_plan

        return open_plan(self, citation_id)

    def locate(self, request: LocateRequest) -> Locator:
        return self.plugins.locate(request)


def _holds_document(entry: SourceEntry) -> bool:
    """Whether the provider may hold a document for ``entry``: its own (a document id), or the one
    it still names while its next version waits in the queue (a renamed file's kept name, or the
    previous version's: ``HostIngest.ingest`` keeps the name for the provider to delete on send)."""
    return bool(entry.light_rag_doc_id or entry.light_rag_file_path)


def _failed_or_refused_tag(tag: int) -> bool:
    return failed_tag(tag) or refused_tag(tag)
