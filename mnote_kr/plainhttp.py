"""A small standard-library HTTP client for plain ``http://`` providers (a loopback LightRAG).

Importing httpx and building its first client costs a fresh ``status`` or ``search`` process
about as much as the interpreter's own start. For the requests providers send most (JSON in,
JSON out, no TLS), one HTTP/1.1 exchange on a socket does the same job: this class speaks the part of httpx's
``Client`` that providers use (``request``, ``build_request``/``send``, ``close``) and hands
anything else (file uploads, streaming) to a real httpx client, built only then.

Failures surface as httpx's own exceptions (``ConnectError``, ``TimeoutException``,
``ReadError``, ``RemoteProtocolError``), imported at that moment, so provider code handles
both clients alike.
"""

from __future__ import annotations

import json as jsonlib
import socket
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode, urlsplit


class Headers(dict[str, str]):
    """Response headers by lower-case name; ``get`` ignores case, as httpx's."""

    def get(self, key: str, default: Any = None) -> Any:
        return super().get(key.lower(), default)


class ProtocolError(Exception):
    """The server's answer is not HTTP/1.x as this client reads it."""


def _dechunk(data: bytes) -> bytes:
    out = bytearray()
    pos = 0
    while True:
        end = data.find(b"\r\n", pos)
        if end < 0:
            raise ProtocolError("truncated chunked body")
        size = int(data[pos:end].split(b";", 1)[0].strip() or b"0", 16)
        if size == 0:
            return bytes(out)
        out += data[end + 2: end + 2 + size]
        if len(data) < end + 2 + size:
            raise ProtocolError("truncated chunk")
        pos = end + 2 + size + 2


def exchange(host: str, port: int, method: str, target: str, headers: Mapping[str, str], body: bytes | None, *,
             connect_timeout: float, timeout: float) -> tuple[int, str, Headers, bytes]:
    """One HTTP/1.1 request on a fresh connection (``Connection: close``): status, reason,
    headers and the whole body. ``http.client`` would do the same, but its import (email
    parsing, ssl) costs a fresh process more than the exchange itself.

    Raises ``TimeoutError`` or ``OSError`` from the socket, ``ProtocolError`` for a garbled answer.
    """
    # An ASCII host name goes as bytes: socket.getaddrinfo() encodes a str host with the "idna"
    # codec, whose import (stringprep, unicodedata) costs a fresh process more than the lookup.
    address: Any = (host.encode("ascii") if host.isascii() else host, port)  # typeshed: str only
    sock = socket.create_connection(address, timeout=connect_timeout)
    try:
        sock.settimeout(timeout)
        names = {k.lower() for k in headers}
        lines = [f"{method} {target} HTTP/1.1"]
        if "host" not in names:
            lines.append(f"Host: {host}:{port}")
        lines += [f"{k}: {v}" for k, v in headers.items()]
        lines += ["Connection: close", "Accept-Encoding: identity"]
        if body is not None or method in ("POST", "PUT", "PATCH"):
            lines.append(f"Content-Length: {len(body or b'')}")
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b""))
        parts = []
        while True:
            piece = sock.recv(65536)
            if not piece:
                break
            parts.append(piece)
    finally:
        sock.close()
    data = b"".join(parts)
    head_end = data.find(b"\r\n\r\n")
    if head_end < 0:
        raise ProtocolError("no complete response head")
    head = data[:head_end].decode("latin-1").split("\r\n")
    status_line = head[0].split(" ", 2)
    if len(status_line) < 2 or not status_line[0].startswith("HTTP/1.") or not status_line[1].isdigit():
        raise ProtocolError(f"not an HTTP response: {head[0][:60]!r}")
    out = Headers()
    for line in head[1:]:
        name, sep, value = line.partition(":")
        if sep:
            key = name.strip().lower()
            out[key] = f"{out[key]}, {value.strip()}" if key in out else value.strip()
    content = data[head_end + 4:]
    if "chunked" in out.get("transfer-encoding", "").lower():
        content = _dechunk(content)
    elif out.get("content-length", "").isdigit():
        length = int(out["content-length"])
        if len(content) < length:
            raise ProtocolError("truncated body")
        content = content[:length]
    return int(status_line[1]), status_line[2] if len(status_line) > 2 else "", out, content


