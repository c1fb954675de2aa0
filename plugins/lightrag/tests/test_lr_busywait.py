"""A waiting sync and a file LightRAG refused as busy (``client/busywait.py``), on replayed 1.5.7 payloads.

A re-index deletes the old document and scans the new version at once; LightRAG refuses the scan
while that delete (or other work) runs, and the file is queued with a backoff. A sync that waits
polls the pipeline status until it is idle and sends the file then, not after the backoff."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.data import SAMPLES
from mnote_kr_testkit.replay import load_sample, replayed_provider
from mnote_kr_testkit.replay import source_file as source

import mnote_kr_lightrag as plugin
from mnote_kr.models import SourceEntry
from mnote_kr_lightrag.client import busywait, naming, provider, settings

BUSY = "LightRAG is busy: Pipeline is currently busy processing documents. Wait for the running job to finish"
START = 1_800_000_000.0


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    settings.clear_cache()
    now = [START]

    def fake_sleep(seconds: float) -> None:
        now[0] += seconds

    monkeypatch.setattr(provider, "sleep", fake_sleep)
    monkeypatch.setattr(provider, "now_s", lambda: now[0])
    return now


def listing(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"documents": rows, "pagination": {"page": 1, "page_size": 200, "total_count": len(rows),
                                              "total_pages": 1, "has_next": False, "has_prev": False},
            "status_counts": {"processed": len(rows), "all": len(rows)}}


def processed_row(name: str) -> dict[str, Any]:
    _, body = load_sample(SAMPLES, "16_documents_paginated_after_scan.json")
    row = copy.deepcopy(body["documents"][1])
    row.update(id=naming.doc_id_for(name), file_path=name, status="processed", chunks_count=1)
    return row


def refused(tmp_path: Path) -> tuple[dict[str, Any], SourceEntry, str, list[str]]:
    """A file queued because LightRAG refused its scan as busy, its retry due in 5 minutes."""
    env = replayed_provider(tmp_path, SAMPLES)
    said: list[str] = []
    env["ctx"].progress = said.append
    path = env["ws"] / "report.md"
    path.write_bytes(b"# Report\n\nThe quokka colony nests under the gearbox.\n")
    src = source(env["ws"], "report.md")
    name = naming.link_name(src.rel_path, src.sha256, naming.workspace_tag(env["ws"]))
    entry = SourceEntry(source_id=src.source_id, source_path=src.path, source_root_relative_path=src.rel_path,
                        source_hash=src.sha256, size=src.size, status="pending", pending_action="ingest",
                        last_error=BUSY, retry_count=3, next_retry_at_ms=int((START + 300) * 1000),
                        light_rag_file_path=name, indexed_at_ms=1_700_000_000_000)
    env["replay"].sample("GET", "/documents/supported_file_types", "05_supported_file_types.json")
    env["replay"].sample("POST", "/documents/scan", "10_scan_started.json")
    return env, entry, name, said


def test_lr_waiting_sync_sends_a_busy_refused_file_once_the_pipeline_is_idle(tmp_path: Path,
                                                                           clock: list[float]) -> None:
    env, entry, name, said = refused(tmp_path)
    replay = env["replay"]
    for _ in range(3):  # busy with the old version's delete for three looks, then idle
        replay.sample("GET", "/documents/pipeline_status", "18_pipeline_status_busy_processing.json")
    replay.sample("GET", "/documents/pipeline_status", "04_pipeline_status_idle.json")
    replay.json("POST", "/documents/paginated", listing([])).json("POST", "/documents/paginated", listing([]))
    replay.json("POST", "/documents/paginated", listing([processed_row(name)]))

    [update] = plugin.sync(ctx=env["ctx"], entries=[entry], wait_s=60)

    assert update.status == "processed", update
    assert len(replay.sent("POST", "/documents/scan")) == 1  # sent once, when LightRAG was idle
    assert clock[0] - START < 10  # not after the 5-minute backoff
    # while busy, only the pipeline status is asked: no listing, no scan LightRAG would refuse
    assert len(replay.sent("POST", "/documents/paginated")) == 3
    waited = [line for line in said if not line.startswith("reading files for LightRAG: ")]  # then sent
    assert waited and all("LightRAG is busy (slow1.txt[1 files])" in line and "1 file(s) wait to be sent" in line
                          for line in waited), said


def test_lr_waiting_sync_ends_at_its_bound_while_lightrag_stays_busy(tmp_path: Path, clock: list[float]) -> None:
    env, entry, _, said = refused(tmp_path)
    replay = env["replay"]
    replay.sample("GET", "/documents/pipeline_status", "18_pipeline_status_busy_processing.json")
    replay.json("POST", "/documents/paginated", listing([]))

    [update] = plugin.sync(ctx=env["ctx"], entries=[entry], wait_s=20)

    assert update.status == "pending" and update.pending_action == "ingest" and update.last_error == BUSY
    assert not replay.sent("POST", "/documents/scan")
    assert 20 <= clock[0] - START < 21
    assert len(replay.sent("POST", "/documents/paginated")) == 1
    assert len(said) == 4, said  # one line every 5 s, not one per look


def test_lr_one_look_sync_still_waits_for_the_backoff(tmp_path: Path, clock: list[float]) -> None:
    env, entry, _, _ = refused(tmp_path)
    env["replay"].json("POST", "/documents/paginated", listing([]))
    [update] = plugin.sync(ctx=env["ctx"], entries=[entry], wait_s=0)
    assert update.status == "pending" and not env["replay"].sent("POST", "/documents/scan")
    assert not env["replay"].sent("GET", "/documents/pipeline_status")


def test_lr_waiting_sync_ends_early_when_nothing_is_due_before_its_deadline(tmp_path: Path,
                                                                           clock: list[float]) -> None:
    env, entry, _, _ = refused(tmp_path)
    down = "LightRAG at http://lightrag.test:9621 did not answer"  # queued while down: its backoff holds
    entry = SourceEntry(**{**{f: getattr(entry, f) for f in entry.__struct_fields__}, "last_error": down})
    env["replay"].json("POST", "/documents/paginated", listing([]))
    [update] = plugin.sync(ctx=env["ctx"], entries=[entry], wait_s=60)
    assert update.status == "pending" and clock[0] - START < 1


def test_lr_a_rescan_refused_while_its_own_old_version_is_deleted_says_so(tmp_path: Path) -> None:
    """A newcomer's watch log said "LightRAG is busy: Pipeline is currently busy processing documents" on every
    single edit: the busy pipeline was the re-index's own delete of the old version (nc18b problem 6). A delete
    is refused while LightRAG is busy, so a delete this call started means it is busy with that delete."""
    import os

    env = replayed_provider(tmp_path, SAMPLES)
    ws, replay = env["ws"], env["replay"]
    (ws / "r.md").write_bytes(b"version one")
    old = source(ws, "r.md")
    old_name = naming.link_name(old.rel_path, old.sha256, naming.workspace_tag(ws))
    os.symlink(old.path, env["inputs"] / "__parsed__" / old_name)
    (ws / "r.md").write_bytes(b"version two")
    (ws / "n.md").write_bytes(b"# a new file")
    replay.json("POST", "/documents/paginated", listing([processed_row(old_name)]))
    replay.sample("GET", "/documents/supported_file_types", "05_supported_file_types.json")
    replay.sample("DELETE", "/documents/delete_document", "50_delete_document.json")
    replay.sample("POST", "/documents/scan", "11_scan_second_immediately.json")

    changed, new = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "r.md"), source(ws, "n.md")], force=False)

    assert changed.status == new.status == "pending"
    assert (changed.last_error or "").startswith("LightRAG is busy removing this file's old version"), changed
    assert (new.last_error or "").startswith("LightRAG is busy: "), new  # not its own delete: LightRAG's words
    for update in (changed, new):  # both stay busy refusals that a waiting sync polls the pipeline for
        assert busywait.refused_busy(update.status, update.pending_action, update.last_error)
