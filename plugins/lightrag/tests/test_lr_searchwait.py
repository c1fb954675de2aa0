"""A search LightRAG holds while it indexes waits until the file is stored, then asks once more
(``client/searchwait.py``); recorded 1.5.7 pipeline-status payloads replayed, on a fake clock."""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from mnote_kr_testkit.data import SAMPLES
from mnote_kr_testkit.replay import URL, Replay, load_sample, make_context

from mnote_kr.models.registry import EntryColumns
from mnote_kr_lightrag.client.http import LightRagClient, ProviderUnavailableError
from mnote_kr_lightrag.client.naming import doc_id_for, link_name, workspace_tag

REL = "kb/manuals/unstructured__handbook.docx"


class Clock:
    """Monotonic time that moves only when the client sleeps between two looks at the status."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def statuses(ws: Path, files: int = 1) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """The handbook's link name, the status while LightRAG embeds it (sample 18, with what 1.5.7 writes
    for such a run: a job name cut to 20 characters, the whole name in the history) and the status
    once it stored it and took the next file (a "Completed processing file" line)."""
    _, busy = load_sample(SAMPLES, "18_pipeline_status_busy_processing.json")
    name = link_name(REL, "ab" * 32, workspace_tag(ws))
    doc = doc_id_for(name)
    history = ["Processing 1 document(s)", f"Parsing (native): {doc}", f"Extracting stage 1/{files}: {name}",
               f"Processing d-id: {doc}"]
    started = (datetime.now(UTC) - timedelta(seconds=125)).isoformat()
    holding = {**busy, "job_name": f"{name[:20]}...[{files} files]", "job_start": started, "docs": files,
               "batchs": files, "latest_message": f"Processing d-id: {doc}", "history_messages": history}
    stored = {**holding, "cur_batch": 2, "latest_message": "Processing d-id: doc-0123",
              "history_messages": [*history, f"Completed processing file 1/{files}: {name}",
                                   f"Extracting stage 2/{files}: other.pdf", "Processing d-id: doc-0123"]}
    return name, holding, stored


def client_for(tmp_path: Path, replay: Replay, name: str | None, wait_s: float,
               lines: list[str]) -> tuple[LightRagClient, Clock]:
    ctx = make_context(tmp_path, replay.transport)
    columns = EntryColumns(paths=[REL], doc_ids=[doc_id_for(name)], names=[name], live=b"\x01") if name else None
    ctx = dataclasses.replace(ctx, progress=lines.append, entry_columns=lambda: columns)
    client = LightRagClient(ctx, URL, "test-key", timeout_s=30, search_wait_s=wait_s)
    clock = Clock()
    client.clock, client.sleep = clock, clock.sleep
    return client, clock


def test_a_search_held_while_lightrag_stores_a_file_waits_for_it_and_asks_once_more(tmp_path: Path) -> None:
    """nc21c problem 5: every search sent while the handbook was embedded failed after 30 s. Now it waits
    for the file to be stored (LightRAG then lets go of its chunk store) and gets its answer."""
    name, holding, stored = statuses(tmp_path / "ws", files=3)
    replay = (Replay(SAMPLES).error("POST", "/query/data", httpx.ReadTimeout)
              .sample("POST", "/query/data", "40_query_data_mix.json"))
    for status in (holding, holding, holding, holding, holding, holding, holding, stored):
        replay.json("GET", "/documents/pipeline_status", status)
    lines: list[str] = []
    client, clock = client_for(tmp_path, replay, name, 120, lines)
    with client:
        body = client.query_data({"query": "credit cards"})
    assert body["status"] == "success" and body["data"]["entities"]
    assert len(replay.sent("POST", "/query/data")) == 2  # asked once more, not again and again
    assert len(replay.sent("GET", "/documents/pipeline_status")) == 8  # stopped looking once it was stored
    assert clock.now - 1000.0 == pytest.approx(7.0)  # seven looks, one second apart: not the whole budget
    assert lines and lines[0].startswith(f"waiting for LightRAG to store {REL}'s chunks (indexing 3 files: {REL} ")
    assert "file 1 of 3" in lines[0] and "at most 2m 30s" in lines[0], lines
    assert len(lines) == 2  # one line now and then (every 5 s), not one per look


def test_a_search_lightrag_holds_past_the_wait_fails_with_one_line_naming_the_users_whole_path(
        tmp_path: Path) -> None:
    """nc21c problems 2 and 5: the line named ``unstructured__handbo...`` (LightRAG's job name keeps 20
    characters). It names the user's own path, whole, and says the search waited as long as it may."""
    name, holding, _ = statuses(tmp_path / "ws")
    replay = Replay(SAMPLES).error("POST", "/query/data", httpx.ReadTimeout).json(
        "GET", "/documents/pipeline_status", holding)
    lines: list[str] = []
    client, clock = client_for(tmp_path, replay, name, 60, lines)
    with client, pytest.raises(ProviderUnavailableError) as info:
        client.query_data({"query": "credit cards"})
    message = str(info.value)
    assert "\n" not in message and "..." not in message
    assert message.startswith(f"LightRAG is indexing 1 file: {REL} (for 2m 0"), message
    assert "got no answer in 1m 00s: search again in a moment" in message, message
    assert "raise [providers.lightrag] search_wait_s" in message
    assert len(replay.sent("POST", "/query/data")) == 1
    assert 60 <= clock.now - 1000.0 <= 61  # the wait ends with its budget
    assert len(lines) == 12 and "1m 00s so far" not in lines[-1]


