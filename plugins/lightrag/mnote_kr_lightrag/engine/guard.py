"""The managed engine's front door: LightRAG's own server, wrapped in a guard.

``python -m mnote_kr_lightrag.engine.guard`` runs LightRAG's ``lightrag-server`` entry point
(``lightrag.api.lightrag_server.main``) unchanged, except that the ASGI application it hands to
uvicorn is wrapped in :class:`EngineGuard` first. The guard answers every request before
LightRAG sees it:

1. ``Host`` must be a loopback name (``127.0.0.1``, ``localhost``, ``[::1]``) with the engine's
   own port, else ``403``: a DNS-rebinding page (``Host: evil.example``) is refused even when
   it somehow holds the key;
2. ``Origin``, when present, must be the engine's own origin, else ``403`` with no CORS header:
   no web page of another origin reads anything, not even ``/health``;
3. ``X-API-Key`` must equal ``LIGHTRAG_API_KEY`` (constant-time compare) on every path except
   ``/health``, else ``403``: LightRAG 1.5.7 exempts ``WHITELIST_PATHS`` (default
   ``/health,/api/*``, its key-less Ollama-compatible chat API), and serves ``/docs``,
   ``/openapi.json``, ``/webui`` and ``/auth-status`` without one.

Why in-process and not a proxy or a Unix socket: LightRAG has no Host setting to turn on, a
proxy is one more hop and one more process per request, and a Unix socket would need LightRAG's
uvicorn call changed anyway (and ``httpx`` transports on every caller). Wrapping the ASGI app
keeps the one process and the one TCP port, and still checks every byte path before LightRAG's
routes, middlewares and static mounts. The engine also runs with ``WHITELIST_PATHS=/health`` and
an empty ``CORS_ORIGINS`` (LightRAG then allows no origin), so LightRAG's own checks agree with
the guard rather than relying on it alone.
"""

from __future__ import annotations

import hmac
import json
import os
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
#: The only path answered without the key: liveness fields only (LightRAG adds its
#: configuration to ``/health`` only for a caller with the key).
OPEN_PATHS = frozenset({"/health"})
#: Answered by the guard itself (with the key): how this engine reads files for the index beyond
#: LightRAG's own parsers, ``{"docxNotes": true, "docxComments": true}`` (``client/readings.py`` records it
#: with each file).
READINGS_PATH = "/mnote-kr/readings"
#: ``0`` starts the engine without reading DOCX notes into LightRAG's parse (docs/docx-notes.md).
DOCX_NOTES_ENV = "MNOTE_KR_ENGINE_DOCX_NOTES"


def _header(scope: Scope, name: bytes) -> str | None:
    """The single value of header ``name``; None when absent, "" when repeated (never trusted)."""
    values = [v for k, v in scope.get("headers") or () if k.lower() == name]
    if not values:
        return None
    if len(values) > 1:
        return ""
    return values[0].decode("latin-1")


class LoopbackGate:
    """The checks shared by the engine's guard and the offline model service (``modelservice``).

    ``Host`` must be a loopback name (or one of ``extra_hosts``) with ``port``; ``Origin``, when
    present, must be that same origin; the key must equal ``api_key`` (constant-time compare) on
    every path but :data:`OPEN_PATHS`. How the key travels is the caller's: ``X-API-Key`` for the
    engine, ``Authorization: Bearer`` for the model service (what LightRAG's OpenAI bindings send).
    """

    def __init__(self, *, port: int, api_key: str, extra_hosts: tuple[str, ...] = ()) -> None:
        if not api_key:
            raise ValueError("a loopback gate needs an API key")
        names = tuple(dict.fromkeys((*LOOPBACK_NAMES, *(h.lower() for h in extra_hosts if h))))
        self.hosts = frozenset(f"{name}:{port}" for name in names)
        self.origins = frozenset(f"http://{host}" for host in self.hosts)
        self._key = api_key.encode("utf-8")

    def refusal(self, host: str | None, origin: str | None, key: str | None,
                open_path: bool) -> tuple[int, str] | None:
        """Why a request with these headers is refused (status, detail), or None when it may pass.

        ``None`` means the header is absent, ``""`` that it was repeated (never trusted).
        ``open_path`` is true for a path answered without the key.
        """
        if not host or host.strip().lower() not in self.hosts:
            return 403, "Host not allowed: this service answers only on loopback with its own port"
        if origin is not None and origin.strip().lower() not in self.origins:
            return 403, "Origin not allowed"
        if open_path:
            return None
        if not key:
            return 403, "API Key required"
        if not hmac.compare_digest(key.encode("utf-8", "replace"), self._key):
            return 403, "Invalid API Key"
        return None


