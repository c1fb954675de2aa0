"""The agent tools without a transport or an engine: shapes, schemas, refusals, the HTTP guard.

The end-to-end behaviour (real MCP client, real LightRAG) is in ``test_mcp.py``; here are the
pieces that can be checked in milliseconds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import jsonschema
import msgspec
import pytest

from mnote_kr.agents import contracts, tools
from mnote_kr.agents.mcp_server import LoopbackGuard
from mnote_kr.app.host import Host
from mnote_kr.citations.map import notindexed
from mnote_kr.core.config import load_config
from mnote_kr.errors import NotFoundError, PathNotAllowedError, UsageError
from mnote_kr.models import (
    Citation,
    CitationDiagnostics,
    Highlight,
    IndexedRoot,
    Locator,
    OpenActionParams,
    OpenPlan,
    SourceEntry,
)

RAW = "RAW <equation>x^2</equation> chunk text with provider noise 0xDEADBEEF"
EVIDENCE = "EVIDENCE locator text only the locator should read"


def citation() -> Citation:
    loc = Locator(locator_precision="bbox", locator_degraded=False, page=2, bbox=[72.0, 100.0, 300.0, 120.0],
                  highlight=Highlight(start=3, end=9), locator_plugin="pdf_bbox", score=0.9)
    return Citation(provider="lightrag", citation_id="[a3z1]", source_id="src-1", source_path="/ws/kb/scan.pdf",
                    source_root_relative_path="kb/scan.pdf", light_rag_doc_id="doc-1", light_rag_file_path="x.pdf",
                    light_rag_chunk_id="chunk-secret", block_id="b1", heading_path=["Intro"], raw_quote=RAW,
                    display_quote="Blade heating kept the loss low.", locator_evidence_text=EVIDENCE,
                    quote_source="sidecar", search_query="blade", locator_precision="bbox", locator_degraded=False,
                    locator=loc, citation_url="mnote-kr://open?path=kb/scan.pdf&page=2",
                    citation_markdown="[scan.pdf · p.2](mnote-kr://open?path=kb/scan.pdf&page=2)",
                    relevance_score=0.5, diagnostics=CitationDiagnostics(
                        quote_source="sidecar", raw_reference_mapped=True, sidecar_block_mapped=True,
                        display_cleaned=True, locator_text_source="sidecar"))


def test_agent_citation_carries_the_display_quote_and_no_raw_chunk_text() -> None:
    shown = msgspec.to_builtins(contracts.agent_citation(citation()))
    text = msgspec.json.encode(shown).decode()
    assert RAW not in text and "0xDEADBEEF" not in text and EVIDENCE not in text and "chunk-secret" not in text
    assert "doc-1" not in text and "/ws/kb" not in text  # provider ids and absolute paths stay in the host
    assert shown["displayQuote"] == "Blade heating kept the loss low."
    assert shown["citationMarkdown"] == "[scan.pdf · p.2](mnote-kr://open?path=kb/scan.pdf&page=2)"
    assert (shown["page"], shown["bbox"], shown["paragraphIndex"]) == (2, [72.0, 100.0, 300.0, 120.0], None)
    assert shown["highlight"] == {"start": 3, "end": 9}
    schema = contracts.object_schema(contracts.AgentCitation)
    jsonschema.Draft202012Validator(schema).validate(shown)
    assert set(schema["required"]) == set(shown)  # every field always present, none extra


def test_agent_open_plan_drops_only_the_evidence_text() -> None:
    c = citation()
    plan = OpenPlan(citation_id=c.citation_id, resource_path=c.source_path,
                    resource_root_relative_path=c.source_root_relative_path, resource_kind="pdf", locator=c.locator,
                    citation_url=c.citation_url, open_action=OpenActionParams(
                        provider="lightrag", chunk_id="chunk-1", search_query="blade", evidence_text=EVIDENCE,
                        display_quote=c.display_quote))
    agent = contracts.agent_open_plan(plan)
    assert agent.open_action.evidence_text is None
    assert msgspec.structs.replace(agent, open_action=plan.open_action) == plan
    jsonschema.Draft202012Validator(contracts.object_schema(OpenPlan)).validate(msgspec.to_builtins(agent))


def test_object_schema_lifts_the_struct_to_the_root_and_keeps_the_references() -> None:
    schema = contracts.object_schema(contracts.AgentQueryResult)
    assert schema["type"] == "object" and "$ref" not in schema
    assert {"AgentCitation", "Highlight", "NotIndexed"} <= set(schema["$defs"])
    assert list(schema["properties"])[:6] == ["schema", "query", "mode", "citations", "answer", "notes"]
    result = contracts.AgentQueryResult(query="q", mode="mix", citations=[contracts.agent_citation(citation())],
                                        answer=None, notes=[], not_indexed=[], weak=False, weak_reason=None)
    validator = jsonschema.Draft202012Validator(schema)
    validator.validate(msgspec.to_builtins(result))
    broken = msgspec.to_builtins(result)
    broken["citations"][0]["page"] = "two"
    assert not validator.is_valid(broken)  # the nested $ref really is checked


def test_tool_specs_are_the_three_read_tools_unless_writes_are_allowed() -> None:
    assert [s.name for s in tools.tool_specs()] == list(tools.READ_TOOLS)
    assert [s.name for s in tools.tool_specs(allow_writes=True)] == list(tools.READ_TOOLS + tools.WRITE_TOOLS)
    assert all(s.read_only for s in tools.tool_specs()) and not any(
        s.read_only for s in tools.tool_specs(True)[3:])
    for s in tools.tool_specs(True):
        jsonschema.Draft202012Validator.check_schema(s.input_schema)
        assert s.input_schema["type"] == "object" and s.input_schema["additionalProperties"] is False


@pytest.fixture
def host(tmp_path: Path) -> Host:
    ws = tmp_path / "ws"
    (ws / "kb").mkdir(parents=True)
    (ws / "kb" / "ok.md").write_text("ok", encoding="utf-8")
    (ws / "kb" / "gone.md").write_text("gone", encoding="utf-8")
    (ws / "kb" / "new.md").write_text("new", encoding="utf-8")
    config = load_config(ws)
    config["providers"] = {"lightrag": {"url": "http://127.0.0.1:9"}}  # nothing listens: no call may reach it
    h = Host(ws, config=config)
    with h.store.transaction() as reg:
        reg.roots["kb"] = IndexedRoot(root_relative_path="kb")
        reg.put(SourceEntry(source_id="src-ok", source_path=str(ws / "kb/ok.md"), source_root_relative_path="kb/ok.md",
                            status="processed"))
        reg.put(SourceEntry(source_id="src-gone", source_path=str(ws / "kb/gone.md"),
                            source_root_relative_path="kb/gone.md", status="processed", stale=True,
                            stale_reason="deleted on disk"))
    return h


def test_call_tool_refuses_write_tools_without_the_flag_before_touching_anything(host: Host) -> None:
    for name in tools.WRITE_TOOLS:
        with pytest.raises(NotFoundError, match="--allow-writes"):
            tools.call_tool(host, name, {"sourcePaths": ["kb"]})
    with pytest.raises(NotFoundError, match="the tools are: mnote_knowledge_rag_status"):
        tools.call_tool(host, "rm_rf", {})
    assert len(host.registry().entries) == 2


@pytest.mark.parametrize("blank", ["", "   ", "\t\n"])
def test_an_empty_or_blank_query_gets_one_message_with_a_hint(host: Host, blank: str) -> None:
    """An agent's "" got msgspec's "Expected `str` of length >= 1 - at `$.query`" and its "   " got "The query
    is empty" without a hint (a newcomer's check): both now get the CLI's words and a hint."""
    with pytest.raises(UsageError) as caught:
        tools.call_tool(host, tools.QUERY, {"query": blank})
    assert caught.value.message == "The query is empty" and caught.value.hint and "words" in caught.value.hint


