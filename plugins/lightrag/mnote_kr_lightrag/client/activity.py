"""What LightRAG is doing with the documents a wait follows, for the host's progress lines.

Read from what a waiting sync already has: the rows of its last listing (a document's status,
when that status began in ``metadata``'s ``*_start_time`` or ``updated_at``, ``chunks_count``)
and LightRAG 1.5.7's ``/documents/pipeline_status``, read at most once per
:data:`PIPELINE_EVERY_S` while documents are in flight (``syncing``). Its ``history_messages``
(the last 1,000) name each document by id or by file name::

    Processing d-id: doc-<id>                       -> (chunking and embedding, then extracting:
                                                        nothing more precise than "processing")
    Chunk 120 of 500 extracted 4 Ent + 1 Rel doc-<id>-chunk-119   -> extracting entities, chunk 120 of 500
    Merging stage 2/3: <file> / Phase 0|1|2 ... doc-<id>          -> merging into the graph
    Completed processing file 2/3: <file>           -> done with it

Chunks are extracted side by side, so the count is the highest "Chunk N" seen. Run without an LLM (the managed
engine's parser rules end in ``!``, kept in the row's ``metadata.process_options``), a ``processing`` row is past
chunking (LightRAG writes the status with ``chunks_count`` once chunked) and its chunks are being embedded: all in
one write after "Processing d-id" ("chunks flush: embedding 482 vectors in 49 batch(es)" in its log), of which the
pipeline status says nothing until "Completed processing file" (nc27b: 5 minutes, under load). So the step is
``embedding 482 chunks``, and the work shows in the authenticated ``/health`` instead: ``embedding_queue_status``
and each role of ``llm_queue_status`` count the model calls done (``completed_total``, one per batch of chunks).
Those counts and the pipeline's messages (``cur_batch``, the history's length and tail, ``latest_message``) make a
document's ``pulse`` (:func:`pulse_of`): any change is progress to a wait. A worker's snapshot time (``updated_at``)
is not in it: it moves while nothing does. A stage's row
whose work is over waits for the next stage's worker and is ``queued``, not being worked on
(:data:`_ENDS`): LightRAG 1.5.7 writes a document ``parsing`` again once parsed (``parse_end_time``,
or ``parse_stage_skipped`` for text) and keeps it so while it waits in the analyze queue (up to 100
deep, behind the 3 documents processed at a time: nc24b saw 38 1-KB notes "parsing for 1m 17s"), and
``analyzing`` with the VLM stage skipped or ended while it waits for a processing slot (a real run
kept three such rows for 45 s beside three ``processing``). Nothing here decides an entry's status:
that is still the listing's (``docrows.update_from_row``).
"""

from __future__ import annotations

import re
from typing import Any

from mnote_kr.plugin_api import ProviderActivity

from .docrows import _ms, as_dict

#: LightRAG statuses of a document it has taken and not finished → the stage a person reads.
STAGES = {"pending": "queued", "parsing": "parsing", "analyzing": "analyzing", "processing": "processing",
          "preprocessed": "processing"}
#: The stage of a document an engine stop interrupted, sent again by this wait (``interrupted``): its row
#: still says the stage the stopped run left it in, and how long since then means nothing.
INTERRUPTED = "interrupted"
#: Where each stage's start is recorded in a row's metadata (epoch seconds).
_STARTS = {"parsing": "parse_start_time", "analyzing": "analyzing_start_time", "processing": "process_start_time"}
#: Per status, the metadata keys that say its stage's work is over: the document waits for the next stage.
_ENDS = {"parsing": ("parse_end_time", "parse_stage_skipped"),
         "analyzing": ("analyzing_end_time", "analyzing_stage_skipped")}
#: How often a waiting sync reads the pipeline status (one small read per host round of ~5 s).
PIPELINE_EVERY_S = 4.0

_ID = r"((?:doc|dup)-[0-9a-f]{32})"
_BY_ID: list[tuple[re.Pattern[str], str | None]] = [
    (re.compile(rf"^Processing d-id: {_ID}"), None),
    (re.compile(rf"^Phase \d: .*?{_ID}"), "merging into the graph"),
]
_CHUNK = re.compile(rf"^Chunk (\d+) of (\d+) extracted .*?{_ID}-chunk-")
_BY_NAME: list[tuple[re.Pattern[str], str | None]] = [
    (re.compile(r"^Merging stage \d+/\d+: (.+)$"), "merging into the graph"),
    (re.compile(r"^Completed processing file \d+/\d+: (.+)$"), None),
]


