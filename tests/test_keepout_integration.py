"""The text of a deleted file, and of a file's earlier version, leaves the engine's input dir (nc27b: LightRAG's
``__parsed__/<name>.parsed/*.blocks.jsonl`` kept the full text of every deleted and replaced version after
``sync`` and ``prune``; rag_storage no longer held them). On the real lightrag-server.

Every regular file under the input dir is read (links, which lead to the user's files, are not followed);
the user's file keeps its bytes throughout. Waits are on conditions, bounded only so that a failure ends."""

from __future__ import annotations

import hashlib
import os
import uuid
from pathlib import Path

import pytest
from mnote_kr_testkit.docx_docs import DocxBuilder
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)
from mnote_kr_testkit.waiting import wait_until

from tests.test_integration_flows import make_host

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]


def field_docx(words: str) -> bytes:
    b = DocxBuilder()
    b.heading("Field notes", 1)
    b.para(f"The survey crew logged {words} beside the northern weir before noon.")
    b.para("Water levels were steady and the gauges read true.")
    return b.build()


def holding(input_dir: Path, *words: str) -> list[str]:
    """Regular files under the input dir (no link followed) whose bytes hold any of ``words``."""
    found = []
    for folder, _, files in os.walk(input_dir):
        for name in files:
            path = Path(folder) / name
            if path.is_symlink() or not path.is_file():
                continue
            data = path.read_bytes()
            if any(w.encode("utf-8") in data for w in words):
                found.append(str(path.relative_to(input_dir)))
    return found


def test_deleted_and_replaced_versions_leave_no_text_in_the_input_dir(tmp_path: Path, lightrag_engine,  # noqa: F811, ANN001
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    host = make_host(tmp_path / "kb", lightrag_engine, monkeypatch)
    input_dir = Path(lightrag_engine.input_dir)
    first, second = f"quillwort{uuid.uuid4().hex[:10]}", f"bladderwort{uuid.uuid4().hex[:10]}"
    doc = host.root / "docs" / "field.docx"
    doc.parent.mkdir()
    doc.write_bytes(field_docx(first))
    host.roots_add(host.root / "docs")
    host.ingest([doc], wait=True, wait_s=180)
    assert host.registry().entries["docs/field.docx"].status == "processed"
    assert holding(input_dir, first), "LightRAG's parsed text of the file (the sidecar mnote-kr maps with)"

    edited = field_docx(second)
    doc.write_bytes(edited)
    digest = "sha256:" + hashlib.sha256(edited).hexdigest()
    host.ingest([doc], wait=True, wait_s=180)  # the new version processed, the old one deleted
    entry = host.registry().entries["docs/field.docx"]
    assert entry.status == "processed" and entry.source_hash == digest and not entry.stale
    assert holding(input_dir, second)  # the current version's parsed text stays: citations map with it

    def old_gone() -> bool:
        host.sync()  # a full sync, as 'mnote-kr sync': LightRAG may still be deleting the old version
        return not holding(input_dir, first)

    wait_until(old_gone, timeout_s=120, poll_s=0.5, what=lambda: f"old version's text in {holding(input_dir, first)}")
    assert any(c.source_root_relative_path == "docs/field.docx" for c in host.search(second, mode="naive").results)

    host.delete([doc])

    def deleted() -> bool:
        host.sync(wait_s=5)
        return host.registry().entries["docs/field.docx"].status == "delete_completed"

    wait_until(deleted, timeout_s=180, poll_s=0.5, what="LightRAG to confirm the delete")
    assert holding(input_dir, first, second) == []  # no file under the input dir holds the deleted text
    assert doc.read_bytes() == edited  # the user's file: never touched