@pytest.mark.parametrize(("args", "field"), [({"query": "x", "topK": 201}, "topK"),
                                             ({"query": "x", "mode": "fast"}, "mode"), ({"query": "x", "k": 1}, "k"),
                                             ({}, "query")])
def test_bad_arguments_are_a_usage_error_naming_the_field(host: Host, args: dict[str, Any], field: str) -> None:
    with pytest.raises(UsageError, match=rf"Invalid arguments for mnote_knowledge_rag_query: .*{field}"):
        tools.call_tool(host, tools.QUERY, args)


@pytest.mark.parametrize("bad", ["../x", "kb/../../x", "/etc/passwd", ".mnote/index", "kb/\x00x"])
def test_source_paths_outside_the_workspace_are_refused_before_any_query(host: Host, bad: str) -> None:
    # The provider URL points at a closed port: reaching it would raise ProviderError instead.
    with pytest.raises(PathNotAllowedError):
        tools.call_tool(host, tools.QUERY, {"query": "x", "sourcePaths": ["kb", bad]})


def test_scope_not_indexed_names_stale_missing_and_never_ingested_files(host: Host) -> None:
    reg = host.registry()
    got = notindexed.scope_not_indexed(host, reg, ["kb", "kb/new.md", "kb/nothing.pdf", "kb/ok.md"])
    assert [(n.source_path, n.status, n.reason) for n in got] == [
        ("kb/gone.md", "stale", "deleted on disk"),
        ("kb/new.md", "not_indexed", "not in the knowledge base (never ingested)"),
        ("kb/nothing.pdf", "not_indexed", "no such file or folder"),
    ]