def test_a_file_the_registry_does_not_know_is_named_by_its_whole_file_name_not_the_cut_job_name(
        tmp_path: Path) -> None:
    name, holding, _ = statuses(tmp_path / "ws")
    replay = Replay(SAMPLES).error("POST", "/query/data", httpx.ReadTimeout).json(
        "GET", "/documents/pipeline_status", holding)
    client, _ = client_for(tmp_path, replay, None, 0, [])
    with client, pytest.raises(ProviderUnavailableError) as info:
        client.query_data({"query": "credit cards"})
    assert str(info.value).startswith("LightRAG is indexing 1 file: unstructured__handbook.docx (for 2m"), info.value
    assert len(replay.sent("GET", "/documents/pipeline_status")) == 1  # search_wait_s 0: no wait


def test_ask_is_held_and_waits_the_same_way_and_its_stream_says_what_lightrag_indexes(tmp_path: Path) -> None:
    """nc21c: 'ask' still said "did not answer in time". Its answer (``/query``) waits as a search does;
    a stream (``/query/stream``) that got no answer says what LightRAG indexes (a stream is not resent)."""
    name, holding, stored = statuses(tmp_path / "ws", files=2)
    replay = (Replay(SAMPLES).error("POST", "/query", httpx.ReadTimeout).sample("POST", "/query", "43_query_mix.json")
              .json("GET", "/documents/pipeline_status", holding).json("GET", "/documents/pipeline_status", stored))
    client, _ = client_for(tmp_path, replay, name, 120, [])
    with client:
        assert client.query({"query": "credit cards"})["response"].startswith("STUB ANSWER")
    assert len(replay.sent("POST", "/query")) == 2
    replay = Replay(SAMPLES).error("POST", "/query/stream", httpx.ReadTimeout).json(
        "GET", "/documents/pipeline_status", holding)
    client, _ = client_for(tmp_path, replay, name, 120, [])
    with client, pytest.raises(ProviderUnavailableError) as info:
        list(client.query_stream({"query": "credit cards"}))
    assert str(info.value).startswith(f"LightRAG is indexing 2 files: {REL} (for 2m"), info.value
    assert "got no answer in 30 s" in str(info.value) and len(replay.sent("POST", "/query/stream")) == 1



def test_status_while_lightrag_indexes_says_which_file_of_how_many_and_since_when(tmp_path: Path) -> None:
    """nc21c problem 5: 'status' said only "busy indexing". It names the file (the user's path), its number
    in the run and how long the run has gone on; LightRAG tells no chunk counts while it embeds, so no
    time left is guessed."""
    from mnote_kr_testkit.replay import replayed_provider

    import mnote_kr_lightrag as plugin
    from mnote_kr.citations.render.statustext import render_status
    from mnote_kr.models import SourceEntry, to_builtins

    env = replayed_provider(tmp_path, SAMPLES)
    name, holding, _ = statuses(env["ws"], files=3)
    _, health = load_sample(SAMPLES, "02_health_auth.json")
    env["replay"].json("GET", "/health", {**health, "pipeline_busy": True}).json(
        "GET", "/documents/pipeline_status", holding).sample(
        "POST", "/documents/paginated", "34_documents_paginated_all.json")
    entry = SourceEntry(source_id="s", source_path=str(env["ws"] / REL), source_root_relative_path=REL,
                        light_rag_file_path=name, light_rag_doc_id=doc_id_for(name), status="processing")
    status = plugin.provider_status(ctx=env["ctx"], entries=[entry])
    indexing = status.extra["indexing"]
    assert (indexing["file"], indexing["fileNumber"], indexing["files"]) == (REL, 1, 3)
    assert 120 <= indexing["runningS"] < 180
    info = {"workspace": str(env["ws"]), "registry": {"entries": 1, "byStatus": {"processing": 1}, "waiting": []},
            "provider": to_builtins(status)}
    line = next(x for x in render_status(info).splitlines() if x.startswith("Provider:"))
    assert re.search(rf"\(busy indexing 3 files: {re.escape(REL)} \(for 2m 0\ds, file 1 of 3\)\)$", line), line
