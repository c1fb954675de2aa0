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
They count every call of the server, a search's too (review r28): a search embeds its question in one call
(operate.py, ``context="query"``; ours send a few at once) and asks the ``keyword`` and ``query`` roles, which no
ingestion uses. A flush submits all its ceil(N/10) batches at once (nano_vector_db_impl.py's ``asyncio.gather``),
so beyond the queue's 8 slots (``max_async``) its calls wait (``queued``); a search's do not. So a document's
``pulse`` (:func:`pulse_of`) holds the ``extract`` and ``vlm`` calls done and, while calls wait in the embedding
queue, the embedding calls done (:func:`model_calls`), with the pipeline's messages (``cur_batch``, the history's
length and tail, ``latest_message``): any change is progress to a wait. While the same LightRAG works on another
workspace's document (one server shared: docs/workspaces.md; :func:`others_at_work`) the calls and messages may be
its own: then only the messages naming our documents count, and the embedding calls of a flush while none of its
documents may be writing vectors (:func:`read_steps`). A worker's snapshot time (``updated_at``) is not in
the pulse: it moves while nothing does. A stage's row
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
from collections.abc import Iterable
from typing import Any

from mnote_kr.plugin_api import ProviderActivity

from . import naming
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
    LightRAG's work on our documents (:func:`pulse_of`), None when its pipeline is idle or did not answer."""

    def __init__(self) -> None:
        self.step: dict[str, str | None] = {}
        self.chunks: dict[str, tuple[int, int]] = {}
        self.pulse: str | None = None


#: LightRAG's LLM roles only an ingestion calls (operate.py: ``extract`` for entities and their summaries, ``vlm``
#: for a document's images); ``keyword`` and ``query`` serve searches only.
INGEST_ROLES = ("extract", "vlm")
_OWN_MESSAGES = 4  # of the messages naming our documents, the last this many make the pulse on a shared LightRAG
_ANY_ID = re.compile(_ID)
_NAMED = re.compile(r"^(?:Extracting stage|Merging stage|Completed processing file) \d+/\d+: (.+)$")


def _done(queue: Any) -> int | None:
    done = queue.get("completed_total") if isinstance(queue, dict) else None
    return done if isinstance(done, int) and not isinstance(done, bool) else None


def model_calls(health: dict[str, Any] | None) -> tuple[int | None, int | None] | None:
    """The model calls of an ingestion LightRAG has completed, from an authenticated ``/health`` answer: those of
    its :data:`INGEST_ROLES`, and its embedding calls while some wait in the embedding queue (``queued``: a flush's
    batches; None without: a search's calls, or none); None when it does not say (no key, an older server)."""
    if not health:
        return None
    llm = health.get("llm_queue_status")
    roles = [_done(llm.get(role)) for role in INGEST_ROLES] if isinstance(llm, dict) else []
    embedding = health.get("embedding_queue_status")
    waiting = embedding.get("queued") if isinstance(embedding, dict) else None
    flushing = isinstance(waiting, int) and waiting > 0
    counts = [n for n in roles if n is not None]
    llm_done = sum(counts) if counts else None
    if llm_done is None and _done(embedding) is None:
        return None
    return llm_done, _done(embedding) if flushing else None


def working_beside(rows: Iterable[dict[str, Any]], ws: str, ours: Iterable[str] = ()) -> list[dict[str, Any]]:
    """The rows (of ``rows``, a listing) of documents LightRAG works on for another than workspace ``ws``: being
    parsed, analyzed or processed (not waiting, :func:`activity_of`), their names not tagged ``ws`` and none of
    ``ours`` (the ids a wait follows). Then the model calls /health counts may be those documents'."""
    own = set(ours)
    out = []
    for row in rows:
        if str(row.get("status", "")).lower() not in STAGES or str(row.get("id", "")) in own:
            continue
        if naming.workspace_of(str(row.get("file_path", ""))) == ws:
            continue
        act = activity_of(row, Steps())
        if act is not None and act.stage not in ("queued", INTERRUPTED):
            out.append(row)
    return out