class PlainResponse:
    """What providers read of an ``httpx.Response``: status, headers, body."""

    def __init__(self, status_code: int, reason_phrase: str, headers: Headers, content: bytes) -> None:
        self.status_code = status_code
        self.reason_phrase = reason_phrase
        self.headers = headers  # case-insensitive .get(), as httpx.Headers
        self.content = content

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def json(self) -> Any:
        return jsonlib.loads(self.content)

    def read(self) -> bytes:
        return self.content


class PlainRequest:
    """A request built by ``build_request``; its headers may be changed before ``send``."""

    def __init__(self, method: str, path: str, headers: dict[str, str], body: bytes | None) -> None:
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body


def _error(kind: str, message: str) -> Exception:
    import httpx

    cls: type[Exception] = getattr(httpx, kind)
    return cls(message)


class PlainClient:
    """``httpx.Client``'s request/response subset over :func:`exchange`, one connection a request."""

    def __init__(self, base_url: str, *, timeout: float, connect_timeout: float,
                 headers: dict[str, str] | None, fallback: Any) -> None:
        parts = urlsplit(base_url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"not a plain http URL: {base_url}")
        self.base_url = base_url.rstrip("/")
        self._host = parts.hostname
        self._port = parts.port or 80
        self._prefix = parts.path.rstrip("/")
        self._timeout = timeout
        self._connect_timeout = connect_timeout
        self.headers = dict(headers or {})
        self._fallback_factory = fallback
        self._fallback: Any = None

    # -- what httpx would do for anything else

    def _httpx(self) -> Any:
        if self._fallback is None:
            self._fallback = self._fallback_factory()
        return self._fallback

    def __getattr__(self, name: str) -> Any:  # stream(), etc.
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._httpx(), name)

    def close(self) -> None:
        if self._fallback is not None:
            self._fallback.close()

    # -- the plain path

    def build_request(self, method: str, path: str, *, headers: dict[str, str] | None = None,
                      json: Any = None, params: dict[str, Any] | None = None) -> PlainRequest:
        merged = {**self.headers, **(headers or {})}
        body = None
        if json is not None:
            # As httpx 0.28 encodes JSON (compact, UTF-8; a lone surrogate fails here as there).
            body = jsonlib.dumps(json, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
            merged["Content-Type"] = "application/json"
        target = self._prefix + path + (("?" + urlencode(params)) if params else "")
        return PlainRequest(method, target, merged, body)

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        if set(kwargs) - {"json", "headers", "params"}:
            return self._httpx().request(method, path, **kwargs)  # uploads and the like
        return self.send(self.build_request(method, path, **kwargs))

    def send(self, request: Any) -> Any:
        if not isinstance(request, PlainRequest):
            return self._httpx().send(request)
        where = f"{request.method} {self.base_url}{request.path}"
        headers = {k: v for k, v in request.headers.items() if v is not None}
        try:
            status, reason, got, content = exchange(
                self._host, self._port, request.method, request.path or "/", headers, request.body,
                connect_timeout=self._connect_timeout, timeout=self._timeout)
        except TimeoutError as exc:
            raise _error("TimeoutException", f"{where}: timed out") from exc
        except ConnectionRefusedError as exc:
            raise _error("ConnectError", f"{where}: {exc}") from exc
        except OSError as exc:
            raise _error("ReadError", f"{where}: {exc}") from exc
        except (ProtocolError, ValueError) as exc:
            raise _error("RemoteProtocolError", f"{where}: {exc}") from exc
        return PlainResponse(status, reason, got, content)
