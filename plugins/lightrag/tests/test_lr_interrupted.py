"""A document an engine stop left in flight (``client/interrupted.py``), on payloads recorded from a real
LightRAG 1.5.7 (samples 110-114): ``ingest --wait`` of the 872-page handbook (482 chunks), ``mnote-kr engine
stop`` while LightRAG embedded it, ``engine start``. LightRAG then lists it ``processing`` beside an idle
pipeline (110-112) and nothing resumes it; a scan makes LightRAG take it up anew ("[resume] ... purging 482
chunk(s)", 113) and index it (114). nc26c: every message said it was still being indexed, for good."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from mnote_kr_testkit.data import SAMPLES
from mnote_kr_testkit.replay import load_sample, replayed_provider
from mnote_kr_testkit.replay import source_file as source

import mnote_kr_lightrag as plugin
from mnote_kr.citations.render.statustext import render_status
from mnote_kr.models import SourceEntry
from mnote_kr_lightrag.client import interrupted, naming, provider, settings

HANDBOOK = "doc-aebc297e32db84a24dcdcfacb1ae2246"  # processing in 110 and 113, processed in 114
SAMPLE = "doc-cc169ab85128f35cecaddf6f9102278e"  # word_sample.docx, processed before the stop
RESTARTED = 1796631230.0  # the clock after the restart (the rows' updated_at: 08:11:38Z; 114's new start: 08:14:00Z)


def _body(name: str) -> Any:
    return copy.deepcopy(load_sample(SAMPLES, name)[1])


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    settings.clear_cache()
    now = [RESTARTED]

    def fake_sleep(seconds: float) -> None:
        now[0] += seconds

    monkeypatch.setattr(provider, "sleep", fake_sleep)
    monkeypatch.setattr(provider, "now_s", lambda: now[0])
    return now


# --------------------------------------------------------------------------- the rule, on recorded statuses


def test_lr_a_document_listed_processing_beside_an_idle_pipeline_after_a_restart_is_interrupted() -> None:
    rows = _body("110_documents_after_engine_restart_mid_ingest.json")["documents"]
    idle = _body("111_pipeline_status_after_engine_restart.json")
    assert [r["id"] for r in interrupted.interrupted(rows, idle, RESTARTED)] == [HANDBOOK]
    # /health says the same of its pipeline (pipeline_busy, pipeline_scanning, pipeline_pending_enqueues)
    health = _body("112_health_after_engine_restart.json")
    assert [r["id"] for r in interrupted.interrupted(rows, health, RESTARTED)] == [HANDBOOK]


def test_lr_a_document_lightrag_is_working_on_is_not_interrupted() -> None:
    """After the scan, LightRAG resumes it: the same 'processing' row, and the pipeline busy (113)."""
    rows = _body("114_documents_resuming_after_scan.json")["documents"]
    resuming = _body("113_pipeline_status_resuming_after_scan.json")
    assert any(r["id"] == HANDBOOK and r["status"] == "processing" for r in rows)
    assert interrupted.interrupted(rows, resuming, RESTARTED + 600) == []
    # no pipeline status (not answered): not known, so not said
    assert interrupted.interrupted(rows, None, RESTARTED + 600) == []
    # scanning, or work waiting to enter the pipeline, is working too
    idle = _body("111_pipeline_status_after_engine_restart.json")
    assert interrupted.interrupted(rows, {**idle, "scanning": True}, RESTARTED + 600) == []
    assert interrupted.interrupted(rows, {**idle, "pending_enqueues": 1}, RESTARTED + 600) == []


def test_lr_a_row_changed_a_moment_ago_is_not_called_interrupted() -> None:
    """A scan just sent lists its documents 'pending' a moment before the pipeline says it is busy."""
    rows = _body("110_documents_after_engine_restart_mid_ingest.json")["documents"]
    idle = _body("111_pipeline_status_after_engine_restart.json")
    changed = next(r for r in rows if r["id"] == HANDBOOK)["updated_at"]
    from datetime import datetime

    at = datetime.fromisoformat(changed).timestamp()
    assert interrupted.interrupted(rows, idle, at + 1) == []
    assert [r["id"] for r in interrupted.interrupted(rows, idle, at + interrupted.GRACE_S)] == [HANDBOOK]


# --------------------------------------------------------------------------- sync sends it again


def _handbook(tmp_path: Path) -> tuple[dict[str, Any], SourceEntry]:
    """The handbook's entry as the stopped ingest left it (``processing``), the listing renamed to its link name."""
    env = replayed_provider(tmp_path, SAMPLES)
    ws = env["ws"]
    (ws / "big").mkdir()
    (ws / "big" / "handbook.docx").write_bytes(b"the handbook's bytes")
    src = source(ws, "big/handbook.docx")
    name = naming.link_name(src.rel_path, src.sha256, naming.workspace_tag(ws))
    entry = SourceEntry(source_id=src.source_id, source_path=src.path, source_root_relative_path=src.rel_path,
                        source_hash=src.sha256, size=src.size, status="processing", light_rag_file_path=name,
                        light_rag_doc_id=naming.doc_id_for(name))
    env["name"] = name
    return env, entry


