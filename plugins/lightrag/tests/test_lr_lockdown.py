"""The managed engine accepts nothing without its key but ``/health``.

Unit tests drive :class:`~mnote_kr_lightrag.engine.guard.EngineGuard` as a plain ASGI app; the
integration tests start the real guarded ``lightrag-server`` through ``start_engine`` and
probe it the way a web page in the user's browser would: without the key, with a foreign
``Origin``, and through DNS rebinding (``Host: evil.example``).
"""

from __future__ import annotations

import asyncio
import re
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from mnote_kr_testkit.engine import lightrag_engine, seed_tiktoken  # noqa: F401  (session fixture)

from mnote_kr.app.host import Host
from mnote_kr.citations.render.statustext import render_status
from mnote_kr.core.config import load_config
from mnote_kr.errors import ProviderError
from mnote_kr_lightrag.client import settings
from mnote_kr_lightrag.engine import managed as engine
from mnote_kr_lightrag.engine import procs as engine_procs
from mnote_kr_lightrag.engine.guard import EngineGuard

PORT = 4242
KEY = "k-123"


def _call(guard: EngineGuard, path: str, headers: dict[str, str], *, kind: str = "http") -> tuple[int | None, bool]:
    """(status the guard answered or None when it passed the request on, whether the app ran)."""
    reached: list[bool] = []
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(True)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Any) -> None:
        sent.append(dict(message))

    guard.app = app
    scope = {"type": kind, "path": path, "method": "GET",
             "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()]}
    asyncio.run(guard(scope, receive, send))
    status = next((m["status"] for m in sent if m["type"] == "http.response.start"), None)
    if any(m["type"] == "websocket.close" for m in sent):
        status = 1008
    return status, bool(reached)


def _guard() -> EngineGuard:
    return EngineGuard(lambda *a: None, port=PORT, api_key=KEY)  # type: ignore[arg-type, return-value]


@pytest.mark.parametrize("host", ["127.0.0.1:4242", "localhost:4242", "[::1]:4242", "LOCALHOST:4242"])
def test_lr_guard_lets_loopback_hosts_with_the_engine_port_through(host: str) -> None:
    assert _call(_guard(), "/documents/paginated", {"Host": host, "X-API-Key": KEY}) == (None, True)
    assert _call(_guard(), "/health", {"Host": host}) == (None, True)


@pytest.mark.parametrize("host", ["evil.example", "evil.example:4242", "127.0.0.1", "127.0.0.1:4243",
                                  "127.0.0.1.evil.example:4242", "localhost:4242@evil", ""])
def test_lr_guard_refuses_foreign_hosts_even_with_the_key(host: str) -> None:
    assert _call(_guard(), "/health", {"Host": host, "X-API-Key": KEY}) == (403, False)


def test_lr_guard_refuses_a_missing_or_repeated_host() -> None:
    guard = _guard()
    assert _call(guard, "/health", {"X-API-Key": KEY}) == (403, False)
    reached: list[bool] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(True)

    sent: list[Any] = []

    async def send(message: Any) -> None:
        sent.append(message)

    guard.app = app
    scope = {"type": "http", "path": "/health", "headers": [(b"host", b"127.0.0.1:4242"), (b"host", b"evil.example")]}
    asyncio.run(guard(scope, None, send))  # type: ignore[arg-type]
    assert not reached and sent[0]["status"] == 403


def test_lr_guard_needs_the_key_everywhere_but_health() -> None:
    host = {"Host": "127.0.0.1:4242"}
    for path in ("/api/chat", "/api/generate", "/api/tags", "/query", "/documents", "/docs", "/openapi.json",
                 "/webui/", "/", "/auth-status", "/health/", "/healthz"):
        assert _call(_guard(), path, host) == (403, False), path
        assert _call(_guard(), path, {**host, "X-API-Key": "wrong"}) == (403, False), path
        assert _call(_guard(), path, {**host, "X-API-Key": KEY}) == (None, True), path


def test_lr_guard_refuses_foreign_origins_and_websockets_without_key() -> None:
    host = {"Host": "127.0.0.1:4242", "X-API-Key": KEY}
    assert _call(_guard(), "/health", {**host, "Origin": "https://evil.example"}) == (403, False)
    assert _call(_guard(), "/health", {**host, "Origin": "null"}) == (403, False)
    assert _call(_guard(), "/health", {**host, "Origin": "http://127.0.0.1:4242"}) == (None, True)
    assert _call(_guard(), "/ws", {"Host": "127.0.0.1:4242"}, kind="websocket") == (1008, False)


def test_lr_guard_passes_lifespan_events_through() -> None:
    guard = _guard()
    seen: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope["type"])

    guard.app = app
    asyncio.run(guard({"type": "lifespan"}, None, None))  # type: ignore[arg-type]
    assert seen == ["lifespan"]


# --- the real engine (integration) ------------------------------------------------------------

EVIL = "https://evil.example"


def _client(info: engine.EngineInfo, **headers: str) -> httpx.Client:
    return httpx.Client(base_url=info.url, headers=headers, timeout=30, trust_env=False)


