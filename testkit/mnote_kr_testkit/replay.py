"""Replay recorded LightRAG responses through ``httpx.MockTransport`` (for tests).

The recorded payloads live in ``tests/data/lightrag/samples/``
(``mnote_kr_testkit.data.SAMPLES``) (``{"http_status", "body"}``
JSON files; NDJSON streams as a list ``body``). A ``Replay`` maps ``(method, path)`` to a
queue of responses (the last one repeats) and records every request it saw, so a test
can assert what the provider sent (including that the API key travels only as
``X-API-Key``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from mnote_kr.context import ProviderContext

if TYPE_CHECKING:
    from mnote_kr.models import SourceEntry, SourceFile

URL = "http://lightrag.test:9621"
Responder = Callable[[httpx.Request], httpx.Response]


def load_sample(samples_dir: Path, name: str) -> tuple[int, Any]:
    """``(http_status, body)`` of a recorded sample (``.ndjson`` files: list of objects)."""
    path = samples_dir / name
    text = path.read_text(encoding="utf-8")
    if name.endswith(".ndjson"):
        return 200, [json.loads(line) for line in text.splitlines() if line.strip()]
    data = json.loads(text)
    if isinstance(data, dict) and "http_status" in data and "body" in data:
        return int(data["http_status"]), data["body"]
    return 200, data


class Replay:
    """A scripted LightRAG: routes of recorded or hand-made responses."""

    def __init__(self, samples_dir: Path | None = None) -> None:
        self.samples_dir = samples_dir
        self.routes: dict[tuple[str, str], list[Responder]] = {}
        self.calls: list[httpx.Request] = []

    def sample(self, method: str, path: str, name: str, *, headers: dict[str, str] | None = None) -> Replay:
        """Answer ``method path`` with a recorded sample (queued after earlier ones)."""
        assert self.samples_dir is not None, "Replay(samples_dir) is needed for recorded samples"
        status, body = load_sample(self.samples_dir, name)
        if isinstance(body, list) and (name.endswith(".ndjson") or path.endswith("/stream")):
            content = "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in body).encode("utf-8")
            return self.raw(method, path, status=status, content=content,
                            headers={"content-type": "application/x-ndjson", **(headers or {})})
        return self.json(method, path, body, status=status, headers=headers)

    def json(self, method: str, path: str, body: Any, *, status: int = 200,
             headers: dict[str, str] | None = None) -> Replay:
        """Answer with a JSON body."""
        return self.add(method, path, lambda request: httpx.Response(status, json=body, headers=headers))

    def raw(self, method: str, path: str, *, status: int = 200, content: bytes = b"",
            headers: dict[str, str] | None = None) -> Replay:
        """Answer with raw bytes (HTML, garbage, truncated JSON, NDJSON)."""
        return self.add(method, path, lambda request: httpx.Response(status, content=content, headers=headers))

    def error(self, method: str, path: str, exc: type[httpx.TransportError]) -> Replay:
        """Raise a transport error (connection refused, timeout)."""
        def raise_it(request: httpx.Request) -> httpx.Response:
            raise exc("replayed failure", request=request)
        return self.add(method, path, raise_it)

    def add(self, method: str, path: str, responder: Responder) -> Replay:
        """Queue a responder for ``method path`` (the last queued one repeats)."""
        self.routes.setdefault((method.upper(), path), []).append(responder)
        return self

    def handler(self, request: httpx.Request) -> httpx.Response:
        """The MockTransport handler."""
        self.calls.append(request)
        key = (request.method, request.url.path)
        queue = self.routes.get(key)
        if not queue:
            return httpx.Response(404, json={"detail": f"not recorded: {request.method} {request.url.path}"})
        responder = queue.pop(0) if len(queue) > 1 else queue[0]
        return responder(request)

    @property
    def transport(self) -> httpx.MockTransport:
        """An ``httpx.MockTransport`` over this replay."""
        return httpx.MockTransport(self.handler)

    def sent(self, method: str, path: str) -> list[httpx.Request]:
        """The requests seen for ``method path``."""
        return [c for c in self.calls if c.method == method.upper() and c.url.path == path]


def make_context(root: Path, transport: httpx.BaseTransport | None, *, secret: str | None = "test-key",
                 **config: Any) -> ProviderContext:
    """A ``ProviderContext`` for tests: ``url`` defaults to ``URL``; dirs under ``root``."""
    for name in ("ws", "data", "state", "cache"):
        (root / name).mkdir(parents=True, exist_ok=True)
    return ProviderContext(
        provider="lightrag",
        workspace_root=root / "ws",
        config={"url": URL, **config},
        data_dir=root / "data",
        state_dir=root / "state",
        cache_dir=root / "cache",
        secret=lambda name: secret if name == "lightrag-api-key" else None,
        transport=transport,
    )


def replayed_provider(root: Path, samples_dir: Path) -> dict[str, Any]:
    """A provider context under ``root`` on a fresh ``Replay`` of ``samples_dir``, with LightRAG's input
    dir at ``root/inputs`` (its ``__parsed__`` made): ``{"ctx", "replay", "inputs", "ws"}``."""
    inputs = root / "inputs"
    (inputs / "__parsed__").mkdir(parents=True)
    replay = Replay(samples_dir)
    ctx = make_context(root, replay.transport, input_dir=str(inputs))
    return {"ctx": ctx, "replay": replay, "inputs": inputs, "ws": ctx.workspace_root}


def source_file(ws: Path, rel: str) -> SourceFile:
    """The provider's ``SourceFile`` of ``ws / rel`` as the host hands it over (content hash, size, time)."""
    import hashlib

    from mnote_kr.models import SourceFile

    path = ws / rel
    data = path.read_bytes()
    return SourceFile(path=str(path), rel_path=rel, source_id=rel, sha256="sha256:" + hashlib.sha256(data).hexdigest(),
                      size=len(data), mtime_ns=path.stat().st_mtime_ns)


class ReadingsProvider:
    """What ``readings.check`` uses of a provider: the workspace root and LightRAG's input dir."""

    def __init__(self, root: Path, input_dir: Path = Path("/nonexistent")) -> None:
        self.ctx = type("Ctx", (), {"workspace_root": str(root)})()
        self._input_dir = input_dir

    def input_dir(self) -> Path:
        return self._input_dir


def stored_entry(rel: str, reading: str | None, kind: str = "document", **extra: Any) -> SourceEntry:
    """A processed registry entry of ``rel`` (its file gone) recorded with ``reading``."""
    from mnote_kr.models import SourceEntry

    return SourceEntry(source_id=rel, source_path=f"/gone/{rel}", source_root_relative_path=rel, status="processed",
                       kind=kind, reading=reading, **extra)