def _renamed(sample: str, name: str) -> dict[str, Any]:
    body = _body(sample)
    for row in body["documents"]:
        if row["id"] == HANDBOOK:
            row.update(id=naming.doc_id_for(name), file_path=name)
    return body


def test_lr_sync_sends_again_a_document_an_engine_stop_left_processing(tmp_path: Path, clock: list[float]) -> None:
    env, entry = _handbook(tmp_path)
    replay = env["replay"]
    replay.json("POST", "/documents/paginated", _renamed("110_documents_after_engine_restart_mid_ingest.json",
                                                         env["name"]))
    replay.sample("GET", "/documents/pipeline_status", "111_pipeline_status_after_engine_restart.json")
    replay.sample("POST", "/documents/scan", "10_scan_started.json")

    [update] = plugin.sync(ctx=env["ctx"], entries=[entry], wait_s=0)

    assert len(replay.sent("POST", "/documents/scan")) == 1  # LightRAG's own way: its next run resumes it
    assert not replay.sent("DELETE", "/documents/delete_document")  # nothing deleted, nothing re-linked
    assert update.status == "processing" and update.last_error == interrupted.SENT_AGAIN, update
    assert list(env["inputs"].iterdir()) == [env["inputs"] / "__parsed__"]  # no link placed again


def test_lr_sync_sends_nothing_while_lightrag_works_on_it(tmp_path: Path, clock: list[float]) -> None:
    env, entry = _handbook(tmp_path)
    replay = env["replay"]
    replay.json("POST", "/documents/paginated", _renamed("114_documents_resuming_after_scan.json", env["name"]))
    replay.sample("GET", "/documents/pipeline_status", "113_pipeline_status_resuming_after_scan.json")

    [update] = plugin.sync(ctx=env["ctx"], entries=[entry], wait_s=0)

    assert not replay.sent("POST", "/documents/scan")
    assert update.status == "processing" and update.last_error is None


def test_lr_a_waiting_sync_says_the_file_was_sent_again_not_how_long_it_was_processing(
        tmp_path: Path, clock: list[float]) -> None:
    """nc26c's wait said "indexing now: handbook (processing for 3m 17s)" beside an idle LightRAG."""
    env, entry = _handbook(tmp_path)
    replay = env["replay"]
    replay.sample("GET", "/documents/status_counts", "33_status_counts.json")
    replay.json("POST", "/documents/paginated", _renamed("110_documents_after_engine_restart_mid_ingest.json",
                                                         env["name"]))
    replay.sample("GET", "/documents/pipeline_status", "111_pipeline_status_after_engine_restart.json")
    replay.sample("GET", "/documents/pipeline_status", "113_pipeline_status_resuming_after_scan.json")
    replay.sample("POST", "/documents/scan", "10_scan_started.json")

    [update] = plugin.sync(ctx=env["ctx"], entries=[entry], wait_s=3)

    assert len(replay.sent("POST", "/documents/scan")) == 1  # once: then LightRAG is busy with it
    assert update.status == "processing" and update.activity is not None
    assert update.activity.stage == "interrupted", update.activity

    # The wait's next look: LightRAG busy, its row not reset yet (the stopped run's times): still "sent again".
    clock[0] += 4
    [update] = plugin.sync(ctx=env["ctx"], entries=[entry], wait_s=1)
    assert update.activity is not None and update.activity.stage == "interrupted", update.activity
    # Then LightRAG has taken it up anew (114: processing since 08:14:00Z): what it does, as for any document.
    replay.routes[("POST", "/documents/paginated")] = []
    replay.json("POST", "/documents/paginated", _renamed("114_documents_resuming_after_scan.json", env["name"]))
    clock[0] = 1796631260.0
    [update] = plugin.sync(ctx=env["ctx"], entries=[entry], wait_s=1)
    assert update.activity is not None
    assert (update.activity.stage, update.activity.since_ms) == ("processing", 1796631240 * 1000), update.activity
    assert len(replay.sent("POST", "/documents/scan")) == 1


