"""The docs name the keys each surface really returns.

Seen by a newcomer: ``search --json`` lists its citations under ``results``, while the README's MCP table and
``ask --json`` call them ``citations``; and the README said MCP results carry ``structuredContent``, which the
Python ``mcp`` client names ``structured_content``. The JSON names are contracts (DESIGN.md) and stay; the docs
say which surface uses which, checked here against the contracts and the installed SDK.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import msgspec

from mnote_kr.models import AgentQueryResult, SearchResults

REPO = Path(__file__).resolve().parents[1]


def _paragraphs(path: Path) -> list[str]:
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", path.read_text(encoding="utf-8"))]


def test_the_contracts_name_the_citations_results_in_search_and_citations_in_ask() -> None:
    search = json.loads(msgspec.json.encode(SearchResults(query="q", mode="mix", provider="lightrag")))
    ask = json.loads(msgspec.json.encode(AgentQueryResult(query="q", mode="mix")))
    assert "results" in search and "citations" not in search
    assert "citations" in ask and "results" not in ask


def test_the_readme_says_which_surface_puts_the_citations_under_which_key() -> None:
    said = [p for p in _paragraphs(REPO / "README.md")
            if "search_results.v1" in p and "agent_query_result.v1" in p and "`results`" in p]
    assert len(said) == 1, "no README paragraph says where each surface puts its citations"
    text = said[0]
    search_part, ask_part = text.split("agent_query_result.v1", 1)[0], text
    assert "`search --json`" in search_part and "`results`" in search_part, text
    for surface in ("`ask --json`", "`mnote_knowledge_rag_query`", "`citations`"):
        assert surface in ask_part, (surface, text)


def test_the_mcp_table_names_the_result_field_as_the_wire_and_the_python_client_do() -> None:
    from mcp import types  # the SDK the server is built on, and the client a newcomer used

    result = types.CallToolResult(content=[], structured_content={"a": 1}, is_error=False)
    wire = result.model_dump(by_alias=True, exclude_none=True)
    assert "structuredContent" in wire and "isError" in wire
    assert result.structured_content == {"a": 1} and result.is_error is False
    header = next(line for line in (REPO / "README.md").read_text(encoding="utf-8").splitlines()
                  if line.startswith("| tool | arguments | returns"))
    for name in ("structuredContent", "structured_content", "isError", "is_error"):
        assert f"`{name}`" in header, (name, header)


def test_the_http_api_table_names_the_search_answers_citations() -> None:
    row = next(line for line in (REPO / "docs" / "http-api.md").read_text(encoding="utf-8").splitlines()
               if line.startswith("| `POST /api/knowledge-rag/search`"))
    assert "`results`" in row and "search_results.v1" in row, row
