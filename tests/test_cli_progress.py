"""What ``ingest`` prints as it goes when its stderr is piped (a log, CI, a shell's pane)."""

from __future__ import annotations

import io

import pytest

from mnote_kr.cli.reports import progress_writer


def test_piped_progress_says_each_file_count_and_each_tenth_of_a_step(monkeypatch: pytest.MonkeyPatch) -> None:
    err = io.StringIO()  # not a terminal
    monkeypatch.setattr("sys.stderr", err)
    write = progress_writer()
    write("prepared docs/a.pdf for locating")  # no count: a line per file would flood a log
    write("sent 2/2 files (4.0 files/s)")
    for done in range(0, 401, 8):  # the embedding step reports every batch
        write(f"embedding places: {done}/400 paragraphs")
    write("embedding places: 0/20 paragraphs")  # a second ingest's step starts again
    write("embedding places: 20/20 paragraphs")
    lines = err.getvalue().splitlines()
    assert lines[0] == "sent 2/2 files (4.0 files/s)"
    steps = [int(line.split(": ")[1].split("/")[0]) for line in lines[1:]]
    # the start, the first report of each tenth, the end; then the next step whole
    assert steps == [0, 40, 80, 120, 160, 200, 240, 280, 320, 360, 400, 0, 20]


def test_piped_a_slow_step_shows_its_count_moving_within_a_tenth(monkeypatch: pytest.MonkeyPatch) -> None:
    """A newcomer's 5,578 paragraphs showed "0/5578" and nothing more for minutes: piped, a step whose
    count moves is printed at least every 20 s (by an injected clock), a count standing still is not."""
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    now = [0.0]
    write = progress_writer(clock=lambda: now[0])
    for done in (0, 50, 100, 100, 100, 150, 200):  # each batch 12 s apart, all within the first tenth
        write(f"embedding places: {done}/5578 paragraphs; {now[0]:.0f} s so far")
        now[0] += 12
    assert err.getvalue().splitlines() == ["embedding places: 0/5578 paragraphs; 0 s so far",
                                           "embedding places: 100/5578 paragraphs; 24 s so far",
                                           "embedding places: 150/5578 paragraphs; 60 s so far"]


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
    assert tty.getvalue() == "\r\033[K[########............] " + line[:176]
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
