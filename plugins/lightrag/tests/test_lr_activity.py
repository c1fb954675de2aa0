"""What LightRAG is doing with a document, read from recorded 1.5.7 payloads: a document row of its
listing and ``/documents/pipeline_status`` (samples 15, 18, 19e)."""

from __future__ import annotations

import copy
from typing import Any

from mnote_kr_testkit.data import SAMPLES
from mnote_kr_testkit.replay import load_sample

from mnote_kr_lightrag.client.activity import activity_of, read_steps

SLOW = "doc-29180dd3ecf2bf30a508d79b25a5aad2"  # slow1.txt, processing in samples 18 and 19e
NOTES = "doc-db235fc914867ffea6b540c8732499d5"  # notes.md, the first of three in sample 15
AURORA = "doc-8c87484c16242b0b43fa5bfbce70b3c2"


def _body(name: str) -> Any:
    return copy.deepcopy(load_sample(SAMPLES, name)[1])


def _slow_row() -> dict[str, Any]:
    return next(r for r in _body("19e_track_status_mid_processing.json")["documents"] if r["id"] == SLOW)


def test_a_processing_document_is_processing_since_its_process_start_time_with_its_chunks() -> None:
    """"Processing d-id" opens chunking and embedding, then extraction: nothing more precise is claimed."""
    pipeline = _body("18_pipeline_status_busy_processing.json")  # latest: "Processing d-id: doc-2918..."
    act = activity_of(_slow_row(), read_steps(pipeline, {"slow1.txt": SLOW}))
    assert act is not None
    assert (act.stage, act.step, act.since_ms) == ("processing", None, 1795988960 * 1000)
    assert act.chunks_total == 1 and act.chunks_done is None  # no "Chunk N of M" for it yet


def test_chunks_done_are_the_highest_chunk_message_of_that_document() -> None:
    """Sample 15's history up to notes.md's first chunk, taken as the pipeline's state at that moment."""
    pipeline = _body("15_pipeline_status_after_scan.json")
    history = pipeline["history_messages"]
    upto = next(i for i, m in enumerate(history) if m.startswith("Chunk 1 of 1") and NOTES in m)
    pipeline.update(busy=True, history_messages=history[: upto + 1], latest_message=history[upto])
    names = {"notes.md": NOTES, "aurora_报告.docx": AURORA}
    steps = read_steps(pipeline, names)
    row = {"id": NOTES, "status": "processing", "chunks_count": 1, "file_path": "notes.md",
           "metadata": {"process_start_time": 1795988796}}
    act = activity_of(row, steps)
    assert act is not None and (act.step, act.chunks_done, act.chunks_total) == ("extracting entities", 1, 1)
    # aurora is still being parsed in that history: its row says so, and no chunk is claimed for it
    aurora = activity_of({"id": AURORA, "status": "parsing", "file_path": "aurora_报告.docx",
                          "metadata": {"parse_start_time": 1795988796}}, steps)
    assert aurora is not None and (aurora.stage, aurora.step, aurora.chunks_done) == ("parsing", None, None)


def test_a_document_merging_into_the_graph_is_named_by_file_or_by_id() -> None:
    pipeline = _body("15_pipeline_status_after_scan.json")
    history = pipeline["history_messages"]
    upto = history.index("Merging stage 2/3: aurora_报告.docx")
    pipeline.update(busy=True, history_messages=history[: upto + 1], latest_message=history[upto])
    steps = read_steps(pipeline, {"notes.md": NOTES, "aurora_报告.docx": AURORA})
    assert steps.step[AURORA] == "merging into the graph"
    assert steps.step[NOTES] is None  # "Completed processing file 1/3: notes.md"


def test_an_idle_pipeline_or_no_answer_tells_no_step_and_a_queued_row_only_its_stage() -> None:
    idle = _body("15_pipeline_status_after_scan.json")  # busy: false, a finished job's history
    assert read_steps(idle, {"notes.md": NOTES}).step == {}
    assert read_steps(None, {}).step == {}
    queued = activity_of({"id": NOTES, "status": "pending", "updated_at": "2026-11-29T21:46:36+00:00"},
                         read_steps(None, {}))
    assert queued is not None and (queued.stage, queued.step, queued.chunks_total) == ("queued", None, None)
    assert queued.since_ms == 1795988796000  # updated_at when no stage start is recorded
    assert activity_of({"id": NOTES, "status": "processed"}, read_steps(None, {})) is None