def test_dropped_notes_count_dead_and_out_of_scope_references() -> None:
    notes = tools.dropped_notes({"dropped": {"unmapped": 1, "changedOnDisk": 2, "outOfScope": 4, "duplicate": 9}})
    assert notes[0].startswith("3 retrieved passage(s) were dropped") and notes[1].startswith("4 retrieved")
    assert tools.dropped_notes({"dropped": {"duplicate": 3}}) == [] and tools.dropped_notes({}) == []


def test_prompt_is_the_skill_with_the_question_last() -> None:
    text = tools.prompt_text("  where is B2?  ")
    assert text.startswith(tools.SKILL) and text.endswith("The user's question: where is B2?")
    assert tools.prompt_text(None) == tools.prompt_text("  ") == tools.SKILL
    for rule in ("ONLY from the citations", "citationMarkdown", "Never invent", "nothing citable was found"):
        assert rule in tools.SKILL


# ----------------------------------------------------------------------------- the HTTP guard


def _through_guard(headers: dict[str, str], port: int = 8765) -> tuple[int, bool]:
    reached: list[bool] = []
    sent: list[dict[str, Any]] = []

    async def inner(scope: Any, receive: Any, send: Any) -> None:
        reached.append(True)
        await send({"type": "http.response.start", "status": 200, "headers": []})

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Any) -> None:
        sent.append(message)

    guard = LoopbackGuard(inner, token="s3cret", port=port)
    scope = {"type": "http", "method": "POST", "path": "/mcp",
             "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()]}
    anyio.run(guard, scope, receive, send)
    return sent[0]["status"], bool(reached)


@pytest.mark.parametrize(("headers", "status"), [
    ({"Host": "127.0.0.1:8765", "Authorization": "Bearer s3cret"}, 200),
    ({"Host": "localhost:8765", "Authorization": "bearer s3cret"}, 200),
    ({"Host": "[::1]:8765", "Authorization": "Bearer s3cret"}, 200),
    ({"Host": "evil.example:8765", "Authorization": "Bearer s3cret"}, 403),  # DNS rebinding
    ({"Host": "127.0.0.1:8766", "Authorization": "Bearer s3cret"}, 403),  # another port
    ({"Authorization": "Bearer s3cret"}, 403),  # no Host at all
    ({"Host": "127.0.0.1:8765", "Origin": "http://127.0.0.1:8765", "Authorization": "Bearer s3cret"}, 403),
    ({"Host": "127.0.0.1:8765"}, 401),
    ({"Host": "127.0.0.1:8765", "Authorization": "Bearer s3cre"}, 401),
    ({"Host": "127.0.0.1:8765", "Authorization": "Basic s3cret"}, 401),
])
def test_http_guard_has_serves_host_origin_and_token_checks(headers: dict[str, str], status: int) -> None:
    got, reached = _through_guard(headers)
    assert got == status and reached == (status == 200)


def test_the_cli_loads_the_mcp_sdk_only_when_the_mcp_command_runs() -> None:
    import subprocess
    import sys

    code = ("import sys; from mnote_kr.cli import cli; assert 'mcp' in cli.commands; "
            "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'mnote_kr.agents'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[]", out.stdout


def test_a_query_over_the_length_limit_gets_the_cli_and_http_message_not_the_schema_text(host: Host) -> None:
    # nc26c: MCP answered "Expected `str` of length <= 4000 - at `$.query`" where CLI and HTTP say it in words
    with pytest.raises(UsageError) as caught:
        tools.call_tool(host, tools.QUERY, {"query": "g" * 4001})
    assert str(caught.value).startswith("The query is 4,001 characters long; at most 4,000 are accepted")
    assert "Expected" not in str(caught.value) and "$.query" not in str(caught.value)
