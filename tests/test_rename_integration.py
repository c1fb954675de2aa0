"""A renamed file stays cited, end to end on the managed engine (real lightrag-server, offline models).

A newcomer renamed an indexed DOCX with a plain ``mv`` and ran ``ingest .``: the file was called a
duplicate of its own old name, which no longer existed, and fell out of search for good; after ``mv``
and ``sync`` it took three syncs to come back. Each workspace here gets its own LightRAG namespace
(docs/workspaces.md), so the corpus file's bytes are indexed once per test. Waits are on conditions.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from mnote_kr_testkit.docx_docs import DocxBuilder
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)
from mnote_kr_testkit.waiting import wait_until

from mnote_kr.app.host import Host
from mnote_kr.citations.render.statustext import render_status
from tests.rename_helpers import QUERY, cited, indexed_docs, sync

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]


@pytest.fixture
def host(tmp_path: Path, lightrag_engine, monkeypatch: pytest.MonkeyPatch) -> Host:  # noqa: F811, ANN001
    host = indexed_docs(tmp_path, lightrag_engine, monkeypatch)
    assert cited(host) == {"kotaemon__dummy.docx"}
    return host


def digests(root: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.iterdir()) if p.is_file()}


def no_false_claims(host: Host) -> str:
    """The status text, checked: no file is said to be cited from a file that is not cited."""
    status = host.status()
    reg = status["registry"]
    entries = host.registry().entries
    for dup in reg["duplicateEntries"]:
        twin = dup["twin"]
        if twin is not None:
            assert entries[twin].status == "processed" and not entries[twin].stale, dup
        else:
            assert "cited from there" not in dup["reason"], dup
    return render_status(status)


def test_a_renamed_docx_then_ingest_of_the_folder_stays_cited(host: Host) -> None:
    root = host.root
    old_doc = host.registry().entries["kotaemon__dummy.docx"].light_rag_doc_id
    (root / "kotaemon__dummy.docx").rename(root / "kotaemon_renamed.docx")  # a plain 'mv'
    before = digests(root)

    report = host.ingest(["."], wait=True, wait_s=300)  # 'mnote-kr ingest . --wait'

    items = {i.source_path: i for i in report.items}
    assert items["kotaemon_renamed.docx"].status == "moved", items
    assert "kotaemon__dummy.docx" in (items["kotaemon_renamed.docx"].reason or "")
    assert cited(host) == {"kotaemon_renamed.docx"}
    entries = host.registry().entries
    assert entries["kotaemon_renamed.docx"].light_rag_doc_id == old_doc  # the same document, not re-indexed
    assert entries["kotaemon__dummy.docx"].stale_reason == "moved to kotaemon_renamed.docx"
    text = no_false_claims(host)
    assert "Duplicate:" not in text and "Moved:     kotaemon__dummy.docx -> kotaemon_renamed.docx" in text

    sync(host)  # the old path is gone from disk: nothing of the renamed file's is deleted for it
    assert cited(host) == {"kotaemon_renamed.docx"}
    assert host.status()["provider"]["unmapped"] == []
    assert digests(root) == before  # mnote-kr wrote nothing into the user's files

    # Edited later: the new version replaces the document it kept (none is left behind in LightRAG).
    b = DocxBuilder()
    b.heading("改訂版 reviewed", 1)
    b.para("The amber heron report replaces the earlier procedure.")
    (root / "kotaemon_renamed.docx").write_bytes(b.build())
    edited = digests(root)
    report = host.ingest(["."], wait=True, wait_s=300)
    assert {i.source_path: i.status for i in report.items}["kotaemon_renamed.docx"] == "processed"

    def old_document_gone() -> bool:
        status = host.status()["provider"]
        return status["unmapped"] == [] and status["documentsByStatus"].get("processed") == 2

    wait_until(old_document_gone, timeout_s=120, what=lambda: repr(host.status()["provider"]["unmapped"]))
    quotes = [c.display_quote or "" for c in host.search(QUERY, mode="naive").results
              if c.source_root_relative_path == "kotaemon_renamed.docx"]
    assert not any("事務認証者" in q for q in quotes), quotes  # the old text is cited from nowhere
    assert digests(root) == edited


def test_a_renamed_docx_then_one_sync_stays_cited(host: Host) -> None:
    root = host.root
    (root / "kotaemon__dummy.docx").rename(root / "kotaemon_renamed.docx")
    before = digests(root)

    result = sync(host)  # one 'mnote-kr sync', no --wait

    assert result["reconcile"]["moved"]["paths"] == [{"from": "kotaemon__dummy.docx", "to": "kotaemon_renamed.docx"}]
    assert cited(host) == {"kotaemon_renamed.docx"}  # at once: never out of search
    found = host.search(QUERY, mode="naive")
    assert found.not_indexed == []
    status = host.status()
    assert status["registry"]["waiting"] == []
    assert "Duplicate:" not in no_false_claims(host)
    assert sync(host)["reconcile"]["moved"]["count"] == 0 and cited(host) == {"kotaemon_renamed.docx"}
    assert digests(root) == before


def test_a_duplicate_whose_original_is_deleted_is_indexed_under_its_own_name(host: Host) -> None:
    root = host.root
    shutil.copyfile(root / "kotaemon__dummy.docx", root / "copy.docx")  # a true duplicate: both on disk
    report = host.ingest(["copy.docx"], wait=True, wait_s=300)
    assert [i.status for i in report.items] == ["duplicate"]
    dup = host.status()["registry"]["duplicateEntries"]
    assert [(d["sourcePath"], d["twin"]) for d in dup] == [("copy.docx", "kotaemon__dummy.docx")]
    (root / "kotaemon__dummy.docx").unlink()
    before = digests(root)

    result = sync(host, wait_s=300)  # one 'mnote-kr sync --wait 300'

    entries = host.registry().entries
    assert entries["copy.docx"].status == "processed", (entries["copy.docx"], result["provider"])
    assert entries["kotaemon__dummy.docx"].stale
    assert cited(host) == {"copy.docx"}
    assert "Duplicate:" not in no_false_claims(host)
    assert digests(root) == before