class EngineGuard:
    """ASGI middleware: loopback ``Host`` with ``port``, own ``Origin`` only, key everywhere but ``/health``.

    ``extra_hosts`` adds bind names besides the loopback ones (the engine's ``HOST`` when it is
    not a loopback address). Lifespan events pass through untouched.
    """

    def __init__(self, app: ASGIApp, *, port: int, api_key: str, extra_hosts: tuple[str, ...] = (),
                 readings: dict[str, Any] | None = None) -> None:
        if not api_key:
            raise ValueError("the engine guard needs an API key")
        self.app = app
        self.readings = dict(readings or {})
        self.gate = LoopbackGate(port=port, api_key=api_key, extra_hosts=extra_hosts)
        self.hosts, self.origins = self.gate.hosts, self.gate.origins

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        """Why this request is refused (status, detail), or None when it may pass."""
        return self.gate.refusal(_header(scope, b"host"), _header(scope, b"origin"), _header(scope, b"x-api-key"),
                                 scope.get("type") == "http" and scope.get("path") in OPEN_PATHS)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope.get("type")
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        refused = self.refusal(scope)
        if refused is None and kind == "http" and scope.get("path") == READINGS_PATH:
            await _answer(send, 200, self.readings)
            return
        if refused is None:
            await self.app(scope, receive, send)
            return
        if kind == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        status, detail = refused
        await _answer(send, status, {"detail": detail})


async def _answer(send: Send, status: int, payload: dict[str, Any]) -> None:
    body = json.dumps(payload).encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode("ascii")),
                            (b"cache-control", b"no-store")]})
    await send({"type": "http.response.body", "body": body})


def main() -> None:
    """Run LightRAG's server with its app wrapped in :class:`EngineGuard` (configured from the env)."""
    import uvicorn
    from lightrag.api import lightrag_server

    api_key = os.environ.get("LIGHTRAG_API_KEY", "")
    port = int(os.environ["PORT"])
    bind = os.environ.get("HOST", "127.0.0.1")
    extra = () if bind in ("127.0.0.1", "localhost", "::1", "0.0.0.0", "::") else (bind,)
    original_run = uvicorn.run
    readings: dict[str, Any] = {}

    def guarded_run(app: Any, *args: Any, **kwargs: Any) -> Any:
        # LightRAG builds its app inside main() and hands it straight to uvicorn.run: this is the
        # one place where the finished app can be wrapped without copying main()'s start-up steps.
        if isinstance(app, str):
            raise RuntimeError("lightrag-server passed an import string to uvicorn; the guard cannot wrap it")
        wrapped = EngineGuard(app, port=int(kwargs.get("port", port)), api_key=api_key, extra_hosts=extra,
                              readings=readings)
        return original_run(wrapped, *args, **kwargs)

    uvicorn.run = guarded_run
    from . import docxnotes, jsonwrites, sslreuse

    # Per-document costs of LightRAG's pipeline that grow with nothing useful (docs/engine-storage.md):
    # its whole-file JSON rewrites through a fast encoder, one TLS context per process.
    jsonwrites.install(os.environ.get("LIGHTRAG_VECTOR_STORAGE", "NanoVectorDBStorage"))
    sslreuse.install()
    # DOCX footnotes, endnotes and review comments, which LightRAG's parser never reads, at their marks
    # (docxnotes.py; "docxComments": an engine started before comments were read says only "docxNotes").
    # Said to the host (READINGS_PATH), which records with each file how it was read for the index.
    if os.environ.get(DOCX_NOTES_ENV, "1") == "0":
        print("mnote-kr: DOCX footnotes, endnotes and comments are not indexed: "
              f"{DOCX_NOTES_ENV}=0", flush=True)
        readings["docxNotes"] = False
    else:
        readings["docxNotes"] = readings["docxComments"] = docxnotes.install()
    lightrag_server.main()


if __name__ == "__main__":
    main()
