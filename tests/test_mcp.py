"""``mnote-kr mcp``: the agent tools, driven by the ``mcp`` SDK's own client, against the real LightRAG.

Each test starts the real command (``python -m mnote_kr --workspace WS mcp``) as a stdio
subprocess through ``mcp.Client(StdioServerParameters(...))``, exactly as an MCP client would,
with the server's cwd outside the workspace (so relative paths must be taken from the workspace
root, not the cwd). Expected citations come from ``mnote-kr search --json`` run separately, not
from the code under test.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from mcp import Client, StdioServerParameters
from mnote_kr_testkit.docx_docs import DocxBuilder
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)

from tests.cli_helpers import cli_env, turbine_pdf

pytestmark = pytest.mark.integration

READ_TOOLS = ["mnote_knowledge_rag_status", "mnote_knowledge_rag_query", "mnote_knowledge_rag_open_reference"]
WRITE_TOOLS = ["mnote_knowledge_rag_ingest", "mnote_knowledge_rag_delete", "mnote_knowledge_rag_prune"]
AGENT_CITATION_KEYS = {"citationId", "sourceRootRelativePath", "headingPath", "locatorPrecision", "locatorDegraded",
                       "page", "pageHint", "bbox", "paragraphIndex", "highlight", "displayQuote", "citationMarkdown",
                       "citationUrl", "relevanceScore", "contextQuote", "alternatives",
                       "slide", "shapeId", "shapeName", "speakerNotes", "sheet", "range", "viewerUrl"}


@dataclass
class KB:
    ws: Path
    home: Path
    api_key: str
    token: str
    docx_target: int
    sources: dict[Path, str]

    def cli(self, *args: str, code: int = 0) -> Any:
        proc = subprocess.run([sys.executable, "-m", "mnote_kr", *args, "--json"], cwd=self.ws,
                              env=cli_env(self.home, self.api_key), capture_output=True, text=True,
                              encoding="utf-8", timeout=240)
        assert proc.returncode == code, proc.stderr
        return json.loads(proc.stdout)

    def server(self, *extra: str) -> StdioServerParameters:
        # cwd is the home, outside the workspace: paths must resolve from --workspace, not the cwd.
        return StdioServerParameters(command=sys.executable,
                                     args=["-m", "mnote_kr", "--workspace", str(self.ws), "mcp", *extra],
                                     env=cli_env(self.home, self.api_key), cwd=str(self.home))


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, lightrag_engine: Any) -> KB:  # noqa: F811
    base = tmp_path_factory.mktemp("mcp")
    ws, home = base / "ws", base / "home"
    (ws / ".mnote").mkdir(parents=True)
    home.mkdir()
    (ws / ".mnote" / "config.toml").write_text(
        f'[providers.lightrag]\nurl = "{lightrag_engine.url}"\ninput_dir = "{lightrag_engine.input_dir}"\n',
        encoding="utf-8")
    token = uuid.uuid4().hex[:10]
    papers = ws / "kb" / "papers"
    papers.mkdir(parents=True)
    b = DocxBuilder()
    b.heading("Reagents " + token, 1)
    b.para("This report lists reagents used in the lab, run " + token + ".")
    b.heading("Amines", 2)
    b.para("Morpholine is stored in the cold room and used as a base.")
    target = b.para("Pyrrolidine is a cyclic secondary amine; we add five parts per thousand to the electrolyte.")
    b.para("Triethylsilyl protecting groups come off in acid.")
    (papers / "reagents.docx").write_bytes(b.build())
    (papers / "icing.pdf").write_bytes(turbine_pdf(token))
    (ws / "kb" / "notes").mkdir()
    (ws / "kb" / "notes" / "walrus.md").write_text(
        f"# Walrus log {token}\n\nThe walrus colony basks on the quartz beach at dawn.\n", encoding="utf-8")
    sources = {p: sha(p) for p in (ws / "kb").rglob("*") if p.is_file()}
    kbase = KB(ws, home, lightrag_engine.api_key, token, target, sources)
    kbase.cli("roots", "add", "kb")
    report = kbase.cli("ingest", "kb", "--wait", "--timeout", "120")
    assert report["counts"] == {"processed": 3}, report
    return kbase


def session(params: StdioServerParameters, body: Callable[[Client], Awaitable[Any]]) -> Any:
    """Run ``body`` against a fresh server over stdio; returns what it returns."""
    async def main() -> Any:
        async with Client(params, read_timeout_seconds=180) as client:
            return await body(client)

    return anyio.run(main)


async def call(client: Client, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """A successful call: its structured result, checked against the tool's declared output schema."""
    tools = {t.name: t for t in (await client.list_tools()).tools}
    result = await client.call_tool(name, args)
    assert not result.is_error, result.content
    data = result.structured_content
    jsonschema.Draft202012Validator(tools[name].output_schema).validate(data)
    assert json.loads(result.content[0].text) == data  # the text block is the same JSON
    return data


