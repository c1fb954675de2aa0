"""The HTTP API against the real LightRAG server (the managed engine's session fixture).

Real HTTP on loopback at both ends: client -> mnote-kr API -> Host -> LightRAG provider ->
lightrag-server. Ingest (as a pollable job), search, open-reference, delete, prune; and
unauthorised, oversized, malformed and traversal requests are refused and change nothing.
"""

from __future__ import annotations

import copy
import hashlib
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mnote_kr_testkit.data import CORPUS as CORPUS_DIR
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)

from mnote_kr.app.host import Host
from mnote_kr.core.config import DEFAULTS
from mnote_kr.server.app import ApiServer

REPO = Path(__file__).resolve().parents[1]
CORPUS = CORPUS_DIR
DOCX = CORPUS / "docx" / "python-docx__par-rendered-page-breaks.docx"
API = "/api/knowledge-rag"
MARKER = "Quillfeather"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def api(lightrag_engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # noqa: F811
        ) -> Iterator[tuple[ApiServer, httpx.Client]]:
    info = lightrag_engine
    ws = tmp_path / "ws"
    (ws / "papers").mkdir(parents=True)
    shutil.copyfile(DOCX, ws / "papers" / "page-breaks.docx")
    (ws / "papers" / f"{MARKER.lower()}.md").write_text(
        f"# {MARKER} Observatory\n\n{MARKER} is a radio telescope array on the Ashgrove plateau.\n\n"
        + "".join(f"## Night {i}\n\nThe {MARKER} array logged {i * 11} pulsar transits on night {i}, "
                  f"with dish temperature {i * 2} kelvin.\n\n" for i in range(1, 12)),
        encoding="utf-8")
    config = copy.deepcopy(DEFAULTS)
    config["providers"] = {"lightrag": {"url": info.url, "input_dir": info.input_dir,
                                        "working_dir": info.working_dir}}
    monkeypatch.setenv("MNOTE_KR_LIGHTRAG_API_KEY", info.api_key)
    host = Host(ws, config=config)
    with ApiServer(host) as server, httpx.Client(
        base_url=server.url, headers={"Authorization": f"Bearer {server.token}"}, timeout=120
    ) as client:
        yield server, client


def _wait_job(client: httpx.Client, location: str, seconds: float = 240) -> dict:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        view = client.get(location).json()
        if view["status"] in ("succeeded", "failed"):
            return view
        time.sleep(0.5)
    raise AssertionError(f"job {location} did not finish in {seconds}s")