def test_lr_status_names_the_interrupted_file(tmp_path: Path, clock: list[float]) -> None:
    env, entry = _handbook(tmp_path)
    replay = env["replay"]
    replay.sample("GET", "/health", "112_health_after_engine_restart.json")
    replay.json("POST", "/documents/paginated", _renamed("110_documents_after_engine_restart_mid_ingest.json",
                                                         env["name"]))

    status = plugin.provider_status(ctx=env["ctx"], entries=[entry])

    assert status.pipeline_busy is False and status.interrupted == ["big/handbook.docx"]
    assert not replay.sent("POST", "/documents/scan")  # a status changes nothing
    # LightRAG's counts say "1 processing"; nc27b read that beside "Interrupted:" and "(idle)": the row it lists
    # processing is counted interrupted in the Documents line, LightRAG's own counts kept as they are for --json
    assert status.extra["interruptedByStatus"] == {"processing": 1}
    assert status.documents_by_status.get("processing") == 1
    info = {"workspace": "ws", "registry": {"entries": 1, "byStatus": {"processing": 1},
                                            "interrupted": {"count": 1, "paths": ["big/handbook.docx"]}},
            "provider": msgspec.to_builtins(status)}
    text = render_status(info)
    docs = next(line for line in text.splitlines() if line.startswith("Documents:"))
    assert "processing" not in docs and docs.startswith("Documents: 1 interrupted"), docs
    assert "(idle)" in text and "Interrupted: big/handbook.docx: the engine stopped while indexing it" in text, text


def test_lr_status_names_none_while_lightrag_works(tmp_path: Path, clock: list[float]) -> None:
    env, entry = _handbook(tmp_path)
    replay = env["replay"]
    health = _body("112_health_after_engine_restart.json")
    health.update(pipeline_busy=True, pipeline_active=True)
    replay.json("GET", "/health", health)
    replay.json("POST", "/documents/paginated", _renamed("110_documents_after_engine_restart_mid_ingest.json",
                                                         env["name"]))
    replay.sample("GET", "/documents/pipeline_status", "113_pipeline_status_resuming_after_scan.json")

    assert plugin.provider_status(ctx=env["ctx"], entries=[entry]).interrupted == []


def test_lr_a_search_tells_the_host_which_sent_files_an_idle_lightrag_left_in_flight(
        tmp_path: Path, clock: list[float], monkeypatch: pytest.MonkeyPatch) -> None:
    """nc26c: no search named the handbook; an idle LightRAG meant "done with every file sent"."""
    from mnote_kr.models import QueryRequest
    from mnote_kr_lightrag.client import http

    monkeypatch.setattr(http.time, "time", lambda: clock[0])
    env, _ = _handbook(tmp_path)
    replay = env["replay"]
    replay.sample("GET", "/health", "112_health_after_engine_restart.json")
    replay.sample("GET", "/documents/pipeline_status", "111_pipeline_status_after_engine_restart.json")
    replay.json("POST", "/documents/paginated", _renamed("110_documents_after_engine_restart_mid_ingest.json",
                                                         env["name"]))
    replay.sample("POST", "/query/data", "40_query_data_mix.json")

    result = plugin.query(ctx=env["ctx"], request=QueryRequest(query="credit cards", sent_files=(env["name"],)))

    assert result.diagnostics["indexing"] == {"busy": False, "interrupted": [env["name"]]}
    [asked] = replay.sent("POST", "/documents/paginated")
    assert "processing" in json.loads(asked.content)["status_filters"]
    assert not replay.sent("POST", "/documents/scan")  # a search sends nothing again
