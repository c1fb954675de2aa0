"""A tiny in-process provider and host factory for the HTTP API's tests and benchmark.

``FakeProvider`` is a plugin like any other (``@hookimpl`` methods); it answers queries
with references to the files it was given, so the host's real pipeline (registry
mapping, cleaning, locating, citation IDs) runs unchanged. It is not a fake of
LightRAG: the integration tests use the real server.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from mnote_kr.app.host import Host
from mnote_kr.context import ProviderContext
from mnote_kr.errors import ProviderError
from mnote_kr.hookspecs import hookimpl
from mnote_kr.models import (
    EntryUpdate,
    MappedReference,
    ProviderQueryResult,
    ProviderReference,
    ProviderStatus,
    QueryRequest,
    SourceEntry,
    SourceFile,
)
from mnote_kr.plugins import load_plugins

FAKE_CONFIG: dict[str, Any] = {
    "provider": "fake",
    "locators": {},
    "disabled_plugins": ["lightrag"],
    "max_files_per_call": 200,
    "providers": {},
}


class FakeProvider:
    """Provider ``fake``: indexes by file name, answers every query with every indexed file.

    The one in-process provider of the tests and benchmarks (not a fake of LightRAG: the
    integration tests run the real server). ``ingest_status="submitted"`` makes ingest
    asynchronous: each ``sync`` then waits ``sync_delay`` seconds and reports the documents
    processed. ``delete_status`` is what a delete reports (the real provider says
    ``delete_submitted`` and confirms later). ``down`` simulates an unreachable provider,
    ``broken`` a buggy one. Like a real index it replaces its own older version of a file
    on ingest and records the old document as deleted. ``suffixes``: the only file types it
    indexes (others fail at ingest, and its ``unindexable`` hook names them); None: every type.
    """

    def __init__(self, *, ingest_status: str = "processed", sync_delay: float = 0.0, refs_per_file: int = 1,
                 delete_status: str = "delete_submitted", suffixes: frozenset[str] | None = None) -> None:
        self.suffixes = suffixes
        self.ingest_status = ingest_status
        self.sync_delay = sync_delay
        self.refs_per_file = refs_per_file
        self.delete_status = delete_status
        self.down = False
        self.broken = False
        self.texts: dict[str, str] = {}  # provider file name -> text
        self.docs: dict[str, str] = {}  # rel path -> current doc id
        self.ingested: list[str] = []  # rel paths, in order
        self.deleted: list[str] = []  # doc ids, in order
        self.calls: list[str] = []
        self._lock = threading.Lock()

    @staticmethod
    def name_for(rel_path: str) -> str:
        return rel_path.replace("/", "__")

    def _check(self) -> None:
        if self.down:
            raise ProviderError("fake provider is down", url="http://127.0.0.1:9")
        if self.broken:
            raise RuntimeError("bug in the provider")

    def _done(self, rel: str, sha: str, status: str) -> EntryUpdate:
        doc_id = "doc-" + sha[7:23]
        old = self.docs.get(rel)
        if old and old != doc_id:
            self.deleted.append(old)
        self.docs[rel] = doc_id
        self.ingested.append(rel)
        return EntryUpdate(source_root_relative_path=rel, status=status,  # type: ignore[arg-type]
                           light_rag_file_path=self.name_for(rel), light_rag_doc_id=doc_id)

    @hookimpl
    def provider_names(self) -> list[str]:
        return ["fake"]

    @hookimpl
    def ingest(self, ctx: ProviderContext, sources: list[SourceFile], force: bool) -> list[EntryUpdate]:
        self._check()
        out = []
        with self._lock:
            self.calls.append("ingest")
            for src in sources:
                if self.suffixes is not None and Path(src.rel_path).suffix.lower() not in self.suffixes:
                    out.append(EntryUpdate(source_root_relative_path=src.rel_path, status="failed",
                                           last_error=f"fake cannot index {Path(src.rel_path).suffix!r} files"))
                    continue
                try:
                    text = Path(src.path).read_text(encoding="utf-8", errors="replace")[:2000]
                except OSError:
                    text = ""
                self.texts[self.name_for(src.rel_path)] = text
                out.append(self._done(src.rel_path, src.sha256, self.ingest_status))
        return out

    @hookimpl
    def unindexable(self, ctx: ProviderContext, paths: list[str]) -> dict[str, str] | None:
        if self.suffixes is None:
            return None
        self.calls.append("unindexable")
        return {p: f"not a file type fake indexes ({Path(p).suffix!r} files)" for p in paths
                if Path(p).suffix.lower() not in self.suffixes}

    @hookimpl
    def sync(self, ctx: ProviderContext, entries: list[SourceEntry], wait_s: float) -> list[EntryUpdate]:
        """Replays queued work and finishes submitted documents, as the real provider's sync does."""
        self._check()
        self.calls.append("sync")
        if self.sync_delay:
            time.sleep(min(self.sync_delay, wait_s) if wait_s else self.sync_delay)
        out: list[EntryUpdate] = []
        with self._lock:
            for e in entries:
                rel = e.source_root_relative_path
                if e.pending_action == "delete":
                    self.deleted.append(e.light_rag_doc_id or "")
                    out.append(EntryUpdate(source_root_relative_path=rel, status="delete_submitted"))
                elif e.pending_action == "ingest":
                    out.append(self._done(rel, e.source_hash, "processed"))
                elif e.status in ("submitted", "processing"):
                    out.append(EntryUpdate(source_root_relative_path=rel, status="processed"))
        return out

    @hookimpl
    def delete(self, ctx: ProviderContext, entries: list[SourceEntry]) -> list[EntryUpdate]:
        self._check()
        with self._lock:
            self.calls.append("delete")
            for e in entries:
                self.texts.pop(e.light_rag_file_path or "", None)
                self.deleted.append(e.light_rag_doc_id or "")
        return [EntryUpdate(source_root_relative_path=e.source_root_relative_path,
                            status=self.delete_status)  # type: ignore[arg-type]
                for e in entries]

    @hookimpl
    def provider_status(self, ctx: ProviderContext, entries: list[SourceEntry]) -> ProviderStatus:
        self._check()
        return ProviderStatus(provider="fake", reachable=True, documents_by_status={"processed": len(self.texts)})

    @hookimpl
    def query(self, ctx: ProviderContext, request: QueryRequest) -> ProviderQueryResult:
        with self._lock:
            items = sorted(self.texts.items())
        refs: list[ProviderReference] = []
        for rank, (name, text) in enumerate(items):
            for k in range(self.refs_per_file):
                chunk = text[k * 400: k * 400 + 400] or text[:400]
                refs.append(ProviderReference(provider="fake", file_path=name, reference_id=str(len(refs) + 1),
                                              chunk_id=f"chunk-{name}-{k}", doc_id=f"doc-{name}",
                                              content=chunk, rank=rank, chunk_order=k if text[k * 400:] else 0))
        answer = f"Answer to {request.query} [1]" if request.want_answer else None
        return ProviderQueryResult(provider="fake", references=refs[: request.top_k], answer=answer)

    @hookimpl
    def map_reference(self, ctx: ProviderContext, reference: ProviderReference, entries: dict[str, SourceEntry],
                      query: str) -> MappedReference | None:
        entry = entries.get(reference.file_path)
        return MappedReference(reference=reference, entry=entry) if entry is not None else None


def fake_config(provider: str = "fake") -> dict[str, Any]:
    """A host configuration whose provider is the in-process ``provider`` (LightRAG disabled)."""
    return {**FAKE_CONFIG, "provider": provider, "locators": {}, "providers": {}}


def fake_host(workspace: str | Path, provider: Any = None, *, name: str = "fake") -> tuple[Host, Any]:
    """A ``Host`` on ``workspace`` whose provider plugin is ``provider``.

    The default is a ``FakeProvider`` whose deletes complete at once.
    """
    provider = provider if provider is not None else FakeProvider(delete_status="delete_completed")
    config = fake_config(name)
    plugins = load_plugins(config, extra=[(name, provider)])
    return Host(workspace, plugins=plugins, config=config), provider
