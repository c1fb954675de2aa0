"""What ``ingest --wait`` and ``sync --wait`` say when the wait ends before the provider does
(a newcomer's first ingest of 18 files ended "processed: 17, processing: 1", exit 0, with no word
of the timeout once stderr was piped). The commands run in process (``main``) on a host whose
provider never finishes a document; the sources are checked byte for byte after every command."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import write

from mnote_kr import hookimpl
from mnote_kr.app.host import Host
from mnote_kr.cli.reports import Ctx, progress_writer
from mnote_kr.context import ProviderContext
from mnote_kr.models import EntryUpdate, ProviderActivity, SourceEntry
from tests.surfaces import KB, cli_kb


class Stuck(FakeProvider):
    """Takes every document and never finishes one: LightRAG still indexing when the wait ends."""

    def __init__(self) -> None:
        super().__init__(ingest_status="submitted")

    @hookimpl
    def sync(self, ctx: ProviderContext, entries: list[SourceEntry], wait_s: float) -> list[EntryUpdate]:
        self.calls.append("sync")
        return []


@pytest.fixture
def stuck(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Iterator[KB]:
    yield cli_kb(tmp_path, monkeypatch, capsys, Stuck())


@pytest.fixture
def prompt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Iterator[KB]:
    yield cli_kb(tmp_path, monkeypatch, capsys, FakeProvider(ingest_status="submitted"))


def _one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), err
    return lines[0]


def test_ingest_wait_that_times_out_says_so_in_one_line_and_exits_1(stuck: KB) -> None:
    out, err = stuck.run("ingest", "kb", "--wait", "--timeout", "0.2", code=1)
    assert "submitted: 2" in out  # the report is out first
    line = _one_error_line(err)
    assert "0.2 s" in line and "2 file(s) still being indexed" in line and "kb/a.md" in line, line
    assert "'mnote-kr sync --wait" in line, line  # what follows them

    report = json.loads(stuck.run("ingest", "kb", "--force", "--wait", "--timeout", "0.2", "--json", code=1)[0])
    assert report["waitTimedOut"] == {"seconds": 0.2, "stillWaiting": ["kb/a.md", "kb/b.md"]}


def test_ingest_wait_that_ends_in_time_says_nothing_of_a_timeout(prompt: KB) -> None:
    report = json.loads(prompt.run("ingest", "kb", "--wait", "--timeout", "30", "--json")[0])
    assert report["counts"] == {"processed": 2} and report["waitTimedOut"] is None
    assert json.loads(prompt.run("ingest", "kb", "--json")[0])["waitTimedOut"] is None  # no wait asked


def test_sync_wait_that_times_out_exits_1_like_ingest_and_a_plain_sync_does_not(stuck: KB) -> None:
    stuck.run("ingest", "kb")  # sent; no wait asked, none timed out
    out, err = stuck.run("sync", "--no-disk")  # no wait asked: what is in flight is no failure
    assert err == "" and "2 being indexed" in out  # said in words (sync's report), no error
    out, err = stuck.run("sync", "--no-disk", "--wait", "0.2", code=1)
    line = _one_error_line(err)
    assert "0.2 s" in line and "2 file(s) still being indexed" in line and "kb/a.md" in line, line
    result = json.loads(stuck.run("sync", "--no-disk", "--wait", "0.2", "--json", code=1)[0])
    assert result["provider"]["waitTimedOut"] == {"seconds": 0.2, "stillWaiting": ["kb/a.md", "kb/b.md"]}


def test_piped_progress_keeps_the_notes_it_would_drop_as_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    err = io.StringIO()  # not a terminal
    monkeypatch.setattr("sys.stderr", err)
    write_line = progress_writer(clock=lambda: 0.0)
    write_line("sent 1/1 files (0 s so far)")
    write_line("hashed kb/a.md")  # right after a line: dropped (said only after a few silent seconds)
    write_line("note: the wait ended after 2 s; embedding places goes on")
    assert err.getvalue().splitlines() == ["sent 1/1 files (0 s so far)",
                                           "note: the wait ended after 2 s; embedding places goes on"]


def test_embedding_after_a_timed_out_wait_says_it_runs_and_why(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from mnote_kr.citations.rank import meaning

    ws = tmp_path / "ws"
    write(ws / "kb" / "a.md", "# A\n\nThe amber lamp glows.\n")
    lines: list[str] = []

    def embed(progress: Any) -> int:  # noqa: ANN401 - the step as ingest runs it, without the model
        progress("embedding places: 0/3 paragraphs")
        progress("embedding places: 3/3 paragraphs")
        return 1

    monkeypatch.setattr(meaning, "embed_queued", embed)
    host, _ = fake_host(ws, Stuck())
    host.progress = lines.append
    report = host.ingest(["kb"], wait=True, wait_s=0.1)
    assert report.wait_timed_out is not None and report.wait_timed_out.still_waiting == ["kb/a.md"]
    step = lines.index("embedding places: 0/3 paragraphs")
    notes = [line for line in lines[:step] if line.startswith("note: ")]
    assert len(notes) == 2 and notes[0].startswith("note: step 1 of 2: "), lines  # both steps named up front
    # then one note as the second begins: the wait is over, this step is not bounded by it
    assert notes[1].startswith("note: step 2 of 2: placing by meaning: the wait is over (no progress for 0.1 s)"), notes
    assert "not bounded by the wait" in notes[1] and "by words" in notes[1], notes


class FailsLater(FakeProvider):
    """Takes every document, then reports it failed when followed (LightRAG could not parse it)."""

    def __init__(self) -> None:
        super().__init__(ingest_status="submitted")

    @hookimpl
    def sync(self, ctx: ProviderContext, entries: list[SourceEntry], wait_s: float) -> list[EntryUpdate]:
        followed = [e for e in entries if e.status in ("submitted", "processing")]
        rest = FakeProvider.sync(self, ctx, [e for e in entries if e not in followed], wait_s)  # deletes
        return rest + [EntryUpdate(source_root_relative_path=e.source_root_relative_path, status="failed",
                                   last_error="LightRAG could not parse it") for e in followed]


def test_ingest_wait_follows_a_file_an_earlier_ingest_sent_and_says_how_it_ended(prompt: KB) -> None:
    prompt.run("ingest", "kb")  # sent, not waited for: both stay submitted
    assert {e.status for e in prompt.host.registry().entries.values()} == {"submitted"}
    report = json.loads(prompt.run("ingest", "kb", "--wait", "--json")[0])
    assert "sync" in prompt.provider.calls  # followed, not only looked up
    assert {i["sourcePath"]: i["status"] for i in report["items"]} == {"kb/a.md": "processed", "kb/b.md": "processed"}
    assert report["counts"] == {"processed": 2} and report["waitTimedOut"] is None
    assert prompt.provider.ingested == ["kb/a.md", "kb/b.md"]  # unchanged: never sent twice
    # indexed now: a third ingest has nothing to follow
    again = json.loads(prompt.run("ingest", "kb", "--wait", "--json")[0])
    assert again["counts"] == {"already_registered": 2}


def test_ingest_wait_of_a_file_sent_earlier_that_fails_exits_1_with_its_reason(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    kb = cli_kb(tmp_path, monkeypatch, capsys, FailsLater())
    kb.run("ingest", "kb/a.md")
    out, err = kb.run("ingest", "kb/a.md", "--wait", code=1)
    assert "failed             kb/a.md (LightRAG could not parse it)" in out, out
    line = _one_error_line(err)
    assert "1 of 1 file(s) failed to index: kb/a.md, its reason above" in line, line  # said once, in the report


def test_ingest_wait_says_a_failed_files_reason_once_and_exits_1(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A broken DOCX's reason was said three times by one ``ingest --wait`` (nc29b): its report line, the wait's
    last line and the Error line. Now the report line says it; the wait's last line and the Error line name
    the file only. With ``--json`` (no progress, the report is data) the Error line keeps it."""
    kb = cli_kb(tmp_path, monkeypatch, capsys, FailsLater())
    lines: list[str] = []
    kb.host.progress = lambda line: lines.append(str(line))
    out, err = kb.run("ingest", "kb/a.md", "--wait", code=1)
    said = "\n".join([out, *lines, err])
    assert said.count("LightRAG could not parse it") == 1, said
    assert "failed             kb/a.md (LightRAG could not parse it)" in out, out
    [last] = [x for x in lines if x.startswith("indexed ")]
    assert last.startswith("indexed 0 of 1 files in ") and last.endswith("; 1 failed: kb/a.md"), lines
    line = _one_error_line(err)
    assert line.startswith("Error: 1 of 1 file(s) failed to index: kb/a.md, its reason above ("), line

    _, err = kb.run("ingest", "kb/a.md", "--wait", "--json", code=1)
    assert _one_error_line(err).startswith(
        "Error: 1 of 1 file(s) failed to index: kb/a.md: LightRAG could not parse it ("), err


