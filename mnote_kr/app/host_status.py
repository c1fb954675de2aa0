"""``status``, the host's side: the registry's counts and notes, what the roots hold that no
entry records, the provider's own report, and the files a wait left behind (followed once here).

``HostStatus`` is the part of ``Host`` (``mnote_kr.app.host``) that answers ``mnote-kr status``;
``Host`` inherits it. A status reads; the one thing it records is what the provider says of files
still marked as being indexed while it is idle (``_catch_up``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import msgspec

from mnote_kr.app.fallbacks import fallback_notes
from mnote_kr.app.rereading import reading_status
from mnote_kr.app.rootscope import stale_notes
from mnote_kr.core.ondisk import since_indexed
from mnote_kr.core.pending import left_behind, new_files, new_in_roots
from mnote_kr.core.registry import Registry, RegistryStore, failed_tag, refused_tag, waiting_tag
from mnote_kr.core.registry_format import STALE as STALE_BIT
from mnote_kr.core.registry_format import tag_status
from mnote_kr.core.scan import Stat
from mnote_kr.core.skipped import skipped_status
from mnote_kr.core.workspace import Workspace
from mnote_kr.errors import ProviderError
from mnote_kr.models import EntryUpdate

if TYPE_CHECKING:
    from collections.abc import Iterable

    from mnote_kr.app.host_ingest import HostIngest
    from mnote_kr.context import ProviderContext
    from mnote_kr.plugins import Plugins

#: LightRAG's statuses of a document it is done with.
DONE = frozenset({"processed", "failed"})
#: How many stale entries ``status`` names (the count covers all; ``prune`` drops them).
STALE_SHOWN = 20


class HostStatus:
    """The status report (a part of ``Host``, which defines the attributes and methods declared
    here for the type checker)."""

    if TYPE_CHECKING:
        workspace: Workspace
        config: dict[str, Any]
        store: RegistryStore

        @property
        def root(self) -> Path: ...

        @property
        def plugins(self) -> Plugins: ...

        def context(self) -> ProviderContext: ...

        def registry(self) -> Registry: ...

        def secret(self, name: str) -> str | None: ...

        def apply_updates(self, updates: Iterable[EntryUpdate]) -> None: ...

    def _duplicate_entries(self, reg: Registry, shown: int = STALE_SHOWN) -> list[dict[str, Any]]:
        """The first ``shown`` duplicates, each with the file of this workspace holding the same
        content (``twin``: None when the indexed original is no file of this workspace)."""
        if not reg.counts().get("duplicate"):
            return []
        dups = reg.select(lambda tag: tag_status(tag) == "duplicate" and not tag & STALE_BIT)[:shown]
        wanted = {e.duplicate_of for e in dups if e.duplicate_of}
        cols = reg.all_entries().columns()
        twins: dict[str, str] = {}  # doc id -> the cited file holding it
        gone: dict[str, str] = {}  # doc id -> a file of this workspace that held it and is cited no more
        for path, doc, live in zip(cols.paths, cols.doc_ids, cols.live, strict=True):
            if doc in wanted:
                (twins if live else gone)[doc] = path
        out = []
        for e in dups:
            doc = e.duplicate_of or ""
            twin = twins.get(doc)
            twin = twin if twin != e.source_root_relative_path else None
            if twin:
                reason = f"identical content is indexed under {twin}; it is cited from there"
            elif doc in gone:  # renamed, deleted or changed since: only 'sync' can help, and it does
                reason = (f"identical content was indexed under {gone[doc]}, which is not cited any more; "
                          "'mnote-kr sync' indexes this file under its own name")
            else:
                reason = "identical content is indexed under a document that is no file of this workspace"
            out.append({"sourcePath": e.source_root_relative_path, "twin": twin, "reason": reason})
        return out

    def status(self, *, _caught_up: bool = False) -> dict[str, Any]:
        reg = self.registry()
        ctx = self.context()
        # No file in the registry: nothing of the provider's to report on, and a report must not start
        # its server (the managed engine's is ~0.5 GB); one that runs already is still reported.
        ctx.may_start = len(reg.entries) > 0
        # Files in the roots that no entry records: a walk of the roots, a stat per file, none read.
        disk: dict[str, Stat] = {}  # the walk's stat of each file: also what the indexed files are compared with
        new = new_files(self.root, reg, lambda paths: self.plugins.unindexable(ctx, paths), disk)
        stale_shown, moved_followed = stale_notes(reg, STALE_SHOWN)
        gone: set[str] = set()  # indexed files changed or gone on disk: not cited until a sync follows them
        on_disk = since_indexed(self.root, reg, disk, new=new, gone=gone)
        if on_disk["movedSinceIndexed"]["count"]:  # a rename: sync follows it; not new, not missing
            moved_to = {m["to"] for m in on_disk["movedSinceIndexed"]["moves"]}
            new = [rel for rel in new if rel not in moved_to]
        out: dict[str, Any] = {
            "workspace": str(self.root),
            "workspaceId": reg.workspace_id or self.workspace.workspace_id,
            "registry": {
                "path": str(self.store.path),
                "entries": len(reg.entries),
                # From the registry's columns: only the entries listed below are decoded.
                "byStatus": reg.counts(),
                "stale": reg.stale_count(),
                # Of those stale, the old paths' records of moves followed (cited under the new path).
                "movedFollowed": moved_followed,
                "waiting": [
                    {"sourcePath": rel, "action": n.pending_action or n.status, "lastError": n.last_error,
                     "retryCount": n.retry_count}
                    for rel, n in reg.notes(waiting_tag)
                ],
                "failed": [{"sourcePath": rel, "reason": n.last_error or "indexing failed"}
                           for rel, n in reg.notes(failed_tag)],
                # Over a reader's budget: never sent to the provider; the reason names the limit.
                "refused": [{"sourcePath": rel, "reason": n.last_error or "over a reader's budget"}
                            for rel, n in reg.notes(refused_tag)],
                # Indexed through a provider's fallback (e.g. text read by a locator plugin).
                "fallbacks": fallback_notes(reg, self.workspace, disk),
                # Which files are stale and why (only those entries are decoded, the first few).
                "staleEntries": stale_shown,
                # Which files are duplicates, and of which file (the first few).
                "duplicateEntries": self._duplicate_entries(reg),
            },
            # In the roots that follow, never ingested; roots added with --no-follow list theirs below.
            "pendingNew": new_in_roots(reg, new),
            # Indexed files edited or gone on disk that no sync has seen: what a search would warn of.
            **on_disk,
            # What roots added with --no-follow left behind, each with the commands that fix it.
            "leftBehind": self._left_behind(reg, new),
            # Files passed over for a type no provider indexes, each with the provider's reason.
            "skipped": skipped_status(self, reg, unindexable=lambda paths: self.plugins.unindexable(ctx, paths)),
            "indexedRoots": msgspec.to_builtins(sorted(reg.roots.values(), key=lambda r: r.root_relative_path)),
            "provider": {"name": self.plugins.provider_name},
            "plugins": {"failed": [{"name": p.name, "error": p.error} for p in self.plugins.failures()]},
            "meaning": {},  # (after the provider's report: the files it indexed since the registry heard)
            # Readers' own work (OCR: files waiting for recognition, files it failed on).
            "readers": self.plugins.reader_status(reg.entries),
            "placeRerank": self._place_rerank_status(),
        }
        try:
            status = self.plugins.provider_status(ctx, reg.all_entries())
            # "name" as in the error's shape below, so a reader finds it whichever way status went.
            out["provider"] = {"name": self.plugins.provider_name, **msgspec.to_builtins(status)}
        except ProviderError as exc:
            out["provider"] = {"name": self.plugins.provider_name, "reachable": False, "error": exc.message}
        unrecorded = _indexed_unrecorded(reg, out["provider"])
        out["registry"]["indexedUnrecorded"] = {"count": len(unrecorded), "paths": unrecorded[:50]}
        out["registry"]["interrupted"] = _interrupted(reg, out["provider"])
        out["registry"].update(_citable_now(reg, out["provider"], unrecorded, gone))
        out["meaning"] = _meaning_status(self, reg, frozenset(unrecorded))
        out["registry"]["behind"] = _behind(reg, out["provider"])
        if out["registry"]["behind"] and not _caught_up and _catch_up(self, reg):
            return self.status(_caught_up=True)  # what LightRAG said of them, recorded: reported afresh
        # Indexed by an older reading than the provider's now, with the command that re-reads them.
        out["readings"] = reading_status(cast("HostIngest", self), reg)  # a HostStatus is always a Host
        return out

    def _place_rerank_status(self) -> dict[str, Any]:
        """Whether the places of each file are reranked by the user's ``[rerank]`` endpoint (never its key)."""
        if not self.config.get("rerank"):
            return {"enabled": False}
        from mnote_kr.citations.rank.rerank import status

        return status(self.config, self.secret)

    def _left_behind(self, reg: Registry, new: list[str], shown: int = 50) -> dict[str, Any]:
        """``leftBehind``: changed files not re-indexed and new files (of ``new``, as on disk now) not
        ingested in roots added with --no-follow; ``newCount``: how many are new."""
        files: list[Any] = []
        count = fresh = 0
        for lb in left_behind(self, reg, new):
            count += 1
            fresh += lb.status == "not_indexed"
            if len(files) < shown:
                files.append(msgspec.to_builtins(lb))
        return {"count": count, "files": files, "newCount": fresh}


