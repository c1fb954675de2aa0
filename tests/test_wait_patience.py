"""``ingest --wait --timeout S`` and ``sync --wait S`` bound the time without progress, not the whole wait
(nc25c: the README's ``ingest . --wait`` exited 1 after 300 s with 6 of 14 files left while LightRAG worked
through them steadily). Driven round by round on a fake clock: the provider's look advances it by the time
it was given and reports a scripted status sequence, one file moving chunk by chunk, one hung on a chunk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import digest_tree, write

from mnote_kr import hookimpl
from mnote_kr.cli.main import main
from mnote_kr.cli.reports import Ctx
from mnote_kr.context import ProviderContext
from mnote_kr.models import EntryUpdate, ProviderActivity, SourceEntry

#: The file that moves: one chunk more each look, done after this many looks.
CHUNKS = 30


class Clocked(FakeProvider):
    """A provider whose files were sent (``submitted``) and whose looks each cost a fake clock the seconds given."""

    def __init__(self) -> None:
        super().__init__(ingest_status="submitted")
        self.now = 1000.0
        self.looks = 0

    def clock(self) -> float:
        return self.now

    def look(self, wait_s: float) -> None:
        self.looks += 1
        self.now += wait_s


class Script(Clocked):
    """``kb/moving.md`` gains a chunk each look and is done after :data:`CHUNKS` looks; ``kb/hung.md`` stays on
    chunk 3 of 10 forever (a LightRAG stuck on it). Each look costs the fake clock the seconds it was given."""

    def __init__(self, *, hung_moves_after: int | None = None) -> None:
        super().__init__()
        self.hung_moves_after = hung_moves_after

    @hookimpl
    def sync(self, ctx: ProviderContext, entries: list[SourceEntry], wait_s: float) -> list[EntryUpdate]:
        self.look(wait_s)
        out = []
        for e in entries:
            rel = e.source_root_relative_path
            if rel == "kb/moving.md":
                if self.looks > CHUNKS:
                    out.append(EntryUpdate(source_root_relative_path=rel, status="processed"))
                    continue
                done = self.looks
            else:
                late = self.hung_moves_after is not None and self.looks > self.hung_moves_after
                done = 4 if late else 3
            act = ProviderActivity(stage="processing", step="extracting entities", chunks_done=done,
                                   chunks_total=CHUNKS if rel == "kb/moving.md" else 10)
            out.append(EntryUpdate(source_root_relative_path=rel, status="processing", activity=act))
        return out


def _host(tmp_path: Path, provider: Script) -> Any:  # noqa: ANN401
    ws = tmp_path / "ws"
    write(ws / "kb" / "moving.md", "# Moving\n\nThe amber lamp glows.\n")
    write(ws / "kb" / "hung.md", "# Hung\n\nThe blue door creaks.\n")
    host, _ = fake_host(ws, provider)
    host.wait_clock = provider.clock
    return host


def test_ingest_wait_goes_on_while_a_file_moves_and_ends_once_nothing_moved_for_the_timeout(
        tmp_path: Path) -> None:
    provider = Script()
    host = _host(tmp_path, provider)
    before = digest_tree(host.root)
    start = provider.now
    report = host.ingest(["kb"], wait=True, wait_s=12.0, embed=False)
    assert digest_tree(host.root) == before
    # the moving file took 30 looks of 4 s, far beyond the 12 s timeout, and was followed to the end
    assert host.registry().entries["kb/moving.md"].status == "processed"
    assert report.wait_timed_out is not None and report.wait_timed_out.still_waiting == ["kb/hung.md"]
    assert report.wait_timed_out.seconds == 12.0
    waited = provider.now - start
    # ended once 12 s passed after the last move (the moving file's end), not at 12 s and not never
    assert CHUNKS * 4 <= waited <= CHUNKS * 4 + 12 + 4, waited


def test_ingest_wait_of_a_file_hung_from_the_start_ends_after_the_timeout(tmp_path: Path) -> None:
    provider = Script()
    host = _host(tmp_path, provider)
    (host.root / "kb" / "moving.md").unlink()
    start = provider.now
    report = host.ingest(["kb"], wait=True, wait_s=12.0, embed=False)
    assert report.wait_timed_out is not None and report.wait_timed_out.still_waiting == ["kb/hung.md"]
    assert 12 <= provider.now - start <= 16, provider.now - start


def test_sync_wait_bounds_the_time_without_progress_and_the_api_the_whole_wait(tmp_path: Path) -> None:
    provider = Script(hung_moves_after=32)  # the hung file moves once, late: the bound starts again
    host = _host(tmp_path, provider)
    host.ingest(["kb"])  # sent; no wait
    start = provider.now
    result = host.sync(wait_s=12.0)
    assert result["waitTimedOut"] == {"seconds": 12.0, "stillWaiting": ["kb/hung.md"]}
    assert host.registry().entries["kb/moving.md"].status == "processed"
    # sync looks 5 s at a time: the moving file done at look 31 (155 s in), the hung one moved at look 33
    # (165 s in, within 12 s of that): the wait then went on for 12 s more
    assert 33 * 5 + 12 <= provider.now - start <= 33 * 5 + 12 + 5, provider.now - start

    again = Script()  # an HTTP or agent call answers within its seconds, progress or not
    host = _host(tmp_path / "api", again)
    host.ingest(["kb"])
    start = again.now
    result = host.sync(wait_s=12.0, wait_idle=False)
    assert sorted(result["waitTimedOut"]["stillWaiting"]) == ["kb/hung.md", "kb/moving.md"]
    assert again.now - start <= 12.0 + 1e-9


def test_cli_timeout_line_says_the_wait_ended_for_want_of_progress(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    provider = Script()
    host = _host(tmp_path, provider)
    monkeypatch.setattr(Ctx, "host", lambda self, progress=False: host)
    capsys.readouterr()
    assert main(["ingest", "kb", "--wait", "--timeout", "12"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("Error: "), err
    assert "12 s in which LightRAG reported no progress" in err[0], err
    assert "1 file(s) still being indexed: kb/hung.md" in err[0], err
    assert host.registry().entries["kb/moving.md"].status == "processed"


class Embedding(Clocked):
    """``kb/big.docx`` embedded in one long write (nc27b: LightRAG 1.5.7 embedding the 482 chunks of a handbook,
    its stage, step and chunk count unchanged for 5 minutes): only the provider's ``pulse`` moves, one model call
    done per look, until it is done after :data:`CHUNKS` looks; ``hung`` True: the pulse never moves either."""

    def __init__(self, *, hung: bool = False) -> None:
        super().__init__()
        self.hung = hung

    @hookimpl
    def sync(self, ctx: ProviderContext, entries: list[SourceEntry], wait_s: float) -> list[EntryUpdate]:
        self.look(wait_s)
        if self.looks > CHUNKS and not self.hung:
            return [EntryUpdate(source_root_relative_path=e.source_root_relative_path, status="processed")
                    for e in entries]
        pulse = "calls=7" if self.hung else f"calls={self.looks}"
        act = ProviderActivity(stage="processing", step="embedding 482 chunks", chunks_total=482, pulse=pulse)
        return [EntryUpdate(source_root_relative_path=e.source_root_relative_path, status="processing", activity=act)
                for e in entries]


@pytest.mark.parametrize("hung", [False, True])
def test_sync_wait_follows_a_file_whose_only_sign_of_work_is_the_providers_pulse(tmp_path: Path, hung: bool) -> None:
    provider = Embedding(hung=hung)
    ws = tmp_path / "ws"
    write(ws / "kb" / "big.docx.md", "# Big\n\nThe amber lamp glows.\n")
    host, _ = fake_host(ws, provider)
    host.wait_clock = provider.clock
    host.ingest(["kb"])  # sent; no wait
    start = provider.now
    result = host.sync(wait_s=12.0)
    if hung:  # nothing moves, not even the pulse: the bound ends the wait as before
        assert result["waitTimedOut"] == {"seconds": 12.0, "stillWaiting": ["kb/big.docx.md"]}
        assert 12 <= provider.now - start <= 12 + 5, provider.now - start
        return
    # 30 looks of 5 s, far beyond the 12 s bound: followed to the end, as LightRAG worked all along
    assert result.get("waitTimedOut") is None, result
    assert host.registry().entries["kb/big.docx.md"].status == "processed"
    assert provider.now - start >= CHUNKS * 5
