"""What LightRAG is doing with a document, read from recorded 1.5.7 payloads: a document row of its
listing and ``/documents/pipeline_status`` (samples 15, 18, 19e)."""

from __future__ import annotations

import copy
from typing import Any

from mnote_kr_testkit.data import SAMPLES
from mnote_kr_testkit.replay import load_sample

from mnote_kr_lightrag.client.activity import activity_of, model_calls, read_steps

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
    done. Its /health counts the embedding calls done (``embedding_queue_status.completed_total``), the flush's other
    calls waiting in the queue meanwhile (``_flushing``)."""
    pipeline = _body("18_pipeline_status_busy_processing.json")
    names = {"slow1.txt": SLOW}
    act = activity_of(_embedding_row(), read_steps(pipeline, names, _flushing(_health(0), 12)))
    assert act is not None
    assert (act.stage, act.step, act.chunks_done, act.chunks_total) == ("processing", "embedding 482 chunks", None, 482)
    # one more call done: a pulse; the same count, or only a worker's snapshot time newer: none
    assert activity_of(_embedding_row(), read_steps(pipeline, names, _flushing(_health(0), 13))).pulse != act.pulse  # type: ignore[union-attr]
    later = _flushing(_health(0), 12)
    for snapshot in later["embedding_queue_status"]["per_worker"].values():
        snapshot["updated_at"] += 30
    assert activity_of(_embedding_row(), read_steps(pipeline, names, later)).pulse == act.pulse  # type: ignore[union-attr]
    # a new pipeline message (another of this workspace's documents, or the persist after the flush) is a pulse too
    moved = _body("18_pipeline_status_busy_processing.json")
    moved["history_messages"].append("In memory DB persist to disk")
    moved["latest_message"] = "In memory DB persist to disk"
    assert activity_of(_embedding_row(), read_steps(moved, names, _flushing(_health(0), 12))).pulse != act.pulse  # type: ignore[union-attr]
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
    _flushing(health, 5)  # five of its 49 batches embedded since, the rest submitted with them
    later = activity_of(row, read_steps(_body("113_pipeline_status_resuming_after_scan.json"), names, health))
    assert later is not None and later.pulse != act.pulse and later.step == act.step


def _flushing(health: dict[str, Any], done: int) -> dict[str, Any]:
    """``health`` while LightRAG flushes a document's chunks: all the flush's embedding calls are submitted at once
    (nano_vector_db_impl.py gathers its ceil(N/10) batches), so calls wait for one of the queue's 8 slots (``queued``),
    as LightRAG 1.5.7's own queue shows (test_a_flush_keeps_lightrags_embedding_queue_waiting_and_a_search_does_not)."""
    queue = health["embedding_queue_status"]
    queue.update(completed_total=done, running=8, queued=49 - 8 - done, in_flight=49 - done, submitted_total=49)
    return health


def test_a_search_elsewhere_is_no_pulse_of_a_stuck_document() -> None:
    """Review r28 finding 4: /health counts every model call of the server, a search's too: a stuck document's pulse
    must not move with them, or a wait for a LightRAG hung on one file never ends while anyone searches. A search
    embeds its question in one call (operate.py, ``context="query"``) and asks the ``keyword`` and ``query`` roles."""
    pipeline = _body("18_pipeline_status_busy_processing.json")
    names = {"slow1.txt": SLOW}
    stuck = activity_of(_embedding_row(), read_steps(pipeline, names, _health(40)))
    assert stuck is not None and stuck.step == "embedding 482 chunks"
    searched = _health(41)  # one search's question embedded, its keywords and answer asked of the LLM roles
    for role in ("keyword", "query"):
        searched["llm_queue_status"][role]["completed_total"] += 1
    assert activity_of(_embedding_row(), read_steps(pipeline, names, searched)).pulse == stuck.pulse  # type: ignore[union-attr]
    # this workspace's own flush: its embedding calls done, with more waiting, are its progress (round 27's gain)
    first = activity_of(_embedding_row(), read_steps(pipeline, names, _flushing(_health(40), 3)))
    later = activity_of(_embedding_row(), read_steps(pipeline, names, _flushing(_health(40), 5)))
    assert first is not None and later is not None and first.pulse != later.pulse
    # an extraction's LLM calls (the ``extract`` role) are ingestion only: progress too
    extracted = _health(40)
    extracted["llm_queue_status"]["extract"]["completed_total"] = 9
    assert activity_of(_slow_row(), read_steps(pipeline, names, extracted)).pulse != activity_of(  # type: ignore[union-attr]
        _slow_row(), read_steps(pipeline, names, _health(40))).pulse


