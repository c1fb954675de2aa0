"""A search names the new files sent to the provider and not indexed yet (``citations/map/stillindexing.py``).

nc22a (problem 4): after ``ingest .`` (no ``--wait``) of a new DOCX, searches answered in 3 s while LightRAG
was still indexing it, with ``notIndexed: []`` and nothing on stderr: nothing said a file was still being
indexed. Such a file (``submitted``/``processing``, never indexed before) is now named by every search
in its scope, unless the provider says it is done with it; the text says them all in one line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import digest_tree, write

from mnote_kr.app.host import Host
from mnote_kr.cli import reports
from mnote_kr.cli.main import cli
from mnote_kr.hookspecs import hookimpl
from mnote_kr.models import ProviderQueryResult, QueryRequest

NEW = ("kb/new_a.md", "kb/new_b.md")


class Telling(FakeProvider):
    """The fake provider, which answers only from the files it has indexed, and says of its work what it is
    told to (``diagnostics["indexing"]``, as the LightRAG provider does from its pipeline status)."""

    def __init__(self) -> None:
        super().__init__()
        self.indexing: dict[str, Any] | None = None
        self.requests: list[QueryRequest] = []

    @hookimpl
    def query(self, ctx: Any, request: QueryRequest) -> ProviderQueryResult:  # noqa: ANN401
        self.requests.append(request)
        result = super().query(ctx, request)
        if self.indexing is not None:
            result.diagnostics["indexing"] = self.indexing
        return result


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Host, Telling]:
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    ws = tmp_path / "ws"
    write(ws / "kb" / "old.md", "# Old\n\nThe amber lamp glows in the old hall.\n")
    host, fake = fake_host(ws, Telling())
    host.roots_add(ws / "kb")
    host.ingest(["kb"])
    for i, rel in enumerate(NEW):
        write(ws / rel, f"# New {i}\n\nA copper kettle numbered {i}.\n")
    fake.ingest_status = "submitted"  # an ingest without --wait: sent, the registry not told more
    host.ingest(["kb"])
    for rel in NEW:  # LightRAG has not indexed them yet: it answers from none of their passages
        fake.texts.pop(fake.name_for(rel))
    assert {host.registry().entries[rel].status for rel in NEW} == {"submitted"}
    return host, fake


def test_a_search_names_the_new_files_still_being_indexed(kb: tuple[Host, Telling]) -> None:
    host, fake = kb
    found = host.search("amber lamp", mode="naive")
    assert [c.source_root_relative_path for c in found.results] == ["kb/old.md"]
    named = {n.source_path: n for n in found.not_indexed}
    assert set(named) == set(NEW), found.not_indexed
    assert {n.status for n in named.values()} == {"submitted"}
    assert found.diagnostics["stillIndexing"] == {"count": 2, "paths": list(NEW)}
    # the provider is told which files to look for (its names, not the user's paths)
    assert sorted(fake.requests[-1].sent_files) == sorted(fake.name_for(rel) for rel in NEW)
    # a search scoped elsewhere does not name them
    found = host.search("amber lamp", scope=["kb/old.md"], mode="naive")
    assert not {n.source_path for n in found.not_indexed} & set(NEW), found.not_indexed


def test_nothing_sent_nothing_asked_of_the_provider(kb: tuple[Host, Telling]) -> None:
    host, fake = kb
    host.sync()  # follows them: processed
    host.search("amber lamp", mode="naive")
    assert fake.requests[-1].sent_files == ()


def test_files_the_provider_says_it_is_done_with_are_not_named(kb: tuple[Host, Telling]) -> None:
    host, fake = kb
    fake.indexing = {"busy": True, "done": [fake.name_for(NEW[0])]}  # finished in this run, the registry not told
    found = host.search("amber lamp", mode="naive")
    assert [n.source_path for n in found.not_indexed] == [NEW[1]]
    fake.indexing = {"busy": False}  # idle: done with every file sent
    found = host.search("amber lamp", mode="naive")
    assert found.not_indexed == [] and "stillIndexing" not in found.diagnostics


def test_the_cli_says_the_files_still_being_indexed_in_one_line(kb: tuple[Host, Telling],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    host, _ = kb
    before = digest_tree(host.workspace.root / "kb")
    monkeypatch.setattr(reports.Ctx, "host", lambda self, progress=False: host)
    out = CliRunner().invoke(cli, ["search", "amber lamp", "--mode", "naive"])
    assert out.exit_code == 0, out.output
    lines = [line for line in out.output.splitlines() if "still being indexed" in line]
    assert lines == [f"2 file(s) still being indexed: {NEW[0]}, {NEW[1]} (sent, not cited until LightRAG has "
                     "indexed them; search again then; 'mnote-kr sync --wait 60' follows them)"], out.output
    assert "not indexed: kb/new_a.md" not in out.output  # one line for them all, not one each
    out = CliRunner().invoke(cli, ["search", "amber lamp", "--mode", "naive", "--json"])
    assert out.exit_code == 0, out.output
    body = json.loads(out.stdout)
    assert [n["sourcePath"] for n in body["notIndexed"]] == list(NEW)
    assert {n["status"] for n in body["notIndexed"]} == {"submitted"}
    assert digest_tree(host.workspace.root / "kb") == before  # the user's files untouched
