"""The progress lines of ``ingest --wait`` while LightRAG works through a large file (a newcomer's 15
files, one an 8,152-paragraph handbook: 3 min 46 s of ~25 identical lines "waiting for 9 file(s) to
be indexed; indexed 6/15 files (0.1 files/s)", no file named). Decisions run on an injected clock;
what LightRAG does comes from recorded 1.5.7 payloads (a busy pipeline status and a processing row)."""

from __future__ import annotations

import copy
import json
from typing import Any

import msgspec
from mnote_kr_testkit.data import SAMPLES
from mnote_kr_testkit.replay import load_sample

from mnote_kr.app.waitprogress import ProgressText, WaitProgress, elapsed_text, names_text
from mnote_kr.models import ProviderActivity
from mnote_kr_lightrag.client.activity import activity_of, read_steps

SLOW = "doc-29180dd3ecf2bf30a508d79b25a5aad2"
WAITING = ["handbook.docx", "a.pdf", "b.pdf", "c.md", "d.md", "e.md", "f.md", "g.md", "h.md"]
START_S = 1795988960  # the recorded row's process_start_time


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def _handbook(chunks_done: int | None = None) -> ProviderActivity:
    """LightRAG's recorded busy pipeline and processing row (slow1.txt), as the handbook's."""
    pipeline = copy.deepcopy(load_sample(SAMPLES, "18_pipeline_status_busy_processing.json")[1])
    if chunks_done is not None:
        pipeline["history_messages"].append(f"Chunk {chunks_done} of 500 extracted 3 Ent + 1 Rel {SLOW}-chunk-001")
    rows = load_sample(SAMPLES, "19e_track_status_mid_processing.json")[1]["documents"]
    row = {**next(r for r in rows if r["id"] == SLOW), "chunks_count": 500}
    act = activity_of(row, read_steps(pipeline, {"slow1.txt": SLOW}))
    assert act is not None
    return act


def _view(clock: Clock) -> WaitProgress:
    # the wall clock: the wait began 10 s after LightRAG took the handbook up
    return WaitProgress(15, clock=clock, wall_ms=lambda: int((START_S + 10 + clock.t - 100.0) * 1000))


def test_a_line_names_the_file_lightrag_works_on_its_stage_time_and_step_and_the_files_waiting() -> None:
    clock = Clock()
    view = _view(clock)
    assert view.step(WAITING, {}) == ("waiting for 9 file(s) to be indexed; indexed 6/15 files; 0 s so far; "
                                      "waiting for LightRAG to list: handbook.docx, a.pdf, b.pdf and 6 more")
    clock.t += 5
    line = view.step(WAITING, {"handbook.docx": _handbook(chunks_done=120)})
    assert line == ("waiting for 9 file(s) to be indexed; indexed 6/15 files; 5 s so far; indexing now: "
                    "handbook.docx (processing for 15 s: extracting entities, chunk 120 of 500); "
                    "still waiting: a.pdf, b.pdf, c.md and 5 more")
    assert "files/s" not in line  # a rate that falls to 0.0 while the work goes on says nothing


def test_no_line_repeats_nothing_new_is_a_heartbeat_every_4_s_and_a_moving_count_every_4_s() -> None:
    """nc18a: a wait's log stood 20 s between lines, each saying only a later time. A line is said at least
    every ``HEARTBEAT_S`` (4 s: each round of the wait), never more often when nothing changed."""
    from mnote_kr.app import waitprogress

    assert waitprogress.HEARTBEAT_S == waitprogress.DETAIL_EVERY_S == 4.0
    clock = Clock()
    view = _view(clock)
    same = {"handbook.docx": _handbook(chunks_done=120)}
    printed: list[tuple[float, str]] = []
    for _ in range(45):  # 45 rounds of 1 s, the handbook's count still
        line = view.step(WAITING, same)
        if line is not None:
            printed.append((clock.t - 100.0, line))
        clock.t += 1
    times = [t for t, _ in printed]
    assert times == [float(t) for t in range(0, 45, 4)], times
    assert len({line for _, line in printed}) == len(printed)  # each says a later time
    assert printed[-1][1].startswith("waiting for 9 file(s) to be indexed; indexed 6/15 files; 44 s so far; ")
    assert "(processing for 54 s: extracting entities, chunk 120 of 500)" in printed[-1][1]
    # the chunk count moving is shown, but not every round
    view, clock.t = _view(clock), 100.0
    shown = []
    for i in range(10):
        line = view.step(WAITING, {"handbook.docx": _handbook(chunks_done=120 + 10 * i)})
        if line is not None:
            shown.append((clock.t - 100.0, line))
        clock.t += 1
    assert [t for t, _ in shown] == [0, 4, 8], shown
    assert "chunk 160 of 500" in shown[1][1] and "chunk 200 of 500" in shown[2][1]


