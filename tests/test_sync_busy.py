"""'mnote-kr sync' when the provider refuses the new version of an edited file as busy (``sync/busy.py``),
and searches while a changed file is out of the index (``citations/map/reindexing.py``).

A newcomer's first sync printed "1 edited file still being re-indexed" while LightRAG had refused the
file and nothing retried it; searches meanwhile left the file out and named nothing. The commands run
in process (``main``) on a host whose provider is an in-process fake that refuses sends as LightRAG
does while busy; the real engine's case is ``test_sync_busy_integration``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import digest_tree, write

from mnote_kr import hookimpl
from mnote_kr.app.host import Host
from mnote_kr.cli.main import main
from mnote_kr.cli.reports import Ctx
from mnote_kr.context import ProviderContext
from mnote_kr.models import EntryUpdate, SourceEntry, SourceFile

BUSY = "LightRAG is busy: Pipeline is currently busy processing documents"


class Busy(FakeProvider):
    """Refuses sends as busy while ``refusing``; a sync asked to wait takes them when ``idle_after_wait``."""

    def __init__(self) -> None:
        super().__init__()
        self.refusing = False
        self.idle_after_wait = True
        self.waits: list[float] = []

    @hookimpl
    def ingest(self, ctx: ProviderContext, sources: list[SourceFile], force: bool) -> list[EntryUpdate]:
        if not self.refusing:
            return super().ingest(ctx, sources, force)
        return [EntryUpdate(source_root_relative_path=s.rel_path, status="pending", pending_action="ingest",
                            light_rag_file_path=self.name_for(s.rel_path), last_error=BUSY, retry_after_s=5.0)
                for s in sources]

    @hookimpl
    def sync(self, ctx: ProviderContext, entries: list[SourceEntry], wait_s: float) -> list[EntryUpdate]:
        self.waits.append(wait_s)
        if self.refusing and not (wait_s > 0 and self.idle_after_wait):
            return [EntryUpdate(source_root_relative_path=e.source_root_relative_path, status=e.status,
                                pending_action=e.pending_action, last_error=e.last_error) for e in entries]
        self.refusing = False
        return super().sync(ctx, entries, wait_s)


class KB:
    def __init__(self, host: Host, fake: Busy, capsys: pytest.CaptureFixture[str]) -> None:
        self.host, self.fake, self.ws, self.capsys = host, fake, host.root, capsys

    def run(self, *args: str) -> str:
        before = digest_tree(self.ws)
        self.capsys.readouterr()
        assert main(list(args)) == 0
        assert digest_tree(self.ws) == before, "a command changed a source file"
        return self.capsys.readouterr().out

    def edited(self) -> None:
        """kb/ indexed (a.md, b.md), then a.md edited while the provider is busy."""
        write(self.ws / "kb" / "a.md", "# A\n\nThe amber lamp glows.\n")
        write(self.ws / "kb" / "b.md", "# B\n\nThe blue kettle sings.\n")
        self.run("roots", "add", "kb")
        self.run("ingest", "kb")
        write(self.ws / "kb" / "a.md", "# A\n\nThe amber lamp glows.\n\nA quokka nests under the gearbox.\n")
        self.fake.refusing = True


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Iterator[KB]:
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    (tmp_path / "ws").mkdir()
    host, fake = fake_host(tmp_path / "ws", Busy())
    monkeypatch.setattr(Ctx, "host", lambda self, progress=False: host)
    # a provider busy for the whole wait is followed in looks until the wait ends: 1 s, not 120
    monkeypatch.setattr("mnote_kr.sync.busy.BUSY_WAIT_S", 1.0)
    yield KB(host, fake, capsys)


def test_one_sync_waits_for_a_busy_provider_and_sends_the_edited_file(kb: KB) -> None:
    kb.edited()
    out = kb.run("sync")
    assert kb.host.registry().entries["kb/a.md"].status == "processed"
    assert "Synced: re-indexed 1 edited file" in out and "still being" not in out and "NOT sent" not in out, out
    assert "Registry: 2 indexed" in out, out
    assert kb.fake.waits[-1] > 0  # it waited, only because a file was refused


def test_a_file_a_busy_provider_never_took_is_said_not_sent_not_being_re_indexed(kb: KB) -> None:
    kb.edited()
    kb.fake.idle_after_wait = False  # busy for the whole wait
    out = kb.run("sync")
    assert kb.host.registry().entries["kb/a.md"].status == "pending"
    assert "still being re-indexed" not in out, out
    assert "Synced: 1 edited file NOT sent" in out and "'mnote-kr sync' retries it" in out, out
    [line] = [line for line in out.splitlines() if line.startswith("NOT sent:")]
    assert "kb/a.md" in line and "LightRAG was busy for all of the 1 s this sync waited" in line, line
    assert "Pipeline is currently busy" in line and line.endswith("'mnote-kr sync' retries it)"), line
    result = json.loads(kb.run("sync", "--json"))
    assert result["provider"]["notSent"] == [{"path": "kb/a.md", "reason": BUSY}]
    assert result["provider"]["busyWait"]["files"] == ["kb/a.md"]


def test_sync_asked_to_wait_does_not_wait_twice(kb: KB) -> None:
    kb.edited()
    kb.fake.idle_after_wait = False
    kb.capsys.readouterr()
    assert main(["sync", "--wait", "1", "--json"]) == 1  # the wait ended with the file queued
    result = json.loads(kb.capsys.readouterr().out)
    # one wait, the one asked for (followed in looks of what is left of it), not a busy wait after it
    assert "busyWait" not in result["provider"] and kb.fake.waits and max(kb.fake.waits) <= 1.0
    assert result["provider"]["notSent"] == [{"path": "kb/a.md", "reason": BUSY}]


def test_a_search_names_a_file_out_of_the_index_while_it_is_re_indexed(kb: KB) -> None:
    kb.edited()
    write(kb.ws / "kb" / "c.md", "# C\n\nA new cedar box.\n")  # new, never indexed: not named
    kb.fake.idle_after_wait = False
    kb.run("sync")
    kb.fake.texts.pop(kb.fake.name_for("kb/a.md"))  # the old version deleted, the new one not indexed
    found = kb.host.search("amber lamp")
    named = {n.source_path: n for n in found.not_indexed}
    assert set(named) == {"kb/a.md"}, found.not_indexed
    assert named["kb/a.md"].status == "pending"
    assert named["kb/a.md"].reason.startswith("changed since indexed: being re-indexed"), named["kb/a.md"].reason
    assert "'mnote-kr sync' sends it" in named["kb/a.md"].reason
    assert found.diagnostics["reindexing"] == {"count": 1, "paths": ["kb/a.md"]}
    out = kb.run("search", "amber lamp")
    assert "changed since indexed: kb/a.md: being re-indexed" in out, out
    kb.fake.idle_after_wait = True
    kb.run("sync")
    assert kb.host.search("amber lamp").not_indexed == []  # indexed again: named no more


def test_a_search_scoped_elsewhere_does_not_name_a_file_being_re_indexed(kb: KB) -> None:
    kb.edited()
    kb.fake.idle_after_wait = False
    kb.run("sync")
    found: Any = kb.host.search("blue kettle", scope=["kb/b.md"])
    assert "kb/a.md" not in {n.source_path for n in found.not_indexed}
