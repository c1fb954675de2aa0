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

from mnote_kr.context import ProviderContext
from mnote_kr.hookspecs import hookimpl
from mnote_kr.core.host import Host
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

    ``ingest_status="submitted"`` makes ingest asynchronous: each ``sync`` call then
    waits ``sync_delay`` seconds and reports the documents processed.
    """

    def __init__(self, *, ingest_status: str = "processed", sync_delay: float = 0.0, refs_per_file: int = 1) -> None:
        self.ingest_status = ingest_status
        self.sync_delay = sync_delay
        self.refs_per_file = refs_per_file
        self.texts: dict[str, str] = {}  # provider file name -> text
        self.calls: list[str] = []
        self._lock = threading.Lock()

    @staticmethod
    def name_for(rel_path: str) -> str:
        return rel_path.replace("/", "__")

    @hookimpl
    def provider_names(self) -> list[str]:
        return ["fake"]

    @hookimpl
    def ingest(self, ctx: ProviderContext, sources: list[SourceFile], force: bool) -> list[EntryUpdate]:
        out = []
        with self._lock:
            self.calls.append("ingest")
            for src in sources:
                name = self.name_for(src.rel_path)
                self.texts[name] = Path(src.path).read_text(encoding="utf-8", errors="replace")[:2000]
                out.append(EntryUpdate(source_root_relative_path=src.rel_path, status=self.ingest_status,  # type: ignore[arg-type]
                                       light_rag_file_path=name, light_rag_doc_id=f"doc-{name}"))
        return out

    @hookimpl
    def sync(self, ctx: ProviderContext, entries: list[SourceEntry], wait_s: float) -> list[EntryUpdate]:
        self.calls.append("sync")
        if self.sync_delay:
            time.sleep(min(self.sync_delay, wait_s) if wait_s else self.sync_delay)
        return [EntryUpdate(source_root_relative_path=e.source_root_relative_path, status="processed")
                for e in entries if e.status in ("submitted", "processing")]

    @hookimpl
    def delete(self, ctx: ProviderContext, entries: list[SourceEntry]) -> list[EntryUpdate]:
        with self._lock:
            self.calls.append("delete")
            for e in entries:
                self.texts.pop(e.light_rag_file_path or "", None)
        return [EntryUpdate(source_root_relative_path=e.source_root_relative_path, status="delete_completed")
                for e in entries]

    @hookimpl
    def provider_status(self, ctx: ProviderContext, entries: list[SourceEntry]) -> ProviderStatus:
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
                                              content=chunk, rank=rank))
        answer = f"Answer to {request.query} [1]" if request.want_answer else None
        return ProviderQueryResult(provider="fake", references=refs[: request.top_k], answer=answer)

    @hookimpl
    def map_reference(self, ctx: ProviderContext, reference: ProviderReference, entries: dict[str, SourceEntry],
                      query: str) -> MappedReference | None:
        entry = entries.get(reference.file_path)
        return MappedReference(reference=reference, entry=entry) if entry is not None else None


def fake_host(workspace: str | Path, provider: FakeProvider | None = None) -> tuple[Host, FakeProvider]:
    """A ``Host`` on ``workspace`` whose provider is ``provider`` (a new ``FakeProvider`` by default)."""
    provider = provider or FakeProvider()
    config = dict(FAKE_CONFIG)
    plugins = load_plugins(config, extra=[("fake", provider)])
    return Host(workspace, plugins=plugins, config=config), provider
