"""What ``ingest`` prints as it goes when its stderr is piped (a log, CI, a shell's pane)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from mnote_kr.cli.reports import progress_writer


def test_piped_progress_says_each_file_count_and_each_tenth_of_a_step(monkeypatch: pytest.MonkeyPatch) -> None:
    err = io.StringIO()  # not a terminal
    monkeypatch.setattr("sys.stderr", err)
    write = progress_writer(clock=lambda: 0.0)  # all at one moment: only what must be said is
    write("prepared docs/a.pdf for locating")  # no count, and not yet STEP_EVERY_S of silence: a command that
    write("prepared docs/b.pdf for locating")  # fails at once says its one error line alone (and a line per
    write("sent 2/2 files (4.0 files/s)")  # file would flood a log)
    for done in range(0, 401, 8):  # the embedding step reports every batch
        write(f"embedding places: {done}/400 paragraphs")
    write("embedding places: 0/20 paragraphs")  # a second ingest's step starts again
    write("embedding places: 20/20 paragraphs")
    lines = err.getvalue().splitlines()
    assert lines[:1] == ["sent 2/2 files (4.0 files/s)"]
    steps = [int(line.split(": ")[1].split("/")[0]) for line in lines[1:]]
    # the start, the first report of each tenth, the end; then the next step whole
    assert steps == [0, 40, 80, 120, 160, 200, 240, 280, 320, 360, 400, 0, 20]


def test_piped_a_slow_step_is_said_again_while_it_goes_on_its_count_moving_or_not(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A newcomer's 5,578 paragraphs showed "0/5578" and nothing more for minutes, and a scanned PDF's second
    page said nothing for 37 s (its OCR heartbeat's count stood at 1/2): piped, a step's line is printed once
    ``STEP_EVERY_S`` passed since the last line printed, its count moving or standing (the line says the time);
    sooner, only its start, a new tenth or its end."""
    from mnote_kr.cli.reports import STEP_EVERY_S

    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    now = [0.0]
    write = progress_writer(clock=lambda: now[0])
    for done in (0, 50, 100, 100, 100, 150, 200):  # each batch 2 s apart, all within the first tenth
        write(f"embedding places: {done}/5578 paragraphs; {now[0]:.0f} s so far")
        now[0] += 2
    assert STEP_EVERY_S <= 4
    assert err.getvalue().splitlines() == ["embedding places: 0/5578 paragraphs; 0 s so far",
                                           "embedding places: 100/5578 paragraphs; 4 s so far",
                                           "embedding places: 100/5578 paragraphs; 8 s so far",
                                           "embedding places: 200/5578 paragraphs; 12 s so far"]


