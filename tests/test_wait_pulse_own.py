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


def _stuck_lightrag(tmp_path: Path, *, flushing: bool, beside: bool, still: bool = True
                    ) -> tuple[Replay, LightRagProvider, SourceEntry]:
    """Our ``a.md`` processing (482 chunks, no LLM: embedding), its row, LightRAG's status counts and its pipeline
    status unchanged throughout (nc27b: minutes); every /health read counts one more embedding call done.
    ``flushing``: with the calls of a flush waiting in LightRAG's embedding queue (ours, when nothing else is worked
    on); else none waiting (a search's call). ``beside``: another workspace's document is processed beside ours on
    the same LightRAG. ``still``: the row is older than ``interrupted.GRACE_S`` on the clock, so each listing round
    also reads the pipeline status (for an engine stop: ``syncing._resend_interrupted``), as in a real minutes-long
    flush; else the status counts move each look (other documents done: listings paced) and the row is new."""
    replay, prov, entries = _setup(tmp_path, [IN_FLIGHT] if still else [{**IN_FLIGHT, "processed": 10 + i}
                                                                        for i in range(400)])
    changed = "1970-01-01T00:00:00+00:00" if still else "2026-12-01T00:00:00+00:00"
    name = entries[0].light_rag_file_path or ""
    doc = naming.doc_id_for(name)
    rows: list[dict[str, Any]] = [
        {"id": doc, "file_path": name, "status": "processing", "chunks_count": 482,
         "updated_at": changed, "metadata": {"process_options": "F!",
                                                                 "process_start_time": 1796083200}}]
    if beside:
        other = "handbook.w0badc0de.1f3a09c2-77ab01de.md"
        rows.append({"id": naming.doc_id_for(other), "file_path": other, "status": "processing", "chunks_count": 300,
                     "updated_at": changed, "metadata": {"process_options": "F!",
                                                                             "process_start_time": 1796083201}})
    replay.routes[("POST", "/documents/paginated")] = []
    replay.json("POST", "/documents/paginated", {"documents": rows, "status_counts": IN_FLIGHT,
                                                 "pagination": {"has_next": False, "total_pages": 1}})
    pipeline = load_sample(SAMPLES, "18_pipeline_status_busy_processing.json")[1]
    replay.json("GET", "/documents/pipeline_status", json.loads(
        json.dumps(pipeline).replace("doc-29180dd3ecf2bf30a508d79b25a5aad2", doc).replace("slow1.txt", name)))
    health = load_sample(SAMPLES, "02_health_auth.json")[1]
    done = {"n": 40}

    def answer(request: httpx.Request) -> httpx.Response:
        done["n"] += 1
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
