"""An empty file has nothing to index: a folder's ingest, a named ingest and sync pass it over with its reason, and
it fails no later ingest (nc28c surprise 6: a 0-byte DOCX made every 'ingest .' exit 1 with an Error line, even when
everything else indexed). ``status`` names it and why; once it has content it is indexed like any new file. A
genuinely broken file keeps its one error line and exit 1.

The fake provider fails a 0-byte or a broken document as LightRAG does (its DOCX reader: "... is empty (0 bytes)")."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from mnote_kr_testkit.fakes import FakeProvider

from mnote_kr import hookimpl
from mnote_kr.context import ProviderContext
from mnote_kr.core.pending import REASON_EMPTIED
from mnote_kr.core.skipped import EMPTY_REASON
from mnote_kr.models import EntryUpdate, SourceEntry, SourceFile
from tests.surfaces import KB, cli_kb

EMPTY_LINE = f"{'skipped':<18} kb/empty.docx ({EMPTY_REASON})"


class LikeLightRag(FakeProvider):
    """Fails a 0-byte file and one that is no DOCX, with LightRAG's words; indexes the rest."""

    @hookimpl
    def ingest(self, ctx: ProviderContext, sources: list[SourceFile], force: bool) -> list[EntryUpdate]:
        bad = {s.rel_path: (f"{Path(s.rel_path).name} is empty (0 bytes)" if s.size == 0 else "File is not a zip file")
               for s in sources if s.size == 0 or Path(s.path).read_bytes().startswith(b"junk")}
        done = FakeProvider.ingest(self, ctx, [s for s in sources if s.rel_path not in bad], force)
        return [*done, *(EntryUpdate(source_root_relative_path=rel, status="failed", last_error=why)
                         for rel, why in bad.items())]


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Iterator[KB]:
    kb = cli_kb(tmp_path, monkeypatch, capsys, LikeLightRag())
    (kb.ws / "kb" / "empty.docx").write_bytes(b"")
    yield kb


def test_a_folder_ingest_passes_an_empty_file_over_and_exits_0_every_time(kb: KB) -> None:
    for _ in range(2):
        out, err = kb.run("ingest", "kb")
        assert EMPTY_LINE in out.splitlines(), out
        assert "Error" not in err, err
    assert "kb/empty.docx" not in kb.provider.ingested  # never sent
    assert "kb/empty.docx" not in kb.host.registry().entries
    assert {r for r in kb.host.registry().entries} == {"kb/a.md", "kb/b.md"}


def test_status_names_the_empty_file_and_why(kb: KB) -> None:
    kb.run("ingest", "kb")
    status = json.loads(kb.run("status", "--json")[0])
    assert status["skipped"] == {"count": 1, "files": [{"sourcePath": "kb/empty.docx", "reason": EMPTY_REASON}]}
    assert "kb/empty.docx" not in (status.get("pendingNew") or {}).get("files", []), status.get("pendingNew")
    text = kb.run("status")[0]
    assert "kb/empty.docx" in text and "0 bytes" in text, text


def test_a_search_does_not_name_an_empty_file_as_not_indexed(kb: KB) -> None:
    """nc29b: every search over the folder opened with 'not indexed: empty.docx (skipped: empty file …)'. A file
    of a type the provider cannot index is named (its text is missing from the search); an empty one holds no text
    to miss: ``status`` names it, searches do not."""
    kb.run("ingest", "kb")  # (a type the provider cannot index stays named: test_skipped_listed.py)
    found = json.loads(kb.run("search", "amber lamp", "--json")[0])
    named = [n["sourcePath"] for n in found["notIndexed"]]
    assert "kb/empty.docx" not in named and found["results"], found
    assert "empty.docx" not in kb.run("search", "amber lamp")[0]


def test_a_named_empty_file_is_passed_over_too(kb: KB) -> None:
    out, err = kb.run("ingest", "kb/empty.docx")
    assert out.splitlines()[0] == EMPTY_LINE, out
    assert not err.strip(), err


def test_an_empty_file_a_failed_record_holds_is_dropped_and_passed_over(kb: KB) -> None:
    """A home from before: the empty file failed at the provider and every ingest sent it again."""
    path = kb.ws / "kb" / "empty.docx"
    with kb.host.store.transaction() as reg:
        reg.put(SourceEntry(source_id="s-empty", source_path=str(path), source_root_relative_path="kb/empty.docx",
                            source_hash="sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                            size=0, mtime_ns=path.stat().st_mtime_ns, status="failed",
                            last_error="empty.docx is empty (0 bytes)"))
    out, err = kb.run("ingest", "kb")
    line = next(line for line in out.splitlines() if "kb/empty.docx" in line)
    assert line.startswith(f"{'skipped':<18} kb/empty.docx ({EMPTY_REASON}"), line
    assert "kb/empty.docx" not in kb.host.registry().entries and "Error" not in err


