"""What ``sync`` says when LightRAG refuses to delete the documents of failed or refused files (``clean_held``).

nc28c surprise 2: after an engine stop, every sync printed "LightRAG is busy: the failed and refused documents it
holds are deleted by a later 'mnote-kr sync'", which does not say whether the user must do anything. The line says
how many files' documents stay for now, that they are never cited, and that nothing is to be done."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from mnote_kr.models import SourceEntry
from mnote_kr_lightrag.client import syncing


def _prov(rows: list[dict[str, Any]], outcome: str, said: list[str]) -> Any:  # noqa: ANN401
    docs = SimpleNamespace(rows=rows, by_id={r["id"]: r for r in rows},
                           find=lambda name: next((r for r in rows if r.get("file_path") == name), None))
    deleted: list[list[str]] = []

    def delete_ids(ids: list[str], retries: int = 0) -> tuple[str, None]:
        deleted.append(ids)
        return outcome, None

    return SimpleNamespace(documents=lambda: docs, input_dir=lambda: None, delete_ids=delete_ids,
                           ctx=SimpleNamespace(progress=said.append), deleted=deleted)


def _held(n: int) -> list[SourceEntry]:
    return [SourceEntry(source_id=f"s{i}", source_path=f"/w/kb/f{i}.docx",
                        source_root_relative_path=f"kb/f{i}.docx", source_hash="h", size=1, mtime_ns=1,
                        status="failed", light_rag_doc_id=f"doc-{i}", light_rag_file_path=f"f{i}.docx",
                        last_error="broken") for i in range(n)]


def test_busy_delete_of_held_documents_says_nothing_is_to_be_done() -> None:
    said: list[str] = []
    rows = [{"id": f"doc-{i}", "status": "failed", "file_path": f"f{i}.docx"} for i in range(2)]
    prov = _prov(rows, "busy", said)
    updates = syncing.clean_held(prov, _held(2), 0.0)
    assert [u.status for u in updates] == ["failed", "failed"]  # each entry keeps its status
    assert prov.deleted == [["doc-0", "doc-1"]]
    assert len(said) == 1 and "\n" not in said[0], said
    line = said[0]
    assert "2 failed or refused file(s)" in line, line
    assert "never cited" in line and "nothing to do" in line, line
    assert "a later 'mnote-kr sync' deletes them" in line, line


def test_held_documents_beside_other_work_say_nothing_is_to_be_done() -> None:
    said: list[str] = []
    rows = [{"id": "doc-0", "status": "processing", "file_path": "f0.docx"},
            {"id": "other", "status": "processing", "file_path": "other.md"}]
    prov = _prov(rows, "started", said)
    syncing.clean_held(prov, _held(1), 0.0)
    assert prov.deleted == []  # LightRAG is busy with another document: nothing is cancelled
    assert len(said) == 1 and "1 failed or refused file(s)" in said[0] and "nothing to do" in said[0], said


def test_held_documents_deleted_say_nothing() -> None:
    said: list[str] = []
    rows = [{"id": "doc-0", "status": "failed", "file_path": "f0.docx"}]
    prov = _prov(rows, "started", said)
    syncing.clean_held(prov, _held(1), 0.0)
    assert prov.deleted == [["doc-0"]] and said == []
