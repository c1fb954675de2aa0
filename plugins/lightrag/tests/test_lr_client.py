"""LightRAG HTTP client: recorded 1.5.7 payloads replayed through httpx.MockTransport."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from mnote_kr_testkit.data import SAMPLES as SAMPLES_DIR
from mnote_kr_testkit.replay import URL, Replay, load_sample, make_context

from mnote_kr.errors import ProviderBusyError, ProviderError
from mnote_kr_lightrag.client.http import LightRagClient, ProviderHTTPError, ProviderUnavailableError

REPO = Path(__file__).resolve().parents[3]
SAMPLES = SAMPLES_DIR
KEY = "test-key"


def client_for(tmp_path: Path, replay: Replay, key: str | None = KEY) -> LightRagClient:
    return LightRagClient(make_context(tmp_path, replay.transport), URL, key, timeout_s=5)


def test_lr_client_sends_key_only_as_x_api_key_and_decodes_health(tmp_path: Path) -> None:
    replay = Replay(SAMPLES).sample("GET", "/health", "02_health_auth.json")
    with client_for(tmp_path, replay) as client:
        health = client.health()
    assert health["input_directory"] == "/srv/lr-spike/run/inputs"
    request = replay.calls[0]
    assert request.headers["x-api-key"] == KEY
    assert KEY not in str(request.url)


def test_lr_client_wrong_key_is_clear_and_never_echoes_the_key(tmp_path: Path) -> None:
    replay = Replay(SAMPLES).sample("GET", "/documents/pipeline_status", "03b_pipeline_status_wrongkey.json")
    with client_for(tmp_path, replay, key="s3cret-value") as client, pytest.raises(ProviderHTTPError) as info:
        client.pipeline_status()
    message = str(info.value)
    assert "rejected the API key" in message and "Invalid API Key" in message
    assert "mnote-kr secrets set lightrag-api-key" in message
    assert "s3cret-value" not in message and info.value.status_code == 403


def test_lr_client_missing_key_says_a_key_is_needed(tmp_path: Path) -> None:
    replay = Replay(SAMPLES).sample("GET", "/documents/pipeline_status", "03_pipeline_status_noauth.json")
    with client_for(tmp_path, replay, key=None) as client, pytest.raises(ProviderHTTPError) as info:
        client.pipeline_status()
    assert "needs an API key" in str(info.value) and "API Key required" in str(info.value)
    assert "x-api-key" not in replay.calls[0].headers


def test_lr_client_405_carries_url_and_detail(tmp_path: Path) -> None:
    replay = Replay(SAMPLES).sample("GET", "/documents", "05b_GET_documents_legacy.json")
    with client_for(tmp_path, replay) as client, pytest.raises(ProviderHTTPError) as info:
        client.request("GET", "/documents")
    assert info.value.status_code == 405 and info.value.detail == "Method Not Allowed"
    assert URL in str(info.value) and info.value.url == f"{URL}/documents"


@pytest.mark.parametrize(
    ("content", "ctype"),
    [
        (b"<html><body><h1>502 Bad Gateway</h1>\n<p>nginx</p></body></html>", "text/html"),
        (b'{"documents": [{"id": "doc-1", "status": "proc', "application/json"),
        (b"\x00\xff\xfe garbage \x81", "application/octet-stream"),
        (b"", "application/json"),
    ],
)
def test_lr_client_garbage_html_or_truncated_json_is_one_clear_line(tmp_path: Path, content: bytes,
                                                                    ctype: str) -> None:
    replay = Replay().raw("POST", "/documents/paginated", content=content, headers={"content-type": ctype})
    with client_for(tmp_path, replay) as client, pytest.raises(ProviderError) as info:
        client.documents_page(1)
    message = str(info.value)
    assert "\n" not in message
    assert URL in message and "not complete JSON" in message
    assert ctype in message


def test_lr_client_html_error_page_keeps_status(tmp_path: Path) -> None:
    replay = Replay().raw("GET", "/health", status=502, content=b"<html>Bad Gateway</html>",
                          headers={"content-type": "text/html"})
    with client_for(tmp_path, replay) as client, pytest.raises(ProviderHTTPError) as info:
        client.health()
    assert info.value.status_code == 502 and "HTTP 502" in str(info.value)


def test_lr_client_connection_refused_names_url_and_engine_start(tmp_path: Path) -> None:
    replay = Replay().error("GET", "/health", httpx.ConnectError)
    with client_for(tmp_path, replay) as client, pytest.raises(ProviderUnavailableError) as info:
        client.health()
    assert str(info.value) == f"LightRAG is not reachable at {URL} (is it running? 'mnote-kr engine start')"


def test_lr_client_timeout_is_a_clear_error(tmp_path: Path) -> None:
    replay = Replay().error("POST", "/query/data", httpx.ReadTimeout)
    with client_for(tmp_path, replay) as client, pytest.raises(ProviderUnavailableError) as info:
        client.query_data({"query": "x"})
    assert "did not answer POST /query/data in time" in str(info.value) and "timeout_s" in str(info.value)


def test_lr_client_search_timeout_while_lightrag_is_idle_stays_a_timeout(tmp_path: Path) -> None:
    replay = (Replay(SAMPLES).error("POST", "/query/data", httpx.ReadTimeout)
              .sample("GET", "/documents/pipeline_status", "04_pipeline_status_idle.json"))
    client = LightRagClient(make_context(tmp_path, replay.transport), URL, KEY, timeout_s=5, search_wait_s=120)
    client.sleep = lambda s: pytest.fail("an idle LightRAG's timeout is no wait")  # searchwait waits only while busy
    with client, pytest.raises(ProviderUnavailableError) as info:
        client.query_data({"query": "credit cards"})
    assert "did not answer POST /query/data in time" in str(info.value)
    assert len(replay.sent("GET", "/documents/pipeline_status")) == 1


def test_lr_client_409_and_429_are_busy_with_retry_after(tmp_path: Path) -> None:
    replay = (Replay(SAMPLES).sample("POST", "/documents/upload", "31_upload_same_name.json")
              .json("POST", "/documents/upload", {"detail": "Too many pending documents"}, status=429,
                    headers={"Retry-After": "30"}))
    with client_for(tmp_path, replay) as client:
        with pytest.raises(ProviderBusyError) as first:
            client.upload("a.md", b"x")
        with pytest.raises(ProviderBusyError) as second:
            client.upload("a.md", b"x")
    assert first.value.retry_after is None and "HTTP 409" in str(first.value)
    assert second.value.retry_after == 30.0


def test_lr_client_pages_through_all_documents(tmp_path: Path) -> None:
    _, body = load_sample(SAMPLES, "34_documents_paginated_all.json")
    docs = body["documents"]
    page1 = {**body, "documents": docs[:4], "pagination": {"page": 1, "page_size": 4, "total_count": 6,
                                                           "total_pages": 2, "has_next": True, "has_prev": False}}
    page2 = {**body, "documents": docs[4:], "pagination": {"page": 2, "page_size": 4, "total_count": 6,
                                                           "total_pages": 2, "has_next": False, "has_prev": True}}
    replay = Replay().json("POST", "/documents/paginated", page1).json("POST", "/documents/paginated", page2)
    with client_for(tmp_path, replay) as client:
        rows, counts = client.all_documents()
    assert [r["id"] for r in rows] == [d["id"] for d in docs]
    assert counts["processed"] == 4 and counts["failed"] == 2
    sent = [json.loads(c.content) for c in replay.calls]
    assert [s["page"] for s in sent] == [1, 2]
    assert all(10 <= s["page_size"] <= 200 for s in sent)


def test_lr_client_delete_always_keeps_files(tmp_path: Path) -> None:
    replay = Replay(SAMPLES).sample("DELETE", "/documents/delete_document", "50_delete_document.json")
    with client_for(tmp_path, replay) as client:
        body = client.delete_documents(["doc-a", "doc-a", "doc-b"])
    assert body["status"] == "deletion_started"
    sent = json.loads(replay.calls[0].content)
    assert sent == {"doc_ids": ["doc-a", "doc-b"], "delete_file": False, "delete_llm_cache": False}


def test_lr_client_stream_error_line_raises(tmp_path: Path) -> None:
    content = b'{"references": []}\n{"response": "par"}\n{"error": "LLM exploded"}\n'
    replay = Replay().raw("POST", "/query/stream", content=content, headers={"content-type": "application/x-ndjson"})
    seen = []
    with client_for(tmp_path, replay) as client, pytest.raises(ProviderError) as info:
        for item in client.query_stream({"query": "abc"}):
            seen.append(item)
    assert seen == [{"references": []}, {"response": "par"}]
    assert "LLM exploded" in str(info.value)