def test_sync_wait_does_not_count_a_file_that_failed_as_indexed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``sync --wait`` following a file the provider then failed ended "indexed 1/1 files in 3 s" above its Error
    line (tests/test_docx_fallback.py's run); now its last line says it failed, as ``ingest --wait``'s does."""
    kb = cli_kb(tmp_path, monkeypatch, capsys, FailsLater())
    kb.run("ingest", "kb/a.md")  # sent, not waited for
    lines: list[str] = []
    kb.host.progress = lambda line: lines.append(str(line))
    _, err = kb.run("sync", "--no-disk", "--wait", "5", code=1)
    [last] = [x for x in lines if x.startswith("indexed ")]
    assert last.startswith("indexed 0 of 1 files in ") and last.endswith("; 1 failed: kb/a.md"), lines
    assert _one_error_line(err).startswith("Error: 1 file(s) failed to index: kb/a.md, its reason above"), err


def test_ingest_wait_of_a_file_sent_earlier_that_is_still_indexing_times_out(stuck: KB) -> None:
    stuck.run("ingest", "kb")
    out, err = stuck.run("ingest", "kb", "--wait", "--timeout", "0.2", code=1)
    assert "already_registered" not in out and "submitted: 2" in out, out
    assert "2 file(s) still being indexed" in _one_error_line(err)


def test_sync_names_a_file_still_failing_since_an_earlier_run_and_exits_0_for_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A second ``sync`` exited 0 while broken.pdf was still failed and said nothing; then it exited 1 on
    every run while the file sat unchanged in a root, so a shell polling sync could not tell "all is well" from
    a new failure (nc26c). Now it names the file as still failing, unchanged since, not sent again, and exits 0:
    only a new failure exits 1 (tests/test_shell_counts.py)."""
    kb = cli_kb(tmp_path, monkeypatch, capsys, FailsLater())
    kb.run("ingest", "kb/a.md", "--wait", code=1)
    out, err = kb.run("sync")  # nothing new failed in this run; a.md still is
    assert err == ""
    assert "still failing:          kb/a.md (LightRAG could not parse it; unchanged since " in out, out
    assert "'mnote-kr ingest kb/a.md' retries it" in out, out  # what tries an unchanged file again
    result = json.loads(kb.run("sync", "--json")[0])
    assert result["provider"]["failed"] == []  # this run's failures, as before
    entry = kb.host.registry().entries["kb/a.md"]
    assert result["provider"]["stillFailed"] == [{"path": "kb/a.md", "reason": "LightRAG could not parse it",
                                                  "unchangedSinceMs": entry.mtime_ns // 1_000_000}]

    (kb.ws / "kb" / "a.md").unlink()  # gone: its record is stale, nothing failed remains
    out, err = kb.run("sync")
    assert err == "" and "still failing" not in out


def test_sync_names_this_runs_failure_first_and_counts_the_earlier_ones_after() -> None:
    from mnote_kr.cli.outcome import sync_outcome

    result = {"provider": {"failed": [{"path": "c.docx", "reason": "damaged"}],
                           "stillFailed": [{"path": "a.pdf", "reason": "no text"}, {"path": "b.docx", "reason": "x"}],
                           "waitTimedOut": None}}
    problem = sync_outcome(result, listed=True)  # the text report above says why: not again
    assert problem is not None and problem.message == (
        "1 file(s) failed to index: c.docx, its reason above; 2 more still failed since an earlier run")
    problem = sync_outcome(result, listed=False)  # --json: the one line a person reads says it
    assert problem is not None and problem.message.startswith("1 file(s) failed to index: c.docx: damaged; ")
    result["provider"]["waitTimedOut"] = {"seconds": 30.0, "stillWaiting": ["d.md"]}
    problem = sync_outcome(result, listed=True)
    assert problem is not None and problem.message.endswith(
        "; the wait ended after 30 s in which LightRAG reported no progress, with 1 file(s) still being indexed: d.md")
    assert "follows the others" in str(problem.hint)


def test_ingest_wait_prepares_a_followed_file_for_locating_and_ranking_by_its_path_here(
        prompt: KB, monkeypatch: pytest.MonkeyPatch) -> None:
    prompt.run("ingest", "kb")  # its places were queued in that process, which never embedded them
    prepared: list[str] = []
    monkeypatch.setattr(prompt.host.plugins, "prepare_locate", lambda path: prepared.append(path) or False)
    prompt.run("ingest", "kb", "--wait")
    assert sorted(prepared) == [str(prompt.ws / "kb" / "a.md"), str(prompt.ws / "kb" / "b.md")]


class OneAtATime(FakeProvider):
    """Takes every document and finishes one per look, telling what it does with the next (LightRAG
    working through its queue)."""

    def __init__(self) -> None:
        super().__init__(ingest_status="submitted")

    @hookimpl
    def sync(self, ctx: ProviderContext, entries: list[SourceEntry], wait_s: float) -> list[EntryUpdate]:
        self.calls.append(f"sync {len(entries)}")
        followed = sorted((e for e in entries if e.status in ("submitted", "processing")),
                          key=lambda e: e.source_root_relative_path)
        out = [EntryUpdate(source_root_relative_path=e.source_root_relative_path, status="processed")
               for e in followed[:1]]
        return out + [EntryUpdate(source_root_relative_path=e.source_root_relative_path, status="processing",
                                  activity=ProviderActivity(stage="processing", step="extracting entities"))
                      for e in followed[1:]]


def test_sync_wait_says_its_progress_on_stderr_as_ingest_wait_does_and_json_stays_clean(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``sync --wait 300`` was silent until the end, however long LightRAG took, where ``ingest --wait``
    says what it waits for: the same lines now (piped: a plain line each), the report on stdout."""
    kb = cli_kb(tmp_path, monkeypatch, capsys, OneAtATime())
    monkeypatch.setattr(Ctx, "host", lambda self, progress=False: _with_progress(kb.host, progress))
    kb.run("ingest", "kb")  # sent, not waited for: both being indexed
    out, err = kb.run("sync", "--no-disk", "--wait", "30")
    waits = [line for line in err.splitlines() if line.startswith(("waiting for", "indexed "))]
    assert waits[0].startswith("waiting for 2 file(s) to be indexed; indexed 0/2 files; "), err
    assert any(line.startswith("waiting for 1 file(s) to be indexed; indexed 1/2 files; ") and
               "indexing now: kb/b.md (processing for " in line and "extracting entities" in line
               for line in waits), err
    assert waits[-1].startswith("indexed 2/2 files in "), err
    assert "waiting" not in out and "indexed" in out  # the report, as before
    assert {e.status for e in kb.host.registry().entries.values()} == {"processed"}

    kb.run("ingest", "kb", "--force")
    out, err = kb.run("sync", "--no-disk", "--wait", "30", "--json")
    assert err == ""  # as ingest --json: no progress
    result = json.loads(out)  # one JSON document, nothing else on stdout
    assert result["provider"]["after"] == {"processed": 2} and result["provider"]["waitTimedOut"] is None


def _quiet(line: str) -> None:
    pass


def _with_progress(host: Host, progress: bool) -> Host:
    """The test's host, with the progress writer the CLI asked for (as ``Ctx.host`` builds it)."""
    host.progress = progress_writer() if progress else _quiet
    return host
