"""LightRAG's document rows (``/documents/paginated``): each read into a registry update, all
indexed by id, file name, path tag and content for the provider's ingest, sync and delete."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from mnote_kr.plugin_api import EntryUpdate

from . import naming
from .failures import explain_failure, is_content_fault

#: LightRAG statuses → registry statuses.
_STATUS_MAP = {"pending": "submitted", "parsing": "processing", "analyzing": "processing",
               "processing": "processing", "preprocessed": "processing", "processed": "processed",
               "failed": "failed"}


def _failure(error: Any, link_name: str, rel_path: str, metadata: dict[str, Any] | None = None) -> str:
    """LightRAG's failure text retold with the user's file name and mnote-kr's advice (``metadata``:
    the failed row's, which says when its parser failed on the file's own bytes)."""
    return explain_failure(str(error) if error else None, link_name=link_name, file_name=rel_path,
                           content_fault=is_content_fault(metadata or {}))


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` when it is a dict, else an empty dict (LightRAG fields may be null)."""
    return value if isinstance(value, dict) else {}


def _ms(iso: Any) -> int | None:
    if not isinstance(iso, str):
        return None
    try:
        return int(datetime.fromisoformat(iso).timestamp() * 1000)
    except ValueError:
        return None


def update_from_row(rel_path: str, name: str, row: dict[str, Any], **extra: Any) -> EntryUpdate:
    """Registry update for one LightRAG document row (doc_status)."""
    doc_id = naming.doc_id_for(name)
    metadata = as_dict(row.get("metadata"))
    status = str(row.get("status", "")).lower()
    if str(row.get("id", "")).startswith("dup-") or (isinstance(metadata, dict) and metadata.get("is_duplicate")):
        original = metadata.get("original_doc_id") if isinstance(metadata, dict) else None
        return EntryUpdate(source_root_relative_path=rel_path, status="duplicate", light_rag_doc_id=doc_id,
                           light_rag_file_path=name, duplicate_of=original, chunk_ids=[],
                           last_error=_failure(row.get("error_msg"), name, rel_path), **extra)
    mapped = _STATUS_MAP.get(status, "processing")
    if mapped == "processed":
        return EntryUpdate(source_root_relative_path=rel_path, status="processed", light_rag_doc_id=doc_id,
                           light_rag_file_path=name, track_id=row.get("track_id"),
                           chunk_ids=naming.chunk_ids_for(doc_id, row.get("chunks_count")),
                           indexed_at_ms=_ms(row.get("updated_at")), **extra)
    if mapped == "failed":
        return EntryUpdate(source_root_relative_path=rel_path, status="failed", light_rag_doc_id=doc_id,
                           light_rag_file_path=name, track_id=row.get("track_id"),
                           last_error=_failure(row.get("error_msg") or row.get("content_summary"), name, rel_path,
                                               metadata),
                           **extra)
    return EntryUpdate(source_root_relative_path=rel_path, status=mapped, light_rag_doc_id=doc_id,  # type: ignore[arg-type]
                       light_rag_file_path=name, track_id=row.get("track_id"), **extra)


class DocIndex:
    """LightRAG's document rows, by id and by file name."""

    def __init__(self, rows: Iterable[dict[str, Any]]) -> None:
        self.rows = list(rows)
        self.by_id = {str(r.get("id")): r for r in self.rows}
        self.by_name: dict[str, list[dict[str, Any]]] = {}
        for row in self.rows:
            self.by_name.setdefault(str(row.get("file_path", "")), []).append(row)
        # Rows of our link names by their path tag: finding a source's other versions is then a
        # lookup, not a scan of every document (a 1,000-file ingest would be 1,000 x 1,000 regexes).
        self._by_path_tag: dict[str, list[dict[str, Any]]] | None = None
        self._by_content: dict[tuple[str | None, str], list[dict[str, Any]]] | None = None

    def _rows_of_path(self, rel_path: str) -> list[dict[str, Any]]:
        if self._by_path_tag is None:
            index: dict[str, list[dict[str, Any]]] = {}
            for row in self.rows:
                tag = naming.path_tag_of(str(row.get("file_path", "")))
                if tag is not None:
                    index.setdefault(tag, []).append(row)
            self._by_path_tag = index
        return self._by_path_tag.get(naming.path_tag(rel_path), [])

    def twins(self, name: str) -> list[dict[str, Any]]:
        """Documents (``doc-`` rows) of other link names with the same workspace and content tag."""
        key = naming.content_key(name)
        if key is None:
            return []
        if self._by_content is None:
            index: dict[tuple[str | None, str], list[dict[str, Any]]] = {}
            for row in self.rows:
                row_key = naming.content_key(str(row.get("file_path", "")))
                if row_key is not None and str(row.get("id", "")).startswith("doc-"):
                    index.setdefault(row_key, []).append(row)
            self._by_content = index
        return [r for r in self._by_content.get(key, []) if str(r.get("file_path", "")) != name]

    def find(self, name: str) -> dict[str, Any] | None:
        """The row for our file name: the real document first, else a ``dup-`` row."""
        row = self.by_id.get(naming.doc_id_for(name))
        if row is not None:
            return row
        rows = self.by_name.get(name) or []
        return rows[0] if rows else None

    def other_versions(self, rel_path: str, keep: str | None, ws: str | None = None,
                       owns_legacy: Callable[[str], bool] | None = None) -> list[dict[str, Any]]:
        """Rows of older link names of the same source in workspace ``ws`` (same tag, path
        tag and stem), plus legacy untagged names that ``owns_legacy`` says are this workspace's."""
        out = []
        for r in self._rows_of_path(rel_path):
            name = str(r.get("file_path", ""))
            if name == keep or not str(r.get("id", "")).startswith("doc-"):
                continue
            if naming.same_source(name, rel_path, ws) or (
                    ws is not None and owns_legacy is not None and naming.same_source(name, rel_path)
                    and owns_legacy(name)):
                out.append(r)
        return out
