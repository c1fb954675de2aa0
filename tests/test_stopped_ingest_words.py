"""An ingest --wait whose engine the user stopped ('mnote-kr engine stop') says so of the files it did not index.

nc28c surprise 3: after a deliberate stop, the queued files read "not indexed kb/x (processing when the provider
stopped answering)" and the counts "processing: 14", as if the engine had failed and were still at work. A stop the
user asked for (``ProviderStoppedError``, which the LightRAG plugin's ``EngineStoppedError`` is) names the stop and
what resumes the files; a provider that stopped answering on its own keeps its words."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from mnote_kr_testkit.fakes import FakeProvider

from mnote_kr import hookimpl
from mnote_kr.context import ProviderContext
from mnote_kr.errors import ProviderError, ProviderStoppedError
from mnote_kr.models import EntryUpdate, SourceEntry
from tests.surfaces import KB, cli_kb

STOPPED = "The managed LightRAG engine was stopped ('mnote-kr engine stop' at 15:21:39) while this work was under way"


class StoppedMidWait(FakeProvider):
    """Indexes kb/a.md at the first look of a wait; then the user stops the engine: every later call says so."""

    def __init__(self, error: type[ProviderError]) -> None:
        super().__init__(ingest_status="submitted")
        self.looks = 0
        self.error = error

    @hookimpl
    def sync(self, ctx: ProviderContext, entries: list[SourceEntry], wait_s: float) -> list[EntryUpdate]:
        self.looks += 1
        if self.looks > 1:
            raise self.error(STOPPED, hint="start it with 'mnote-kr engine start'")
        return [EntryUpdate(source_root_relative_path=e.source_root_relative_path, status="processed")
                for e in entries if e.source_root_relative_path == "kb/a.md"]


@pytest.fixture
def stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Iterator[KB]:
    yield cli_kb(tmp_path, monkeypatch, capsys, StoppedMidWait(ProviderStoppedError))


@pytest.fixture
def lost(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Iterator[KB]:
    yield cli_kb(tmp_path, monkeypatch, capsys, StoppedMidWait(ProviderError))


def test_files_an_engine_stop_left_say_it_was_stopped_and_what_resumes_them(stopped: KB) -> None:
    out, err = stopped.run("ingest", "kb", "--wait", "--timeout", "30", code=1)
    lines = out.splitlines()
    [line] = [line for line in lines if "kb/b.md" in line]
    assert line.startswith("not indexed") and "stopped answering" not in line, line
    assert "when the engine was stopped ('mnote-kr engine stop')" in line, line
    assert "'mnote-kr sync' or 'mnote-kr ingest' resumes it" in line, line
    counts = lines[lines.index(line) + 1]
    assert counts == "processed: 1, not indexed: 1", out  # no "submitted: 1": nothing works on it
    assert err.splitlines()[-1].startswith(f"Error: {STOPPED}"), err


def test_its_json_report_says_the_engine_was_stopped(stopped: KB) -> None:
    out, _ = stopped.run("ingest", "kb", "--wait", "--timeout", "30", "--json", code=1)
    report = json.loads(out)
    assert report["providerError"] == STOPPED and report["providerStopped"] is True
    assert {i["sourcePath"]: i["status"] for i in report["items"]} == {"kb/a.md": "processed", "kb/b.md": "submitted"}


def test_a_provider_lost_on_its_own_keeps_its_words(lost: KB) -> None:
    out, _ = lost.run("ingest", "kb", "--wait", "--timeout", "30", code=1)
    [line] = [line for line in out.splitlines() if "kb/b.md" in line]
    assert line.endswith("(submitted when the provider stopped answering)"), line


def test_the_lightrag_engine_stop_is_a_stop_the_user_asked_for() -> None:
    from mnote_kr_lightrag.client.http import EngineNotRunningError, EngineStoppedError

    error = EngineStoppedError({"at": 0.0, "startedAt": 1.0}, "this work")
    assert isinstance(error, ProviderStoppedError) and isinstance(error, EngineNotRunningError)
    assert error.code == "provider"  # the HTTP API and MCP answer it as before


def test_the_words_only_line_of_a_stopped_wait_does_not_blame_a_missing_wait() -> None:
    """Seen on the real engine: after 'engine stop' cut an 'ingest --wait', the report said the places were left to
    sync because "ingest does only with --wait", which this one had."""
    from mnote_kr.citations.render.synctext import render_ingest
    from mnote_kr.models import IngestItem, IngestReport, WordsOnlyFiles

    words = WordsOnlyFiles(count=1, paths=["kb/b.md"], command="mnote-kr sync")
    item = IngestItem(source_path="kb/b.md", status="submitted")
    stopped = IngestReport(items=[item], words_only=words, provider_error=STOPPED, provider_stopped=True)
    # a file sent and not indexed yet is placed by nothing: the line does not say "by words only" of it (nc29b)
    assert "placed by words only" not in render_ingest(stopped)
    [line] = [x for x in render_ingest(stopped).splitlines() if "not placed by meaning yet" in x]
    assert "with --wait" not in line and "the wait ended before its placing step" in line, line
    plain = IngestReport(items=[item], words_only=words)
    assert "(ingest does only with --wait)" in render_ingest(plain)