def test_a_parsed_document_waiting_for_a_processing_slot_is_queued_not_worked_on() -> None:
    """A real 1.5.7 run (6 files, one of 130 chunks): three rows stayed ``analyzing`` with the VLM stage
    skipped for 45 s while three were ``processing`` (its row metadata, as listed then)."""
    meta = {"parse_start_time": 1796501216, "parse_end_time": 1796501216, "analyzing_start_time": 1796501216,
            "analyzing_stage_skipped": True}
    waiting = activity_of({"id": NOTES, "status": "analyzing", "metadata": meta}, read_steps(None, {}))
    assert waiting is not None and waiting.stage == "queued"
    worked = activity_of({"id": AURORA, "status": "processing", "chunks_count": 130,
                          "metadata": {**meta, "process_start_time": 1796501217}}, read_steps(None, {}))
    assert worked is not None and (worked.stage, worked.since_ms, worked.chunks_total) == (
        "processing", 1796501217000, 130)
    # with a VLM stage to run, analyzing is work of its own
    vlm = activity_of({"id": NOTES, "status": "analyzing", "metadata": {"analyzing_start_time": 1796501216}},
                      read_steps(None, {}))
    assert vlm is not None and vlm.stage == "analyzing"


def _recorded_meta(name: str) -> dict[str, Any]:
    """The metadata LightRAG 1.5.7 recorded for ``name`` (sample 34), up to the end of its parse: what its
    parse worker writes with the second ``parsing`` upsert, before the document waits in the analyze queue."""
    row = next(r for r in _body("34_documents_paginated_all.json")["documents"] if r["file_path"] == name)
    keep = ("process_options", "source_file", "parse_start_time", "parse_end_time", "parse_stage_skipped",
            "parse_format", "parse_engine")
    return {k: v for k, v in row["metadata"].items() if k in keep}


def test_a_parsed_document_still_marked_parsing_is_queued_not_parsing() -> None:
    """nc24b: 1-KB notes shown "parsing for 1m 17s". LightRAG 1.5.7 keeps a document ``parsing`` once parsed
    (``parse_end_time``, or ``parse_stage_skipped`` for text) while it waits in the analyze queue, behind the
    few documents being processed: it is queued, its wait counted from its parse's end."""
    parsed = _recorded_meta("upload_me.md")
    assert "parse_end_time" in parsed
    act = activity_of({"id": NOTES, "status": "parsing", "metadata": parsed}, read_steps(None, {}))
    assert act is not None and act.stage == "queued" and act.since_ms == parsed["parse_end_time"] * 1000
    text = _recorded_meta("kestrel_note.txt")
    assert text.get("parse_stage_skipped") is True
    act = activity_of({"id": NOTES, "status": "parsing", "metadata": text}, read_steps(None, {}))
    assert act is not None and act.stage == "queued"
    # only its start recorded: being parsed now
    started = {k: v for k, v in parsed.items() if k != "parse_end_time"}
    act = activity_of({"id": AURORA, "status": "parsing", "metadata": started}, read_steps(None, {}))
    assert act is not None and act.stage == "parsing" and act.since_ms == parsed["parse_start_time"] * 1000


def test_an_analyzed_document_waiting_for_a_processing_slot_is_queued() -> None:
    """With a VLM stage run and ended (``analyzing_end_time``), the document waits for processing like a
    skipped one; a VLM stage that has begun and not ended is work."""
    meta = {**_recorded_meta("upload_me.md"), "analyzing_start_time": 1796501216}
    running = activity_of({"id": NOTES, "status": "analyzing", "metadata": meta}, read_steps(None, {}))
    assert running is not None and running.stage == "analyzing"
    ended = activity_of({"id": NOTES, "status": "analyzing", "metadata": {**meta, "analyzing_end_time": 1796501230}},
                        read_steps(None, {}))
    assert ended is not None and ended.stage == "queued"


def _embedding_row() -> dict[str, Any]:
    """nc27b's handbook as LightRAG 1.5.7 lists it while it embeds: ``processing`` with its 482 chunks, run without
    an LLM (the managed engine's parser rules end in ``!``: no entity extraction), sample 19e's row otherwise."""
    row = _slow_row()
    row["chunks_count"] = 482
    row["metadata"]["process_options"] = "F!"
    return row


