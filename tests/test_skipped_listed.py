"""A file a folder's ingest or sync passes over because no provider indexes its type is never silently
missing: ``status`` (human and ``--json``) names it with the provider's reason, and every search over its
folder names it in ``notIndexed`` (DESIGN.md: a file of the knowledge base's folders that cannot be cited is
reported, never silently missing). A newcomer's ``.xlsm`` was skipped by ``ingest . --wait``, and neither
``status`` nor the search that then answered from another workbook said so."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import digest_tree, write

from mnote_kr.app.host import Host
from mnote_kr.citations.map import notindexed
from mnote_kr.citations.render.cards import render_search
from mnote_kr.citations.render.statustext import render_status
from mnote_kr.core.skipped import load_skipped, skipped_path
from mnote_kr.sync.reconcile import reconcile_and_apply

INDEXES = frozenset({".md"})
SKIPPED = ["kb/a.bin", "kb/archive.zip", "kb/sub/b.bin", "kb/sub/macro.xlsm"]
DOCUMENTS = ["kb/notes.md", "kb/sub/more.md"]
WHY = "not a file type fake indexes"


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Host, FakeProvider]]:
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    ws = tmp_path / "ws"
    for rel in DOCUMENTS + SKIPPED:
        write(ws / rel, f"content of {rel}\n")
    host, fake = fake_host(ws, FakeProvider(suffixes=INDEXES, delete_status="delete_completed"))
    host.roots_add("kb")
    yield host, fake


def _listed(host: Host) -> dict[str, str]:
    return {f["sourcePath"]: f["reason"] for f in host.status()["skipped"]["files"]}


def test_status_names_each_file_a_folder_ingest_passed_over_with_the_providers_reason(
        kb: tuple[Host, FakeProvider]) -> None:
    host, _ = kb
    before = digest_tree(host.root)
    assert host.status()["skipped"] == {"count": 0, "files": []}
    host.ingest(["kb"])
    info = host.status()
    assert info["skipped"]["count"] == len(SKIPPED)
    assert sorted(_listed(host)) == sorted(SKIPPED) and all(WHY in why for why in _listed(host).values())
    assert not set(SKIPPED) & set(host.registry().entries)  # still no registry entry
    text = render_status(info)
    for rel in SKIPPED:
        assert f"Skipped:   {rel}: {WHY}" in text, text
    host.ingest(["kb"])  # again: the same list, not rewritten
    stamp = skipped_path(host).stat().st_mtime_ns
    host.ingest(["kb"])
    assert skipped_path(host).stat().st_mtime_ns == stamp and sorted(_listed(host)) == sorted(SKIPPED)
    assert digest_tree(host.root) == before


def test_status_counts_what_it_does_not_name() -> None:
    files = [{"sourcePath": f"kb/f{i:02}.bin", "reason": WHY} for i in range(50)]
    text = render_status({"workspace": "/w", "registry": {"entries": 0}, "skipped": {"count": 70, "files": files}})
    assert text.count("Skipped:   ") == 20 and "(and 50 more skipped for their type; '--json' lists 50)" in text


def test_an_unchanged_folder_with_nothing_skipped_writes_no_list(kb: tuple[Host, FakeProvider]) -> None:
    host, _ = kb
    for rel in SKIPPED:
        (host.root / rel).unlink()
    host.ingest(["kb"])
    reconcile_and_apply(host)
    assert not skipped_path(host).exists()


def test_a_search_over_their_folder_names_them_in_not_indexed(kb: tuple[Host, FakeProvider]) -> None:
    host, _ = kb
    host.ingest(["kb"])
    found = host.search("content of notes")
    assert found.results, "the fake provider answers with every indexed file"
    listed = {n.source_path: n for n in found.not_indexed}
    assert sorted(listed) == sorted(SKIPPED)
    for n in listed.values():
        assert n.status == "skipped" and WHY in n.reason and n.reason.endswith("; a folder ingest passes it over")
    assert found.diagnostics["skipped"]["count"] == len(SKIPPED)
    scoped = host.search("content", scope=["kb/sub"])
    assert sorted(n.source_path for n in scoped.not_indexed) == ["kb/sub/b.bin", "kb/sub/macro.xlsm"]
    assert host.search("content", scope=["kb/notes.md"]).not_indexed == []  # not the scope's
    # named by the query too: once
    named = host.search("what is in macro.xlsm")
    assert [n.source_path for n in named.not_indexed].count("kb/sub/macro.xlsm") == 1
    shown, count = notindexed.skipped_not_indexed(host, host.registry(), [], shown=2)
    assert (len(shown), count) == (2, len(SKIPPED))


def test_the_text_of_a_search_names_three_and_counts_the_rest(kb: tuple[Host, FakeProvider]) -> None:
    host, _ = kb
    host.ingest(["kb"])
    text = render_search(host.search("content of notes"))
    assert text.count("(skipped: not a file type fake indexes") == 3
    assert "not indexed: 1 more file(s) skipped for their type ('--json' lists them, 'mnote-kr status' names them)" \
        in text


def test_a_file_leaves_the_list_once_gone_excluded_registered_or_taken(kb: tuple[Host, FakeProvider]) -> None:
    host, fake = kb
    host.ingest(["kb"])
    (host.root / "kb" / "a.bin").unlink()  # gone from disk
    host.roots_add("kb", exclude=["*.zip"])  # left out by the root's rules
    host.ingest(["kb/sub/b.bin"])  # named: sent, and its failure is in the registry
    assert host.registry().entries["kb/sub/b.bin"].status == "failed"
    assert list(_listed(host)) == ["kb/sub/macro.xlsm"]
    assert [n.source_path for n in host.search("content").not_indexed if n.status == "skipped"] == [
        "kb/sub/macro.xlsm"]
    fake.suffixes = INDEXES | {".xlsm"}  # the provider now indexes the type: the next sync takes it
    reconcile_and_apply(host)
    assert _listed(host) == {} and "kb/sub/macro.xlsm" in fake.ingested
    assert [f.source_path for f in load_skipped(host).files] == ["kb/archive.zip"]  # excluded: kept, not named


def test_sync_records_a_new_file_it_passes_over(kb: tuple[Host, FakeProvider]) -> None:
    host, _ = kb
    host.ingest(["kb"])
    write(host.root / "kb" / "later.bin", "bytes\n")
    summary = reconcile_and_apply(host)
    assert "kb/later.bin" in summary["skipped"]["paths"]
    assert "kb/later.bin" in _listed(host) and "kb/later.bin" not in host.registry().entries
    assert "kb/later.bin" in {n.source_path for n in host.search("content").not_indexed}


def test_a_file_whose_type_the_provider_now_indexes_leaves_the_list_before_any_sync(
        kb: tuple[Host, FakeProvider]) -> None:
    # The list is written by ingest and sync; status and search read it as the disk and provider are now:
    # a file the provider now takes is new (pendingNew), not skipped, in one list only.
    host, fake = kb
    host.ingest(["kb"])
    fake.suffixes = INDEXES | {".bin"}  # e.g. a plugin that reads it was installed
    info = host.status()
    assert sorted(f["sourcePath"] for f in info["skipped"]["files"]) == ["kb/archive.zip", "kb/sub/macro.xlsm"]
    assert info["skipped"]["count"] == 2
    assert sorted(info["pendingNew"]["paths"]) == ["kb/a.bin", "kb/sub/b.bin"]
    found = host.search("content of notes")
    assert sorted(n.source_path for n in found.not_indexed if n.status == "skipped") == [
        "kb/archive.zip", "kb/sub/macro.xlsm"]
    assert found.diagnostics["skipped"]["count"] == 2
    assert [f.source_path for f in load_skipped(host).files] == SKIPPED  # status and search only read it