def test_piped_a_line_without_a_count_is_said_when_nothing_was_for_a_while(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the work does now ("starting ...", "hashed big.pdf") reaches a log when it has been silent for
    ``STEP_EVERY_S``, never more often: hashing 1,000 files says a line every few seconds, not 1,000."""
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    now = [0.0]
    write = progress_writer(clock=lambda: now[0])
    write("sent 1/2 files (1 s so far)")
    for k in range(10):
        now[0] += 1
        write(f"hashed docs/f{k}.pdf")
    assert err.getvalue().splitlines() == ["sent 1/2 files (1 s so far)", "hashed docs/f3.pdf", "hashed docs/f7.pdf"]


def test_a_wait_line_is_printed_piped_and_cut_to_the_terminal_on_one(monkeypatch: pytest.MonkeyPatch) -> None:
    line = ("waiting for 9 file(s) to be indexed; indexed 6/15 files; 1m 05s so far; indexing now: handbook.docx "
            "(processing for 52 s: extracting entities, chunk 120 of 500); still waiting: a.pdf, b.pdf, c.md "
            "and 5 more")
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    progress_writer()(line)
    assert err.getvalue() == line + "\n"

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty = Tty()
    monkeypatch.setattr("sys.stderr", tty)
    monkeypatch.setattr("shutil.get_terminal_size", lambda fallback=(0, 0): __import__("os").terminal_size((200, 50)))
    progress_writer()(line)
    # 199 columns (the last left free): the 23 of the bar, then 175 of the line and "…" where it is cut
    assert tty.getvalue() == "\r\033[K[########............] " + line[:175] + "…"
    assert "handbook.docx" in tty.getvalue()  # the old 100-character cut lost the file's name


def test_a_few_files_count_without_a_rate(monkeypatch: pytest.MonkeyPatch) -> None:
    """'sent 1/1 files (0.0 files/s)' after one scan's 45 s of OCR said nothing true; from 20 files a rate means
    something (checking and sending are the same small work per file)."""
    from mnote_kr.app import host_ingest

    clock = iter([100.0, 145.0, 100.0, 110.0])
    monkeypatch.setattr(host_ingest.time, "monotonic", lambda: next(clock))
    few = host_ingest._count_line("sent", 1, 1, next(clock))
    assert few.startswith("sent 1/1 files (") and "files/s" not in few, few
    many = host_ingest._count_line("sent", 400, 1000, next(clock))
    assert "40.0 files/s" in many, many


def test_every_long_steps_heartbeat_is_at_most_5_s_apart_and_reaches_a_piped_log() -> None:
    """nc18a: ``ingest --wait`` printed nothing for 53 s but OCR lines, and later stood 20 s between lines.
    Each step that can run long says its line again while it runs: OCR of a page, a batch of embedding, a round
    of the wait for LightRAG, each at most 5 s apart, and no sooner than the writer's gate (``STEP_EVERY_S``),
    which would drop a heartbeat coming sooner than that after the line before."""
    from mnote_kr_ocr import scan

    from mnote_kr.app import host_ingest, waitprogress
    from mnote_kr.citations.rank import meaning
    from mnote_kr.cli.reports import STEP_EVERY_S

    for beat in (scan.HEARTBEAT_S, meaning.EMBED_HEARTBEAT_S, waitprogress.HEARTBEAT_S):
        assert STEP_EVERY_S < beat <= 5.0
    assert host_ingest.WAIT_ROUND_S <= waitprogress.HEARTBEAT_S  # a round ends before the next line is due


class _Terminal(io.StringIO):
    """stdout and stderr of one terminal: one stream, as a person sees them."""

    def isatty(self) -> bool:
        return True


def _columns(text: str) -> int:
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


#: What a search LightRAG holds says every few seconds (``searchwait.waiting_line``), about a CJK file's name.
WAITING = ("waiting for LightRAG to store kb/质量管理体系文件汇编（第三版）.docx's chunks (indexing 3 files: "
           "kb/质量管理体系文件汇编（第三版）.docx (for 2m 05s, file 1 of 3)); searches wait meanwhile: {} so far, "
           "at most 2m 30s")


def test_a_terminals_waiting_line_rewrites_itself_in_its_width_and_ends_before_the_results(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """nc22b: on a terminal the waiting line was cut off and the results ran into it. Each line rewrites the one
    before it from the line's start, cleared to its end, never wider than the terminal (CJK counted twice: a
    wrapped line leaves its first rows behind), and the search ends it with a newline before its results."""
    from os import terminal_size

    from mnote_kr.cli import reports

    term = _Terminal()
    monkeypatch.setattr("sys.stderr", term)
    monkeypatch.setattr("shutil.get_terminal_size", lambda fallback=(0, 0): terminal_size((100, 40)))
    write = progress_writer()
    for waited in ("5 s", "10 s", "15 s"):
        write(WAITING.format(waited))
    host = type("Host", (), {"progress": write})()
    reports.end_progress(host)
    term.write("1. kb/质量管理体系文件汇编（第三版）.docx\n")  # the results, on the same terminal
    out = term.getvalue()
    drawn, results = out.split("\n", 1)
    assert results == "1. kb/质量管理体系文件汇编（第三版）.docx\n"  # a line of its own
    frames = drawn.split("\r\033[K")
    assert frames[0] == "" and len(frames) == 4, frames
    for frame in frames[1:]:
        assert frame.startswith("waiting for LightRAG to store kb/质量"), frame  # no empty bar before it
        assert _columns(frame) <= 99, (_columns(frame), frame)
        assert frame.endswith("…")  # cut, and it shows
    reports.end_progress(host)
    assert term.getvalue() == out  # ended once: no blank line more


def test_a_piped_waiting_line_is_whole_and_ending_adds_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    from mnote_kr.cli import reports

    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    now = [0.0]
    write = progress_writer(clock=lambda: now[0])
    for waited in ("5 s", "10 s", "15 s"):
        now[0] += 5
        write(WAITING.format(waited))
    reports.end_progress(type("Host", (), {"progress": write})())
    assert err.getvalue() == "".join(WAITING.format(w) + "\n" for w in ("5 s", "10 s", "15 s"))


def test_a_search_that_fails_while_waiting_ends_the_terminals_line_before_its_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    from mnote_kr.cli import reports
    from mnote_kr.errors import ProviderError

    term = _Terminal()
    monkeypatch.setattr("sys.stderr", term)
    write = progress_writer()

    def search(*args: object, **kwargs: object) -> None:
        write(WAITING.format("2m 30s"))
        raise ProviderError("LightRAG is indexing ...; this one got no answer in 2m 30s")

    workspace = SimpleNamespace(resolve=lambda p: p, root=Path.cwd())
    host = SimpleNamespace(progress=write, search=search, workspace=workspace,
                           registry=lambda: SimpleNamespace(roots={"": object()}, entries={}),
                           plugins=SimpleNamespace(unsaid_failures=lambda: []))
    ctx = reports.Ctx(None)
    ctx._host = host
    with pytest.raises(ProviderError):
        reports.search_report(ctx, False, query="quality manual", scope=(), top_k=5, mode="mix", rerank=None)
    assert term.getvalue().startswith("\r\033[Kwaiting for LightRAG") and term.getvalue().endswith("\n")


def test_piped_the_waits_last_line_naming_a_failed_file_is_printed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The wait's last line says "indexed 11 of 12 files ...; 1 failed: ..." when a file failed (nc24a): it is
    a file count as "11/12 files" is, so a piped log gets it at once and a terminal's bar stands at 11 of 12."""
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    write = progress_writer(clock=lambda: 0.0)
    write("sent 12/12 files (4.0 files/s)")
    last = "indexed 11 of 12 files in 1m 55s; 1 failed: poi.docx"
    write(last)
    assert err.getvalue().splitlines() == ["sent 12/12 files (4.0 files/s)", last]


def test_the_readme_says_how_often_progress_is_printed_as_the_code_does() -> None:
    """The README promised piped progress "at least every 20 s" while the writer's gate is ``STEP_EVERY_S``
    (3.5 s) and every long step says its line again every 4 s: each "every N s" of its progress paragraphs
    is the heartbeat the code keeps, which the writer lets through."""
    import pathlib
    import re

    from mnote_kr.app import waitprogress
    from mnote_kr.citations.rank import meaning
    from mnote_kr.cli.reports import STEP_EVERY_S

    readme = (pathlib.Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    start = readme.index("While it waits (`ingest --wait`")
    said = re.findall(r"every (\d+(?:\.\d+)?) s\b", readme[start:readme.index("Large libraries:", start)])
    assert len(said) == 2, said  # the wait's lines, and the meaning step's piped
    assert {float(n) for n in said} == {waitprogress.HEARTBEAT_S} == {meaning.EMBED_HEARTBEAT_S}
    assert STEP_EVERY_S < waitprogress.HEARTBEAT_S