def _health(calls: int) -> dict[str, Any]:
    """Sample 02's authenticated /health with ``calls`` embedding calls done (one per batch of 10 chunks)."""
    health = _body("02_health_auth.json")
    health["embedding_queue_status"]["completed_total"] = calls
    return health


def test_a_document_lightrag_embeds_says_so_and_each_embedding_call_done_is_a_pulse() -> None:
    """After "Processing d-id" LightRAG 1.5.7 run without an LLM embeds all the chunks in one write ("chunks flush:
    embedding 482 vectors in 49 batch(es)" in its log) and its pipeline status says nothing more until "Completed
    processing file": nc27b's wait read that as no progress and ended after 300 s, 2 minutes before LightRAG was
    done. Its /health counts the embedding calls done (``embedding_queue_status.completed_total``)."""
    pipeline = _body("18_pipeline_status_busy_processing.json")
    names = {"slow1.txt": SLOW}
    act = activity_of(_embedding_row(), read_steps(pipeline, names, _health(12)))
    assert act is not None
    assert (act.stage, act.step, act.chunks_done, act.chunks_total) == ("processing", "embedding 482 chunks", None, 482)
    # one more call done: a pulse; the same count, or only a worker's snapshot time newer: none
    assert activity_of(_embedding_row(), read_steps(pipeline, names, _health(13))).pulse != act.pulse  # type: ignore[union-attr]
    later = _health(12)
    for snapshot in later["embedding_queue_status"]["per_worker"].values():
        snapshot["updated_at"] += 30
    assert activity_of(_embedding_row(), read_steps(pipeline, names, later)).pulse == act.pulse  # type: ignore[union-attr]
    # a new pipeline message (another document's, or the persist after the flush) is a pulse too
    moved = _body("18_pipeline_status_busy_processing.json")
    moved["history_messages"].append("In memory DB persist to disk")
    moved["latest_message"] = "In memory DB persist to disk"
    assert activity_of(_embedding_row(), read_steps(moved, names, _health(12))).pulse != act.pulse  # type: ignore[union-attr]
    # with an LLM (no '!'), "Processing d-id" is followed by extraction: no embedding is claimed, the pulse still told
    llm = activity_of(_slow_row(), read_steps(pipeline, names, _health(12)))
    assert llm is not None and llm.step is None and llm.pulse is not None
    # no /health answer (a server that does not say): the pipeline's messages alone
    alone = activity_of(_embedding_row(), read_steps(pipeline, names, None))
    assert alone is not None and alone.pulse is not None and alone.pulse != act.pulse


def test_a_document_not_being_processed_has_no_pulse() -> None:
    """A queued document waits: LightRAG's work on others is not its progress (its own turn shows as a new stage)."""
    steps = read_steps(_body("18_pipeline_status_busy_processing.json"), {"slow1.txt": SLOW}, _health(12))
    queued = activity_of({"id": NOTES, "status": "pending", "updated_at": "2026-11-29T21:46:36+00:00"}, steps)
    assert queued is not None and queued.pulse is None and queued.step is None


def test_the_recorded_handbook_run_embedding_its_482_chunks_says_so_and_pulses_with_its_embedding_calls() -> None:
    """Recorded from a real 1.5.7 run (samples 112-116): the 872-page handbook taken up again after an engine
    restart; while it was embedded its pipeline status stayed as 113 ("[purge] ... deleted 482 chunk(s)") until
    116 ("Completed processing file 1/1"), its row as 114 (``processing``, 482 chunks, options ``!F``)."""
    handbook = "doc-aebc297e32db84a24dcdcfacb1ae2246"
    row = next(r for r in _body("114_documents_resuming_after_scan.json")["documents"] if r["id"] == handbook)
    pipeline = _body("113_pipeline_status_resuming_after_scan.json")
    health = _body("112_health_after_engine_restart.json")  # its embedding calls done: 0
    names = {str(row["file_path"]): handbook}
    act = activity_of(row, read_steps(pipeline, names, health))
    assert act is not None and (act.stage, act.step, act.chunks_total) == ("processing", "embedding 482 chunks", 482)
    health["embedding_queue_status"]["completed_total"] = 5  # five batches of ten embedded since
    later = activity_of(row, read_steps(_body("113_pipeline_status_resuming_after_scan.json"), names, health))
    assert later is not None and later.pulse != act.pulse and later.step == act.step