async def failing(client: Client, name: str, args: dict[str, Any]) -> str:
    result = await client.call_tool(name, args)
    assert result.is_error and result.structured_content is None
    (block,) = result.content
    return block.text


def strings(value: Any, skip: frozenset[str] = frozenset()) -> list[str]:
    """Every string inside ``value``, leaving out the values of keys in ``skip``."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() if k not in skip for s in strings(v, skip)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v, skip)]
    return []


# ----------------------------------------------------------------------------- the tool list


def test_tool_list_is_exactly_the_three_read_only_tools_and_the_skill_prompt(kb: KB) -> None:
    async def body(client: Client) -> None:
        tools = (await client.list_tools()).tools
        assert [t.name for t in tools] == READ_TOOLS
        for t in tools:
            assert t.input_schema["type"] == "object" and t.output_schema["type"] == "object"
            assert t.annotations.read_only_hint is True and t.description
            jsonschema.Draft202012Validator.check_schema(t.input_schema)
            jsonschema.Draft202012Validator.check_schema(t.output_schema)
        query = next(t for t in tools if t.name == "mnote_knowledge_rag_query")
        props = query.input_schema["properties"]
        assert set(props) == {"query", "mode", "topK", "sourcePaths", "wantAnswer"}
        assert query.input_schema["required"] == ["query"] and "hybrid" in props["mode"]["enum"]
        assert query.input_schema["additionalProperties"] is False
        out = query.output_schema["properties"]
        assert list(out)[:6] == ["schema", "query", "mode", "citations", "answer", "notes"]
        prompts = (await client.list_prompts()).prompts
        assert [p.name for p in prompts] == ["mnote-knowledge-rag"]
        got = await client.get_prompt("mnote-knowledge-rag", {"question": "what limits cell B2?"})
        text = got.messages[0].content.text
        assert "citationMarkdown" in text and "Never invent" in text and "nothing citable" in text
        assert text.rstrip().endswith("what limits cell B2?")
        assert "citationMarkdown" in (client.instructions or "")
        # A write tool is not even callable without the flag: a tool error that says how to allow it.
        text = await failing(client, "mnote_knowledge_rag_prune", {})
        assert text.startswith("Error: Unknown tool 'mnote_knowledge_rag_prune'") and "--allow-writes" in text

    session(kb.server(), body)


# ----------------------------------------------------------------------------- query


def test_query_returns_the_same_located_citations_as_cli_search(kb: KB) -> None:
    cases = [  # (query, mode, top-k, scope): one DOCX (paragraph), one PDF (page + box)
        ("pyrrolidine", "naive", 5, "kb"),
        (f"blade heating power loss {kb.token}", "mix", 10, "kb/papers"),
    ]
    expected = [kb.cli("search", q, "--mode", m, "--top-k", str(k), "--scope", s)["results"] for q, m, k, s in cases]

    async def body(client: Client) -> list[dict[str, Any]]:
        return [await call(client, "mnote_knowledge_rag_query",
                           {"query": q, "mode": m, "topK": k, "sourcePaths": [s]}) for q, m, k, s in cases]

    got = session(kb.server(), body)
    for (query, mode, _, _), want, result in zip(cases, expected, got, strict=True):
        assert list(result) == ["schema", "query", "mode", "citations", "answer", "notes", "notIndexed", "weak",
                                "weakReason", "sentences"]
        assert result["schema"] == "mnote.knowledge_rag.agent_query_result.v1"
        assert result["query"] == query and result["mode"] == mode and result["answer"] is None
        assert [(c["citationId"], c["citationMarkdown"]) for c in result["citations"]] == \
               [(c["citationId"], c["citationMarkdown"]) for c in want]
        assert result["citations"], result["notes"]
        for c, w in zip(result["citations"], want, strict=True):
            assert set(c) == AGENT_CITATION_KEYS
            assert c["sourceRootRelativePath"] == w["sourceRootRelativePath"]
            assert c["displayQuote"] == w["displayQuote"] and c["locatorPrecision"] == w["locatorPrecision"]
            assert (c["page"], c["bbox"], c["paragraphIndex"]) == \
                   (w["locator"]["page"], w["locator"]["bbox"], w["locator"]["paragraphIndex"])
            # the passage as context, and the file's next places, as the CLI gives them
            assert c["contextQuote"] == w["contextQuote"]
            assert [(a["citationId"], a["locatorPrecision"], a["page"], a["bbox"], a["paragraphIndex"],
                     a["displayQuote"]) for a in c["alternatives"]] == \
                   [(a["citationId"], a["locatorPrecision"], a["locator"]["page"], a["locator"]["bbox"],
                     a["locator"]["paragraphIndex"], a["displayQuote"]) for a in w["alternatives"]]
        # Nothing of the raw chunk text beyond the (cleaned) quotes reaches the agent.
        raw = [t for w in want for t in (w["rawQuote"], w["locatorEvidenceText"]) if t]
        shown = strings(result, frozenset({"displayQuote", "contextQuote"}))
        for s in shown:
            assert len(s) < 25 or not any(s in r for r in raw), s
        text = json.dumps(result)
        for w in want:
            for field in ("rawQuote", "locatorEvidenceText"):
                if w[field] and w[field] not in (w["displayQuote"], w["contextQuote"]) and len(w[field]) > 25:
                    assert w[field] not in text
            assert w["lightRagChunkId"] not in text and w["sourcePath"] not in text
    docx = next(c for c in got[0]["citations"] if c["sourceRootRelativePath"] == "kb/papers/reagents.docx")
    assert docx["locatorPrecision"] == "paragraph" and docx["paragraphIndex"] == kb.docx_target
    assert docx["page"] is None and docx["bbox"] is None and "Pyrrolidine" in docx["displayQuote"]
    pdf = next(c for c in got[1]["citations"] if c["sourceRootRelativePath"] == "kb/papers/icing.pdf")
    assert pdf["locatorPrecision"] == "bbox" and pdf["page"] == 1 and len(pdf["bbox"]) == 4
    assert "p.1" in pdf["citationMarkdown"] and pdf["locatorDegraded"] is False


def test_query_with_answer_hybrid_alias_and_nothing_citable(kb: KB) -> None:
    async def body(client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
        asked = await call(client, "mnote_knowledge_rag_query",
                           {"query": f"walrus colony quartz beach {kb.token}", "mode": "hybrid", "wantAnswer": True,
                            "sourcePaths": ["kb/notes"]})
        empty = await call(client, "mnote_knowledge_rag_query", {"query": f"walrus colony quartz beach {kb.token}",
                                                                  "sourcePaths": ["kb/papers/nothing.pdf"]})
        return asked, empty

    asked, empty = session(kb.server(), body)
    assert asked["mode"] == "hybrid" and asked["citations"]
    assert {c["sourceRootRelativePath"] for c in asked["citations"]} == {"kb/notes/walrus.md"}
    assert any("No LLM" in n for n in asked["notes"])  # the offline engine has no LLM: no answer, said so
    assert asked["answer"] is None
    assert empty["citations"] == []
    assert any("Nothing citable" in n for n in empty["notes"])
    assert empty["notIndexed"] == [{"sourcePath": "kb/papers/nothing.pdf", "status": "not_indexed",
                                    "reason": "no such file or folder"}]


# ----------------------------------------------------------------------------- open reference


def test_open_reference_returns_the_plan_without_evidence_text(kb: KB) -> None:
    query = f"blade heating power loss {kb.token}"

    async def body(client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
        found = await call(client, "mnote_knowledge_rag_query", {"query": query, "topK": 10})
        pdf = next(c for c in found["citations"] if c["sourceRootRelativePath"] == "kb/papers/icing.pdf")
        bare = pdf["citationId"].strip("[]")  # agents may drop the brackets
        return pdf, await call(client, "mnote_knowledge_rag_open_reference", {"citationId": bare})

    pdf, plan = session(kb.server(), body)
    want = kb.cli("open", pdf["citationId"])
    assert want["openAction"]["evidenceText"]  # the CLI's plan has it; the agent's must not
    want["openAction"]["evidenceText"] = None
    assert plan == want
    assert plan["citationId"] == pdf["citationId"] and plan["resourceKind"] == "pdf"
    assert plan["locator"]["page"] == pdf["page"] == 1 and plan["locator"]["bbox"] == pdf["bbox"]


# ----------------------------------------------------------------------------- finding the library


def test_started_in_a_subfolder_of_an_indexed_root_without_workspace_it_serves_that_library(kb: KB) -> None:
    papers = kb.ws / "kb" / "papers"
    params = StdioServerParameters(command=sys.executable, args=["-m", "mnote_kr", "mcp"],
                                   env=cli_env(kb.home, kb.api_key), cwd=str(papers))

    async def body(client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
        status = await call(client, "mnote_knowledge_rag_status", {})
        found = await call(client, "mnote_knowledge_rag_query",
                           {"query": "walrus colony quartz beach " + kb.token, "mode": "naive", "topK": 5})
        return status, found

    status, found = session(params, body)
    assert status["indexedRoots"] == ["kb"] and status["registry"]["entries"] >= 3
    assert any(c["sourceRootRelativePath"] == "kb/notes/walrus.md" for c in found["citations"]), found
    assert not (papers / ".mnote").exists()  # no empty workspace made where it was started


def test_the_readme_path_ingest_a_folder_then_mcp_serves_it_without_roots_add(
        tmp_path_factory: pytest.TempPathFactory, lightrag_engine: Any) -> None:  # noqa: F811
    """nc23a P1: 'cd docs; mnote-kr ingest . --wait', then mcp (no 'roots add'): the agent cites what the CLI does,
    whether the client gives --workspace, starts it in the folder, or starts it elsewhere; outside stays refused."""
    base = tmp_path_factory.mktemp("mcp-ingested")
    docs, home, elsewhere = base / "docs", base / "home", base / "tmp"
    for folder in (docs / ".mnote", home, elsewhere):
        folder.mkdir(parents=True)
    (docs / ".mnote" / "config.toml").write_text(
        f'[providers.lightrag]\nurl = "{lightrag_engine.url}"\ninput_dir = "{lightrag_engine.input_dir}"\n',
        encoding="utf-8")
    token = uuid.uuid4().hex[:10]
    (docs / "otters.md").write_text(f"# Otter survey {token}\n\nSea otters crack urchins on flat slate stones.\n",
                                    encoding="utf-8")
    b = DocxBuilder()
    b.heading("Kiln log " + token, 1)
    b.para("The anagama kiln was fired for six days with red pine.")
    (docs / "kiln.docx").write_bytes(b.build())
    sources = {p: sha(p) for p in (docs / "otters.md", docs / "kiln.docx")}
    secret = base / "secret.md"
    secret.write_text(f"# Secret {token}\n\nSea otters password.\n", encoding="utf-8")
    cli = KB(docs, home, lightrag_engine.api_key, token, 0, sources).cli
    assert cli("ingest", ".", "--wait", "--timeout", "120")["counts"] == {"processed": 2}
    assert cli("roots", "list")["indexedRoots"] == []  # ingested only, as the README's path does
    query = f"sea otters crack urchins slate {token}"
    want = [c["citationId"] for c in cli("search", query, "--mode", "naive", "--top-k", "5")["results"]]
    assert want

    def started(args: list[str], cwd: Path) -> StdioServerParameters:
        return StdioServerParameters(command=sys.executable, args=["-m", "mnote_kr", *args, "mcp"],
                                     env=cli_env(home, lightrag_engine.api_key), cwd=str(cwd))

    async def body(client: Client) -> tuple[list[str], dict[str, Any], dict[str, Any], str, str]:
        names = [t.name for t in (await client.list_tools()).tools]
        status = await call(client, "mnote_knowledge_rag_status", {})
        found = await call(client, "mnote_knowledge_rag_query", {"query": query, "mode": "naive", "topK": 5})
        up = await failing(client, "mnote_knowledge_rag_query", {"query": query, "sourcePaths": ["../secret.md"]})
        out = await failing(client, "mnote_knowledge_rag_query", {"query": query, "sourcePaths": [str(secret)]})
        return names, status, found, up, out

    for args, cwd in ((["--workspace", str(docs)], home), ([], docs), ([], elsewhere)):
        names, status, found, up, out = session(started(args, cwd), body)
        assert names == READ_TOOLS, args
        assert status["workspace"] == str(docs.resolve()) and status["registry"]["entries"] == 2, status
        assert [c["citationId"] for c in found["citations"]] == want, (args, cwd, found["notes"])
        assert found["citations"][0]["sourceRootRelativePath"] == "otters.md"
        assert up.startswith("Error: Path not allowed: ../secret.md: '..' is not allowed (")
        assert out.startswith(f"Error: Path not allowed: {secret}: outside the workspace")
    assert {p: sha(p) for p in sources} == sources
    assert not (elsewhere / ".mnote").exists() and not (home / ".mnote").exists()


# ----------------------------------------------------------------------------- errors


def test_traversal_and_unknown_citation_are_tool_errors_and_the_server_goes_on(kb: KB) -> None:
    outside = kb.ws.parent / "secret.md"
    outside.write_text(f"# Secret {kb.token}\n\nThe walrus password.\n", encoding="utf-8")

    async def body(client: Client) -> list[str]:
        texts = [
            await failing(client, "mnote_knowledge_rag_query", {"query": "walrus", "sourcePaths": ["../secret.md"]}),
            await failing(client, "mnote_knowledge_rag_query", {"query": "walrus", "sourcePaths": [str(outside)]}),
            await failing(client, "mnote_knowledge_rag_open_reference", {"citationId": "[zz9q]"}),
            await failing(client, "mnote_knowledge_rag_query", {"query": "walrus", "topK": 0}),
            await failing(client, "mnote_knowledge_rag_query", {"query": "walrus", "scope": ["kb"]}),
        ]
        status = await call(client, "mnote_knowledge_rag_status", {})
        assert status["registry"]["entries"] == 3 and status["provider"]["reachable"] is True
        assert status["indexedRoots"] == ["kb"] and status["writeTools"] is False
        return texts

    traversal, absolute, unknown, bad_k, typo = session(kb.server(), body)
    assert traversal.startswith("Error: Path not allowed: ../secret.md: '..' is not allowed (")
    assert absolute.startswith(f"Error: Path not allowed: {outside}: outside the workspace")
    assert unknown.startswith("Error: Unknown citation [zz9q]: ") and "or expired (search again" in unknown
    assert bad_k.startswith("Error: Invalid arguments for mnote_knowledge_rag_query: ") and "topK" in bad_k
    assert typo.startswith("Error: Invalid arguments for mnote_knowledge_rag_query: ") and "scope" in typo
    for text in (traversal, absolute, unknown, bad_k, typo):
        assert "\n" not in text and "Traceback" not in text


# ----------------------------------------------------------------------------- stale


def test_a_stale_source_never_appears(kb: KB) -> None:
    note = kb.ws / "kb" / "notes" / "gannet.md"
    note.write_text(f"# Gannet census {kb.token}\n\nGannets dive for mackerel off the basalt stack.\n",
                    encoding="utf-8")
    assert kb.cli("ingest", "kb/notes/gannet.md", "--wait", "--timeout", "120")["counts"] == {"processed": 1}
    query = f"gannets dive for mackerel basalt stack {kb.token}"
    args = {"query": query, "mode": "naive", "topK": 10}

    async def before(client: Client) -> dict[str, Any]:
        return await call(client, "mnote_knowledge_rag_query", args)

    live = session(kb.server(), before)
    assert "kb/notes/gannet.md" in {c["sourceRootRelativePath"] for c in live["citations"]}
    # The file changes on disk; no watcher runs, so only the query-time check stands between it and the agent.
    note.write_text(f"# Gannet census {kb.token}\n\nRewritten: the colony moved.\n", encoding="utf-8")

    async def after(client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
        changed = await call(client, "mnote_knowledge_rag_query", args)
        return changed, await call(client, "mnote_knowledge_rag_query", {**args, "sourcePaths": ["kb/notes"]})

    changed, scoped = session(kb.server(), after)
    for result in (changed, scoped):
        assert "kb/notes/gannet.md" not in {c["sourceRootRelativePath"] for c in result["citations"]}
        assert any("dropped" in n for n in result["notes"]), result["notes"]
    # Marked stale in the registry (as the watcher or 'delete' would): named as not citable, never cited.
    kb.cli("delete", "kb/notes/gannet.md")

    async def deleted(client: Client) -> dict[str, Any]:
        return await call(client, "mnote_knowledge_rag_query", {**args, "sourcePaths": ["kb/notes/gannet.md"]})

    gone = session(kb.server(), deleted)
    assert gone["citations"] == []
    assert [(n["sourcePath"], n["status"]) for n in gone["notIndexed"]] == [("kb/notes/gannet.md", "stale")]
    assert {p: sha(p) for p in kb.sources} == kb.sources


# ----------------------------------------------------------------------------- write tools


def test_write_tools_only_with_the_flag_and_through_the_path_checks(kb: KB) -> None:
    note = kb.ws / "kb" / "notes" / "heron.md"
    note.write_text(f"# Heron watch {kb.token}\n\nA grey heron stalks frogs in the reed bed.\n", encoding="utf-8")
    note_sha = sha(note)

    async def body(client: Client) -> tuple[list[str], dict[str, Any], dict[str, Any], dict[str, Any], str]:
        names = [t.name for t in (await client.list_tools()).tools]
        refused = await failing(client, "mnote_knowledge_rag_ingest", {"sourcePaths": ["../.."]})
        ingested = await call(client, "mnote_knowledge_rag_ingest",
                              {"sourcePaths": ["kb/notes/heron.md"], "waitS": 120})
        deleted = await call(client, "mnote_knowledge_rag_delete", {"sourcePaths": ["kb/notes/heron.md"]})
        status = await call(client, "mnote_knowledge_rag_status", {})
        return names, ingested, deleted, status, refused

    names, ingested, deleted, status, refused = session(kb.server("--allow-writes"), body)
    assert names == READ_TOOLS + WRITE_TOOLS
    assert refused.startswith("Error: Path not allowed: ../..: '..' is not allowed")
    assert [(i["sourcePath"], i["status"]) for i in ingested["items"]] == [("kb/notes/heron.md", "processed")]
    assert deleted["deleted"][0]["sourcePath"] == "kb/notes/heron.md" and deleted["deleted"][0]["stale"] is True
    assert status["writeTools"] is True
    assert sha(note) == note_sha and {p: sha(p) for p in kb.sources} == kb.sources


# ----------------------------------------------------------------------------- streamable HTTP


def test_http_transport_has_serves_host_and_token_checks(kb: KB) -> None:
    import httpx
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    proc = subprocess.Popen([sys.executable, "-m", "mnote_kr", "--workspace", str(kb.ws), "mcp", "--http"],
                            env=cli_env(kb.home, kb.api_key), cwd=kb.home, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, encoding="utf-8")
    try:
        assert proc.stdout is not None
        url = re.match(r"MCP on (http://127\.0\.0\.1:\d+/mcp)$", proc.stdout.readline().strip()).group(1)
        token = proc.stdout.readline().strip().removeprefix("Token: ")
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
        accept = {"Accept": "application/json, text/event-stream"}
        rebind = httpx.post(url, json=init, headers={**accept, "Host": f"evil.example:{port}",
                                                     "Authorization": f"Bearer {token}"})
        assert rebind.status_code == 403 and rebind.json()["error"]["code"] == "forbidden_host"
        other_port = httpx.post(url, json=init, headers={**accept, "Host": f"127.0.0.1:{port + 1}",
                                                         "Authorization": f"Bearer {token}"})
        assert other_port.status_code == 403
        page = httpx.post(url, json=init, headers={**accept, "Origin": "http://localhost:3000",
                                                   "Authorization": f"Bearer {token}"})
        assert page.status_code == 403 and page.json()["error"]["code"] == "origin_not_allowed"
        anonymous = httpx.post(url, json=init, headers=accept)
        assert anonymous.status_code == 401 and anonymous.headers["www-authenticate"].startswith("Bearer")
        wrong = httpx.post(url, json=init, headers={**accept, "Authorization": "Bearer " + token[:-1] + "x"})
        assert wrong.status_code == 401

        async def main() -> tuple[list[str], dict[str, Any]]:
            http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120)
            async with http, Client(streamable_http_client(url, http_client=http), read_timeout_seconds=120) as c:
                names = [t.name for t in (await c.list_tools()).tools]
                return names, await call(c, "mnote_knowledge_rag_query",
                                         {"query": "pyrrolidine", "mode": "naive", "topK": 5})

        names, result = anyio.run(main)
        assert names == READ_TOOLS
        assert any(c["sourceRootRelativePath"] == "kb/papers/reagents.docx" for c in result["citations"])
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert "Traceback" not in err, err
