"""A renamed file keeps its document (``mnote_kr.app.moves``), and status says only what is true.

In-process, with the fake provider; ``tests/test_rename_integration.py`` runs the same on the real
engine with the newcomer's DOCX.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import digest_tree, write

from mnote_kr import hookimpl
from mnote_kr.app.host import Host
from mnote_kr.citations.render.statustext import render_status
from mnote_kr.context import ProviderContext
from mnote_kr.models import EntryUpdate, SourceFile
from mnote_kr.sync.reconcile import reconcile_and_apply


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Host, FakeProvider]:
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    ws = tmp_path / "ws"
    ws.mkdir()
    host, fake = fake_host(ws, FakeProvider())
    write(ws / "a.md", "the heron report\n")
    write(ws / "b.md", "the osprey report\n")
    host.roots_add(ws)
    host.ingest(["."])
    return host, fake


def cited(host: Host) -> set[str]:
    return {e.source_root_relative_path for e in host.registry().by_provider_name().values()}


def test_ingest_after_a_rename_takes_over_the_document_and_sends_nothing(kb: tuple[Host, FakeProvider]) -> None:
    host, fake = kb
    doc = host.registry().entries["a.md"].light_rag_doc_id
    (host.root / "a.md").rename(host.root / "renamed.md")
    before = digest_tree(host.root)
    sent = len(fake.ingested)

    report = host.ingest(["."])

    items = {i.source_path: (i.status, i.reason or "") for i in report.items}
    assert items["renamed.md"][0] == "moved" and "a.md" in items["renamed.md"][1]
    assert len(fake.ingested) == sent and fake.deleted == []  # nothing sent, nothing deleted
    entries = host.registry().entries
    assert entries["renamed.md"].light_rag_doc_id == doc and entries["renamed.md"].status == "processed"
    assert entries["a.md"].stale and entries["a.md"].light_rag_doc_id is None
    assert cited(host) == {"renamed.md", "b.md"}
    assert reconcile_and_apply(host)["missing"]["count"] == 0  # the old path is settled, not "missing"
    assert fake.deleted == [] and cited(host) == {"renamed.md", "b.md"}
    assert digest_tree(host.root) == before


def test_ingest_of_a_renamed_file_with_force_indexes_it_again(kb: tuple[Host, FakeProvider]) -> None:
    host, fake = kb
    (host.root / "a.md").rename(host.root / "renamed.md")
    report = host.ingest(["renamed.md"], force=True)
    assert [i.status for i in report.items] == ["processed"] and fake.ingested[-1] == "renamed.md"


class Recording(FakeProvider):
    """The fake, remembering the previous name the host gives with each source."""

    def __init__(self) -> None:
        super().__init__()
        self.previous: list[tuple[str, str | None]] = []

    @hookimpl
    def ingest(self, ctx: ProviderContext, sources: list[SourceFile], force: bool) -> list[EntryUpdate]:
        self.previous.extend((s.rel_path, s.previous_name) for s in sources)
        return super().ingest(ctx, sources, force)


def test_a_renamed_files_next_version_names_the_document_it_kept(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    ws = tmp_path / "ws"
    ws.mkdir()
    host, fake = fake_host(ws, Recording())
    write(ws / "a.md", "the heron report\n")
    host.ingest(["."])
    old_name = host.registry().entries["a.md"].light_rag_file_path
    (ws / "a.md").rename(ws / "renamed.md")
    host.ingest(["."])
    write(ws / "renamed.md", "the heron report, revised\n")
    host.ingest(["."])
    assert fake.previous == [("a.md", None), ("renamed.md", old_name)]


def _copy_recorded_as_duplicate(host: Host) -> str | None:
    """copy.md, a.md's bytes, recorded as LightRAG reports a second file of the same bytes; a.md's doc id."""
    write(host.root / "copy.md", "the heron report\n")
    host.ingest(["copy.md"])
    twin_doc = host.registry().entries["a.md"].light_rag_doc_id
    with host.store.transaction() as reg:
        reg.update("copy.md", status="duplicate", duplicate_of=twin_doc, light_rag_doc_id=None)
    return twin_doc


def test_a_duplicate_of_a_file_no_longer_cited_is_sent_again_and_never_said_cited(
        kb: tuple[Host, FakeProvider]) -> None:
    host, fake = kb
    _copy_recorded_as_duplicate(host)
    [dup] = host.status()["registry"]["duplicateEntries"]
    assert dup["twin"] == "a.md" and "cited from there" in dup["reason"]
    (host.root / "a.md").unlink()
    reconcile_and_apply(host)  # a.md is gone: its document is deleted
    [dup] = host.status()["registry"]["duplicateEntries"]
    assert dup["twin"] is None and "cited from there" not in dup["reason"] and "a.md" in dup["reason"]

    host.sync()

    entry = host.registry().entries["copy.md"]
    assert entry.status == "processed" and fake.ingested[-1] == "copy.md"
    assert host.status()["registry"]["duplicateEntries"] == [] and cited(host) == {"copy.md", "b.md"}


def test_a_duplicate_of_a_changed_file_is_sent_again(kb: tuple[Host, FakeProvider]) -> None:
    """The original changed: its document goes with the new version, so the duplicate's bytes must be
    sent under their own name (review r12: it stayed 'duplicate', cited from nowhere)."""
    host, fake = kb
    twin_doc = _copy_recorded_as_duplicate(host)
    write(host.root / "a.md", "the heron report, revised\n")
    reconcile_and_apply(host)
    assert host.registry().entries["a.md"].light_rag_doc_id != twin_doc

    host.sync()

    assert host.status()["registry"]["duplicateEntries"] == []
    assert host.registry().entries["copy.md"].status == "processed" and fake.ingested[-1] == "copy.md"
    assert cited(host) == {"a.md", "b.md", "copy.md"}


def test_status_names_each_waiting_file_and_why(kb: tuple[Host, FakeProvider]) -> None:
    host, fake = kb
    write(host.root / "c.md", "the kestrel report\n")
    fake.down = True
    with pytest.raises(Exception, match="down"):
        host.ingest(["c.md"])
    text = render_status(host.status())
    [line] = [ln for ln in text.splitlines() if "c.md" in ln]
    assert "ingest" in line and "fake provider is down" in line


@pytest.mark.parametrize("how", ["delete", "exclude", "removed"])
def test_a_renamed_file_queued_then_dropped_deletes_the_document_it_kept(kb: tuple[Host, FakeProvider],
                                                                         how: str) -> None:
    """mv a.md renamed.md; edit it while the provider is down (queued, no document id of its own, the kept
    name still recorded); then delete it, exclude it or remove the file: the kept document must go too,
    or it stays in the index with no entry recording it (review r13)."""
    host, fake = kb
    (host.root / "a.md").rename(host.root / "renamed.md")
    host.ingest(["."])
    kept = host.registry().entries["renamed.md"].light_rag_file_path
    assert kept in fake.texts
    write(host.root / "renamed.md", "the heron report, revised\n")
    fake.down = True
    with pytest.raises(Exception, match="down"):
        host.ingest(["renamed.md"])
    fake.down = False
    queued = host.registry().entries["renamed.md"]
    assert queued.status == "pending" and queued.light_rag_file_path == kept and not queued.light_rag_doc_id
    if how == "delete":
        host.delete(["renamed.md"])
    elif how == "exclude":
        host.roots_add(host.root, exclude=["renamed.md"])
    else:
        (host.root / "renamed.md").unlink()
        reconcile_and_apply(host)
    host.sync()
    assert kept not in fake.texts  # the provider was asked to delete the kept document
    assert cited(host) == {"b.md"}