def test_a_file_done_or_a_new_step_is_printed_at_once() -> None:
    clock = Clock()
    view = _view(clock)
    view.step(WAITING, {"handbook.docx": _handbook()})
    clock.t += 5
    line = view.step(WAITING[1:], {})  # the handbook indexed: 7/15, and the names move up
    assert line is not None and "indexed 7/15 files" in line and line.endswith("a.pdf, b.pdf, c.md and 5 more")
    clock.t += 5
    merging = msgspec.structs.replace(_handbook(), step="merging into the graph")
    assert view.step(WAITING[1:], {"a.pdf": merging}) is not None
    clock.t += 1  # the next round, nothing new: no line before the heartbeat's (HEARTBEAT_S)
    assert view.step(WAITING[1:], {"a.pdf": merging}) is None
    clock.t += 100
    assert view.finished() == "indexed 15/15 files in 1m 51s"


def test_a_line_carries_its_facts_as_data_for_the_json_progress() -> None:
    clock = Clock()
    view = _view(clock)
    clock.t += 65
    line = view.step(WAITING, {"handbook.docx": _handbook(chunks_done=120), "a.pdf": ProviderActivity(stage="queued")})
    assert isinstance(line, ProgressText)
    assert json.loads(json.dumps(line.detail)) == {
        "step": "wait", "elapsedS": 65.0, "indexed": 6, "total": 15, "waiting": WAITING, "heartbeat": False,
        "working": [{"path": "handbook.docx", "stage": "processing", "forS": 75.0, "step": "extracting entities",
                     "chunksDone": 120, "chunksTotal": 500}], "queued": ["a.pdf"]}
    assert "1m 05s so far" in line
    assert "; 1 queued in LightRAG: a.pdf; still waiting: b.pdf, c.md, d.md and 4 more" in line


def test_without_a_stage_start_the_time_is_since_the_wait_first_saw_the_stage() -> None:
    clock = Clock()
    view = _view(clock)
    parsing = ProviderActivity(stage="parsing")
    view.step(["x.pdf"], {"x.pdf": parsing})
    clock.t += 42
    line: Any = view.step(["x.pdf", "y.md"], {"x.pdf": parsing})
    assert "indexing now: x.pdf (parsing for 42 s); still waiting: y.md" in line


def test_times_and_names_read_as_a_person_reads_them() -> None:
    assert [elapsed_text(s) for s in (0, 59.9, 60, 226, 3725)] == ["0 s", "59 s", "1m 00s", "3m 46s", "1h 02m"]
    assert names_text(["a", "b"]) == "a, b" and names_text(list("abcde")) == "a, b, c and 2 more"


def test_a_file_with_its_chunk_count_only_says_how_many_chunks_it_has() -> None:
    """The real engine's long file: processing, its chunks counted by the row, none extracted yet."""
    clock = Clock()
    view = _view(clock)
    one = ProviderActivity(stage="processing", chunks_total=1)
    many = ProviderActivity(stage="processing", chunks_total=143)
    line = view.step(["lib/handbook.md", "lib/note0.md"], {"lib/handbook.md": many, "lib/note0.md": one})
    assert line is not None and line.endswith("indexing now: lib/handbook.md (processing for 0 s: 143 chunks), "
                                              "lib/note0.md (processing for 0 s: 1 chunk, embedded in one batch "
                                              "with the 143 of lib/handbook.md, so both finish together)"), line