def test_sync_passes_a_new_empty_file_over_and_indexes_it_once_it_has_content(kb: KB) -> None:
    kb.run("roots", "add", "kb")
    out, err = kb.run("sync")
    assert f"Passed over 1 file(s) that cannot be indexed: kb/empty.docx ({EMPTY_REASON})" in out, out
    assert "Error" not in err, err
    assert "kb/empty.docx" not in kb.host.registry().entries
    (kb.ws / "kb" / "empty.docx").write_text("now a note\n", encoding="utf-8")  # (a text note, as the fake reads it)
    kb.run("sync")
    assert kb.host.registry().entries["kb/empty.docx"].status == "processed"
    status = json.loads(kb.run("status", "--json")[0])
    assert status["skipped"]["count"] == 0


def test_a_broken_file_keeps_its_one_error_line_and_exit_1(kb: KB) -> None:
    (kb.ws / "kb" / "broken.docx").write_bytes(b"junk that is no zip")
    for tried in (3, 1):  # every ingest of its folder tries it again (it may have been fixed); the empty one: never
        out, err = kb.run("ingest", "kb", code=1)
        assert EMPTY_LINE in out.splitlines(), out
        [error] = [line for line in err.splitlines() if line.startswith("Error:")]
        assert error.startswith(f"Error: 1 of {tried} file(s) failed to index: kb/broken.docx, its reason above"), err
        assert "failed             kb/broken.docx (File is not a zip file" in out, out


def test_an_indexed_file_emptied_on_disk_is_no_longer_cited_and_fails_no_sync(kb: KB) -> None:
    """review30 finding 3: an indexed note truncated to 0 bytes (an editor that empties a file before writing it,
    under 'watch') made 'sync' send it, fail it and exit 1. Its indexed text is no longer in the file: the record
    goes stale with that reason and its document is deleted from the index (DESIGN: stale, not silent), and once
    the file has content again the next sync indexes it as any file back on disk."""
    kb.run("roots", "add", "kb")
    kb.run("sync")
    doc = kb.host.registry().entries["kb/a.md"].light_rag_doc_id
    assert doc and json.loads(kb.run("search", "amber lamp", "--json")[0])["results"]
    sent = len(kb.provider.ingested)
    (kb.ws / "kb" / "a.md").write_bytes(b"")
    for _ in range(2):  # and the sync after it
        out, err = kb.run("sync")
        assert "Error" not in err and "failed" not in out, (out, err)
    assert f"{'emptied on disk:':<24}kb/a.md" in out.splitlines() or "kb/a.md" in kb.run("status")[0]
    entry = kb.host.registry().entries["kb/a.md"]
    assert entry.stale and entry.stale_reason == REASON_EMPTIED and doc in kb.provider.deleted
    assert len(kb.provider.ingested) == sent  # never sent
    found = json.loads(kb.run("search", "amber lamp", "--json")[0])
    assert not [c for c in found["results"] if c["sourceRootRelativePath"] == "kb/a.md"], found["results"]
    (kb.ws / "kb" / "a.md").write_text("# A\n\nThe amber lamp glows again.\n", encoding="utf-8")
    out, err = kb.run("sync")
    entry = kb.host.registry().entries["kb/a.md"]
    assert entry.status == "processed" and not entry.stale and "Error" not in err, (out, err)


def test_sync_says_which_indexed_files_were_emptied(kb: KB) -> None:
    kb.run("roots", "add", "kb")
    kb.run("sync")
    (kb.ws / "kb" / "a.md").write_bytes(b"")
    summary = json.loads(kb.run("sync", "--json")[0])["reconcile"]
    assert summary["emptied"] == {"count": 1, "paths": ["kb/a.md"]} and summary["changed"]["count"] == 0, summary
    (kb.ws / "kb" / "b.md").write_bytes(b"")
    out, _ = kb.run("sync")
    assert f"{'emptied on disk:':<24}kb/b.md" in out.splitlines(), out
    assert "1 indexed file(s) emptied on disk (0 bytes): no longer cited" in out, out


def test_an_ingest_passes_an_emptied_indexed_file_over_and_stops_citing_it(kb: KB) -> None:
    """The same file through 'ingest' (its folder, or named): passed over with its reason, exit 0, not sent."""
    kb.run("ingest", "kb")
    doc = kb.host.registry().entries["kb/a.md"].light_rag_doc_id
    sent = len(kb.provider.ingested)
    (kb.ws / "kb" / "a.md").write_bytes(b"")
    for args in (["kb"], ["kb/a.md"], ["kb"]):
        out, err = kb.run("ingest", *args)
        line = next(line for line in out.splitlines() if "kb/a.md" in line)
        assert line.startswith(f"{'skipped':<18} kb/a.md (") and "0 bytes" in line, line
        assert "Error" not in err, err
    entry = kb.host.registry().entries["kb/a.md"]
    assert entry.stale and entry.stale_reason == REASON_EMPTIED and doc in kb.provider.deleted
    assert len(kb.provider.ingested) == sent
