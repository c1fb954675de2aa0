"""A query too short for retrieval is refused by mnote-kr itself, in its own words, on every surface.

LightRAG 1.5.7 refuses a RAG query weighing under 3 (``lightrag/query_validation.py``: each Chinese,
Japanese or Korean character weighs 2, any other character 1) with ``Validation error: body: Value
error, RAG query is too short...``, which reached the CLI, HTTP and MCP as the provider's raw text.
mnote-kr checks it before sending, as it checks the 4,000-character maximum.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from mnote_kr_testkit.fakes import fake_host

from mnote_kr.agents import tools
from mnote_kr.citations.map.request import MIN_QUERY_WEIGHT, query_request
from mnote_kr.errors import UsageError
from mnote_kr.server.app import ApiServer

SHORT = ["a", "ab", " a  ", "\u7535", "C#", "\uff21"]  # a fullwidth letter counts 2 for LightRAG, as CJK does
LONG_ENOUGH = ["abc", "a b", "C++", "\u7535\u5382", "\ud55c\uae00", "\u30ab\u30ca", "\u7535a"]


@pytest.mark.parametrize("query", SHORT)
def test_a_query_under_the_minimum_is_a_usage_error_naming_it(query: str) -> None:
    with pytest.raises(UsageError) as info:
        query_request({}, query, top_k=5, mode="mix", rerank=None, want_answer=False)
    message = info.value.message
    assert message.startswith("The query is too short") and str(MIN_QUERY_WEIGHT) in message
    assert "\n" not in message and info.value.hint


@pytest.mark.parametrize("query", LONG_ENOUGH)
def test_a_query_at_the_minimum_goes_to_the_provider(query: str) -> None:
    sent = query_request({}, query, top_k=5, mode="mix", rerank=None, want_answer=False)
    assert sent.query == " ".join(query.split())


def test_http_and_mcp_say_the_same_line(tmp_path: Path) -> None:
    (tmp_path / "ws" / "docs").mkdir(parents=True)
    host, _ = fake_host(tmp_path / "ws")
    with ApiServer(host) as server, httpx.Client(
        base_url=server.url, headers={"Authorization": f"Bearer {server.token}"}, timeout=10
    ) as client:
        for route in ("search", "query"):
            r = client.post(f"/api/knowledge-rag/{route}", json={"query": "a"})
            assert r.status_code == 400, r.text
            error = r.json()["error"]
            assert error["code"] == "usage" and error["message"].startswith("The query is too short"), error
    with pytest.raises(UsageError) as info:
        tools.call_tool(host, tools.QUERY, {"query": "a"})
    assert tools.error_text(info.value).startswith("Error: The query is too short")


def test_the_weights_are_lightrags_own() -> None:
    """The table is LightRAG's: a query mnote-kr lets through is one LightRAG accepts, and the reverse."""
    from lightrag.query_validation import _WIDE_CODEPOINT_RANGES, meets_min_rag_query_weight

    from mnote_kr.citations.map.request import _WIDE

    assert _WIDE == _WIDE_CODEPOINT_RANGES
    edges = [c for lo, hi in _WIDE for c in (lo - 1, lo, hi, hi + 1)] + [ord(c) for c in "aZ9 .é€😀"]
    for code in edges:
        for query in (chr(code), chr(code) * 2, "a" + chr(code)):
            try:
                ours = query_request({}, query, top_k=5, mode="mix", rerank=None, want_answer=False) is not None
            except UsageError as exc:
                if not exc.message.startswith("The query is too short"):
                    continue  # refused before weighing: empty, symbols alone, a lone surrogate (not UTF-8)
                ours = False
            assert ours == meets_min_rag_query_weight(" ".join(query.split())), (hex(code), query)
