"""What the watcher and reconcile tests share: an in-test provider plugin (not a fake of LightRAG)
and small file helpers."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from mnote_kr import hookimpl
from mnote_kr.errors import ProviderError
from mnote_kr.models import EntryUpdate, ProviderStatus, SourceEntry


class FakeProvider:
    """Indexes instantly; ``down`` simulates an unreachable provider; ``broken`` a buggy one;
    ``busy`` one that takes the call but leaves the files pending (as LightRAG's busy pipeline does)."""

    def __init__(self) -> None:
        self.down = False
        self.broken = False
        self.busy = False
        self.ingested: list[str] = []
        self.deleted: list[str] = []
        self.docs: dict[str, str] = {}  # rel path -> current doc id, as a real index keeps it

    def _check(self) -> None:
        if self.down:
            raise ProviderError("fake provider is down", url="http://127.0.0.1:9")

    @staticmethod
    def _done(rel: str, sha: str) -> EntryUpdate:
        return EntryUpdate(source_root_relative_path=rel, status="processed",
                           light_rag_file_path=f"{rel.replace('/', '_')}__{sha[7:19]}",
                           light_rag_doc_id="doc-" + sha[7:23])

    @hookimpl
    def provider_names(self) -> list[str]:
        return ["fake"]

    @hookimpl
    def ingest(self, ctx: Any, sources: list[Any], force: bool) -> list[EntryUpdate]:
        self._check()
        if self.broken:
            raise RuntimeError("bug in the provider")
        if self.busy:
            return [EntryUpdate(source_root_relative_path=s.rel_path, status="pending", pending_action="ingest",
                                last_error="pipeline busy; retried later") for s in sources]
        self.ingested.extend(s.rel_path for s in sources)
        updates = [self._done(s.rel_path, s.sha256) for s in sources]
        for up in updates:  # the ingest contract: the provider replaces its own older version
            old = self.docs.get(up.source_root_relative_path)
            if old and old != up.light_rag_doc_id:
                self.deleted.append(old)
            self.docs[up.source_root_relative_path] = up.light_rag_doc_id or ""
        return updates

    @hookimpl
    def delete(self, ctx: Any, entries: list[SourceEntry]) -> list[EntryUpdate]:
        self._check()
        self.deleted.extend(e.light_rag_doc_id or "" for e in entries)
        return [EntryUpdate(source_root_relative_path=e.source_root_relative_path, status="delete_submitted")
                for e in entries]

    @hookimpl
    def sync(self, ctx: Any, entries: list[SourceEntry], wait_s: float) -> list[EntryUpdate]:
        """Replays queued work, as the real provider's sync does."""
        self._check()
        out: list[EntryUpdate] = []
        for e in entries:
            if e.pending_action == "delete":
                self.deleted.append(e.light_rag_doc_id or "")
                out.append(EntryUpdate(source_root_relative_path=e.source_root_relative_path,
                                       status="delete_submitted"))
            elif e.pending_action == "ingest":
                self.ingested.append(e.source_root_relative_path)
                out.append(self._done(e.source_root_relative_path, e.source_hash))
        return out

    @hookimpl
    def provider_status(self, ctx: Any, entries: list[SourceEntry]) -> ProviderStatus:
        self._check()
        return ProviderStatus(provider="fake", reachable=True)

def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def digest_tree(root: Path) -> dict[str, tuple[str, int]]:
    out: dict[str, tuple[str, int]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".mnote"]
        for name in filenames:
            p = Path(dirpath) / name
            out[p.relative_to(root).as_posix()] = (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
    return out
