"""Progress lines a newcomer read wrong (nc30a): the two steps of ``ingest --wait`` in one garbled sentence ("step 2
of 2, placing by meaning, then embeds their paragraphs"), and ``sent 0/1 files (1 queued, not sent)`` read as a
failure in the watch log while the file was sent a second later."""

from __future__ import annotations

import re

from mnote_kr.app.host_ingest import _count_line
from mnote_kr.app.waitprogress import PLACING_NOTE, steps_note


def test_the_steps_note_names_each_step_in_its_own_sentence_with_who_does_it() -> None:
    text = str(steps_note(11))
    assert text.startswith("note: step 1 of 2: LightRAG indexes the 11 file(s)")
    one, two = re.split(r"(?<=\.) (?=Step 2 of 2)", text)
    assert "citable by words as soon as" in one and "placing by meaning" not in one
    assert two.startswith("Step 2 of 2, placing by meaning: mnote-kr embeds their paragraphs")
    assert ", then embeds" not in text  # the garbled clause
    assert steps_note(11).detail == {"step": "plan", "steps": ["wait", "embed"], "files": 11}
    assert str(PLACING_NOTE).startswith("note: step 2 of 2: placing by meaning")  # the later note names the same step


def test_a_file_left_queued_by_a_busy_lightrag_reads_as_waiting_not_failed() -> None:
    line = _count_line("sent", 0, 1, 0.0, queued=1)
    assert re.match(r"sent 0/1 files \(1 queued until LightRAG is free, then sent; ", line), line
    assert "not sent" not in line
    assert "queued" not in _count_line("sent", 1, 1, 0.0)
