"""A wait's bound while LightRAG works for others (review r28, finding 4): a document stuck in this workspace still
ends the wait "no progress" while searches or another workspace's ingest keep LightRAG's model calls rising, and a
document of ours that LightRAG embeds for minutes still keeps it going (round 27's gain, nc27b).

``run_sync`` of the LightRAG plugin on a scripted LightRAG 1.5.7 (recorded samples 18 and 02) and a fake clock, its
activity fed to the host's :class:`~mnote_kr.app.patience.Patience` as ``ingest --wait`` does, round by round.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from mnote_kr_testkit.data import SAMPLES
from mnote_kr_testkit.replay import Replay, load_sample

from mnote_kr.app.patience import Patience, moves
from mnote_kr.models import SourceEntry
from mnote_kr_lightrag.client import naming, syncing
from mnote_kr_lightrag.client.provider import LightRagProvider
from tests.test_sync_pacing import IN_FLIGHT, Clock, _setup, clock  # noqa: F401  (a fixture)

BOUND_S = 30.0
ROUND_S = 5.0


def _stuck_lightrag(tmp_path: Path, *, flushing: bool, beside: bool | str, still: bool = True,
                    rising: bool = True) -> tuple[Replay, LightRagProvider, SourceEntry]:
    """Our ``a.md`` processing (482 chunks, no LLM: embedding), its row, LightRAG's status counts and its pipeline
    status unchanged throughout (nc27b: minutes); every /health read counts one more embedding call done.
    ``flushing``: with the calls of a flush waiting in LightRAG's embedding queue (ours, when nothing else is worked
    on); else none waiting (a search's call). ``beside``: another workspace's document is processed beside ours on
    the same LightRAG (``True``: its chunks flushed, so it may embed; ``"analyzing"``: its images read by the VLM;
    ``"extracting"``: its entities extracted, its chunks flushed before, the pipeline's messages say so: neither
    embeds). ``rising``: else the calls done never move. ``still``: the row is older than ``interrupted.GRACE_S``
    on the clock, so each listing round also reads the pipeline status (for an engine stop:
    ``syncing._resend_interrupted``), as in a real minutes-long flush; else the status counts move each look (other
    documents done: listings paced) and the row is new."""
    replay, prov, entries = _setup(tmp_path, [IN_FLIGHT] if still else [{**IN_FLIGHT, "processed": 10 + i}
                                                                        for i in range(400)])
    changed = "1970-01-01T00:00:00+00:00" if still else "2026-12-01T00:00:00+00:00"
    name = entries[0].light_rag_file_path or ""
    doc = naming.doc_id_for(name)
    rows: list[dict[str, Any]] = [
        {"id": doc, "file_path": name, "status": "processing", "chunks_count": 482,
         "updated_at": changed, "metadata": {"process_options": "F!",
                                                                 "process_start_time": 1796083200}}]
    other = "handbook.w0badc0de.1f3a09c2-77ab01de.md"
    if beside is True:
        rows.append({"id": naming.doc_id_for(other), "file_path": other, "status": "processing", "chunks_count": 300,
                     "updated_at": changed, "metadata": {"process_options": "F!",
                                                                             "process_start_time": 1796083201}})
    elif beside == "analyzing":
        rows.append({"id": naming.doc_id_for(other), "file_path": other, "status": "analyzing", "updated_at": changed,
                     "metadata": {"process_options": "F", "analyzing_start_time": 1796083201}})
    elif beside == "extracting":
        rows.append({"id": naming.doc_id_for(other), "file_path": other, "status": "processing", "chunks_count": 300,
                     "updated_at": changed, "metadata": {"process_options": "F", "process_start_time": 1796083201}})
    replay.routes[("POST", "/documents/paginated")] = []
    replay.json("POST", "/documents/paginated", {"documents": rows, "status_counts": IN_FLIGHT,
                                                 "pagination": {"has_next": False, "total_pages": 1}})
    pipeline = load_sample(SAMPLES, "18_pipeline_status_busy_processing.json")[1]
    pipeline = json.loads(
        json.dumps(pipeline).replace("doc-29180dd3ecf2bf30a508d79b25a5aad2", doc).replace("slow1.txt", name))
    if beside == "extracting":
        theirs = naming.doc_id_for(other)
        pipeline["history_messages"] += [f"Processing d-id: {theirs}",
                                         f"Chunk 7 of 300 extracted 4 Ent + 1 Rel {theirs}-chunk-006"]
    replay.json("GET", "/documents/pipeline_status", pipeline)
    health = load_sample(SAMPLES, "02_health_auth.json")[1]
    done = {"n": 40}

    def answer(request: httpx.Request) -> httpx.Response:
        done["n"] += 1 if rising else 0
        queue = {**health["embedding_queue_status"], "completed_total": done["n"]}
        if flushing:
            queue.update(running=8, queued=30, in_flight=38)
        return httpx.Response(200, json={**health, "embedding_queue_status": queue})

    replay.routes.pop(("GET", "/health"), None)
    replay.add("GET", "/health", answer)
    return replay, prov, entries[0]


def _rounds_until_timeout(prov: LightRagProvider, entry: SourceEntry, time: Clock, rounds: int) -> int | None:
    """Wait rounds as ``ingest --wait`` runs them (the bound :data:`BOUND_S` without progress): the round the bound
    ran out in, or None when it never did."""
    bound = Patience(BOUND_S, clock=time.now)
    for n in range(rounds):
        update = syncing.run_sync(prov, [entry], wait_s=1.0)[0]
        assert update.activity is not None and update.activity.step == "embedding 482 chunks"
        bound.saw(moves([entry], {entry.source_root_relative_path: update.activity}))
        if bound.remaining() <= 0:
            return n
        time.t += ROUND_S
    return None


@pytest.mark.parametrize("still", [True, False])
def test_a_stuck_document_times_out_while_searches_keep_lightrags_embedding_count_rising(
        tmp_path: Path, clock: Clock, still: bool) -> None:  # noqa: F811
    replay, prov, entry = _stuck_lightrag(tmp_path, flushing=False, beside=False, still=still)
    ended = _rounds_until_timeout(prov, entry, clock, rounds=20)
    assert ended is not None and ended * ROUND_S <= BOUND_S + 2 * ROUND_S, ended
    assert len(replay.sent("GET", "/health")) >= 3  # the count rose between the rounds that read it


@pytest.mark.parametrize("still", [True, False])
def test_our_documents_flush_keeps_the_wait_going_past_the_bound(
        tmp_path: Path, clock: Clock, still: bool) -> None:  # noqa: F811
    replay, prov, entry = _stuck_lightrag(tmp_path, flushing=True, beside=False, still=still)
    assert _rounds_until_timeout(prov, entry, clock, rounds=20) is None  # 100 s of rounds, a bound of 30 s
    # /health is read with the pipeline status, once per round, also in the rounds that read that status to see
    # whether an engine stop left the document (its row unchanged): a real run of round 27's pulse read it twice in
    # a wait of over a minute, then never again, so the embedding calls done stopped being seen
    assert len(replay.sent("GET", "/health")) >= 18, len(replay.sent("GET", "/health"))


@pytest.mark.parametrize("still", [True, False])
def test_a_stuck_document_times_out_while_another_workspaces_flush_runs_beside_it(
        tmp_path: Path, clock: Clock, still: bool) -> None:  # noqa: F811
    _, prov, entry = _stuck_lightrag(tmp_path, flushing=True, beside=True, still=still)
    ended = _rounds_until_timeout(prov, entry, clock, rounds=20)
    assert ended is not None and ended * ROUND_S <= BOUND_S + 2 * ROUND_S, ended


@pytest.mark.parametrize("still", [True, False])
@pytest.mark.parametrize("beside", ["analyzing", "extracting"])
def test_our_flush_keeps_the_wait_going_while_another_workspace_works_beside_it(
        tmp_path: Path, clock: Clock, beside: str, still: bool) -> None:  # noqa: F811
    """Review r29 finding 4: while another workspace's document is read by the VLM or has its entities extracted on
    the same LightRAG, the embedding calls done with more waiting in the queue are a flush, and only ours flushes:
    our minutes-long flush must not end the wait "no progress" (it did: only messages naming ours counted)."""
    _, prov, entry = _stuck_lightrag(tmp_path, flushing=True, beside=beside, still=still)
    assert _rounds_until_timeout(prov, entry, clock, rounds=20) is None  # 100 s of rounds, a bound of 30 s


@pytest.mark.parametrize("flushing", [True, False])
@pytest.mark.parametrize("beside", ["analyzing", "extracting"])
def test_a_stuck_document_times_out_while_another_workspace_works_beside_it(
        tmp_path: Path, clock: Clock, beside: str, flushing: bool) -> None:  # noqa: F811
    """The same LightRAG beside the same work of another workspace, ours stuck: no embedding call done (``flushing``:
    its batches still queued), or only a search's calls (no queue): the wait still ends after its bound."""
    _, prov, entry = _stuck_lightrag(tmp_path, flushing=flushing, beside=beside, rising=not flushing)
    ended = _rounds_until_timeout(prov, entry, clock, rounds=20)
    assert ended is not None and ended * ROUND_S <= BOUND_S + 2 * ROUND_S, ended
