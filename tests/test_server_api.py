"""The HTTP API over real HTTP on loopback: every route's answer, shapes equal to the CLI's --json."""

from __future__ import annotations

import json
import re
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import msgspec
import pytest
from mnote_kr_testkit.fakes import FakeProvider, fake_host

from mnote_kr import hookimpl
from mnote_kr.core import paths
from mnote_kr.models import EntryUpdate, ProviderActivity
from mnote_kr.server.app import ApiServer

API = "/api/knowledge-rag"


def _workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "docs" / "sub").mkdir(parents=True)
    (ws / "docs" / "fox.md").write_text("# Animals\n\nThe quick brown fox jumps over the lazy dog.\n", encoding="utf-8")
    (ws / "docs" / "sub" / "corpus.md").write_text("Canterbury corpus compression ratios.\n", encoding="utf-8")
    (ws / "other.md").write_text("Not in a root.\n", encoding="utf-8")
    return ws


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[ApiServer, httpx.Client, FakeProvider]]:
    host, provider = fake_host(_workspace(tmp_path))
    with ApiServer(host) as server, httpx.Client(
        base_url=server.url, headers={"Authorization": f"Bearer {server.token}"}, timeout=10
    ) as client:
        yield server, client, provider


def _as_cli_json(value: object) -> object:
    """What the CLI's emit_json would print for a contract value."""
    return json.loads(msgspec.json.encode(value))


def test_server_url_is_loopback_with_a_real_port(served):
    server, client, _ = served
    assert server.url == f"http://127.0.0.1:{server.port}"
    assert server.port > 0
    assert client.get("/api/health").json()["ok"] is True


def test_server_token_file_is_private_and_removed_on_stop(tmp_path):
    host, _ = fake_host(_workspace(tmp_path))
    server = ApiServer(host).start()
    token_file = paths.state_dir() / "server-token"
    info = json.loads((paths.state_dir() / "server.json").read_text(encoding="utf-8"))
    assert token_file.read_text(encoding="utf-8").strip() == server.token
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    assert stat.S_IMODE((paths.state_dir() / "server.json").stat().st_mode) == 0o600
    assert info["url"] == server.url and info["tokenFile"] == str(token_file)
    assert server.token not in json.dumps(info)
    server.stop()
    assert not token_file.exists()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{server.url}/api/health", timeout=2)


def test_server_tokens_differ_per_start(tmp_path):
    host, _ = fake_host(_workspace(tmp_path))
    with ApiServer(host, write_token_file=False) as a, ApiServer(host, write_token_file=False) as b:
        assert a.token != b.token and len(a.token) >= 32
        assert httpx.get(f"{a.url}/api/knowledge-rag/status", headers={"Authorization": f"Bearer {b.token}"}
                         ).status_code == 401


def test_server_roots_add_list_remove(served):
    server, client, _ = served
    r = client.post(f"{API}/roots", json={"rootRelativePath": "docs", "excludePatterns": ["*.tmp"]})
    assert r.status_code == 200
    assert r.json()["rootRelativePath"] == "docs" and r.json()["excludePatterns"] == ["*.tmp"]
    listed = client.get(f"{API}/roots").json()
    assert listed == _as_cli_json({"indexedRoots": server.host.roots_list()})
    assert [x["rootRelativePath"] for x in listed["indexedRoots"]] == ["docs"]
    r = client.post(f"{API}/roots/remove", json={"rootRelativePath": "docs"})
    assert r.status_code == 200 and r.json()["rootRelativePath"] == "docs"
    assert client.get(f"{API}/roots").json() == {"indexedRoots": []}
    r = client.post(f"{API}/roots/remove", json={"rootRelativePath": "docs"})
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"