def _routes(info: engine.EngineInfo) -> list[tuple[str, str]]:
    """Every (method, path) in the engine's own OpenAPI document, path parameters filled in."""
    with _client(info, **{"X-API-Key": info.api_key}) as client:
        spec = client.get("/openapi.json").json()
    routes = []
    for path, methods in spec["paths"].items():
        concrete = re.sub(r"\{[^}]+\}", "x", path)
        for method in methods:
            if method.upper() in {"GET", "POST", "PUT", "DELETE", "PATCH"}:
                routes.append((method.upper(), concrete))
    return routes


@pytest.mark.integration
def test_lr_engine_refuses_every_route_but_health_without_the_key(lightrag_engine: engine.EngineInfo) -> None:  # noqa: F811
    info = lightrag_engine
    routes = _routes(info)
    paths = {p for _, p in routes}
    # LightRAG's key-less defaults: its Ollama-compatible chat, the query and document routes.
    assert {"/api/chat", "/api/generate", "/query", "/documents", "/health"} <= paths
    assert len(routes) > 40
    extra = [("GET", "/"), ("GET", "/docs"), ("GET", "/openapi.json"), ("GET", "/webui/"), ("GET", "/redoc"),
             ("GET", "/static/x"), ("OPTIONS", "/api/chat")]
    leaked = []
    with _client(info) as client:
        for method, path in routes + extra:
            if path == "/health":
                continue
            # The attack from the issue: a page posts text/plain (no preflight) to /api/chat.
            resp = client.request(method, path, content=b'{"model":"x","messages":[{"role":"user",'
                                  b'"content":"/context table"}],"stream":false}',
                                  headers={"Content-Type": "text/plain"})
            if resp.status_code != 403 or "API Key" not in resp.text:
                leaked.append((method, path, resp.status_code, resp.text[:80]))
        health = client.get("/health")
    assert leaked == []
    assert health.status_code == 200 and health.json()["status"] == "healthy"
    assert "configuration" not in health.json()  # liveness only without the key
    with _client(info, **{"X-API-Key": info.api_key}) as client:  # and the key still opens everything
        assert client.post("/documents/paginated", json={"page": 1, "page_size": 10}).status_code == 200
        assert client.get("/api/tags").status_code == 200


@pytest.mark.integration
def test_lr_engine_gives_foreign_origins_no_cors(lightrag_engine: engine.EngineInfo) -> None:  # noqa: F811
    info = lightrag_engine
    with _client(info) as client:
        for resp in (
            client.get("/health", headers={"Origin": EVIL}),
            client.post("/api/chat", content=b"{}", headers={"Origin": EVIL, "Content-Type": "text/plain"}),
            client.options("/api/chat", headers={"Origin": EVIL, "Access-Control-Request-Method": "POST",
                                                 "Access-Control-Request-Headers": "x-api-key"}),
            client.get("/health", headers={"Origin": EVIL, "X-API-Key": info.api_key}),
        ):
            assert resp.status_code == 403, resp.request.url
            assert not any(k.lower().startswith("access-control-") for k in resp.headers), resp.headers


@pytest.mark.integration
def test_lr_engine_refuses_dns_rebinding_hosts_even_with_the_key(lightrag_engine: engine.EngineInfo) -> None:  # noqa: F811
    info = lightrag_engine
    port = urlsplit(info.url).port
    with _client(info, **{"X-API-Key": info.api_key}) as client:
        for host in ("evil.example", f"evil.example:{port}", f"127.0.0.1:{port + 1}"):
            for method, path in (("GET", "/health"), ("POST", "/documents/paginated"), ("POST", "/api/chat")):
                resp = client.request(method, path, headers={"Host": host}, json={"page": 1, "page_size": 10})
                assert resp.status_code == 403 and "Host not allowed" in resp.text, (host, path)
        assert client.get("/health", headers={"Host": f"localhost:{port}"}).json().get("configuration")
    assert engine.guard_active(info.url)


# --- status warns about a user's own, unguarded LightRAG (integration) -------------------------


