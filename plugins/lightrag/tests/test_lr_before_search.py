"""Before a search, one look at LightRAG's work when files are sent and not indexed yet
(``LightRagClient.look_before_search``): said at once when LightRAG indexes (nc22a P4: stderr was silent
for the 30 s a held search waits unheard), and told to the host (``diagnostics["indexing"]``) so a search
names only the files LightRAG has not finished. Recorded 1.5.7 pipeline-status payloads replayed."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.data import SAMPLES
from mnote_kr_testkit.replay import load_sample, replayed_provider

import mnote_kr_lightrag as plugin
from mnote_kr.models import QueryRequest
from mnote_kr.models.registry import EntryColumns
from mnote_kr.plugin_api import progress_writer
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
    assert said == [(f"note: LightRAG is indexing 1 file: {REL} (for 2m 05s); this search may wait until it has "
                     "stored its chunks (at most 3m 00s)", 1)]  # the user's path, before this search went out
    assert result.diagnostics["indexing"]["busy"] is True and result.diagnostics["indexing"]["done"] == []
    assert result.references  # the search itself as before


def test_the_files_lightrag_finished_in_this_run_are_told_to_the_host(tmp_path: Path) -> None:
    name, _, stored = statuses(tmp_path / "ws", files=3)
    env, _ = _env(tmp_path, name, stored)
    result = plugin.query(ctx=env["ctx"], request=QueryRequest(query="credit cards", sent_files=(name, "other.pdf")))
    assert result.diagnostics["indexing"]["done"] == [name]
    # every sent file finished in this run or the one indexed now: no page of documents is asked
    assert env["replay"].sent("POST", "/documents/paginated") == []


def test_an_idle_lightrag_is_told_as_idle_and_nothing_is_said(tmp_path: Path) -> None:
    _, idle = load_sample(SAMPLES, "04_pipeline_status_idle.json")
    env, said = _env(tmp_path, "a.md", idle)
    result = plugin.query(ctx=env["ctx"], request=QueryRequest(query="credit cards", sent_files=("a.md",)))
    assert said == [] and result.diagnostics["indexing"] == {"busy": False}



def _stderr_when_sent(env: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> list[str]:
    """What stderr held when the search went out to ``/query/data`` (the writer's own output)."""
    seen: list[str] = []
    queue = env["replay"].routes[("POST", "/query/data")]
    answer = queue[0]

    def sent(request: Any) -> Any:
        seen.append(capsys.readouterr().err)
        return answer(request)

    queue[:] = [sent]
    return seen


@pytest.mark.parametrize("tty", [False, True])
def test_the_indexing_notice_is_one_whole_line_on_stderr_before_the_search_piped_or_on_a_terminal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tty: bool) -> None:
    """nc22b P2: piped, the notice never reached stderr (a line without a count waits for a heartbeat);
    on a terminal it was drawn as a bar line, cut to the width, and the next output ran into it."""
    name, holding, _ = statuses(tmp_path / "ws", files=1)
    env, _ = _env(tmp_path, name, holding)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: tty)
    monkeypatch.setenv("COLUMNS", "80")
    env["ctx"] = dataclasses.replace(env["ctx"], progress=progress_writer())
    seen = _stderr_when_sent(env, capsys)
    plugin.query(ctx=env["ctx"], request=QueryRequest(query="credit cards", sent_files=(name,)))
    notice = (f"note: LightRAG is indexing 1 file: {REL} (for 2m 05s); this search may wait until it has stored "
              "its chunks (at most 3m 00s)")
    assert seen and seen[0].replace("\r\033[K", "") == notice + "\n"


def test_a_sent_file_lightrag_finished_in_an_earlier_run_is_told_as_done(tmp_path: Path) -> None:
    """nc22b P3: each file of an ingest was its own LightRAG run, so the history of the run indexing the next
    file did not name one finished a run before, and a search named it as still being indexed."""
    name, holding, _ = statuses(tmp_path / "ws", files=1)
    env, _ = _env(tmp_path, name, holding)
    env["replay"].sample("POST", "/documents/paginated", "34_documents_paginated_all.json")
    result = plugin.query(ctx=env["ctx"], request=QueryRequest(
        query="credit cards", sent_files=(name, "notes.md", "broken.docx", "later.md")))
    # notes.md processed (a run before); broken.docx failed and later.md not there: not done
    assert result.diagnostics["indexing"]["done"] == ["notes.md"]
    asked = json.loads(env["replay"].sent("POST", "/documents/paginated")[0].content)
    assert asked["status_filters"] == ["processed"] and asked["sort_field"] == "updated_at"
    assert asked["sort_direction"] == "desc"