def _citable_now(reg: Registry, provider: Mapping[str, Any], unrecorded: list[str], gone: set[str]) -> dict[str, int]:
    """``citableNow``: the files a search would cite now, counted as ``Places:`` says them (nc26c read "9 file(s)
    citable now" with one file changed and one missing, and "10" with the engine down): the indexed files, and the
    sent ones the provider has indexed (``unrecorded``), less those this status's own walk found changed or gone
    on disk (``citableChangedOnDisk``: a search drops them until a sync follows them); none while the provider
    does not answer (``reachable`` False), a managed engine not started yet included (``notStarted``: a search
    would start it, status does not; it comes with nothing indexed yet, or with an engine a search cannot start)."""
    sent = set(unrecorded)
    changed = sum(1 for rel in gone if rel in sent  # only these entries are decoded
                  or ((e := reg.entries.get(rel)) is not None and e.status == "processed" and not e.stale))
    count = int(reg.counts().get("processed") or 0) + len(unrecorded) - changed
    return {"citableNow": 0 if provider.get("reachable") is False else max(0, count), "citableChangedOnDisk": changed}


def _indexed_unrecorded(reg: Registry, provider: Mapping[str, Any]) -> list[str]:
    """The files the registry records as sent (``submitted``, ``processing``; not stale) whose documents the
    provider says it has indexed (``indexedUnrecorded``): a search cites them already; the next sync records it."""
    return _sent(reg, provider.get("indexedUnrecorded"))


