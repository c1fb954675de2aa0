"""Counts a shell can trust, failures neither lost nor repeated (nc26c built a shell's view on ``status``,
``sync`` and ``prune``): ``prune`` says what it dropped by kind and can keep the failed records; ``sync``
exits 1 for a new failure only, naming an earlier one still failing with its file unchanged since;
``status``'s "citable now" leaves out the files its own walk found changed or gone, and says nothing is
citable while the provider is down; ``ingest --wait``'s last progress line and its error count the same
files. The commands run in process (``main``); every run checks the sources byte for byte."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from mnote_kr_testkit.fakes import FakeProvider
from mnote_kr_testkit.files import write

from mnote_kr import hookimpl
from mnote_kr.context import ProviderContext
from mnote_kr.models import EntryUpdate, SourceEntry
from tests.surfaces import KB, cli_kb


class Breaks(FakeProvider):
    """Takes every document; a followed one whose name holds "broken" fails (LightRAG could not parse it),
    the others are indexed."""

    def __init__(self) -> None:
        super().__init__(ingest_status="submitted", delete_status="delete_completed")

    @hookimpl
    def sync(self, ctx: ProviderContext, entries: list[SourceEntry], wait_s: float) -> list[EntryUpdate]:
        followed = [e for e in entries if e.status in ("submitted", "processing")]
        rest = FakeProvider.sync(self, ctx, [e for e in entries if e not in followed], wait_s)
        return rest + [EntryUpdate(source_root_relative_path=e.source_root_relative_path,
                                   status="failed" if "broken" in e.source_root_relative_path else "processed",
                                   last_error="LightRAG could not parse it"
                                   if "broken" in e.source_root_relative_path else None)
                       for e in followed]


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> KB:
    kb = cli_kb(tmp_path, monkeypatch, capsys, Breaks())
    for name in ("c", "d", "e", "f"):
        write(kb.ws / "kb" / f"{name}.md", f"# {name}\n\nThe {name} note, on its own.\n")
    write(kb.ws / "kb" / "broken1.md", "# one\n\nNot parsed.\n")
    write(kb.ws / "kb" / "broken2.md", "# two\n\nNot parsed either.\n")
    kb.run("roots", "add", "kb")
    kb.run("ingest", "kb", "--wait", code=1)  # the two broken files failed
    return kb


def _moves_stale_failed(kb: KB) -> None:
    """Two files renamed, two deleted, followed by a sync: 2 moves, 2 stale and 2 failed records."""
    os.rename(kb.ws / "kb" / "a.md", kb.ws / "kb" / "a2.md")
    os.rename(kb.ws / "kb" / "b.md", kb.ws / "kb" / "b2.md")
    (kb.ws / "kb" / "c.md").unlink()
    (kb.ws / "kb" / "d.md").unlink()
    kb.run("sync")  # the failures are an earlier run's: no exit 1


def test_prune_says_what_it_dropped_by_kind_and_that_sync_sends_the_failed_files_again(kb: KB) -> None:
    _moves_stale_failed(kb)
    out, _ = kb.run("prune")
    first = out.splitlines()[0]
    assert first.startswith("Pruned 6 record(s): 2 moves followed"), out  # was "Pruned 6 record(s)", no more
    assert "2 stale (kb/c.md, kb/d.md" in first and "2 failed (kb/broken1.md, kb/broken2.md" in first, first
    assert "'mnote-kr sync' sends them again" in out and "--keep-failed" in out, out
    status = json.loads(kb.run("status", "--json")[0])
    assert status["pendingNew"]["count"] == 2  # what the report said: no longer recorded, new again


def test_prune_json_keeps_removed_and_adds_the_kinds(kb: KB) -> None:
    _moves_stale_failed(kb)
    result = json.loads(kb.run("prune", "--json")[0])
    assert sorted(result["removed"]) == ["kb/a.md", "kb/b.md", "kb/broken1.md", "kb/broken2.md", "kb/c.md", "kb/d.md"]
    kinds = result["byKind"]
    assert (sorted(kinds["moved"]), sorted(kinds["stale"]), sorted(kinds["failed"])) == (
        ["kb/a.md", "kb/b.md"], ["kb/c.md", "kb/d.md"], ["kb/broken1.md", "kb/broken2.md"])
    assert sorted(p for paths in kinds.values() for p in paths) == sorted(result["removed"])
    assert result["keptFailed"] == [] and result["deletesWaiting"] == 0


def test_prune_keep_failed_drops_the_rest_and_keeps_the_failures_listed(kb: KB) -> None:
    _moves_stale_failed(kb)
    result = json.loads(kb.run("prune", "--keep-failed", "--json")[0])
    assert sorted(result["removed"]) == ["kb/a.md", "kb/b.md", "kb/c.md", "kb/d.md"]
    assert result["byKind"]["failed"] == [] and sorted(result["keptFailed"]) == ["kb/broken1.md", "kb/broken2.md"]
    status = json.loads(kb.run("status", "--json")[0])
    assert [f["sourcePath"] for f in status["registry"]["failed"]] == ["kb/broken1.md", "kb/broken2.md"]
    assert status["pendingNew"]["count"] == 0
    out, _ = kb.run("sync")  # not sent again: still failing, unchanged
    assert kb.provider.ingested.count("kb/broken1.md") == 1, kb.provider.ingested
    assert "still failing:" in out
    words, _ = kb.run("prune", "--keep-failed")
    assert "Pruned 0 record(s)" in words and "Kept 2 failed record(s)" in words, words


def test_sync_exits_0_for_a_failure_of_an_earlier_run_whose_file_is_unchanged_and_1_for_a_new_one(kb: KB) -> None:
    out, err = kb.run("sync")  # was exit 1 on every run while a broken file sat in a root
    assert err == ""
    line = next(x for x in out.splitlines() if "kb/broken1.md" in x)
    assert line.startswith("still failing:") and "unchanged since " in line, out
    assert "not sent again" in line and "'mnote-kr ingest kb/broken1.md'" in line, line
    result = json.loads(kb.run("sync", "--json")[0])
    still = {f["path"]: f for f in result["provider"]["stillFailed"]}
    assert set(still) == {"kb/broken1.md", "kb/broken2.md"} and result["provider"]["failed"] == []
    entry = kb.host.registry().entries["kb/broken1.md"]
    assert still["kb/broken1.md"]["reason"] == "LightRAG could not parse it"
    assert still["kb/broken1.md"]["unchangedSinceMs"] == entry.mtime_ns // 1_000_000
    assert kb.provider.ingested.count("kb/broken1.md") == 1  # never sent again by sync

    write(kb.ws / "kb" / "broken1.md", "# one\n\nEdited, still not parsed.\n")  # an edit retries it
    out, err = kb.run("sync", code=1)  # a new failure: exit 1
    assert kb.provider.ingested.count("kb/broken1.md") == 2
    assert err.startswith("Error: 1 file(s) failed to index: kb/broken1.md"), err
    assert "still failing:          kb/broken2.md" in out, out


def test_status_citable_now_leaves_out_files_changed_or_missing_on_disk(kb: KB) -> None:
    out, _ = kb.run("status")
    assert "Places:    6 file(s) citable now" in out, out
    write(kb.ws / "kb" / "c.md", "# c\n\nThe c note, edited since.\n")
    (kb.ws / "kb" / "d.md").unlink()
    out, _ = kb.run("status")
    places = next(x for x in out.splitlines() if x.startswith("Places:"))
    assert places.startswith("Places:    4 file(s) citable now"), places  # was 6 "as if nothing changed"
    assert "2 indexed file(s) changed or gone on disk since" in places, places
    status = json.loads(kb.run("status", "--json")[0])
    assert status["registry"]["citableNow"] == 4
    assert status["changedSinceIndexed"]["count"] == 1 and status["missingSinceIndexed"]["count"] == 1
    from mnote_kr.agents.contracts import StatusInput
    from mnote_kr.agents.tools import tool_status

    assert tool_status(kb.host, StatusInput()).registry.citable_now == 4  # the agent's status says the same


def test_status_says_nothing_is_citable_while_the_provider_is_down(kb: KB) -> None:
    kb.provider.down = True
    out, _ = kb.run("status")
    places = next(x for x in out.splitlines() if x.startswith("Places:"))
    assert places.startswith("Places:    none citable while the provider is down"), places
    assert "6 file(s) indexed" in places, places
    assert json.loads(kb.run("status", "--json")[0])["registry"]["citableNow"] == 0


def test_ingest_wait_progress_and_error_count_the_same_files_without_the_excluded_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    kb = cli_kb(tmp_path, monkeypatch, capsys, Breaks())
    write(kb.ws / "kb" / "broken.md", "# broken\n\nNot parsed.\n")
    write(kb.ws / "kb" / "scratch.tmp", "left out by the root's rules\n")
    kb.run("roots", "add", "kb", "--exclude", "*.tmp")
    lines: list[str] = []
    kb.host.progress = lambda line: lines.append(str(line))
    out, err = kb.run("ingest", "kb", "--wait", code=1)
    assert "excluded" in out  # listed in the report, as before
    finished = [x for x in lines if x.startswith("indexed ")]
    assert finished and finished[-1].startswith("indexed 2 of 3 files"), lines
    assert err.startswith("Error: 1 of 3 file(s) failed to index: kb/broken.md"), err  # was "1 of 4"


def test_prune_over_http_and_mcp_says_the_kinds_and_keeps_failed_when_asked(kb: KB) -> None:
    from mnote_kr.agents.contracts import PruneInput
    from mnote_kr.agents.tools import PRUNE, SPECS, tool_prune
    from tests.surfaces import api

    _moves_stale_failed(kb)
    with api(kb.host) as (_, client):
        body = client.post("/api/knowledge-rag/prune-registry", json={"keepFailed": True}).json()
    assert sorted(body["removed"]) == ["kb/a.md", "kb/b.md", "kb/c.md", "kb/d.md"]
    assert sorted(body["byKind"]["moved"]) == ["kb/a.md", "kb/b.md"] and body["byKind"]["failed"] == []
    assert sorted(body["keptFailed"]) == ["kb/broken1.md", "kb/broken2.md"] and body["deletesWaiting"] == 0
    result = tool_prune(kb.host, PruneInput())  # the agent's tool, without keepFailed: the failed records go
    assert sorted(result.removed) == ["kb/broken1.md", "kb/broken2.md"] == sorted(result.by_kind["failed"])
    assert "sends it again" in SPECS[PRUNE].description and "keepFailed" in SPECS[PRUNE].description


def test_sync_over_http_names_a_failure_still_failing_with_its_unchanged_time(kb: KB) -> None:
    from tests.surfaces import api

    with api(kb.host) as (_, client):
        still = client.post("/api/knowledge-rag/sync", json={"waitS": 0}).json()["provider"]["stillFailed"]
    entry = kb.host.registry().entries["kb/broken2.md"]
    assert {"path": "kb/broken2.md", "reason": "LightRAG could not parse it",
            "unchangedSinceMs": entry.mtime_ns // 1_000_000} in still
