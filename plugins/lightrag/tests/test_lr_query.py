"""LightRAG provider's query hooks (``query``, ``stream_answer``) against replayed 1.5.7 payloads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.data import SAMPLES
from mnote_kr_testkit.replay import Replay, load_sample, make_context, replayed_provider

import mnote_kr_lightrag as plugin
from mnote_kr.errors import UsageError
from mnote_kr.models import QueryRequest
from mnote_kr_lightrag.client import settings
from mnote_kr_lightrag.client.querying import stream_events


@pytest.fixture
def env(tmp_path: Path) -> dict[str, Any]:
    settings.clear_cache()  # each test's replay answers /health afresh
    return replayed_provider(tmp_path, SAMPLES)


def test_lr_query_one_reference_per_chunk_in_order(env: dict[str, Any]) -> None:
    replay = env["replay"]
    replay.sample("GET", "/health", "02_health_auth.json")
    replay.sample("POST", "/query/data", "40_query_data_mix.json")
    result = plugin.query(ctx=env["ctx"], request=QueryRequest(query="What does Nordwind Labs do?", mode="hybrid"))
    assert [r.file_path for r in result.references] == ["aurora_报告.docx", "notes.md", "upload_me.md"]
    assert [r.rank for r in result.references] == [1, 2, 3]
    first = result.references[0]
    assert first.chunk_id == "doc-8c87484c16242b0b43fa5bfbce70b3c2-chunk-000"
    assert first.doc_id == "doc-8c87484c16242b0b43fa5bfbce70b3c2" and "Nordwind Labs" in (first.content or "")
    sent = json.loads(replay.sent("POST", "/query/data")[0].content)
    assert sent["mode"] == "mix" and sent["include_references"] and sent["include_chunk_content"]
    assert sent["enable_rerank"] is False  # the server's configured value: no reranker, no warning
    assert result.answer is None and result.rerank_requested is False


def test_lr_query_passes_enable_rerank_when_asked(env: dict[str, Any]) -> None:
    replay = env["replay"]
    replay.sample("GET", "/health", "02_health_auth.json")
    replay.sample("POST", "/query/data", "40_query_data_naive.json")
    result = plugin.query(ctx=env["ctx"], request=QueryRequest(query="Zephyr turbine", mode="naive",
                                                               enable_rerank=True, chunk_top_k=5))
    sent = json.loads(replay.sent("POST", "/query/data")[0].content)
    assert sent["enable_rerank"] is True and sent["chunk_top_k"] == 5 and result.rerank_requested


@pytest.mark.parametrize("sample", ["40_query_data_global.json", "41_query_data_mix_zh_with_keywords.json"])
def test_lr_query_empty_data_means_no_results(env: dict[str, Any], sample: str) -> None:
    env["replay"].sample("GET", "/health", "02_health_auth.json").sample("POST", "/query/data", sample)
    env["replay"].sample("POST", "/query", "43_query_mix.json")
    result = plugin.query(ctx=env["ctx"], request=QueryRequest(query="nothing here", want_answer=True))
    assert result.references == [] and result.raw_status == "no_results" and result.answer is None
    assert not env["replay"].sent("POST", "/query")


def test_lr_query_in_a_graph_mode_with_no_graph_reads_the_passages_and_says_so(env: dict[str, Any]) -> None:
    """The managed offline engine builds no knowledge graph, so ``local`` and ``global`` found nothing and an
    agent was told the library holds nothing (a newcomer's check); the passages are searched instead."""
    replay = env["replay"]
    replay.sample("GET", "/health", "02_health_auth.json").sample("POST", "/query/data", "40_query_data_global.json")
    replay.sample("POST", "/query/data", "40_query_data_mix.json")
    result = plugin.query(ctx=env["ctx"], request=QueryRequest(query="What does Nordwind Labs do?", mode="global"))
    assert [json.loads(r.content)["mode"] for r in replay.sent("POST", "/query/data")] == ["global", "mix"]
    assert [r.file_path for r in result.references] == ["aurora_报告.docx", "notes.md", "upload_me.md"]
    assert any("knowledge graph holds nothing" in n and "mode mix" in n for n in result.notes), result.notes
    # a graph that answers is read as it is: no second query
    replay.sample("POST", "/query/data", "40_query_data_local.json")
    local = plugin.query(ctx=env["ctx"], request=QueryRequest(query="What does Nordwind Labs do?", mode="local"))
    assert local.references and not any("knowledge graph" in n for n in local.notes)
    assert [json.loads(r.content)["mode"] for r in replay.sent("POST", "/query/data")][2:] == ["local"]


def test_lr_query_too_short_is_a_usage_error(env: dict[str, Any]) -> None:
    env["replay"].sample("GET", "/health", "02_health_auth.json").sample("POST", "/query/data",
                                                                         "42_query_data_too_short.json")
    with pytest.raises(UsageError, match="too short") as exc:
        plugin.query(ctx=env["ctx"], request=QueryRequest(query="ab"))
    assert exc.value.hint == "give a few more words"  # not "shorten or rephrase" (a newcomer's check)


def test_lr_query_answer_and_offline_llm_note(env: dict[str, Any]) -> None:
    replay = env["replay"]
    replay.sample("GET", "/health", "02_health_auth.json").sample("POST", "/query/data", "40_query_data_mix.json")
    replay.sample("POST", "/query", "43_query_mix.json")
    result = plugin.query(ctx=env["ctx"], request=QueryRequest(query="What is Aurora?", want_answer=True))
    assert result.answer and result.answer.startswith("STUB ANSWER") and result.llm_generated
    settings.clear_cache()
    _, health = load_sample(SAMPLES, "02_health_auth.json")
    health["configuration"]["llm_model"] = "mnote-offline-llm"
    offline = Replay(SAMPLES).json("GET", "/health", health).sample("POST", "/query/data", "40_query_data_mix.json")
    ctx = make_context(env["ws"].parent, offline.transport, input_dir=str(env["inputs"]))
    result = plugin.query(ctx=ctx, request=QueryRequest(query="What is Aurora?", want_answer=True))
    assert result.answer is None and len(result.notes) == 1 and result.notes[0].startswith("No LLM is configured")
    assert "[providers.lightrag.engine.llm]" in result.notes[0]  # and where to configure one
    assert len(result.references) == 3 and not offline.sent("POST", "/query")


def test_lr_stream_events_handle_both_ndjson_shapes() -> None:
    incremental = load_sample(SAMPLES, "46_query_stream_progress.json")[1]
    events = list(stream_events(iter(incremental)))
    assert [e.kind for e in events][:3] == ["progress", "progress", "references"]
    assert "".join(e.text for e in events if e.kind == "delta") == (
        "STUB ANSWER: the retrieved context was received; this is a canned offline reply.")
    assert events[2].references[0].file_path == "kestrel_note.txt" and events[2].references[0].content
    assert events[-1].kind == "done" and events[-1].data == {"response_time": 0.098}
    single = load_sample(SAMPLES, "49_query_stream_no_results.ndjson")[1]
    events = list(stream_events(iter(single)))
    assert [e.kind for e in events] == ["note", "done"] and events[-1].data == {"llm_generated": False}


def test_lr_stream_answer_over_http(env: dict[str, Any]) -> None:
    replay = env["replay"]
    replay.sample("GET", "/health", "02_health_auth.json")
    replay.sample("POST", "/query/stream", "45_query_stream_ndjson.json")
    events = list(plugin.stream_answer(env["ctx"], QueryRequest(query="What is Zephyr?")))
    assert events[0].kind == "references" and len(events[0].references) == 4
    assert "".join(e.text for e in events if e.kind == "delta").endswith("canned offline reply.")
    assert json.loads(replay.sent("POST", "/query/stream")[0].content)["stream"] is True