def _status(ws: Path, url: str, key: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.setenv("MNOTE_KR_LIGHTRAG_API_KEY", key)
    ws.mkdir(parents=True, exist_ok=True)
    config = load_config(ws)
    config["providers"] = {"lightrag": {"url": url}}
    settings.clear_cache()
    return Host(ws, config=config).status()


@pytest.fixture
def stock_lightrag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[engine.EngineInfo]:
    """A real ``lightrag-server`` with LightRAG's own defaults (no guard, /api/* and CORS open)."""
    server = Path(sys.executable).parent / "lightrag-server"
    monkeypatch.setattr(engine, "require_server", lambda: [str(server)])
    monkeypatch.setattr(engine, "LOCKDOWN_ENV", {})
    state = tmp_path / "stock-state"
    seed_tiktoken(tmp_path / "cache")
    # start_engine itself never runs an unguarded server: it checks, stops it and says why.
    with pytest.raises(ProviderError, match="without mnote-kr's guard"):
        engine.start_engine(data_dir=tmp_path / "stock-data", state_dir=state, cache_dir=tmp_path / "cache",
                            wait_s=120)
    assert engine.read_state(state) is None and engine.engine_status(state) is None
    monkeypatch.setattr(engine, "guard_active", lambda url: True)
    info = engine.start_engine(data_dir=tmp_path / "stock-data", state_dir=state, cache_dir=tmp_path / "cache",
                               wait_s=120)
    try:
        yield info
    finally:
        engine.stop_engine(state)


@pytest.mark.integration
def test_lr_status_warns_when_own_lightrag_answers_api_and_foreign_origins_without_key(
        stock_lightrag: engine.EngineInfo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    info = _status(tmp_path / "kb", stock_lightrag.url, stock_lightrag.api_key, monkeypatch)
    warnings = info["provider"]["warnings"]
    assert info["provider"]["reachable"] is True and info["provider"]["error"] is None
    assert len(warnings) == 2, warnings
    assert "/api/*" in warnings[0] and "WHITELIST_PATHS=/health" in warnings[0]
    assert "CORS" in warnings[1] and "CORS_ORIGINS" in warnings[1]
    text = render_status(info)
    assert text.count("Warning:") == 2 and "WHITELIST_PATHS=/health" in text


@pytest.mark.integration
def test_lr_status_has_no_warning_for_the_managed_engine(lightrag_engine: engine.EngineInfo, tmp_path: Path,  # noqa: F811
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    info = _status(tmp_path / "kb", lightrag_engine.url, lightrag_engine.api_key, monkeypatch)
    assert info["provider"]["reachable"] is True and info["provider"]["coreVersion"]
    assert info["provider"]["warnings"] == []
    assert "Warning:" not in render_status(info)


# --- every file private: LightRAG's stores hold the full text of every document ---------------


def _loose_modes(top: Path) -> list[str]:
    """Every file or folder under ``top`` (symlinks aside) that group or others may use, with its mode."""
    loose = []
    for path in [top, *top.rglob("*")]:
        mode = path.lstat().st_mode
        if not stat.S_ISLNK(mode) and mode & 0o077:
            loose.append(f"{path.relative_to(top.parent)} {oct(mode & 0o777)}")
    return loose


def test_lr_make_private_tightens_the_engine_tree_but_never_a_linked_user_file(tmp_path: Path) -> None:
    user_file = tmp_path / "user" / "notes.md"
    user_file.parent.mkdir()
    user_file.write_text("mine\n")
    user_file.chmod(0o644)
    top = tmp_path / "engine"
    (top / "rag_storage" / "ws").mkdir(parents=True, mode=0o755)
    (top / "rag_storage").chmod(0o755)
    top.chmod(0o755)
    store = top / "rag_storage" / "ws" / "kv_store_full_docs.json"
    store.write_text("{}")
    store.chmod(0o644)
    (top / "inputs").mkdir(mode=0o755)
    (top / "inputs" / "link-notes.md").symlink_to(user_file)
    assert _loose_modes(top)  # what an older mnote-kr left
    assert engine_procs.make_private(top) == 5
    assert _loose_modes(top) == []
    assert stat.S_IMODE(store.stat().st_mode) == 0o600
    assert stat.S_IMODE(user_file.stat().st_mode) == 0o644  # behind the link: the user's, untouched
    assert engine_procs.make_private(top) == 0  # nothing left to do the next time


@pytest.mark.integration
def test_lr_engine_stores_and_logs_are_private_after_an_ingest(
        lightrag_engine: engine.EngineInfo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    base = Path(lightrag_engine.working_dir).parents[2]
    monkeypatch.setenv("MNOTE_KR_HOME", str(base))
    root = tmp_path / "kb"
    root.mkdir()
    source = root / "private.md"
    source.write_text("# Private\n\nThe vault code for the cellar is 7342, kept by the steward.\n")
    source.chmod(0o644)
    before = source.read_bytes()
    config = load_config(root)
    config["providers"] = {"lightrag": {}}
    host = Host(root, config=config)
    assert [i.status for i in host.ingest(["."], wait=True, wait_s=180).items] == ["processed"]
    engine_dir = Path(lightrag_engine.working_dir).parent
    stores = sorted(p.name for p in engine_dir.rglob("kv_store_*.json"))
    assert "kv_store_full_docs.json" in stores and "kv_store_text_chunks.json" in stores
    assert _loose_modes(engine_dir) == [], "\n".join(_loose_modes(engine_dir))
    assert _loose_modes(Path(lightrag_engine.run_dir)) == []
    assert source.read_bytes() == before and stat.S_IMODE(source.stat().st_mode) == 0o644
    # The ingest embedded through the model service with its key; without the key it answers nothing.
    assert lightrag_engine.models_url and lightrag_engine.models_key
    keyless = httpx.post(f"{lightrag_engine.models_url}/v1/embeddings", json={"input": ["x"]}, trust_env=False)
    assert keyless.status_code == 403