def _sent(reg: Registry, said: Any) -> list[str]:  # noqa: ANN401 (a list of paths from the provider's report)
    """Of the paths the provider ``said`` (True: every one), those the registry records as sent (``submitted``,
    ``processing``; not stale): e.g. the files whose indexing its engine stopped in the middle of
    (``interrupted``), which no longer are being indexed, whatever its documents say, until the next sync sends
    them again."""
    if not said:
        return []
    said = None if said is True else set(said)
    return [e.source_root_relative_path for e in
            reg.select(lambda tag: tag_status(tag) in ("submitted", "processing") and not tag & STALE_BIT)
            if said is None or e.source_root_relative_path in said]


def _interrupted(reg: Registry, provider: Mapping[str, Any]) -> dict[str, Any]:
    """``interrupted``: the files sent whose indexing stopped: those the provider's engine left in flight when it
    stopped and it lists so beside its idle pipeline, or, while its server does not run at all (``notStarted``),
    every file sent and not indexed (nc27b: "1 being indexed" after 'mnote-kr engine stop'), which wait for its
    ``startCommand`` and then a sync (``startFirst``; ``fix`` the two as one command line)."""
    stopped_now = bool(provider.get("notStarted")) and provider.get("reachable") is False
    stopped = _sent(reg, True if stopped_now else provider.get("interrupted"))
    out: dict[str, Any] = {"count": len(stopped), "paths": stopped[:50], "fix": "mnote-kr sync"}
    start = provider.get("startCommand")
    if stopped_now and isinstance(start, str) and start:
        out.update(fix=f"{start} && mnote-kr sync", startFirst=start)
    return out


def _meaning_status(host: HostStatus, reg: Registry, indexed: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Places by meaning: the model, files with vectors, an embedding under way (``meaning.status``), and
    the indexed files placed by words only until ``sync`` embeds their places (``wordsonly.status``; ``indexed``:
    files the provider has indexed that the registry still records as sent)."""
    from mnote_kr.citations.rank.meaning import status
    from mnote_kr.citations.rank.wordsonly import status as words_only

    lost = words_only(host, reg, indexed=indexed)
    # of the files placed by words only, those indexed already (the rest are still being indexed): beside
    # ``wordsOnly``, whose shape the MCP status tool declares
    return {**status(), "wordsOnly": lost, "wordsOnlyIndexed": lost.pop("indexed", 0)}


def _behind(reg: Registry, provider: Mapping[str, Any], shown: int = 50) -> dict[str, Any] | None:
    """The files the registry still records as being indexed while the provider is idle with every
    document of this workspace done (processed or failed): a wait that ended first (or a plain sync
    that did not wait), and nobody followed them since. ``status`` follows them (:func:`_catch_up`);
    what is left after that is reported, and ``sync`` is what brings it up to date."""
    counts = reg.counts()
    count = counts.get("submitted", 0) + counts.get("processing", 0)  # a stale entry counts as "stale"
    documents = {k: n for k, n in (provider.get("documentsByStatus") or {}).items() if n and k != "all"}
    if not count or provider.get("pipelineBusy") is not False or not documents or set(documents) - DONE:
        return None
    late = reg.select(lambda tag: tag_status(tag) in ("submitted", "processing") and not tag & STALE_BIT)
    return {"count": count, "paths": [e.source_root_relative_path for e in late[:shown]]}


def _catch_up(host: HostStatus, reg: Registry) -> bool:
    """Ask the provider about the files ``_behind`` found (its sync of just those entries, no wait: a look
    at LightRAG's documents, never a send) and record what it says; whether it said anything. A status
    then reports them as LightRAG has them, instead of telling its reader to run ``sync``."""
    late = reg.select(lambda tag: tag_status(tag) in ("submitted", "processing") and not tag & STALE_BIT)
    if not late:  # (an empty list asks a provider's full clean-up, which a status must not start)
        return False
    try:
        updates = list(host.plugins.sync(host.context(), late, 0.0) or [])
    except ProviderError:
        return False
    host.apply_updates(updates)
    return bool(updates)
