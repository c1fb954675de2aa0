"""Unit tests for the offline model service (embeddings, honest chat, SSE)."""

from __future__ import annotations

import base64
import json
import math
import struct
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest
from lightrag.prompt import PROMPTS

from mnote_kr_lightrag import modelservice as ms


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@pytest.fixture()
def service() -> Iterator[str]:
    srv, thread = ms.start_in_thread(embedder="hashing", dim=64)
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}"
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(timeout=5)


def _keyword_prompt(query: str) -> list[dict[str, str]]:
    prompt = PROMPTS["keywords_extraction"].format(
        query=query, examples="\n".join(PROMPTS["keywords_extraction_examples"]), language="English")
    return [{"role": "system", "content": prompt}, {"role": "user", "content": query}]


# --- vectors -----------------------------------------------------------------------------


def test_lr_embed_is_deterministic_unit_length_and_same_in_another_process() -> None:
    text = "Project Aurora 项目概述: battery capacity 3200 mAh"
    a, b = ms.embed(text, 384), ms.embed(text, 384)
    assert a == b
    assert len(a) == 384
    assert math.isclose(math.sqrt(sum(v * v for v in a)), 1.0, rel_tol=1e-9)
    out = subprocess.run(
        [sys.executable, "-c", f"import json; from mnote_kr_lightrag.modelservice import embed; "
                               f"print(json.dumps(embed({text!r}, 384)))"],
        capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(out.stdout) == a  # no per-process hash seed


def test_lr_embed_similar_texts_are_closer_than_unrelated_ones() -> None:
    q = ms.embed("battery capacity of the test cells")
    near = ms.embed("The cells have a battery capacity of 3200 mAh in the test.")
    far = ms.embed("Oral argument before the Supreme Court in Washington.")
    assert _cos(q, near) > _cos(q, far) + 0.2


def test_lr_embed_cjk_overlap_beats_unrelated_cjk() -> None:
    q = ms.embed("第二阶段计划")
    near = ms.embed("Nordwind Labs 第二阶段计划于2026年开始。")
    far = ms.embed("最高法院的口头辩论在华盛顿举行。")
    assert _cos(q, near) > 0.2  # above LightRAG's default cosine threshold
    assert _cos(q, near) > _cos(q, far) + 0.2


def test_lr_embed_empty_text_gives_a_fixed_unit_vector() -> None:
    assert ms.embed("", 8) == ms.embed("   ", 8) == [1.0] + [0.0] * 7
    with pytest.raises(ValueError):
        ms.embed("x", 0)


def test_lr_embeddings_base64_is_little_endian_float32_of_the_float_answer(service: str) -> None:
    texts = ["alpha beta", "项目概述"]
    f = httpx.post(f"{service}/v1/embeddings", json={"input": texts, "model": "m", "encoding_format": "float"})
    b = httpx.post(f"{service}/v1/embeddings", json={"input": texts, "model": "m", "encoding_format": "base64"})
    assert f.status_code == b.status_code == 200
    floats = [row["embedding"] for row in f.json()["data"]]
    assert [len(v) for v in floats] == [64, 64]
    for row, vec in zip(b.json()["data"], floats, strict=True):
        raw = base64.b64decode(row["embedding"])
        assert len(raw) == 64 * 4
        unpacked = struct.unpack("<64f", raw)
        assert all(math.isclose(x, y, rel_tol=1e-6, abs_tol=1e-7) for x, y in zip(unpacked, vec, strict=True))
    assert [row["index"] for row in b.json()["data"]] == [0, 1]


def test_lr_embeddings_through_the_openai_client_as_lightrag_uses_it(service: str) -> None:
    import openai  # installed with lightrag-hku
    client = openai.OpenAI(base_url=f"{service}/v1", api_key="offline", max_retries=0)
    try:
        res = client.embeddings.create(model=ms.EMBED_MODEL, input=["alpha beta"], encoding_format="base64")
    finally:
        client.close()
    got = res.data[0].embedding
    assert isinstance(got, str)
    vec = struct.unpack("<64f", base64.b64decode(got))
    assert all(math.isclose(x, y, rel_tol=1e-6, abs_tol=1e-7) for x, y in zip(vec, ms.embed("alpha beta", 64),
                                                                             strict=True))


def test_lr_embeddings_honour_dimensions_and_reject_bad_requests(service: str) -> None:
    r = httpx.post(f"{service}/v1/embeddings", json={"input": "x y", "dimensions": 16})
    assert len(r.json()["data"][0]["embedding"]) == 16
    assert httpx.post(f"{service}/v1/embeddings", json={"input": "x", "encoding_format": "hex"}).status_code == 400
    assert httpx.post(f"{service}/v1/embeddings", content=b"{not json").status_code == 400
    assert httpx.post(f"{service}/v1/nothing", json={}).status_code == 404


# --- chat ----------------------------------------------------------------------------------


def test_lr_keywords_come_only_from_the_query_words() -> None:
    query = "What does Nordwind Labs plan for the second phase?"
    kw = ms.extract_keywords(query)
    assert kw["low_level_keywords"] == ["Nordwind", "Labs", "plan", "second", "phase"]
    assert "Nordwind Labs plan" in kw["high_level_keywords"]
    for term in kw["high_level_keywords"] + kw["low_level_keywords"]:
        assert term in query


def test_lr_keywords_split_cjk_runs_into_words_that_appear() -> None:
    query = "Aurora 项目的电池容量是多少"
    kw = ms.extract_keywords(query)
    assert kw["low_level_keywords"] == ["Aurora", "项目", "电池容量", "多少"]
    long_run = ms.query_terms("第二阶段计划开始")
    assert "阶段" in long_run and "计划" in long_run
    assert all(t in "第二阶段计划开始" for t in long_run)


def test_lr_keywords_of_a_stopword_only_query_are_empty() -> None:
    assert ms.extract_keywords("what is the?") == {"high_level_keywords": [], "low_level_keywords": []}


def test_lr_chat_answers_lightrag_keyword_prompt_with_json(service: str) -> None:
    r = httpx.post(f"{service}/v1/chat/completions",
                   json={"model": "m", "messages": _keyword_prompt("battery capacity of Aurora cells")})
    body = r.json()
    assert body["object"] == "chat.completion"
    kw = json.loads(body["choices"][0]["message"]["content"])
    assert kw["low_level_keywords"] == ["battery", "capacity", "Aurora", "cells"]
    assert "<high_level_keyword>" not in json.dumps(kw)  # the template placeholder is never copied


def test_lr_chat_answers_entity_extraction_with_an_empty_result() -> None:
    system = PROMPTS["entity_extraction_system_prompt"]
    user = PROMPTS["entity_extraction_user_prompt"].format(
        max_total_records=20, max_entity_records=10, completion_delimiter=ms.COMPLETE, language="English",
        heading_context_block="", input_text="Nordwind Labs builds Aurora.")
    kind, text = ms.classify_and_answer([{"role": "system", "content": system}, {"role": "user", "content": user}])
    assert (kind, text) == ("extract", ms.COMPLETE)
    glean = PROMPTS["entity_continue_extraction_user_prompt"].format(
        max_total_records=20, max_entity_records=10, completion_delimiter=ms.COMPLETE, language="English")
    assert ms.classify_and_answer([{"role": "user", "content": glean}]) == ("extract", ms.COMPLETE)


def test_lr_chat_says_no_llm_for_a_rag_answer_prompt(service: str) -> None:
    msgs = [{"role": "system", "content": "---Role---\nYou are a helpful assistant.\n---Context---\nAurora ..."},
            {"role": "user", "content": "What is Aurora?"}]
    r = httpx.post(f"{service}/v1/chat/completions", json={"messages": msgs})
    assert r.json()["choices"][0]["message"]["content"] == ms.NO_LLM_ANSWER


def test_lr_chat_stream_is_sse_chunks_ending_in_done(service: str) -> None:
    msgs = [{"role": "user", "content": "Tell me about Aurora."}]
    with httpx.stream("POST", f"{service}/v1/chat/completions", json={"messages": msgs, "stream": True}) as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        lines = [ln for ln in r.iter_lines() if ln]
    assert lines[-1] == "data: [DONE]"
    chunks = [json.loads(ln[len("data: "):]) for ln in lines[:-1]]
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    assert "".join(c["choices"][0]["delta"].get("content", "") for c in chunks) == ms.NO_LLM_ANSWER
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
    assert len(chunks) > 2  # really streamed in pieces


def test_lr_chat_stream_through_the_openai_client(service: str) -> None:
    import openai

    client = openai.OpenAI(base_url=f"{service}/v1", api_key="offline", max_retries=0)
    try:
        stream = client.chat.completions.create(model=ms.LLM_MODEL, stream=True,
                                                messages=[{"role": "user", "content": "hi there"}])
        text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    finally:
        client.close()
    assert text == ms.NO_LLM_ANSWER


def test_lr_health_and_models(service: str) -> None:
    h = httpx.get(f"{service}/health").json()
    assert h["status"] == "ok" and h["dim"] == 64 and h["offline"] is True
    assert h["embedder"]["name"] == "hashing"
    ids = [m["id"] for m in httpx.get(f"{service}/v1/models").json()["data"]]
    assert ids == [ms.LLM_MODEL, ms.EMBED_MODEL]
    assert httpx.get(f"{service}/nope").status_code == 404
    assert httpx.get(f"{service}/stats").json() == {"requests": {}}
    httpx.post(f"{service}/v1/embeddings", json={"input": ["a b"]})
    httpx.post(f"{service}/v1/chat/completions", json={"messages": _keyword_prompt("battery cells")})
    assert httpx.get(f"{service}/stats").json() == {"requests": {"embeddings": 1, "keywords": 1}}
