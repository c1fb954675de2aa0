"""Unit tests for the offline model service (embeddings, honest chat, SSE)."""

from __future__ import annotations

import base64
import dataclasses
import json
import math
import os
import socket
import struct
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest
from lightrag.prompt import PROMPTS

from mnote_kr_lightrag.engine import modelservice as ms

KEY = "test-models-key"
AUTH = ms.auth_headers(KEY)


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@pytest.fixture()
def service() -> Iterator[str]:
    with ms.running(embedder="hashing", dim=64, api_key=KEY) as srv:
        yield f"http://127.0.0.1:{srv.server_address[1]}"


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
        [sys.executable, "-c", f"import json; from mnote_kr_lightrag.engine.modelservice import embed; "
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
    f = httpx.post(f"{service}/v1/embeddings", headers=AUTH,
                   json={"input": texts, "model": "m", "encoding_format": "float"})
    b = httpx.post(f"{service}/v1/embeddings", headers=AUTH,
                   json={"input": texts, "model": "m", "encoding_format": "base64"})
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
    client = openai.OpenAI(base_url=f"{service}/v1", api_key=KEY, max_retries=0)
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
    r = httpx.post(f"{service}/v1/embeddings", headers=AUTH, json={"input": "x y", "dimensions": 16})
    assert len(r.json()["data"][0]["embedding"]) == 16
    bad_format = httpx.post(f"{service}/v1/embeddings", headers=AUTH, json={"input": "x", "encoding_format": "hex"})
    assert bad_format.status_code == 400
    not_json = httpx.post(f"{service}/v1/embeddings", content=b"{not json",
                          headers={**AUTH, "Content-Type": "application/json"})
    assert not_json.status_code == 400
    assert httpx.post(f"{service}/v1/nothing", headers=AUTH, json={}).status_code == 404


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
    r = httpx.post(f"{service}/v1/chat/completions", headers=AUTH,
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
    r = httpx.post(f"{service}/v1/chat/completions", headers=AUTH, json={"messages": msgs})
    assert r.json()["choices"][0]["message"]["content"] == ms.NO_LLM_ANSWER


def test_lr_chat_stream_is_sse_chunks_ending_in_done(service: str) -> None:
    msgs = [{"role": "user", "content": "Tell me about Aurora."}]
    body = {"messages": msgs, "stream": True}
    with httpx.stream("POST", f"{service}/v1/chat/completions", headers=AUTH, json=body) as r:
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

    client = openai.OpenAI(base_url=f"{service}/v1", api_key=KEY, max_retries=0)
    try:
        stream = client.chat.completions.create(model=ms.LLM_MODEL, stream=True,
                                                messages=[{"role": "user", "content": "hi there"}])
        text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    finally:
        client.close()
    assert text == ms.NO_LLM_ANSWER


def test_lr_health_and_models(service: str) -> None:
    h = httpx.get(f"{service}/health", headers=AUTH).json()
    assert h["status"] == "ok" and h["dim"] == 64 and h["offline"] is True
    assert h["embedder"]["name"] == "hashing"
    ids = [m["id"] for m in httpx.get(f"{service}/v1/models", headers=AUTH).json()["data"]]
    assert ids == [ms.LLM_MODEL, ms.EMBED_MODEL]
    assert httpx.get(f"{service}/nope", headers=AUTH).status_code == 404
    assert httpx.get(f"{service}/stats", headers=AUTH).json() == {"requests": {}}
    httpx.post(f"{service}/v1/embeddings", headers=AUTH, json={"input": ["a b"]})
    httpx.post(f"{service}/v1/chat/completions", headers=AUTH, json={"messages": _keyword_prompt("battery cells")})
    assert httpx.get(f"{service}/stats", headers=AUTH).json() == {"requests": {"embeddings": 1, "keywords": 1}}


# --- the door: key, Host, Origin, body size, deadlines ---------------------------------------


def test_lr_service_refuses_every_route_but_health_without_the_key(service: str) -> None:
    body = {"input": ["secret text"]}
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": KEY}, {"X-API-Key": KEY}):
        for method, path in (("POST", "/v1/embeddings"), ("POST", "/v1/chat/completions"), ("POST", "/v1/rerank"),
                             ("GET", "/stats"), ("GET", "/v1/models")):
            r = httpx.request(method, f"{service}{path}", json=body if method == "POST" else None, headers=headers)
            assert r.status_code == 403 and "API Key" in r.text, (headers, path, r.status_code)
    assert httpx.get(f"{service}/health").status_code == 200  # liveness only, as for the engine
    assert httpx.get(f"{service}/stats", headers=AUTH).json() == {"requests": {}}  # nothing was served


def test_lr_service_refuses_foreign_hosts_and_origins_even_with_the_key(service: str) -> None:
    port = service.rsplit(":", 1)[1]
    for host in ("evil.example", f"evil.example:{port}", "127.0.0.1:1", f"localhost.evil.example:{port}"):
        for path in ("/health", "/stats"):
            r = httpx.get(f"{service}{path}", headers={**AUTH, "Host": host})
            assert r.status_code == 403 and "Host not allowed" in r.text, (host, path)
    for origin in ("http://evil.example", f"http://127.0.0.1:{int(port) + 1}", "null"):
        r = httpx.post(f"{service}/v1/embeddings", json={"input": ["x"]}, headers={**AUTH, "Origin": origin})
        assert r.status_code == 403 and "Origin" in r.text and "access-control-allow-origin" not in r.headers
    for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
        assert httpx.get(f"{service}/stats", headers={**AUTH, "Host": host}).status_code == 200
    own = httpx.get(f"{service}/stats", headers={**AUTH, "Origin": f"http://127.0.0.1:{port}"})
    assert own.status_code == 200


def test_lr_service_refuses_an_oversized_or_non_json_body_without_reading_it(service: str) -> None:
    host, port = service.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        # Announce a body over the limit and send none of it: the answer comes at once.
        sock.sendall(f"POST /v1/embeddings HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {KEY}\r\n"
                     f"Content-Type: application/json\r\nContent-Length: {ms.MAX_BODY + 1}\r\n\r\n".encode())
        head = b""
        while b"exceeds the limit" not in head:  # the head and the body may come in two segments
            chunk = sock.recv(4096)
            if not chunk:
                break
            head += chunk
        assert head.startswith(b"HTTP/1.1 413") and b"exceeds the limit" in head
    plain = httpx.post(f"{service}/v1/embeddings", content=b'{"input": ["x"]}',
                       headers={**AUTH, "Content-Type": "text/plain"})  # what a page may send without preflight
    assert plain.status_code == 415
    assert httpx.get(f"{service}/stats", headers=AUTH).json() == {"requests": {}}
    # A batch of LightRAG's size (10 chunks of 400 tokens of CJK, escaped) fits with room to spare.
    batch = {"input": ["项目概述" * 400] * 10, "model": "m"}
    assert len(json.dumps(batch)) * 5 < ms.MAX_BODY
    assert httpx.post(f"{service}/v1/embeddings", json=batch, headers=AUTH).status_code == 200


def test_lr_service_closes_slow_header_clients_at_their_deadline_without_holding_threads(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ms, "LIMITS", dataclasses.replace(ms.LIMITS, header_deadline=1.0))
    srv, thread = ms.start_in_thread(embedder="hashing", dim=64, api_key=KEY)
    port = srv.server_address[1]
    slow: list[socket.socket] = []
    try:
        for _ in range(50):
            sock = socket.create_connection(("127.0.0.1", port), timeout=30)
            sock.sendall(b"POST /v1/embeddings HTTP/1.1\r\nHost: 127.0.0.1")  # and never the rest
            slow.append(sock)
        # While the 50 wait, a keyed request is served, and the slow ones hold no handler thread.
        r = httpx.post(f"http://127.0.0.1:{port}/v1/embeddings", json={"input": ["x"]}, headers=AUTH, timeout=30)
        assert r.status_code == 200
        assert srv.active_workers() <= 2
        for sock in slow:  # each is answered 408 and closed at its deadline (the 30 s timeout is the failure)
            answer = b""
            while chunk := sock.recv(4096):
                answer += chunk
            assert answer.startswith(b"HTTP/1.1 408")
    finally:
        for sock in slow:
            sock.close()
        srv.shutdown()
        srv.server_close()
        thread.join(timeout=5)


def test_lr_service_command_needs_its_key_in_the_environment() -> None:
    env = {k: v for k, v in os.environ.items() if k != ms.KEY_ENV}
    out = subprocess.run([sys.executable, "-m", "mnote_kr_lightrag.engine.modelservice", "--port", "0",
                          "--embedder", "hashing"], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode != 0 and ms.KEY_ENV in out.stderr