def test_server_ingest_search_open_ask_delete_prune(served):
    server, client, provider = served
    client.post(f"{API}/roots", json={"rootRelativePath": "docs"})
    r = client.post(f"{API}/ingest", json={"sourcePaths": ["docs"]})
    assert r.status_code == 200
    report = r.json()
    assert report["counts"] == {"processed": 2}
    assert sorted(i["sourcePath"] for i in report["items"]) == ["docs/fox.md", "docs/sub/corpus.md"]
    # Unchanged files are not sent again (same rule as the CLI).
    again = client.post(f"{API}/ingest", json={"sourcePath": "docs/fox.md"}).json()
    assert again["items"][0]["status"] == "already_registered"

    r = client.post(f"{API}/search", json={"query": "quick brown fox", "topK": 5})
    assert r.status_code == 200
    results = r.json()
    assert results["schema"] == "mnote.knowledge_rag.search_results.v1"
    assert results["provider"] == "fake"
    paths_found = {c["sourceRootRelativePath"] for c in results["results"]}
    assert paths_found == {"docs/fox.md", "docs/sub/corpus.md"}
    for c in results["results"]:
        assert c["citationId"].startswith("[") and c["citationUrl"] and c["locatorPrecision"] in ("bbox", "paragraph",
                                                                                                  "file")
    # Scope narrows to one folder (workspace-relative, whatever the server's cwd).
    scoped = client.post(f"{API}/search", json={"query": "corpus", "sourcePaths": ["docs/sub"]}).json()
    assert {c["sourceRootRelativePath"] for c in scoped["results"]} == {"docs/sub/corpus.md"}
    one = client.post(f"{API}/search", json={"query": "corpus", "sourcePath": "docs/sub"})  # the one-string form
    assert one.status_code == 200 and {c["sourceRootRelativePath"] for c in one.json()["results"]} == {
        "docs/sub/corpus.md"}

    fox = next(c for c in results["results"] if c["sourceRootRelativePath"] == "docs/fox.md")
    r = client.post(f"{API}/open-reference", json={"citationId": fox["citationId"]})
    assert r.status_code == 200
    plan = r.json()
    assert plan["schema"] == "mnote.knowledge_rag.open_plan.v1"
    assert plan["resourceRootRelativePath"] == "docs/fox.md"
    assert Path(plan["resourcePath"]) == server.host.root / "docs" / "fox.md"
    assert plan["resourceKind"] == "markdown"
    # the same plan as the CLI's, but over HTTP each issue's viewer URL is always set (viewer29): the page serves it
    cli_plan = _as_cli_json(server.host.open(fox["citationId"]))
    assert [i.pop("viewerUrl") for i in cli_plan["issues"]] == [None] * len(cli_plan["issues"])
    urls = [i.pop("viewerUrl") for i in plan["issues"]]
    keyed = [f"?issue={i['issue']}" in u for i, u in zip(plan["issues"], urls, strict=True)]
    assert plan == cli_plan and urls and all(keyed), urls

    r = client.post(f"{API}/query", json={"query": "quick brown fox"})
    assert r.status_code == 200
    answer = r.json()
    assert answer["schema"] == "mnote.knowledge_rag.agent_query_result.v1"
    assert answer["answer"].startswith("Answer to quick brown fox")
    assert {c["sourceRootRelativePath"] for c in answer["citations"]} == paths_found

    source_bytes = (server.host.root / "docs" / "fox.md").read_bytes()
    r = client.post(f"{API}/delete-source", json={"sourcePaths": ["docs/fox.md"]})
    assert r.status_code == 200
    (entry,) = r.json()["entries"]
    assert entry["sourceRootRelativePath"] == "docs/fox.md"
    assert entry["status"] == "delete_completed" and entry["stale"] is True
    assert (server.host.root / "docs" / "fox.md").read_bytes() == source_bytes  # never the file
    # Citations of the deleted source stop at once.
    after = client.post(f"{API}/search", json={"query": "fox"}).json()
    assert {c["sourceRootRelativePath"] for c in after["results"]} == {"docs/sub/corpus.md"}
    gone = client.post(f"{API}/open-reference", json={"citationId": fox["citationId"]})
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "not_found"

    # The file is still on disk: its record keeps it out of the knowledge base, so prune keeps it.
    r = client.post(f"{API}/prune-registry")
    assert r.status_code == 200 and r.json()["removed"] == [] and r.json()["keptDeleted"] == ["docs/fox.md"]
    assert set(server.host.registry().entries) == {"docs/sub/corpus.md", "docs/fox.md"}
    (server.host.root / "docs" / "fox.md").unlink()  # gone from disk (the test's own file): the record may go
    r = client.post(f"{API}/prune-registry")
    assert r.json()["removed"] == ["docs/fox.md"] and r.json()["keptDeleted"] == []
    assert r.json()["byKind"]["stale"] == ["docs/fox.md"]  # said by kind (deleted: its record is stale)
    again = client.post(f"{API}/prune-registry", json={}).json()
    assert again["removed"] == [] and not any(again["byKind"].values())
    assert set(server.host.registry().entries) == {"docs/sub/corpus.md"}
    assert provider.calls.count("ingest") == 1 and "delete" in provider.calls