@pytest.mark.integration
def test_server_integration_ingest_search_open_delete_prune(api):
    server, client = api
    root = server.host.root
    md = root / "papers" / f"{MARKER.lower()}.md"
    before = {p: _sha(p) for p in (md, root / "papers" / "page-breaks.docx")}

    assert client.post(f"{API}/roots", json={"rootRelativePath": "papers"}).status_code == 200
    r = client.post(f"{API}/ingest", json={"sourcePaths": ["papers"], "wait": True, "waitS": 200})
    assert r.status_code == 202
    job = _wait_job(client, r.headers["location"])
    assert job["status"] == "succeeded", job
    assert job["result"]["counts"] == {"processed": 2}, job["result"]
    assert job["progress"], "the job reports progress lines"

    status = client.get(f"{API}/status").json()
    assert status["registry"]["byStatus"] == {"processed": 2}
    assert status["provider"]["reachable"] is True

    r = client.post(f"{API}/search", json={"query": f"{MARKER} pulsar transits", "mode": "naive", "topK": 10})
    assert r.status_code == 200, r.text
    results = r.json()
    assert results["schema"] == "mnote.knowledge_rag.search_results.v1"
    hits = [c for c in results["results"] if c["sourceRootRelativePath"] == f"papers/{MARKER.lower()}.md"]
    assert hits, results
    assert MARKER in (hits[0]["displayQuote"] or "")

    r = client.post(f"{API}/open-reference", json={"citationId": hits[0]["citationId"]})
    assert r.status_code == 200, r.text
    plan = r.json()
    assert Path(plan["resourcePath"]) == md and plan["resourceKind"] == "markdown"

    r = client.post(f"{API}/delete-source", json={"sourcePaths": [f"papers/{MARKER.lower()}.md"]})
    assert r.status_code == 200, r.text
    (entry,) = r.json()["entries"]
    assert entry["status"] in ("delete_submitted", "delete_completed") and entry["stale"] is True
    after = client.post(f"{API}/search", json={"query": f"{MARKER} pulsar transits", "mode": "naive"}).json()
    assert all(c["sourceRootRelativePath"] != f"papers/{MARKER.lower()}.md" for c in after["results"])

    rel = entry["sourceRootRelativePath"]
    if entry["status"] == "delete_submitted":
        # Not confirmed yet: prune must keep it (the delete is still in flight).
        assert rel not in client.post(f"{API}/prune-registry").json()["removed"]
        deadline = time.monotonic() + 120
        while server.host.registry().entries[rel].status != "delete_completed":
            assert time.monotonic() < deadline, "LightRAG never confirmed the delete"
            synced = client.post(f"{API}/sync", json={"waitS": 2})
            assert synced.status_code == 200, synced.text
    kept = client.post(f"{API}/prune-registry").json()
    assert kept["removed"] == [] and kept["keptDeleted"] == [rel]  # on disk: its record keeps it out
    assert {p: _sha(p) for p in before} == before  # the user's files are never touched
    away = md.rename(root.parent / md.name)  # this test's own copy, out of the workspace: the record may go
    pruned = client.post(f"{API}/prune-registry").json()["removed"]
    assert pruned == [rel]
    assert set(server.host.registry().entries) == {"papers/page-breaks.docx"}
    assert _sha(away) == before[md]


@pytest.mark.integration
def test_server_integration_refusals_change_nothing(api, tmp_path: Path):
    server, client = api
    (tmp_path / "outside.md").write_text("outside\n", encoding="utf-8")
    client.post(f"{API}/roots", json={"rootRelativePath": "papers"})
    registry = server.host.store.path
    snapshot = registry.read_bytes()
    documents_before = client.get(f"{API}/status").json()["provider"].get("documentsByStatus")

    bare = httpx.post(f"{server.url}{API}/ingest", json={"sourcePaths": ["papers"]})
    assert bare.status_code == 401 and bare.json()["error"]["code"] == "unauthorized"
    big = client.post(f"{API}/ingest", content=b'{"sourcePaths": ["papers"], "x": "' + b"y" * (2 << 20) + b'"}',
                      headers={"Content-Type": "application/json"})
    assert big.status_code == 413 and big.json()["error"]["code"] == "payload_too_large"
    bad = client.post(f"{API}/ingest", content=b'{"sourcePaths": ["papers"',
                      headers={"Content-Type": "application/json"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "malformed_json"
    for body in ({"sourcePaths": ["../outside.md"]}, {"sourcePaths": [str(tmp_path / "outside.md")]},
                 {"sourcePaths": ["papers/../../outside.md"], "wait": True}):
        r = client.post(f"{API}/ingest", json=body)
        assert r.status_code == 403 and r.json()["error"]["code"] == "path_not_allowed", r.text
    r = client.post(f"{API}/delete-source", json={"sourcePaths": ["../outside.md"]})
    assert r.status_code == 403
    evil = httpx.get(f"{server.url}{API}/status", headers={"Authorization": f"Bearer {server.token}",
                                                            "Host": f"rebind.example:{server.port}"})
    assert evil.status_code == 403 and evil.json()["error"]["code"] == "forbidden_host"

    assert registry.read_bytes() == snapshot
    assert server.host.registry().entries == {}
    assert client.get(f"{API}/status").json()["provider"].get("documentsByStatus") == documents_before
