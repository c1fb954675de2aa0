"""Agent tool overhead: the MCP ``mnote_knowledge_rag_query`` round trip against ``Host.search``.

Baseline: ``Host.search(query, top_k=10)`` called in-process (what the tool runs underneath).
Measured: ``call_tool("mnote_knowledge_rag_query", {"query", "topK": 10})`` from the ``mcp``
SDK's own client to a ``mnote-kr mcp`` subprocess over stdio: JSON-RPC framing, the worker
thread, the compact agent shape, JSON encoding both ways and the client's output-schema check.

A real managed LightRAG engine (offline model stand-in) is started under a temp dir and stopped
at the end; the workspace holds corpus DOCX/PDF files (``tests/data/corpus``) and is ingested by
symlink and waited for. Every query first goes once to LightRAG's raw ``/query/data`` so its LLM
cache is warm for both sides. Cold: each side's first call of each query (connector caches
cold), and the server's start (spawn + initialize + tool list) against a CLI process start
(``mnote-kr plugins --json``). Warm: both sides alternate over several rounds so drift hits
both. Misses: a query whose MCP citation IDs differ from ``Host.search``'s is counted.
Target: warm ratio of medians <= 1.2.

The file is not named ``mcp.py``: run as a script, its folder is first on ``sys.path`` and the
name would shadow the SDK.

    .venv/bin/python benchmarks/mcp_query.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import httpx
from mcp import Client, StdioServerParameters
from mnote_kr_testkit.data import CORPUS

DOCX = ["docling__word_sample.docx", "mineru__test.docx", "kotaemon__dummy.docx", "tika__017097.docx"]
PDF = ["pdfplumber__scotus-transcript-p1.pdf", "markitdown__test.pdf", "pdfjs__tracemonkey.pdf"]
QUERIES = ["Supreme Court oral argument", "trace compilation JavaScript", "word sample heading",
           "named entity extraction", "table of results", "what did the justices ask about the statute",
           "how does the tracing JIT handle loops", "dummy document text"]
TOP_K = 10
TARGET = 1.2
TOOL = "mnote_knowledge_rag_query"


def _median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def _env(home: Path, api_key: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNOTE_KR_") and k != "LIGHTRAG_API_KEY"}
    env.update(MNOTE_KR_HOME=str(home), MNOTE_KR_LIGHTRAG_API_KEY=api_key,
               PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    return env


async def _run(args: argparse.Namespace, host: Any, ws: Path, env: dict[str, str], raw: Any) -> None:
    for q in QUERIES:
        raw(q)  # LightRAG's own caches warm for both sides

    # Cold: the server's start against a CLI process start.
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mnote_kr", "--workspace", str(ws), "plugins", "--json"], env=env,
                   check=True, capture_output=True)
    cli_start = time.perf_counter() - t0
    params = StdioServerParameters(command=sys.executable, args=["-m", "mnote_kr", "--workspace", str(ws), "mcp"],
                                   env=env, cwd=str(ws))
    t0 = time.perf_counter()
    async with Client(params, read_timeout_seconds=120) as client:
        await client.list_tools()
        server_start = time.perf_counter() - t0

        async def mcp(q: str) -> list[str]:
            result = await client.call_tool(TOOL, {"query": q, "topK": TOP_K})
            assert not result.is_error, result.content
            return [c["citationId"] for c in result.structured_content["citations"]]

        def direct(q: str) -> list[str]:
            return [c.citation_id for c in host.search(q, top_k=TOP_K).results]

        cold_mcp: list[float] = []
        cold_host: list[float] = []
        cited: dict[str, int] = {}
        misses = 0
        for i, q in enumerate(QUERIES):  # first call of each query on each side, alternating who goes first
            got: dict[str, list[str]] = {}
            for side in ((0, 1) if i % 2 == 0 else (1, 0)):
                s = time.perf_counter()
                if side == 0:
                    got["host"] = direct(q)
                    cold_host.append(time.perf_counter() - s)
                else:
                    got["mcp"] = await mcp(q)
                    cold_mcp.append(time.perf_counter() - s)
            cited[q] = len(got["host"])
            misses += got["host"] != got["mcp"]

        warm_mcp: list[float] = []
        warm_host: list[float] = []
        for rnd in range(args.rounds):
            for i, q in enumerate(QUERIES):
                for side in ((0, 1) if (i + rnd) % 2 == 0 else (1, 0)):
                    s = time.perf_counter()
                    if side == 0:
                        ids_host = direct(q)
                        warm_host.append(time.perf_counter() - s)
                    else:
                        ids_mcp = await mcp(q)
                        warm_mcp.append(time.perf_counter() - s)
                misses += ids_host != ids_mcp

    print(f"\nqueries: {len(QUERIES)} x {args.rounds} rounds, topK={TOP_K}, mode=mix")
    for q in QUERIES:
        print(f"  {q:48} citations {cited[q]:>3}")
    print(f"misses (MCP citation IDs differ from Host.search's): {misses} of {len(QUERIES) * (args.rounds + 1)}")
    print("\ncold (connector caches cold, LightRAG warm; first call of each query)")
    host_ms, mcp_ms = _median_ms(cold_host), _median_ms(cold_mcp)
    print(f"  baseline  Host.search            median {host_ms:8.2f} ms")
    print(f"  measured  MCP query round trip   median {mcp_ms:8.2f} ms   ratio {mcp_ms / host_ms:.3f}")
    print(f"  baseline  CLI process start ('plugins --json')   {cli_start * 1000:8.1f} ms")
    print(f"  measured  MCP server start (spawn+init+list)     {server_start * 1000:8.1f} ms   "
          f"ratio {server_start / cli_start:.3f}")
    host_ms, mcp_ms = _median_ms(warm_host), _median_ms(warm_mcp)
    ratio = mcp_ms / host_ms
    print("\nwarm")
    print(f"  baseline  Host.search            median {host_ms:8.2f} ms")
    print(f"  measured  MCP query round trip   median {mcp_ms:8.2f} ms")
    print(f"  ratio MCP / Host.search = {ratio:.3f}  (target <= {TARGET}: {'PASS' if ratio <= TARGET else 'FAIL'})"
          f"; overhead {mcp_ms - host_ms:.2f} ms per call")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="mnote-bench-mcp-"))
    home = tmp / "home"
    home.mkdir()
    os.environ["MNOTE_KR_HOME"] = str(home)
    from mnote_kr_testkit.engine import seed_tiktoken

    from mnote_kr.app.host import Host
    from mnote_kr_lightrag.engine.managed import start_engine, stop_engine

    state = tmp / "engine" / "state"
    seed_tiktoken(tmp / "engine" / "cache")
    t_start = time.perf_counter()
    engine = start_engine(data_dir=tmp / "engine" / "data", state_dir=state, cache_dir=tmp / "engine" / "cache",
                          wait_s=120)
    try:
        print(f"engine: LightRAG at {engine.url} started in {time.perf_counter() - t_start:.1f}s")
        ws = tmp / "kb"
        (ws / "docs").mkdir(parents=True)
        (ws / ".mnote").mkdir()
        (ws / ".mnote" / "config.toml").write_text(
            f'[providers.lightrag]\nurl = "{engine.url}"\ninput_dir = "{engine.input_dir}"\n', encoding="utf-8")
        for sub, names in (("docx", DOCX), ("pdf", PDF)):
            for name in names:
                shutil.copyfile(CORPUS / sub / name, ws / "docs" / name)
        os.environ["MNOTE_KR_LIGHTRAG_API_KEY"] = engine.api_key
        host = Host(ws)
        t0 = time.perf_counter()
        report = host.ingest(["docs"], wait=True, wait_s=150)
        print(f"ingest: {len(report.items)} files ({dict(Counter(i.status for i in report.items))}) "
              f"in {time.perf_counter() - t0:.1f}s")
        raw_client = httpx.Client(base_url=engine.url, headers={"X-API-Key": engine.api_key}, timeout=60,
                                  trust_env=False)

        def raw(query: str) -> None:
            raw_client.post("/query/data", json={"query": query, "mode": "mix", "top_k": TOP_K,
                                                 "include_references": True, "include_chunk_content": True,
                                                 "enable_rerank": False}).raise_for_status()

        anyio.run(_run, args, host, ws, _env(home, engine.api_key), raw)
        return 0
    finally:
        stop_engine(state)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
