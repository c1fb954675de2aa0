"""Before a search, one look at LightRAG's work when files are sent and not indexed yet
(``LightRagClient.look_before_search``): said at once when LightRAG indexes (nc22a P4: stderr was silent
for the 30 s a held search waits unheard), and told to the host (``diagnostics["indexing"]``) so a search
names only the files LightRAG has not finished. Recorded 1.5.7 pipeline-status payloads replayed."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from mnote_kr_testkit.data import SAMPLES
from mnote_kr_testkit.replay import load_sample, replayed_provider

import mnote_kr_lightrag as plugin
from mnote_kr.models import QueryRequest
from mnote_kr.models.registry import EntryColumns
from mnote_kr_lightrag.client import settings
from mnote_kr_lightrag.client.naming import doc_id_for

from .test_lr_searchwait import REL, statuses


def _env(tmp_path: Path, name: str, status: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, int]]]:
    """A replayed provider whose progress lines are kept with how many searches had gone out when said."""
    settings.clear_cache()
    env = replayed_provider(tmp_path, SAMPLES)
    replay = env["replay"]
    replay.sample("GET", "/health", "02_health_auth.json").json("GET", "/documents/pipeline_status", status)
    replay.sample("POST", "/query/data", "40_query_data_mix.json")
    said: list[tuple[str, int]] = []
    columns = EntryColumns(paths=[REL], doc_ids=[doc_id_for(name)], names=[name], live=b"\x01")
    env["ctx"] = dataclasses.replace(env["ctx"], entry_columns=lambda: columns,
                                     progress=lambda line: said.append((line, len(replay.sent("POST", "/query/data")))))
    return env, said


def test_a_search_sent_while_lightrag_indexes_a_sent_file_says_so_before_it_is_sent(tmp_path: Path) -> None:
    name, holding, _ = statuses(tmp_path / "ws", files=1)
    env, said = _env(tmp_path, name, holding)
    env["replay"].sample("POST", "/query/data", "40_query_data_mix.json")
    # nothing sent and not indexed (an idle library's search): no look, not one request more
    plain = plugin.query(ctx=env["ctx"], request=QueryRequest(query="credit cards"))
    assert env["replay"].sent("GET", "/documents/pipeline_status") == [] and said == []
    assert "indexing" not in plain.diagnostics
    result = plugin.query(ctx=env["ctx"], request=QueryRequest(query="credit cards", sent_files=(name,)))
    assert said == [(f"LightRAG is indexing 1 file: {REL} (for 2m 05s); this search may wait until it has "
                     "stored its chunks (at most 3m 00s)", 1)]  # the user's path, before this search went out
    assert result.diagnostics["indexing"]["busy"] is True and result.diagnostics["indexing"]["done"] == []
    assert result.references  # the search itself as before


def test_the_files_lightrag_finished_in_this_run_are_told_to_the_host(tmp_path: Path) -> None:
    name, _, stored = statuses(tmp_path / "ws", files=3)
    env, _ = _env(tmp_path, name, stored)
    result = plugin.query(ctx=env["ctx"], request=QueryRequest(query="credit cards", sent_files=(name, "b.md")))
    assert result.diagnostics["indexing"]["done"] == [name]


def test_an_idle_lightrag_is_told_as_idle_and_nothing_is_said(tmp_path: Path) -> None:
    _, idle = load_sample(SAMPLES, "04_pipeline_status_idle.json")
    env, said = _env(tmp_path, "a.md", idle)
    result = plugin.query(ctx=env["ctx"], request=QueryRequest(query="credit cards", sent_files=("a.md",)))
    assert said == [] and result.diagnostics["indexing"] == {"busy": False}