def test_server_status_matches_host_status(served):
    server, client, _ = served
    client.post(f"{API}/ingest", json={"sourcePaths": ["docs/fox.md"]})
    status = client.get(f"{API}/status").json()
    direct = _as_cli_json(server.host.status())
    assert status == direct
    assert status["registry"]["byStatus"] == {"processed": 1}
    assert status["provider"]["provider"] == "fake" and status["provider"]["reachable"] is True


def test_server_plugins_lists_like_the_cli(served):
    _, client, _ = served
    body = client.get("/api/plugins").json()
    assert body["provider"] == "fake"
    names = {p["name"] for p in body["plugins"]}
    assert "fake" in names and "file_locator" not in names  # built-ins only with ?all=1
    with_builtin = {p["name"] for p in client.get("/api/plugins", params={"all": "1"}).json()["plugins"]}
    assert "file_locator" in with_builtin
    fake = next(p for p in body["plugins"] if p["name"] == "fake")
    assert {"ingest", "query", "map_reference"} <= set(fake["hooks"])


class Working(FakeProvider):
    """Says, on its first look, that it is processing docs/fox.md (its stage, step and chunks); then done."""

    looks = 0

    @hookimpl
    def sync(self, ctx, entries, wait_s):  # type: ignore[no-untyped-def]
        self.looks += 1
        if self.looks > 1:
            return super().sync(ctx, entries, wait_s)
        busy = ProviderActivity(stage="processing", step="extracting entities", chunks_done=3, chunks_total=9)
        return [EntryUpdate(source_root_relative_path=e.source_root_relative_path, status="processing",
                            activity=busy if e.source_root_relative_path == "docs/fox.md" else None)
                for e in entries]


def test_server_ingest_wait_is_a_pollable_job(tmp_path):
    host, provider = fake_host(_workspace(tmp_path), Working(ingest_status="submitted", sync_delay=0.2))
    with ApiServer(host) as server, httpx.Client(
        base_url=server.url, headers={"Authorization": f"Bearer {server.token}"}, timeout=10
    ) as client:
        r = client.post(f"{API}/ingest", json={"sourcePaths": ["docs"], "wait": True, "waitS": 30})
        assert r.status_code == 202
        job = r.json()
        assert r.headers["location"] == f"/api/jobs/{job['id']}"
        assert job["kind"] == "ingest" and job["status"] in ("queued", "running")
        deadline = time.monotonic() + 10
        while True:
            view = client.get(r.headers["location"]).json()
            if view["status"] in ("succeeded", "failed") or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert view["status"] == "succeeded", view
        assert view["result"]["counts"] == {"processed": 2}
        lines = [p["line"] for p in view["progress"]]
        assert "hashed docs/fox.md" in lines and any(line.startswith("waiting for") for line in lines)
        assert any(re.fullmatch(r"sent 2/2 files \(\d+ s so far\)", line) for line in lines), lines
        # the files waited for are named, with the time so far, and the one the provider works on
        waits = [p for p in view["progress"] if p["line"].startswith("waiting for")]
        first = waits[0]["line"]
        assert first.startswith("waiting for 2 file(s) to be indexed; indexed 0/2 files; 0 s so far; "), waits
        assert "docs/fox.md" in waits[0]["line"], waits
        assert "indexing now: docs/fox.md (processing for 0 s: extracting entities, chunk 3 of 9); " \
               "still waiting: docs/sub/corpus.md" in waits[1]["line"], waits
        # the JSON progress has the same facts as data; other lines stay as they were
        assert waits[1]["detail"]["working"] == [{"path": "docs/fox.md", "stage": "processing", "forS": 0.0,
                                                  "step": "extracting entities", "chunksDone": 3, "chunksTotal": 9}]
        assert waits[1]["detail"]["waiting"] == ["docs/fox.md", "docs/sub/corpus.md"]
        assert any(line.startswith("indexed 2/2 files in ") for line in lines), lines
        embeds = [p for p in view["progress"] if p["line"].startswith("embedding places")]
        last = embeds[-1]["detail"]  # (the count includes places other tests of this process queued)
        assert last["step"] == "embed" and last["done"] == last["total"] >= 3 and "elapsedS" in last, embeds
        assert "detail" not in next(p for p in view["progress"] if p["line"] == "hashed docs/fox.md")
        assert [p["seq"] for p in view["progress"]] == list(range(1, len(lines) + 1))
        assert "sync" in provider.calls
        assert {e.status for e in host.registry().entries.values()} == {"processed"}


