"""An engine stopped mid-ingest, the host's side (nc26c surprise 1): ``ingest --wait`` that loses its provider
prints what it had done before its one error line; ``status`` and a search name a file the
engine stopped in the middle of as interrupted, not "still being indexed"; ``sync``, and ``ingest`` of that file
(unchanged, no --force), let the provider send it again and say so; a wait says it was sent again, not how long
it was "processing". The provider's side (what is interrupted, how it is sent again) is
``plugins/lightrag/tests/test_lr_interrupted.py``; the real engine, ``test_engine_interrupted_integration.py``.
Sources are checked byte for byte after every command."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import write

from mnote_kr import hookimpl
from mnote_kr.app.syncwait import lost_error
from mnote_kr.app.waitprogress import WaitProgress
from mnote_kr.citations.render.cards import render_search
from mnote_kr.citations.render.statustext import render_status
from mnote_kr.context import ProviderContext
from mnote_kr.errors import ProviderError, ProviderLostError
from mnote_kr.models import (
    EntryUpdate,
    IngestReport,
    ProviderActivity,
    ProviderQueryResult,
    ProviderStatus,
    QueryRequest,
    SourceEntry,
)
from tests.surfaces import KB, api, cli_kb

DOWN = "The managed LightRAG engine is not running and no LightRAG URL is configured"
SENT_AGAIN = "the engine stopped while indexing it; sent again: LightRAG indexes it anew"


class StopsMidWait(FakeProvider):
    """Indexes kb/a.md at the first look of a wait, then its engine stops: every later call fails."""

    def __init__(self) -> None:
        super().__init__(ingest_status="submitted")
        self.looks = 0

    @hookimpl
    def sync(self, ctx: ProviderContext, entries: list[SourceEntry], wait_s: float) -> list[EntryUpdate]:
        self.looks += 1
        if self.looks > 1:
            raise ProviderError(DOWN, hint="start it with 'mnote-kr engine start'")
        return [EntryUpdate(source_root_relative_path=e.source_root_relative_path, status="processed")
                for e in entries if e.source_root_relative_path == "kb/a.md"]


class Interrupted(FakeProvider):
    """Took kb/b.md and its engine stopped in the middle of it: idle, the document still listed in flight.
    A look at it sends it again (``sent``), as the LightRAG provider does."""

    def __init__(self) -> None:
        super().__init__(ingest_status="submitted")
        self.sent: list[str] = []
        self.stopped = {"kb/b.md"}

    @hookimpl
    def sync(self, ctx: ProviderContext, entries: list[SourceEntry], wait_s: float) -> list[EntryUpdate]:
        out = []
        for e in entries:
            rel = e.source_root_relative_path
            if rel in self.stopped:
                self.stopped.discard(rel)
                self.sent.append(rel)
                out.append(EntryUpdate(source_root_relative_path=rel, status="processing", last_error=SENT_AGAIN))
            elif rel not in self.sent:
                out.append(EntryUpdate(source_root_relative_path=rel, status="processed"))
        return out

    @hookimpl
    def provider_status(self, ctx: ProviderContext, entries: list[SourceEntry]) -> ProviderStatus:
        return ProviderStatus(provider="fake", reachable=True, pipeline_busy=False,
                              documents_by_status={"processing": 1, "processed": 1, "all": 2},
                              interrupted=sorted(self.stopped))


@pytest.fixture
def stops(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Iterator[KB]:
    yield cli_kb(tmp_path, monkeypatch, capsys, StopsMidWait())


@pytest.fixture
def stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Iterator[KB]:
    yield cli_kb(tmp_path, monkeypatch, capsys, Interrupted())


def test_an_ingest_that_loses_its_engine_mid_wait_reports_what_it_did_then_one_error_line(stops: KB) -> None:
    out, err = stops.run("ingest", "kb", "--wait", "--timeout", "30", code=1)
    lines = out.splitlines()
    assert any(line.split() == ["processed", "kb/a.md"] for line in lines), out  # indexed before the stop
    assert any(line.startswith("not indexed") and "kb/b.md" in line for line in lines), out  # and not
    assert not any("being indexed" in line for line in lines), out  # nothing indexes it now
    [error] = err.splitlines()[-1:]
    assert error.startswith(f"Error: {DOWN}; the wait stopped there, with 1 of 2 file(s) indexed (listed above) ("), err
    assert "'mnote-kr engine start'" in error and "'mnote-kr sync --wait 300'" in error, error
    entries = stops.host.registry().entries
    assert (entries["kb/a.md"].status, entries["kb/b.md"].status) == ("processed", "submitted")


def test_its_json_report_says_the_provider_was_lost_and_is_the_only_object_on_stdout(stops: KB) -> None:
    out, err = stops.run("ingest", "kb", "--wait", "--timeout", "30", "--json", code=1)
    report = json.loads(out)  # one object: the report, no error object after it
    assert report["providerError"] == DOWN
    assert {i["sourcePath"]: i["status"] for i in report["items"]} == {"kb/a.md": "processed", "kb/b.md": "submitted"}
    assert err.splitlines()[-1].startswith(f"Error: {DOWN}")


def test_the_host_raises_the_lost_provider_with_the_report(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws / "kb" / "a.md", "# A\n\nThe amber lamp glows.\n")
    write(ws / "kb" / "b.md", "# B\n\nThe blue kettle sings.\n")
    host, _ = fake_host(ws, StopsMidWait())
    with pytest.raises(ProviderLostError) as caught:
        host.ingest(["kb"], wait=True, wait_s=30)
    assert caught.value.report.provider_error == DOWN
    assert caught.value.report.counts == {"processed": 1, "submitted": 1}
    assert isinstance(caught.value, ProviderError)  # the HTTP API and MCP answer it as before (502, isError)


def test_an_http_ingest_job_that_loses_its_engine_returns_its_report_beside_the_error(tmp_path: Path) -> None:
    """The job's ``result`` is the report the CLI prints above its error line (it was None: the per-file
    report was dropped), and the error points at nothing "above"."""
    ws = tmp_path / "ws"
    write(ws / "kb" / "a.md", "# A\n\nThe amber lamp glows.\n")
    write(ws / "kb" / "b.md", "# B\n\nThe blue kettle sings.\n")
    host, _ = fake_host(ws, StopsMidWait())
    with api(host) as (_, client):
        started = client.post("/api/knowledge-rag/ingest", json={"sourcePaths": ["kb"], "wait": True, "waitS": 30})
        assert started.status_code == 202, started.text
        text = client.get(started.headers["location"] + "/events").text  # the stream ends when the job does
    view = json.loads(text.split("event: done\ndata: ", 1)[1].split("\n", 1)[0])
    assert view["status"] == "failed" and view["error"]["code"] == "provider", view
    assert view["error"]["message"] == f"{DOWN}; the wait stopped there, with 1 of 2 file(s) indexed", view
    assert view["error"]["hint"] == ("start it with 'mnote-kr engine start'; then 'mnote-kr sync --wait 300' "
                                     "indexes the others"), view
    assert view["result"]["providerError"] == DOWN, view
    assert {i["sourcePath"]: i["status"] for i in view["result"]["items"]} == {"kb/a.md": "processed",
                                                                              "kb/b.md": "submitted"}


def test_the_lost_provider_hint_without_a_provider_hint_has_no_bare_then() -> None:
    report = IngestReport(items=[])
    assert lost_error(ProviderError(DOWN), report, []).hint == "'mnote-kr sync --wait 300' indexes the others"
    assert lost_error(ProviderError(DOWN, hint="start it"), report, []).hint == (
        "start it; then 'mnote-kr sync --wait 300' indexes the others")


def test_status_names_an_interrupted_file_and_does_not_count_it_as_being_indexed(stopped: KB) -> None:
    stopped.run("ingest", "kb")
    stopped.host.apply_updates([EntryUpdate(source_root_relative_path="kb/a.md", status="processed")])
    info = stopped.host.status()
    assert info["registry"]["interrupted"] == {"count": 1, "paths": ["kb/b.md"], "fix": "mnote-kr sync"}
    text = render_status(info)
    assert "Registry:  2 entries (1 indexed, 1 interrupted)" in text.splitlines(), text
    assert ("Interrupted: kb/b.md: the engine stopped while indexing it; 'mnote-kr sync' indexes it again"
            in text.splitlines()), text
    assert "still being indexed" not in text, text
    assert stopped.provider.sent == []  # a status sends nothing
    assert stopped.host.registry().entries["kb/b.md"].status == "submitted"


def test_ingest_of_the_unchanged_file_without_force_lets_the_provider_send_it_again(stopped: KB) -> None:
    stopped.run("ingest", "kb")
    out, _ = stopped.run("ingest", "kb/b.md")  # unchanged, no --wait, no --force
    assert stopped.provider.sent == ["kb/b.md"]
    assert f"processing         kb/b.md ({SENT_AGAIN})" in out.splitlines(), out
    entry = stopped.host.registry().entries["kb/b.md"]
    assert (entry.status, entry.last_error) == ("processing", SENT_AGAIN)


def test_a_wait_says_a_file_was_sent_again_not_how_long_it_was_processing() -> None:
    view = WaitProgress(1, clock=lambda: 0.0, wall_ms=lambda: 200_000)
    line = view.step(["kb/handbook.docx"], {"kb/handbook.docx": ProviderActivity(stage="interrupted")})
    assert line is not None
    assert "kb/handbook.docx (interrupted: the engine stopped while indexing it; sent again)" in line, line
    assert "for" not in line.split("indexing now: ")[1], line


class Telling(Interrupted):
    """Says of its work what the LightRAG provider says when idle beside a document its engine stopped in."""

    @hookimpl
    def query(self, ctx: Any, request: QueryRequest) -> ProviderQueryResult:  # noqa: ANN401
        result = super().query(ctx, request)
        result.diagnostics["indexing"] = {"busy": False, "interrupted": [self.name_for("kb/b.md")]}
        return result


def test_a_search_names_a_file_the_engine_stopped_in_the_middle_of(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    ws = tmp_path / "ws"
    write(ws / "kb" / "a.md", "# A\n\nThe amber lamp glows.\n")
    write(ws / "kb" / "b.md", "# B\n\nThe blue kettle sings.\n")
    host, fake = fake_host(ws, Telling())
    host.ingest(["kb"])
    host.apply_updates([EntryUpdate(source_root_relative_path="kb/a.md", status="processed")])
    fake.texts.pop(fake.name_for("kb/b.md"))  # never indexed: no passage of it comes back

    found = host.search("amber lamp", mode="naive")

    assert [(n.source_path, n.status) for n in found.not_indexed] == [("kb/b.md", "interrupted")], found.not_indexed
    assert found.diagnostics["interrupted"] == {"count": 1, "paths": ["kb/b.md"]}
    assert "stillIndexing" not in found.diagnostics  # nothing is indexing it
    text = render_search(found)
    assert ("not indexed: kb/b.md (interrupted: the engine stopped while indexing it; 'mnote-kr sync' indexes it "
            "again)") in text, text


def test_sync_sends_it_again_and_says_so(stopped: KB) -> None:
    stopped.run("ingest", "kb")
    out, err = stopped.run("sync", "--no-disk")
    assert stopped.provider.sent == ["kb/b.md"]
    assert f"note:                   kb/b.md ({SENT_AGAIN})" in out.splitlines(), out  # not only "Followed"
    result = json.loads(stopped.run("sync", "--no-disk", "--json")[0])
    assert result["provider"]["inFlightNotes"] == []  # said once, when it was sent again
    assert render_status(stopped.host.status()).count("Interrupted:") == 0  # sent: LightRAG indexes it now


def test_an_unchanged_ingest_lists_a_file_sent_again_not_one_that_simply_finished(stopped: KB) -> None:
    """A capped ingest's next call lists what it sends (and a file sent again), not every earlier file that finished
    meanwhile: the bare-clone CI of 5f2d90e saw a third capped call list six files, three only 'processed'."""
    stopped.run("ingest", "kb")  # both submitted; kb/a.md finishes, kb/b.md was stopped in the middle
    report = stopped.host.ingest(["kb"])
    assert {i.source_path: i.status for i in report.items} == {"kb/a.md": "already_registered",
                                                               "kb/b.md": "processing"}
    assert stopped.host.registry().entries["kb/a.md"].status == "processed"  # what the look learned is kept
