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