def others_at_work(rows: Iterable[dict[str, Any]], ws: str, ours: Iterable[str] = ()) -> bool:
    """Whether LightRAG works on a document of another than workspace ``ws`` (:func:`working_beside`)."""
    return bool(working_beside(rows, ws, ours))


def _may_embed(row: dict[str, Any], steps: Steps) -> bool:
    """Whether LightRAG may be writing vectors for the document of ``row``: processed and not (by the pipeline's
    messages) extracting entities. LightRAG 1.5.7 (pipeline.py, "Stage 1") embeds all of a document's chunks before
    its extraction begins, and embeds entities and relations when merging; parsing and analyzing embed nothing."""
    act = activity_of(row, steps)
    return act is not None and act.stage == "processing" and steps.step.get(str(row.get("id", ""))) != \
        "extracting entities"


def _names_ours(message: str, ids: set[str], names: set[str]) -> bool:
    named = _NAMED.match(message)
    return bool(named and named.group(1).strip() in names) or any(i in ids for i in _ANY_ID.findall(message))


def pulse_of(pipeline: dict[str, Any], health: dict[str, Any] | None,
             ids_by_name: dict[str, str] | None = None, *, flush: int | None = None) -> str:
    """A mark of LightRAG's work that changes whenever it works on our documents: its ingestion's model calls done
    and its pipeline's messages; with ``ids_by_name`` (a LightRAG working for another workspace too): only the
    messages naming those documents, by id or by file name, and ``flush``, the embedding calls done of a flush
    that can only be ours (:func:`read_steps`; None: not known to be ours)."""
    history = pipeline.get("history_messages")
    history = history if isinstance(history, list) else []
    if ids_by_name is not None:
        ids, names = set(ids_by_name.values()), set(ids_by_name)
        own = [m for m in history if isinstance(m, str) and _names_ours(m, ids, names)]
        return repr((tuple(own[-_OWN_MESSAGES:]), flush))
    tail = history[-1] if history else None
    return repr((model_calls(health), pipeline.get("cur_batch"), len(history), tail, pipeline.get("latest_message")))


def read_steps(pipeline: dict[str, Any] | None, ids_by_name: dict[str, str],
               health: dict[str, Any] | None = None, *, shared: bool = False,
               beside: Iterable[dict[str, Any]] | None = None) -> Steps:
    """The steps ``pipeline`` (a ``/documents/pipeline_status`` answer) tells of; ``ids_by_name``
    maps the file names LightRAG knows to their document ids (the messages use both); ``health``: an
    authenticated ``/health`` answer read with it (its model calls done, in the pulse); ``shared``: LightRAG
    works on another workspace's document too (:func:`others_at_work`), so only messages naming those of
    ``ids_by_name`` make the pulse, with the embedding calls of a flush when that flush can only be ours:
    ``beside`` (the rows of those other documents, :func:`working_beside`) holds none that may be writing vectors
    (:func:`_may_embed`: a document parsed, analyzed or extracting entities writes none). A search's call waits in no
    queue (:func:`model_calls`), so calls done while others wait are a flush's: ours, while we have one in processing
    (review r29 finding 4: a minutes-long flush of ours beside another workspace's VLM or extraction work read as no
    progress). Beside a document of theirs that may embed, they count for nothing: whose they are is not known.
    An idle or missing answer tells of none."""
    steps = Steps()
    if not pipeline or not pipeline.get("busy"):
        return steps
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
    flush = None
    if shared and beside is not None and not any(_may_embed(row, steps) for row in beside):
        calls = model_calls(health)
        flush = calls[1] if calls is not None else None
    steps.pulse = pulse_of(pipeline, health, ids_by_name if shared else None, flush=flush)
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