def test_another_workspaces_work_on_a_shared_lightrag_is_no_pulse_of_ours() -> None:
    """One LightRAG a user runs for several workspaces (docs/workspaces.md): while another workspace's document is
    worked on beside ours (``shared``), the model calls may be its own, and so may any message not naming ours."""
    pipeline = _body("18_pipeline_status_busy_processing.json")
    names = {"slow1.txt": SLOW}
    base = activity_of(_embedding_row(), read_steps(pipeline, names, _flushing(_health(40), 3), shared=True))
    theirs = activity_of(_embedding_row(), read_steps(pipeline, names, _flushing(_health(40), 5), shared=True))
    assert base is not None and theirs is not None and base.pulse == theirs.pulse
    moved = _body("18_pipeline_status_busy_processing.json")
    other = "doc-" + "e" * 32
    for message in (f"Processing d-id: {other}", f"Chunk 1 of 9 extracted 4 Ent + 1 Rel {other}-chunk-000",
                    "Completed processing file 2/3: other.w0badc0de.1f3a09c2-77ab01de.md"):
        moved["history_messages"].append(message)
        moved["latest_message"] = message
        again = activity_of(_embedding_row(), read_steps(moved, names, _health(40), shared=True))
        assert again is not None and again.pulse == base.pulse, message
    # a message naming our document (by id or by its file name) is ours
    for message in (f"[purge] {SLOW}: deleted 482 chunk(s) from storage", "Completed processing file 1/3: slow1.txt"):
        ours = copy.deepcopy(moved)
        ours["history_messages"].append(message)
        act = activity_of(_embedding_row(), read_steps(ours, names, _health(40), shared=True))
        assert act is not None and act.pulse != base.pulse, message


def test_a_flush_keeps_lightrags_embedding_queue_waiting_and_a_search_does_not() -> None:
    """The premise of :func:`model_calls`, on LightRAG 1.5.7's own queue (``priority_limit_async_func_call``, 8 slots
    as its server wraps the embedding function): a search's one call never waits, a 49-batch flush leaves 41 waiting."""
    import asyncio

    from lightrag.utils import priority_limit_async_func_call

    async def run() -> tuple[dict[str, Any], dict[str, Any]]:
        gate = asyncio.Event()

        async def embed(texts: list[str], **_: Any) -> list[list[float]]:
            await gate.wait()
            return [[0.0] for _ in texts]

        func = priority_limit_async_func_call(8, queue_name="Embedding func")(embed)
        search = asyncio.ensure_future(func(["question"], _priority=5))
        while (await func.get_queue_stats())["running"] < 1:
            await asyncio.sleep(0)
        alone = await func.get_queue_stats()
        flush = asyncio.ensure_future(asyncio.gather(*(func([f"chunk {i}"] * 10) for i in range(49))))
        while (await func.get_queue_stats())["running"] < 8:
            await asyncio.sleep(0)
        flushing = await func.get_queue_stats()
        gate.set()
        await asyncio.gather(search, flush)
        await func.shutdown()
        return alone, flushing

    alone, flushing = asyncio.run(run())
    assert (alone["queued"], alone["running"]) == (0, 1)
    assert flushing["queued"] == 42 and flushing["running"] == 8  # 41 of the flush and the search's call
    health = _body("02_health_auth.json")
    health["embedding_queue_status"].update(alone, completed_total=40)
    assert model_calls(health) == model_calls({**health, "embedding_queue_status": {
        **health["embedding_queue_status"], "completed_total": 41}})
    health["embedding_queue_status"].update(flushing, completed_total=40)
    assert model_calls(health) != model_calls({**health, "embedding_queue_status": {
        **health["embedding_queue_status"], "completed_total": 41}})


def test_on_a_shared_lightrag_a_flush_is_ours_when_nothing_beside_ours_can_embed() -> None:
    """Review r29 finding 4: beside another workspace's document parsed, analyzed or extracting entities (none
    writes vectors; LightRAG 1.5.7 flushes a document's chunks before it extracts), the embedding calls done while
    more wait are our flush's progress; beside one that may embed (processing, past no extraction), they are not."""
    pipeline = _body("18_pipeline_status_busy_processing.json")
    names = {"slow1.txt": SLOW}
    other = "doc-" + "e" * 32
    analyzing = {"id": other, "status": "analyzing", "metadata": {"analyzing_start_time": 1796083201}}
    flushing = {"id": other, "status": "processing", "chunks_count": 300,
                "metadata": {"process_options": "F!", "process_start_time": 1796083201}}
    extracting = {**flushing, "metadata": {"process_options": "F", "process_start_time": 1796083201}}
    said = copy.deepcopy(pipeline)
    said["history_messages"] += [f"Processing d-id: {other}", f"Chunk 3 of 30 extracted 4 Ent + 1 Rel {other}-chunk-2"]

    def pulse(body: dict[str, Any], beside: list[dict[str, Any]], done: int) -> str | None:
        act = activity_of(_embedding_row(), read_steps(body, names, _flushing(_health(40), done), shared=True,
                                                       beside=beside))
        assert act is not None
        return act.pulse

    assert pulse(pipeline, [analyzing], 3) != pulse(pipeline, [analyzing], 5)
    assert pulse(said, [extracting], 3) != pulse(said, [extracting], 5)
    assert pulse(pipeline, [flushing], 3) == pulse(pipeline, [flushing], 5)
    assert pulse(pipeline, [extracting], 3) == pulse(pipeline, [extracting], 5)  # no message: it may be flushing
    # a search's calls (none waiting) beside the VLM's work are no pulse
    searched = [activity_of(_embedding_row(), read_steps(pipeline, names, _health(n), shared=True,
                                                         beside=[analyzing])) for n in (40, 41)]
    assert searched[0] is not None and searched[1] is not None and searched[0].pulse == searched[1].pulse