def test_the_last_line_says_which_files_failed_and_does_not_count_them_indexed() -> None:
    """nc24a: "indexed 12/12 files in 1m 55s" although one of the 12 (a truncated DOCX) had failed."""
    clock = Clock()
    view = _view(clock)
    broken = {"poi__truncated62886.docx": "the file starts like a ZIP archive but is truncated or corrupt: restore it"}
    line = view.step(WAITING, {}, broken)
    assert line is not None and "indexed 5/15 files (1 failed: poi__truncated62886.docx)" in line, line
    assert line.detail["indexed"] == 5 and line.detail["failed"] == [
        {"path": "poi__truncated62886.docx", "reason": broken["poi__truncated62886.docx"]}]
    clock.t += 115
    done = view.finished(broken)
    # named, not explained: the report after the wait says why (nc29b read the reason three times)
    assert done == "indexed 14 of 15 files in 1m 55s; 1 failed: poi__truncated62886.docx", done
    assert done.detail["indexed"] == 14 and done.detail["total"] == 15 and done.detail["done"] is True
    assert [f["path"] for f in done.detail["failed"]] == ["poi__truncated62886.docx"]
    # several: the first few named, the rest counted
    many = view.finished({f"bad{i}.docx": f"reason {i}" for i in range(5)})
    assert many.endswith("5 failed: bad0.docx, bad1.docx, bad2.docx and 2 more"), many
    assert [f["reason"] for f in many.detail["failed"]] == [f"reason {i}" for i in range(5)]
    assert many.startswith("indexed 10 of 15 files in ")


def test_files_queued_in_lightrag_are_counted_apart_from_the_ones_it_works_on() -> None:
    """nc24b (153 notes): "indexing now: note-119.md (parsing for 1m 17s), note-120.md (parsing for 1m 17s) and
    36 more" for notes that only waited in LightRAG's queue. The rows as LightRAG 1.5.7 lists them then: two
    being processed, 38 parsed and waiting (``parsing`` with ``parse_end_time``, recorded metadata of sample
    34), and two it has not listed yet. The line names the two worked on and counts the queue."""
    clock = Clock()
    view = WaitProgress(153, clock=clock, wall_ms=lambda: int((START_S + 10 + clock.t - 100.0) * 1000))
    row = next(r for r in load_sample(SAMPLES, "34_documents_paginated_all.json")[1]["documents"]
               if r["file_path"] == "upload_me.md")
    parsed = {k: v for k, v in row["metadata"].items() if k.startswith("parse_")}
    steps = read_steps(None, {})
    working = [f"note-{n}.md" for n in (101, 102)]
    queued = [f"note-{n}.md" for n in range(119, 157)]
    unlisted = ["note-157.md", "note-158.md"]
    activity = {p: activity_of({"id": SLOW, "status": "parsing", "metadata": parsed}, steps) for p in queued}
    for p in working:
        activity[p] = activity_of({"id": SLOW, "status": "processing", "chunks_count": 1,
                                   "metadata": {**parsed, "process_start_time": START_S}}, steps)
    line: Any = view.step(working + queued + unlisted, {p: a for p, a in activity.items() if a is not None})
    assert line == ("waiting for 42 file(s) to be indexed; indexed 111/153 files; 0 s so far; indexing now: "
                    "note-101.md (processing for 10 s: 1 chunk), note-102.md (processing for 10 s: 1 chunk); "
                    "38 queued in LightRAG: note-119.md, note-120.md, note-121.md and 35 more; "
                    "still waiting: note-157.md, note-158.md")
    assert "parsing" not in line
    assert line.detail["queued"] == queued and [w["path"] for w in line.detail["working"]] == working
    # a file taken up from the queue is news at once
    clock.t += 1
    activity["note-119.md"] = activity["note-101.md"]
    del activity["note-101.md"]
    line = view.step(working[1:] + queued + unlisted, activity)
    assert line is not None and "37 queued in LightRAG: note-120.md, note-121.md, note-122.md and 34 more" in line