def test_server_job_events_stream_progress_then_done(tmp_path):
    host, _ = fake_host(_workspace(tmp_path), FakeProvider(ingest_status="submitted", sync_delay=0.3))
    with ApiServer(host) as server, httpx.Client(
        base_url=server.url, headers={"Authorization": f"Bearer {server.token}"}, timeout=10
    ) as client:
        job = client.post(f"{API}/ingest", json={"sourcePaths": ["docs"], "wait": True}).json()
        with client.stream("GET", f"/api/jobs/{job['id']}/events") as r:
            assert r.status_code == 200
            assert r.headers["content-type"].startswith("text/event-stream")
            text = r.read().decode("utf-8")
        events = [block for block in text.split("\n\n") if block.strip() and not block.startswith(":")]
        kinds = [next(li[7:] for li in e.splitlines() if li.startswith("event: ")) for e in events]
        assert kinds[-1] == "done" and set(kinds[:-1]) == {"progress"} and len(kinds) >= 3
        done = json.loads(next(li[6:] for li in events[-1].splitlines() if li.startswith("data: ")))
        assert done["status"] == "succeeded" and done["result"]["counts"] == {"processed": 2}
        # Resuming with Last-Event-ID skips what was already seen.
        replay = client.get(f"/api/jobs/{job['id']}/events", headers={"Last-Event-ID": "1"}).text
        assert "id: 1\n" not in replay and "id: 2\n" in replay and "event: done" in replay
        # EventSource cannot send headers: the events route alone accepts the token in the query.
        bare = httpx.get(f"{server.url}/api/jobs/{job['id']}/events", params={"access_token": server.token})
        assert bare.status_code == 200 and "event: done" in bare.text
        no_query_token = httpx.get(f"{server.url}/api/jobs/{job['id']}", params={"access_token": server.token})
        assert no_query_token.status_code == 401


def test_server_job_failure_reports_the_error_shape(tmp_path):
    host, _ = fake_host(_workspace(tmp_path))
    with ApiServer(host) as server, httpx.Client(
        base_url=server.url, headers={"Authorization": f"Bearer {server.token}"}, timeout=10
    ) as client:
        (server.host.root / "docs" / "fox.md").unlink()
        r = client.post(f"{API}/ingest", json={"sourcePaths": ["docs/fox.md"], "wait": True})
        assert r.status_code == 202
        text = client.get(r.headers["location"] + "/events").text
        done = json.loads(text.split("event: done\ndata: ", 1)[1].split("\n", 1)[0])
        assert done["status"] == "failed"
        assert set(done["error"]) == {"code", "message", "hint"} and done["error"]["code"] != "internal"
        assert client.get("/api/jobs/not-a-job").status_code == 404
