"""Refusals of the HTTP API: each is the documented error shape, and changes nothing."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mnote_kr_testkit.fakes import FakeProvider, fake_host

from mnote_kr.errors import UsageError
from mnote_kr.server.app import ApiServer, _split_host_header, is_loopback
from tests.cli_helpers import cli_env, start_serve

API = "/api/knowledge-rag"
ORIGIN = "http://localhost:5173"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[ApiServer, httpx.Client, FakeProvider]]:
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    (ws / "docs" / "a.md").write_text("alpha beta gamma\n", encoding="utf-8")
    (tmp_path / "secret.md").write_text("outside the workspace\n", encoding="utf-8")
    host, provider = fake_host(ws)
    with ApiServer(host, cors_origins=[ORIGIN], max_body=4096) as server, httpx.Client(
        base_url=server.url, headers={"Authorization": f"Bearer {server.token}"}, timeout=10
    ) as client:
        yield server, client, provider


def _snapshot(server: ApiServer) -> tuple[bytes | None, list[str]]:
    path = server.host.store.path
    return (path.read_bytes() if path.exists() else None), sorted(os.listdir(server.host.root))


def _assert_error(r: httpx.Response, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "hint"}
    assert body["error"]["code"] == code
    assert "Traceback" not in r.text


@pytest.mark.parametrize("headers", [
    {},
    {"Authorization": "Bearer wrong"},
    {"Authorization": "Basic dXNlcjpwYXNz"},
    {"Authorization": "Bearer"},
    {"Authorization": "bearer x" + "y" * 42},
])
def test_server_refuses_requests_without_the_token_and_changes_nothing(served, headers):
    server, _, provider = served
    before = _snapshot(server)
    for method, path, body in [("GET", f"{API}/status", None), ("POST", f"{API}/ingest", {"sourcePaths": ["docs"]}),
                               ("POST", f"{API}/delete-source", {"sourcePaths": ["docs"]}),
                               ("POST", f"{API}/prune-registry", {}), ("GET", "/api/openapi.json", None),
                               ("GET", "/api/nowhere", None)]:
        r = httpx.request(method, server.url + path, headers=headers, json=body)
        _assert_error(r, 401, "unauthorized")
        assert r.headers["www-authenticate"].startswith("Bearer")
    assert _snapshot(server) == before and provider.calls == []
    assert httpx.get(f"{server.url}/api/health").status_code == 200  # the one open route


@pytest.mark.parametrize("host_header", ["evil.example", "evil.example:{port}", "127.0.0.1.nip.io:{port}",
                                         "127.0.0.1:1", "localhost:{port}0", "", "[::1", "10.0.0.5:{port}",
                                         "127.0.0.1", "localhost"])  # no port is port 80, not this server's
def test_server_refuses_foreign_host_headers(served, host_header):
    server, client, _ = served
    r = client.get(f"{API}/status", headers={"Host": host_header.format(port=server.port)})
    _assert_error(r, 403, "forbidden_host")


@pytest.mark.parametrize("host_header", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}",
                                         "[::1]:{port}"])
def test_server_accepts_loopback_host_headers(served, host_header):
    server, client, _ = served
    r = client.get(f"{API}/roots", headers={"Host": host_header.format(port=server.port)})
    assert r.status_code == 200 and r.json() == {"indexedRoots": []}


def test_split_host_header_parses_names_and_ports():
    assert _split_host_header("LocalHost:80") == ("localhost", 80)
    assert _split_host_header("[::1]:9") == ("[::1]", 9)
    assert _split_host_header("[::1]") == ("[::1]", None)
    assert _split_host_header("a:b") is None
    assert _split_host_header("[::1]x") is None


def test_server_cors_allows_only_configured_origins(served):
    server, client, _ = served
    ok = client.get(f"{API}/roots", headers={"Origin": ORIGIN})
    assert ok.status_code == 200 and ok.headers["access-control-allow-origin"] == ORIGIN
    plain = client.get(f"{API}/roots")
    assert "access-control-allow-origin" not in plain.headers
    bad = client.get(f"{API}/roots", headers={"Origin": "http://evil.example"})
    _assert_error(bad, 403, "origin_not_allowed")
    assert "access-control-allow-origin" not in bad.headers

    pre = httpx.options(f"{server.url}{API}/search", headers={
        "Origin": ORIGIN, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type"})
    assert pre.status_code == 204
    assert pre.headers["access-control-allow-origin"] == ORIGIN
    assert "POST" in pre.headers["access-control-allow-methods"]
    assert "Authorization" in pre.headers["access-control-allow-headers"]
    bad_pre = httpx.options(f"{server.url}{API}/search", headers={
        "Origin": "http://evil.example", "Access-Control-Request-Method": "POST"})
    _assert_error(bad_pre, 403, "origin_not_allowed")


def test_server_refuses_oversized_bodies_without_reading_them(served):
    server, client, provider = served
    before = _snapshot(server)
    big = b'{"sourcePaths": ["docs"], "pad": "' + b"x" * 10_000 + b'"}'
    r = client.post(f"{API}/ingest", content=big, headers={"Content-Type": "application/json"})
    _assert_error(r, 413, "payload_too_large")
    assert r.headers.get("connection") == "close"
    # Announced but never sent: the server answers from the header alone.
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(f"POST {API}/ingest HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                     f"Authorization: Bearer {server.token}\r\nContent-Type: application/json\r\n"
                     f"Content-Length: 999999999\r\n\r\n".encode())
        chunks = []
        while chunk := sock.recv(4096):  # the server answers from the header alone, then closes
            chunks.append(chunk)
        head = b"".join(chunks).decode("latin-1")
    assert head.startswith("HTTP/1.1 413") and "payload_too_large" in head
    assert _snapshot(server) == before and provider.calls == []


@pytest.mark.parametrize("body, code", [
    (b"{not json", "malformed_json"),
    (b'{"sourcePaths": ["docs"', "malformed_json"),
    (b"\xff\xfe", "malformed_json"),
    (b'{"sourcePaths": "docs"}', "invalid_request"),
    (b'{"sourcePaths": ["docs"], "unknownField": 1}', "invalid_request"),
    (b'{"sourcePaths": [1]}', "invalid_request"),
    (b'["docs"]', "invalid_request"),
    (b"{}", "usage"),
])
def test_server_refuses_malformed_ingest_bodies_and_changes_nothing(served, body, code):
    server, client, provider = served
    before = _snapshot(server)
    r = client.post(f"{API}/ingest", content=body, headers={"Content-Type": "application/json"})
    _assert_error(r, 400, code)
    assert _snapshot(server) == before and provider.calls == []


def test_server_refuses_non_json_bodies(served):
    server, client, provider = served
    # A browser "simple request" (text/plain) cannot smuggle a command in.
    r = client.post(f"{API}/ingest", content=b'{"sourcePaths": ["docs"]}', headers={"Content-Type": "text/plain"})
    _assert_error(r, 415, "unsupported_media_type")
    r = client.post(f"{API}/ingest", content=b'{"sourcePaths": ["docs"]}',
                    headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"})
    assert r.status_code in (400, 411)
    assert provider.calls == []


@pytest.mark.parametrize("route, body", [
    ("ingest", {"sourcePaths": ["../secret.md"]}),
    ("ingest", {"sourcePaths": ["docs/../../secret.md"]}),
    ("ingest", {"sourcePath": "/etc/passwd"}),
    ("ingest", {"sourcePaths": ["docs", "../secret.md"], "wait": True}),
    ("ingest", {"sourcePaths": [".mnote/index"]}),
    ("ingest", {"sourcePaths": ["docs/\u0000x"]}),
    ("delete-source", {"sourcePaths": ["../secret.md"]}),
    ("search", {"query": "alpha", "sourcePaths": ["../"]}),
    ("query", {"query": "alpha", "sourcePaths": ["/tmp"]}),
    ("roots", {"rootRelativePath": "../"}),
    ("roots/remove", {"rootRelativePath": "/"}),
])
def test_server_refuses_traversal_and_changes_nothing(served, route, body):
    server, client, provider = served
    before = _snapshot(server)
    r = client.post(f"{API}/{route}", json=body)
    _assert_error(r, 403, "path_not_allowed")
    assert _snapshot(server) == before and provider.calls == []


def test_server_refuses_symlink_leaving_the_workspace(served, tmp_path):
    server, client, provider = served
    link = server.host.root / "docs" / "escape.md"
    link.symlink_to(tmp_path / "secret.md")
    r = client.post(f"{API}/ingest", json={"sourcePaths": ["docs/escape.md"]})
    _assert_error(r, 403, "path_not_allowed")
    assert provider.calls == [] and server.host.registry().entries == {}


def test_server_unknown_route_and_wrong_method(served):
    _, client, _ = served
    _assert_error(client.get("/api/knowledge-rag/nothing"), 404, "not_found")
    assert client.get("/nothing").status_code == 404  # outside /api/: the web UI's own 404 page
    r = client.get(f"{API}/search")
    _assert_error(r, 405, "method_not_allowed")
    assert r.headers["allow"] == "OPTIONS, POST"
    _assert_error(client.delete(f"{API}/status"), 405, "method_not_allowed")
    _assert_error(client.request("BREW", f"{API}/status"), 405, "method_not_allowed")


def test_server_unexpected_errors_are_500_without_details(served, monkeypatch):
    server, client, _ = served

    def boom() -> dict:
        raise RuntimeError("db password hunter2 at /home/u/.secret")

    monkeypatch.setattr(server.host, "status", boom)
    r = client.get(f"{API}/status")
    _assert_error(r, 500, "internal")
    assert "hunter2" not in r.text and ".secret" not in r.text and "RuntimeError" not in r.text
    assert client.get(f"{API}/roots").status_code == 200  # the server carries on


def test_server_host_errors_map_to_their_status(served):
    _, client, _ = served
    r = client.post(f"{API}/open-reference", json={"citationId": "[zzzz]"})
    _assert_error(r, 404, "not_found")
    r = client.post(f"{API}/search", json={"query": "   "})
    _assert_error(r, 400, "usage")
    r = client.post(f"{API}/search", json={"query": "a", "topK": 0})
    _assert_error(r, 400, "usage")
    r = client.post(f"{API}/search", json={"query": "a", "mode": "bogus"})
    _assert_error(r, 400, "invalid_request")
    r = client.post(f"{API}/ingest", json={"sourcePaths": ["docs"], "workspaceId": "ws-other"})
    _assert_error(r, 400, "usage")


def test_server_refuses_non_loopback_bind_unless_forced(tmp_path):
    host, _ = fake_host(tmp_path)
    for bind in ("0.0.0.0", "192.0.2.1", "example.com", "::"):
        with pytest.raises(UsageError, match="Refusing to bind"):
            ApiServer(host, bind=bind, write_token_file=False)
    assert is_loopback("127.0.0.2") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0")
    forced = ApiServer(host, bind="0.0.0.0", allow_non_loopback=True, write_token_file=False).start()
    try:
        auth = {"Authorization": f"Bearer {forced.token}"}
        url = f"http://127.0.0.1:{forced.port}"
        assert httpx.get(f"{url}/api/knowledge-rag/roots", headers=auth).status_code == 200
        # Forced or not, a DNS name other than localhost is refused (DNS rebinding).
        r = httpx.get(f"{url}/api/knowledge-rag/roots", headers={**auth, "Host": f"evil.example:{forced.port}"})
        assert r.status_code == 403
    finally:
        forced.stop()


# --- one server per workspace ----------------------------------------------------------------


def _stop(proc: subprocess.Popen[str]) -> str:
    proc.terminate()
    return proc.communicate(timeout=30)[1]


def _files(state: Path) -> dict[str, bytes]:
    return {p.relative_to(state).as_posix(): p.read_bytes() for p in sorted(state.rglob("server*")) if p.is_file()
            and p.name != "server.lock"}


def test_a_second_serve_of_a_served_workspace_says_so_and_leaves_the_first_ones_files(tmp_path: Path) -> None:
    home, ws = tmp_path / "home", tmp_path / "ws"
    state = home / "state"
    first = start_serve(home, ws)
    try:
        files = _files(state)
        info = json.loads(files["server.json"])
        assert info["pid"] == first.pid
        second = subprocess.run([sys.executable, "-m", "mnote_kr", "serve", "--port", "0"], cwd=ws,
                                env=cli_env(home, None), capture_output=True, text=True, timeout=60)
        assert second.returncode != 0
        lines = [ln for ln in second.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("Error: ") and "already served at" in lines[0], second.stderr
        assert info["url"] in lines[0] and f"pid {first.pid}" in lines[0]
        assert "Serving on" not in second.stdout
        assert _files(state) == files  # neither overwritten nor deleted
        token = files["server-token"].decode().strip()
        health = httpx.get(f"{info['url']}/api/knowledge-rag/status", headers={"Authorization": f"Bearer {token}"},
                           timeout=30)
        assert health.status_code == 200  # the first still serves with its token
    finally:
        _stop(first)
    assert _files(state) == {}  # the first removes its own files when it stops


def test_a_server_of_another_workspace_takes_its_own_files_and_each_removes_only_its_own(tmp_path: Path) -> None:
    home = tmp_path / "home"
    state = home / "state"
    first = start_serve(home, tmp_path / "one")
    try:
        first_files = _files(state)
        second = start_serve(home, tmp_path / "two")
        try:
            both = _files(state)
            assert {k: v for k, v in both.items() if k in first_files} == first_files
            own = [k for k in both if k not in first_files]
            assert len(own) == 2 and all(k.startswith("servers/") for k in own)
            assert json.loads(both[next(k for k in own if k.endswith(".json"))])["pid"] == second.pid
        finally:
            _stop(second)
        assert _files(state) == first_files
    finally:
        _stop(first)
    assert _files(state) == {}


def test_a_server_does_not_delete_files_another_process_has_written(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    host, _ = fake_host(ws)
    server = ApiServer(host).start()
    assert server.info_file is not None and server.token_file is not None
    other = json.loads(server.info_file.read_text(encoding="utf-8"))
    other["pid"] = os.getppid()  # a live process that is not this one now owns the record
    server.info_file.write_text(json.dumps(other), encoding="utf-8")
    server.stop()
    assert server.info_file.exists() and server.token_file.exists()