def test_the_first_line_says_what_the_files_it_names_wait_for() -> None:
    """nc24c: the first line read "0 s so far; chatchat__…, … and 35 more", names with no word of what they are.
    LightRAG has listed none of them yet: the line says so."""
    view = WaitProgress(3, clock=Clock())
    line = view.step(["a.md", "b.md", "c.md"], {})
    assert line == ("waiting for 3 file(s) to be indexed; indexed 0/3 files; 0 s so far; "
                    "waiting for LightRAG to list: a.md, b.md, c.md")


def test_a_small_file_processed_beside_a_large_one_says_it_finishes_with_it() -> None:
    """nc26b: "python-docx__par-rendered-page-breaks.docx (processing for 1m 45s: 1 chunk)" for a 4-paragraph file.
    LightRAG 1.5.7 (its log of that run) took it up beside the 483-chunk handbook, then embedded the vectors of both
    in one write ("chunks flush: embedding 484 vectors in 49 batch(es)") and completed both 4 minutes later. The
    line says so: its one chunk is embedded with the handbook's 483, and both finish together."""
    clock = Clock()
    view = _view(clock)
    small = ProviderActivity(stage="processing", since_ms=(START_S + 10) * 1000 - 105_000, chunks_total=1)
    big = ProviderActivity(stage="processing", since_ms=(START_S + 10) * 1000 - 104_000, chunks_total=483)
    line: Any = view.step(["page-breaks.docx", "handbook.docx"], {"page-breaks.docx": small, "handbook.docx": big})
    assert ("indexing now: page-breaks.docx (processing for 1m 45s: 1 chunk, embedded in one batch with the 483 "
            "of handbook.docx, so both finish together), handbook.docx (processing for 1m 44s: 483 chunks)") in line
    assert line.detail["working"][0]["batchedWith"] == "handbook.docx"
    assert "batchedWith" not in line.detail["working"][1]
    # the large file extracting entities (an LLM configured) is another wait: nothing is said of a shared batch
    extracting = msgspec.structs.replace(big, step="extracting entities", chunks_done=40)
    view = _view(clock)
    line = view.step(["page-breaks.docx", "handbook.docx"], {"page-breaks.docx": small, "handbook.docx": extracting})
    assert "page-breaks.docx (processing for 1m 45s: 1 chunk)" in line and "batchedWith" not in str(line.detail)
    # two files of like size: each is its own
    view = _view(clock)
    like = msgspec.structs.replace(big, chunks_total=2)
    line = view.step(["page-breaks.docx", "handbook.docx"], {"page-breaks.docx": small, "handbook.docx": like})
    assert "page-breaks.docx (processing for 1m 45s: 1 chunk)," in line


def test_a_file_lightrag_embeds_says_embedding_its_chunks_once_and_a_small_one_beside_it_finishes_with_it() -> None:
    """nc27b's wait line read "processing for ...: 482 chunks" with no step for the minutes LightRAG (no LLM)
    embedded the handbook's chunks in one write. Its recorded row, run with options ``F!``, says the step now."""
    pipeline = copy.deepcopy(load_sample(SAMPLES, "18_pipeline_status_busy_processing.json")[1])
    rows = load_sample(SAMPLES, "19e_track_status_mid_processing.json")[1]["documents"]
    row = copy.deepcopy(next(r for r in rows if r["id"] == SLOW))
    row["chunks_count"] = 482
    row["metadata"]["process_options"] = "F!"
    big = activity_of(row, read_steps(pipeline, {"slow1.txt": SLOW}))
    assert big is not None
    clock = Clock()
    line: Any = _view(clock).step(["handbook.docx"], {"handbook.docx": big})
    assert "indexing now: handbook.docx (processing for 10 s: embedding 482 chunks)" in line, line
    assert line.detail["working"][0]["step"] == "embedding 482 chunks"
    small = msgspec.structs.replace(big, step="embedding 1 chunk", chunks_total=1)
    line = _view(clock).step(["page-breaks.docx", "handbook.docx"], {"page-breaks.docx": small, "handbook.docx": big})
    assert ("page-breaks.docx (processing for 10 s: 1 chunk, embedded in one batch with the 482 of handbook.docx, "
            "so both finish together)") in line, line
