"""Following a big ingest while LightRAG is busy: cheap status polls, paced listings,
no scan or delete LightRAG would refuse, and the next scan as soon as it is idle.

``run_sync`` runs on a scripted LightRAG (``httpx.MockTransport``) and a fake clock, so the
request counts below are exact.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from mnote_kr_testkit.data import SAMPLES
from mnote_kr_testkit.replay import Replay, load_sample, make_context

from mnote_kr.models import SourceEntry
from mnote_kr_lightrag.client import naming, settings, syncing
from mnote_kr_lightrag.client import provider as prov_module
from mnote_kr_lightrag.client.provider import LightRagProvider

IN_FLIGHT = {"pending": 3, "processing": 1, "processed": 10, "failed": 0, "all": 14}


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def now(self) -> float:
        return self.t

    def sleep(self, s: float) -> None:
        self.t += s


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock()
    monkeypatch.setattr(prov_module, "now_s", c.now)
    monkeypatch.setattr(prov_module, "sleep", c.sleep)
    syncing._seen.clear()
    syncing._listed.clear()
    syncing._rows.clear()
    syncing._pipeline.clear()
    syncing._health.clear()
    settings.clear_cache()
    return c


def _entry(ws: Path, rel: str, status: str, **extra: Any) -> SourceEntry:
    data = (ws / rel).read_bytes()
    return SourceEntry(source_id="src-" + rel, source_path=str(ws / rel), source_root_relative_path=rel,
                       source_hash="sha256:" + hashlib.sha256(data).hexdigest(), size=len(data), mtime_ns=1,
                       status=status, **extra)  # type: ignore[arg-type]


def _setup(tmp_path: Path, counts: list[dict[str, int]],
           scanned_at: list[float] | None = None) -> tuple[Replay, LightRagProvider, list[SourceEntry]]:
    """One file submitted (LightRAG processes it once the counts show it idle), one queued
    as pending because LightRAG was busy when it was linked."""
    replay = Replay()
    ctx = make_context(tmp_path, replay.transport, input_dir=str(tmp_path / "inputs"), workspace="")
    (tmp_path / "inputs").mkdir()
    ws = Path(ctx.workspace_root)
    (ws / "a.md").write_text("# A\n\nalpha\n", encoding="utf-8")
    (ws / "b.md").write_text("# B\n\nbravo\n", encoding="utf-8")
    prov = LightRagProvider(ctx)
    a_name = naming.link_name("a.md", "sha256:" + hashlib.sha256((ws / "a.md").read_bytes()).hexdigest(), prov.ws)
    a = _entry(ws, "a.md", "submitted", light_rag_file_path=a_name)
    b = _entry(ws, "b.md", "pending", pending_action="ingest")
    b_name = naming.link_name("b.md", b.source_hash, prov.ws)
    state = {"n": 0, "scans": 0}

    def status_counts(request: httpx.Request) -> httpx.Response:
        now = counts[min(state["n"], len(counts) - 1)]
        state["n"] += 1
        return httpx.Response(200, json={"status_counts": now})

    def paginated(request: httpx.Request) -> httpx.Response:
        done = sum(now.get("processing", 0) + now.get("pending", 0)
                   for now in [counts[min(state["n"] - 1, len(counts) - 1)]]) == 0
        rows = [{"id": naming.doc_id_for(a_name), "file_path": a_name, "status": "processed" if done else "processing",
                 "chunks_count": 1, "updated_at": "2026-12-01T00:00:00+00:00"}]
        if state["scans"]:  # what the scan took is processed by the next look
            rows.append({"id": naming.doc_id_for(b_name), "file_path": b_name, "status": "processed",
                         "chunks_count": 1, "updated_at": "2026-12-01T00:00:01+00:00"})
        return httpx.Response(200, json={"documents": rows, "pagination": {"has_next": False, "total_pages": 1},
                                         "status_counts": counts[0]})

    def scan(request: httpx.Request) -> httpx.Response:
        state["scans"] += 1
        if scanned_at is not None:
            scanned_at.append(prov_module.now_s())
        return httpx.Response(200, json={"status": "scanning_started", "track_id": "scan_1"})

    replay.add("GET", "/documents/status_counts", status_counts)
    replay.add("POST", "/documents/paginated", paginated)
    replay.add("POST", "/documents/scan", scan)
    replay.json("GET", "/documents/supported_file_types", {"supported_extensions": [".md", ".docx", ".pdf"]})
    return replay, prov, [a, b]


def test_while_lightrag_works_the_follow_polls_counts_lists_rarely_and_never_scans(tmp_path: Path,
                                                                                   clock: Clock) -> None:
    # Counts move every poll (a document finishes each time) for 20 polls of 0.5 s: 10 s busy.
    busy = [{**IN_FLIGHT, "processed": 10 + i} for i in range(20)]
    replay, prov, entries = _setup(tmp_path, busy)
    updates = {u.source_root_relative_path: u for u in syncing.run_sync(prov, entries, wait_s=9.0)}
    # Every listing is at least 2 s apart (a listing of 0 s costs nothing to pace by): <= 5 in 9 s,
    # where a listing per round (the old follow) was one per poll.
    listings = len(replay.sent("POST", "/documents/paginated"))
    polls = len(replay.sent("GET", "/documents/status_counts"))
    assert 1 <= listings <= 5 and polls >= 15, (listings, polls)
    assert replay.sent("POST", "/documents/scan") == []  # LightRAG would refuse it
    assert updates["a.md"].status == "processing"
    assert updates["b.md"].status == "pending" and updates["b.md"].pending_action == "ingest"
    assert not (tmp_path / "inputs").joinpath(naming.link_name(
        "b.md", entries[1].source_hash, prov.ws)).exists()  # re-linked only when it can be scanned


def test_when_lightrag_goes_idle_the_queued_file_is_scanned_at_once(tmp_path: Path, clock: Clock) -> None:
    idle = {"pending": 0, "processing": 0, "processed": 14, "failed": 0, "all": 14}
    replay, prov, entries = _setup(tmp_path, [IN_FLIGHT, {**IN_FLIGHT, "processed": 11}, idle])
    start = clock.t
    updates = {u.source_root_relative_path: u for u in syncing.run_sync(prov, entries, wait_s=30.0)}
    scans = replay.sent("POST", "/documents/scan")
    assert len(scans) == 1 and updates["b.md"].status == "processed"
    assert updates["a.md"].status == "processed"
    # Idle seen on the third poll (0.5 s apart) and scanned in that round, not after a backoff.
    idle_at = replay.calls.index(replay.sent("GET", "/documents/status_counts")[2])
    assert replay.calls.index(scans[0]) > idle_at
    assert clock.t - start <= 2.0


def test_counts_that_stop_moving_count_as_idle(tmp_path: Path, clock: Clock) -> None:
    """A pipeline stopped with documents pending (a restart) is started only by a scan."""
    scanned_at: list[float] = []
    replay, prov, entries = _setup(tmp_path, [IN_FLIGHT], scanned_at)
    start = clock.t
    updates = {u.source_root_relative_path: u for u in syncing.run_sync(prov, entries, wait_s=30.0)}
    assert len(scanned_at) == 1 and updates["b.md"].status == "processed"
    assert syncing._STALL_S <= scanned_at[0] - start < syncing._STALL_S + 2.0


def test_one_look_lists_at_once_without_a_count_poll(tmp_path: Path, clock: Clock) -> None:
    """``wait_s=0`` (the watcher, 'sync'): one full round as before, whatever LightRAG is doing."""
    replay, prov, entries = _setup(tmp_path, [IN_FLIGHT])
    syncing.run_sync(prov, entries, wait_s=0.0)
    assert replay.sent("GET", "/documents/status_counts") == []
    assert len(replay.sent("POST", "/documents/paginated")) == 1
    assert len(replay.sent("POST", "/documents/scan")) == 1


def test_a_waiting_follow_says_what_lightrag_does_with_a_document_in_flight_reading_its_pipeline_once(
        tmp_path: Path, clock: Clock) -> None:
    """The update of a document LightRAG is processing carries its stage, since when and its chunks
    (beside the recorded busy pipeline status, renamed to a.md's link); one pipeline read per call,
    however many rounds the call polls."""
    busy = [{**IN_FLIGHT, "processed": 10 + i} for i in range(20)]
    replay, prov, entries = _setup(tmp_path, busy)
    a_name = entries[0].light_rag_file_path or ""
    pipeline = load_sample(SAMPLES, "18_pipeline_status_busy_processing.json")[1]
    slow = "doc-29180dd3ecf2bf30a508d79b25a5aad2"
    doc = naming.doc_id_for(a_name)
    pipeline = json.loads(json.dumps(pipeline).replace(slow, doc).replace("slow1.txt", a_name))
    replay.json("GET", "/documents/pipeline_status", pipeline)
    updates = {u.source_root_relative_path: u for u in syncing.run_sync(prov, entries, wait_s=9.0)}
    act = updates["a.md"].activity
    assert act is not None and (act.stage, act.step, act.chunks_total) == ("processing", None, 1)
    assert act.since_ms == 1796083200000  # the row's updated_at: it records no process_start_time
    assert updates["b.md"].activity is None  # not sent yet: LightRAG has no row of it
    assert len(replay.sent("GET", "/documents/pipeline_status")) == 1
    # a look that does not wait (status, a plain sync) reads nothing more and says nothing of it
    quick = {u.source_root_relative_path: u for u in syncing.run_sync(prov, entries, wait_s=0)}
    assert quick["a.md"].activity is None and len(replay.sent("GET", "/documents/pipeline_status")) == 1


def test_a_waiting_follow_reads_the_model_calls_lightrag_has_done_while_it_embeds_a_document(
        tmp_path: Path, clock: Clock) -> None:
    """nc27b: a document LightRAG (no LLM: options ``!``) embeds for minutes has the same row and pipeline status
    throughout. With each pipeline read a waiting call reads /health, whose embedding calls done make the pulse
    (recorded samples 18 and 02; the embedding count raised by one per read, the flush's other calls waiting)."""
    busy = [{**IN_FLIGHT, "processed": 10 + i} for i in range(40)]
    replay, prov, entries = _setup(tmp_path, busy)
    a_name = entries[0].light_rag_file_path or ""
    doc = naming.doc_id_for(a_name)
    row = {"id": doc, "file_path": a_name, "status": "processing", "chunks_count": 482,
           "updated_at": "2026-12-01T00:00:00+00:00", "metadata": {"process_options": "F!",
                                                                   "process_start_time": 1796083200}}
    replay.routes[("POST", "/documents/paginated")] = []
    listing = {"documents": [row], "pagination": {"has_next": False, "total_pages": 1}, "status_counts": IN_FLIGHT}
    replay.json("POST", "/documents/paginated", listing)
    pipeline = load_sample(SAMPLES, "18_pipeline_status_busy_processing.json")[1]
    pipeline = json.loads(json.dumps(pipeline).replace("doc-29180dd3ecf2bf30a508d79b25a5aad2", doc)
                          .replace("slow1.txt", a_name))
    replay.json("GET", "/documents/pipeline_status", pipeline)
    health = load_sample(SAMPLES, "02_health_auth.json")[1]
    calls = {"n": 40}

    def answer(request: httpx.Request) -> httpx.Response:
        calls["n"] += 1
        return httpx.Response(200, json={**health, "embedding_queue_status": {
            **health["embedding_queue_status"], "completed_total": calls["n"], "queued": 30, "running": 8}})

    replay.routes.pop(("GET", "/health"), None)
    replay.add("GET", "/health", answer)
    pulses = []
    for _ in range(2):
        act = {u.source_root_relative_path: u for u in syncing.run_sync(prov, entries[:1], wait_s=1.0)}["a.md"].activity
        assert act is not None and (act.step, act.chunks_total) == ("embedding 482 chunks", 482)
        pulses.append(act.pulse)
        clock.t += 5.0
    assert pulses[0] != pulses[1]  # LightRAG embedded a batch meanwhile: progress
    assert len(replay.sent("GET", "/health")) == len(replay.sent("GET", "/documents/pipeline_status")) == 2