class Steps:
    """Per document id, the last step the pipeline's messages name and the chunks done of how many; ``pulse``:
    LightRAG's work as a whole (:func:`pulse_of`), None when its pipeline is idle or did not answer."""

    def __init__(self) -> None:
        self.step: dict[str, str | None] = {}
        self.chunks: dict[str, tuple[int, int]] = {}
        self.pulse: str | None = None


def model_calls(health: dict[str, Any] | None) -> int | None:
    """The model calls LightRAG has completed (embedding and every LLM role), from an authenticated ``/health``
    answer; None when it does not say (no key, an older server)."""
    if not health:
        return None
    queues = [health.get("embedding_queue_status")]
    llm = health.get("llm_queue_status")
    if isinstance(llm, dict):
        queues += list(llm.values())
    done = [q.get("completed_total") for q in queues if isinstance(q, dict)]
    counts = [n for n in done if isinstance(n, int) and not isinstance(n, bool)]
    return sum(counts) if counts else None


def pulse_of(pipeline: dict[str, Any], health: dict[str, Any] | None) -> str:
    """A mark of LightRAG's work that changes whenever it works: its model calls done and its pipeline's messages."""
    history = pipeline.get("history_messages")
    history = history if isinstance(history, list) else []
    tail = history[-1] if history else None
    return repr((model_calls(health), pipeline.get("cur_batch"), len(history), tail, pipeline.get("latest_message")))


def read_steps(pipeline: dict[str, Any] | None, ids_by_name: dict[str, str],
               health: dict[str, Any] | None = None) -> Steps:
    """The steps ``pipeline`` (a ``/documents/pipeline_status`` answer) tells of; ``ids_by_name``
    maps the file names LightRAG knows to their document ids (the messages use both); ``health``: an
    authenticated ``/health`` answer read with it (its model calls done, in the pulse). An idle or
    missing answer tells of none."""
    steps = Steps()
    if not pipeline or not pipeline.get("busy"):
        return steps
    steps.pulse = pulse_of(pipeline, health)
    messages = [str(m) for m in pipeline.get("history_messages") or [] if isinstance(m, str)]
    latest = pipeline.get("latest_message")
    if isinstance(latest, str) and not messages:  # it may lag the history's tail (written without a lock)
        messages.append(latest)
    for message in messages:
        chunk = _CHUNK.match(message)
        if chunk:
            doc, done, total = chunk.group(3), int(chunk.group(1)), int(chunk.group(2))
            steps.chunks[doc] = (max(done, steps.chunks.get(doc, (0, 0))[0]), total)
            steps.step[doc] = "extracting entities"
            continue
        for pattern, step in _BY_ID:
            m = pattern.match(message)
            if m:
                steps.step[m.group(1)] = step
                break
        else:
            for by_name, named_step in _BY_NAME:
                m = by_name.match(message)
                if m and m.group(1).strip() in ids_by_name:
                    steps.step[ids_by_name[m.group(1).strip()]] = named_step
                    break
    return steps


def activity_of(row: dict[str, Any] | None, steps: Steps) -> ProviderActivity | None:
    """What LightRAG is doing with the document of ``row`` (None: not in flight, or no row)."""
    if row is None:
        return None
    status = str(row.get("status", "")).lower()
    stage = STAGES.get(status)
    if stage is None:
        return None
    metadata = as_dict(row.get("metadata"))
    start = metadata.get(_STARTS.get(status, ""))
    ended = [metadata.get(key) for key in _ENDS.get(status, ()) if metadata.get(key)]
    if ended:  # its stage done: it waits for the next one's worker, since its stage ended when that is said
        stage = "queued"
        start = next((e for e in ended if isinstance(e, (int, float)) and not isinstance(e, bool)), start)
    doc = str(row.get("id", ""))
    since_ms = int(start * 1000) if isinstance(start, (int, float)) and start > 0 else _ms(row.get("updated_at"))
    total = row.get("chunks_count") if isinstance(row.get("chunks_count"), int) else None
    done: int | None = None
    if doc in steps.chunks:
        done, said = steps.chunks[doc]
        total = total or said
    step = steps.step.get(doc) if stage == "processing" else None
    if stage != "processing":
        done = None  # a reset document's old messages say nothing of its next turn
    elif step is None and done is None and total and "!" in str(metadata.get("process_options") or ""):
        step = f"embedding {total} chunk" + ("s" if total != 1 else "")  # no extraction: chunked, so embedding
    return ProviderActivity(stage=stage, since_ms=since_ms, step=step, chunks_done=done,
                            chunks_total=total if stage == "processing" else None,
                            pulse=steps.pulse if stage != "queued" else None)

