"""A renamed file's kept document (``mnote_kr.app.moves``) stays its own, on the real managed engine.

The entry at the new path keeps the document of a name made for the old path. Each test is a plain user
sequence the review of r12 found broken: a new file at the old path, an edit while LightRAG is down or
busy, the same bytes copied back under the old name. Waits are on conditions.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from mnote_kr_testkit.docx_docs import DocxBuilder
from mnote_kr_testkit.engine import lightrag_engine, wait_no_unmapped  # noqa: F401  (session fixture)
from mnote_kr_testkit.waiting import wait_until

from mnote_kr.app.host import Host
from mnote_kr_lightrag.client.http import ProviderUnavailableError
from mnote_kr_lightrag.client.provider import LightRagProvider
from tests.rename_helpers import cited, indexed_docs, sync

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]


@pytest.fixture
def host(tmp_path: Path, lightrag_engine, monkeypatch: pytest.MonkeyPatch) -> Host:  # noqa: F811, ANN001
    return indexed_docs(tmp_path, lightrag_engine, monkeypatch)


def rename_and_take_over(host: Host) -> str:
    root = host.root
    (root / "kotaemon__dummy.docx").rename(root / "renamed.docx")
    sync(host)
    entry = host.registry().entries["renamed.docx"]
    assert entry.status == "processed" and cited(host) == {"renamed.docx"}
    return entry.light_rag_doc_id


def new_docx(text: str) -> bytes:
    b = DocxBuilder()
    b.heading("New report", 1)
    b.para(text)
    return b.build()


def test_a_new_file_at_the_old_path_does_not_delete_the_renamed_files_document(host: Host) -> None:
    """mv report.docx report-v1.docx; sync; write a new report.docx; sync --wait.

    Provider._link_and_scan deletes 'older versions' of kotaemon__dummy.docx by path tag
    (old_versions / names_of_source): the document renamed.docx took over has that tag."""
    kept = rename_and_take_over(host)
    (host.root / "kotaemon__dummy.docx").write_bytes(new_docx("The amber heron report, a fresh file."))
    sync(host, wait_s=300)
    assert host.registry().entries["kotaemon__dummy.docx"].status == "processed"
    entries = host.registry().entries
    assert entries["renamed.docx"].status == "processed" and entries["renamed.docx"].light_rag_doc_id == kept

    # LightRAG deletes asynchronously: wait for the pipeline to be idle, then look.
    wait_until(lambda: not host.status()["provider"]["pipelineBusy"], timeout_s=120, what="pipeline busy")
    prov = host.status()["provider"]
    assert prov["extra"]["missingFromIndex"] == [], prov["extra"]["missingFromIndex"]
    assert "renamed.docx" in cited(host)  # the new report.docx may come up weakly too: not asked


def _edit_renamed(host: Host) -> None:
    (host.root / "renamed.docx").write_bytes(new_docx("The amber heron report replaces the earlier procedure."))


def _renamed_edited_and_queued_while_down(host: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    """mv; sync; edit; ingest while LightRAG is down: the entry is queued, only the kept name recorded."""
    rename_and_take_over(host)
    _edit_renamed(host)

    def down(self):  # noqa: ANN001, ANN202
        raise ProviderUnavailableError("LightRAG is down (review)")

    with monkeypatch.context() as m:
        m.setattr(LightRagProvider, "documents", down)
        with pytest.raises(Exception, match="down"):
            host.ingest(["renamed.docx"])
    assert host.registry().entries["renamed.docx"].status == "pending"


def test_a_renamed_file_edited_while_lightrag_is_down_leaves_no_document_behind(
        host: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    """mv; sync; edit; ingest while LightRAG is down (queued); sync --wait when it is back.

    The queued entry loses previous_name (host_ingest step 1 writes no light_rag_file_path;
    syncing._source_of builds SourceFile without it): the kept old document is never deleted."""
    _renamed_edited_and_queued_while_down(host, monkeypatch)
    sync(host, wait_s=300)
    assert host.registry().entries["renamed.docx"].status == "processed"
    wait_no_unmapped(host, processed=2)


def test_a_renamed_file_edited_while_lightrag_is_busy_leaves_no_document_behind(
        host: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    """As above, but LightRAG answers the delete with 'busy' (it is indexing something else):
    the previous_name delete is dropped, never retried."""
    rename_and_take_over(host)
    _edit_renamed(host)
    with monkeypatch.context() as m:
        m.setattr(LightRagProvider, "delete_ids", lambda self, ids, retries=0: ("busy", None))
        host.ingest(["renamed.docx"], wait=True, wait_s=300)
    assert host.registry().entries["renamed.docx"].status == "processed"
    sync(host, wait_s=60)
    sync(host, wait_s=60)
    wait_no_unmapped(host, processed=2)


def test_a_copy_restored_under_the_old_name_then_deleting_the_renamed_one_keeps_it_cited(host: Host) -> None:
    """mv A B; sync; cp B A; sync --wait; mnote-kr delete B: A must stay cited.

    A's link name (path tag of A, same bytes) is exactly the name B kept: the provider adopts that
    row for A, so two entries hold one document, and deleting B deletes A's document."""
    rename_and_take_over(host)
    shutil.copyfile(host.root / "renamed.docx", host.root / "kotaemon__dummy.docx")
    sync(host, wait_s=300)
    entries = host.registry().entries
    a, b = entries["kotaemon__dummy.docx"], entries["renamed.docx"]
    assert a.status in ("processed", "duplicate"), a
    assert a.light_rag_doc_id is None or a.light_rag_doc_id != b.light_rag_doc_id, (a, b)  # never one document
    host.delete(["renamed.docx"])
    sync(host, wait_s=120)
    wait_until(lambda: not host.status()["provider"]["pipelineBusy"], timeout_s=120, what="pipeline busy")
    assert cited(host) == {"kotaemon__dummy.docx"}, host.registry().entries["kotaemon__dummy.docx"]


def test_a_renamed_file_queued_while_lightrag_is_down_then_deleted_leaves_no_document_behind(
        host: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    """mv; sync; edit; ingest while LightRAG is down (queued, only the kept name recorded); delete it.

    Host.delete sent no delete for an entry without a document id of its own: the kept document
    stayed in LightRAG with no entry recording it (review r13)."""
    _renamed_edited_and_queued_while_down(host, monkeypatch)
    host.delete(["renamed.docx"])
    sync(host, wait_s=120)

    def only_other() -> bool:
        prov = host.status()["provider"]
        return prov["documentsByStatus"].get("all") == 1 and not prov["pipelineBusy"]

    wait_until(only_other, timeout_s=120, what=lambda: repr(host.status()["provider"]["documentsByStatus"]))
    assert host.prune() and host.status()["provider"]["unmapped"] == []
    assert cited(host) == set()
