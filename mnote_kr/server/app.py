"""``mnote-kr serve``: the loopback HTTP API for desktop shells written in other languages.

Built on the standard library's HTTP request handler (see ``docs/http-api.md`` for why), served
by :class:`~mnote_kr.server.conn.GatedHTTPServer`: a bounded pool of handler threads that only
ever see complete request headers, a listen backlog for bursts, header and body deadlines, and
``503`` instead of a new thread when the pool and its queue are full. HTTP/1.1 keep-alive, JSON
bodies encoded by msgspec.

Every request passes, in this order:

1. the Host header check (only ``127.0.0.1``, ``localhost`` and ``[::1]``, with this
   server's port): a DNS-rebinding page gets ``403 forbidden_host``;
2. the Origin check: a browser origin not configured for CORS gets ``403 origin_not_allowed``;
   configured ones get ``Access-Control-Allow-Origin`` and preflight answers;
3. the bearer token (constant-time compare; every route but ``GET /api/health``): ``401``;
4. routing (``404``/``405``), then the body: ``Content-Length`` over the limit is ``413``
   (never read), a non-JSON type ``415``, bad JSON ``400 malformed_json``, a body that does
   not fit the contract ``400 invalid_request``;
5. the handler, through ``Host``: paths get the workspace's allowed-root checks; errors
   become ``{"error": {"code", "message", "hint"}}`` with the error's HTTP status, and
   anything unexpected is ``500 internal`` with no traceback in the body.
"""

from __future__ import annotations

import contextlib
import hmac
import ipaddress
import logging
import secrets
import signal
import socket
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

import msgspec

from mnote_kr.core import paths
from mnote_kr.errors import MnoteKrError, UsageError, log_failure
from mnote_kr.server import records
from mnote_kr.server.conn import GatedHandler, GatedHTTPServer, Limits
from mnote_kr.server.jobs import ApiErrorBody, JobManager, error_body
from mnote_kr.server.routes import ROUTES, Api, Route
from mnote_kr.viewer import web

if TYPE_CHECKING:
    from mnote_kr.app.host import Host

__all__ = ["ApiServer", "run_server", "DEFAULT_MAX_BODY", "LOOPBACK_NAMES"]

log = logging.getLogger("mnote_kr.server.app")

DEFAULT_MAX_BODY = 1 << 20  # 1 MiB: a request is a query or a list of paths, never a document
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "[::1]"})
TOKEN_FILE = records.TOKEN_FILE
INFO_FILE = records.INFO_FILE

_encoder = msgspec.json.Encoder()


def _error_bytes(code: str, message: str, hint: str | None = None) -> bytes:
    return _encoder.encode({"error": ApiErrorBody(code=code, message=message, hint=hint)})


def is_loopback(bind: str) -> bool:
    """True for a loopback address or the name ``localhost``."""
    if bind.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(bind.strip("[]")).is_loopback
    except ValueError:
        return False


def _split_host_header(value: str) -> tuple[str, int | None] | None:
    """``name[:port]`` -> (lower-case name, port); IPv6 literals keep their brackets."""
    value = value.strip().lower()
    if not value:
        return None
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        name, rest = value[: end + 1], value[end + 1 :]
    else:
        name, _, port_s = value.partition(":")
        rest = ":" + port_s if port_s or value.endswith(":") else ""
    if not rest:
        return name, None
    if not rest.startswith(":") or not rest[1:].isdigit():
        return None
    return name, int(rest[1:])


class _HTTPServer(GatedHTTPServer):
    api: ApiServer


class _Handler(GatedHandler):
    server: _HTTPServer
    protocol_version = "HTTP/1.1"
    server_version = "mnote-kr"
    sys_version = ""
    disable_nagle_algorithm = True

    # ------------------------------------------------------------------ plumbing

    def version_string(self) -> str:
        return self.server_version

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        # The request line may hold ?access_token=: log the path without its query.
        log.debug("%s %s", self.address_string(), (format % args).split("?", 1)[0])

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The stdlib's own errors (bad request line, header too long) in the API's error shape."""
        names = {400: "bad_request", 408: "timeout", 414: "uri_too_long", 431: "headers_too_large",
                 501: "method_not_allowed", 505: "http_version_not_supported"}
        status = 405 if code == 501 else code
        self.close_connection = True
        self._send_json(status, _error_bytes(names.get(code, "bad_request"), message or "Bad request"))

    def _cors_headers(self, origin: str | None) -> None:
        if origin and origin in self.server.api.cors_origins:
            self.send_header("Access-Control-Allow-Origin", origin)
            self.send_header("Access-Control-Expose-Headers", "Location")
            self.send_header("Vary", "Origin")

    def _send_json(self, status: int, body: bytes, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        if status == 401:
            self.send_header("WWW-Authenticate", 'Bearer realm="mnote-kr"')
        if getattr(self, "_origin_ok", False):
            self._cors_headers(self.headers.get("Origin"))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _fail(self, status: int, code: str, message: str, hint: str | None = None,
              extra: dict[str, str] | None = None) -> None:
        self._send_json(status, _error_bytes(code, message, hint), extra)

    # ------------------------------------------------------------------ checks

    def _host_ok(self) -> bool:
        api = self.server.api
        parsed = _split_host_header(self.headers.get("Host", ""))
        if parsed is None:
            return False
        name, port = parsed
        if (80 if port is None else port) != api.port:  # no port in Host means port 80
            return False
        if name in LOOPBACK_NAMES:
            return True
        if api.allow_non_loopback:
            # DNS rebinding needs a DNS name; an IP literal cannot be rebound.
            with contextlib.suppress(ValueError):
                ipaddress.ip_address(name.strip("[]"))
                return True
        return False

    def _authorised(self, route: Route | None, query: dict[str, list[str]]) -> bool:
        header = self.headers.get("Authorization", "")
        scheme, _, given = header.partition(" ")
        if scheme.lower() != "bearer":
            given = ""
        if not given and route is not None and route.stream:
            # EventSource cannot send headers; the events route alone takes the token in the query.
            given = (query.get("access_token") or [""])[-1]
        expected = self.server.api.token.encode()
        return hmac.compare_digest(given.strip().encode("utf-8", "replace"), expected)

    @staticmethod
    def _match(path: str) -> tuple[list[tuple[Route, dict[str, str]]], bool]:
        """Routes whose template matches ``path`` (any method), and whether any matched."""
        parts = path.rstrip("/").split("/") if path != "/" else [""]
        found: list[tuple[Route, dict[str, str]]] = []
        for route in ROUTES:
            tparts = route.path.split("/")
            if len(tparts) != len(parts):
                continue
            params: dict[str, str] = {}
            for t, p in zip(tparts, parts, strict=True):
                if t.startswith("{"):
                    if not p:
                        break
                    params[t[1:-1]] = p
                elif t != p:
                    break
            else:
                found.append((route, params))
        return found, bool(found)

    # ------------------------------------------------------------------ dispatch

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        self._dispatch()

    def do_POST(self) -> None:  # noqa: N802
        self._dispatch()

    def do_PUT(self) -> None:  # noqa: N802
        self._dispatch()

    def do_DELETE(self) -> None:  # noqa: N802
        self._dispatch()

    def do_PATCH(self) -> None:  # noqa: N802
        self._dispatch()

    def do_HEAD(self) -> None:  # noqa: N802
        self._dispatch()

    def do_OPTIONS(self) -> None:  # noqa: N802
        self._dispatch()

    def _dispatch(self) -> None:
        api = self.server.api
        self._origin_ok = False
        if not self._host_ok():
            self.close_connection = True
            self._fail(403, "forbidden_host", "Host header is not a loopback name",
                       "connect to http://127.0.0.1:PORT; other names are refused (DNS rebinding)")
            return
        if not self.path.startswith("/api/"):
            web.dispatch(self)  # the browser UI: its own cookie, Origin rule and headers (web.py)
            return
        origin = self.headers.get("Origin")
        if origin is not None and origin not in api.cors_origins:
            self._drain_small()
            self._fail(403, "origin_not_allowed", f"Origin {origin!r} is not allowed",
                       "start the server with --cors-origin ORIGIN for this shell")
            return
        self._origin_ok = origin is not None
        split = urlsplit(self.path)
        query = parse_qs(split.query)
        matches, known = self._match(split.path)
        route_for_method = next(((r, p) for r, p in matches if r.method == self.command), None)
        if self.command == "OPTIONS":
            self._preflight(matches)
            return
        route, params = route_for_method if route_for_method else (None, {})
        if (route is None or route.auth) and not self._authorised(route, query):
            self._drain_small()
            self._fail(401, "unauthorized", "Missing or wrong bearer token",
                       f"send 'Authorization: Bearer <token>'; the token is in {api.token_file_hint}")
            return
        if not known:
            self._drain_small()
            self._fail(404, "not_found", f"No route {split.path}", "see GET /api/openapi.json")
            return
        if route is None:
            allow = ", ".join(sorted({r.method for r, _ in matches} | {"OPTIONS"}))
            self._drain_small()
            self._fail(405, "method_not_allowed", f"{self.command} is not allowed on {split.path}",
                       f"use {allow}", extra={"Allow": allow})
            return
        body = self._read_body(route)
        if body is _REFUSED:
            return
        ctx = Api(host=api.host, jobs=api.jobs, params=params, query=query, url=api.url,
                  last_event_id=self.headers.get("Last-Event-ID"), server=api)
        try:
            status, payload = route.handler(ctx, body)
        except MnoteKrError as exc:
            log_failure(log, self.command, split.path, exc)
            extra = {}
            retry = getattr(exc, "retry_after", None)
            if retry:
                extra["Retry-After"] = str(max(1, int(retry)))
            self._send_json(exc.http_status, _encoder.encode({"error": error_body(exc)}), extra)
            return
        except Exception:  # noqa: BLE001 - the one boundary; the body never carries the traceback
            log.exception("%s %s failed", self.command, split.path)
            self._send_json(500, _encoder.encode({"error": error_body(RuntimeError())}))
            return
        if route.stream:
            self._stream_job(params["id"], ctx.last_event_id)
            return
        extra = {}
        if status == 202 and getattr(payload, "id", None):
            extra["Location"] = f"/api/jobs/{payload.id}"
        self._send_json(status, _encoder.encode(payload), extra)

    def _preflight(self, matches: list[tuple[Route, dict[str, str]]]) -> None:
        if not matches:
            self._fail(404, "not_found", f"No route {urlsplit(self.path).path}")
            return
        methods = ", ".join(sorted({r.method for r, _ in matches} | {"OPTIONS"}))
        self.send_response(204)
        self.send_header("Allow", methods)
        origin = self.headers.get("Origin")
        if origin is not None:  # already known to be allowed
            self._cors_headers(origin)
            self.send_header("Access-Control-Allow-Methods", methods)
            self.send_header("Access-Control-Allow-Headers", "Authorization, Content-Type, Last-Event-ID")
            self.send_header("Access-Control-Max-Age", "600")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _content_length(self) -> int | None:
        raw = self.headers.get("Content-Length")
        if raw is None:
            return 0
        raw = raw.strip()
        if not raw.isdigit():
            return None
        return int(raw)

    def _drain_small(self) -> None:
        """Read a small unwanted body so keep-alive stays in sync; close on anything else."""
        length = self._content_length()
        if self.headers.get("Transfer-Encoding") or length is None or length > 65536:
            self.close_connection = True
        elif length and self.read_exact(length) is None:
            self.close_connection = True

    def _read_body(self, route: Route) -> Any:
        api = self.server.api
        if self.headers.get("Transfer-Encoding"):
            self.close_connection = True
            self._fail(411, "length_required", "Chunked bodies are not accepted", "send a Content-Length")
            return _REFUSED
        length = self._content_length()
        if length is None:
            self.close_connection = True
            self._fail(400, "bad_request", "Invalid Content-Length")
            return _REFUSED
        if length > api.max_body:
            # Never read it: answer and close the connection.
            self.close_connection = True
            self._fail(413, "payload_too_large", f"Body of {length} bytes exceeds the limit of {api.max_body}",
                       "send paths, not documents; the server reads files from the workspace itself")
            return _REFUSED
        raw = self.read_exact(length) if length else b""
        if raw is None:  # the body did not arrive within the deadline: answer, then close
            self._fail(408, "timeout", "The request body did not arrive in time",
                       f"send the whole body within {api.limits.body_deadline:g} s")
            return _REFUSED
        if route.request is None:
            return None
        ctype = self.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
        if raw.strip() and ctype != "application/json":
            self._fail(415, "unsupported_media_type", "Bodies must be application/json",
                       "set 'Content-Type: application/json'")
            return _REFUSED
        try:
            return msgspec.json.decode(raw.strip() or b"{}", type=route.request)
        except msgspec.ValidationError as exc:
            self._fail(400, "invalid_request", f"Invalid request body: {exc}",
                       f"see the {route.request.__name__} schema in GET /api/openapi.json")
        except msgspec.DecodeError as exc:
            self._fail(400, "malformed_json", f"Malformed JSON: {exc}", "send one JSON object")
        return _REFUSED

    def _stream_job(self, job_id: str, last_event_id: str | None) -> None:
        since = int(last_event_id) if last_event_id and last_event_id.isdigit() else 0
        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        if self._origin_ok:
            self._cors_headers(self.headers.get("Origin"))
        self.end_headers()
        jobs = self.server.api.jobs
        try:
            while True:
                lines, final, closed = jobs.wait_events(job_id, since, 15.0)
                chunks: list[bytes] = []
                for line in lines:
                    since = line.seq
                    chunks.append(b"id: %d\nevent: progress\ndata: %s\n\n" % (line.seq, _encoder.encode(line)))
                if final is not None:
                    chunks.append(b"event: done\ndata: %s\n\n" % _encoder.encode(final))
                elif not lines:
                    chunks.append(b": keep-alive\n\n")
                self.wfile.write(b"".join(chunks))
                self.wfile.flush()
                if final is not None or closed:
                    return
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            return


_REFUSED = object()


class ApiServer:
    """The HTTP API around one ``Host``, for shells and tests.

    ``ApiServer(host).start()`` serves in a background thread; ``.url`` and ``.token`` say
    where and how to connect; ``.stop()`` ends it. The socket is bound in the constructor,
    so ``port=0`` picks a free port and ``.port`` tells which. A non-loopback ``bind`` is
    refused unless ``allow_non_loopback``. With ``write_token_file`` the token goes to
    ``state_dir()/server-token`` (mode 0600) and the URL to ``server.json`` beside it.
    """

    def __init__(
        self,
        host: Host,
        *,
        port: int = 0,
        bind: str = "127.0.0.1",
        allow_non_loopback: bool = False,
        cors_origins: list[str] | tuple[str, ...] = (),
        max_body: int = DEFAULT_MAX_BODY,
        token: str | None = None,
        write_token_file: bool = True,
        jobs: JobManager | None = None,
        limits: Limits | None = None,
    ) -> None:
        if not is_loopback(bind) and not allow_non_loopback:
            raise UsageError(
                f"Refusing to bind {bind}: the API is for this machine only",
                hint="bind 127.0.0.1 (the default), or pass --allow-non-loopback if you really mean it",
            )
        if not 0 <= port <= 65535:
            raise UsageError(f"Invalid port {port}")
        self.host = host
        self.allow_non_loopback = allow_non_loopback
        self.cors_origins = frozenset(o.rstrip("/") for o in cors_origins)
        self.max_body = max_body
        self.token = token or secrets.token_urlsafe(32)
        self.jobs = jobs or JobManager()
        address = "127.0.0.1" if bind.lower() == "localhost" else bind.strip("[]")
        server_cls = type("_BoundHTTPServer", (_HTTPServer,), {
            "address_family": socket.AF_INET6 if ":" in address else socket.AF_INET})
        try:
            self._httpd: _HTTPServer = server_cls((address, port), _Handler, limits)
        except OSError as exc:
            raise UsageError(f"Cannot listen on {bind}:{port}: {exc.strerror}",
                             hint="choose another --port, or 0 for a free one") from exc
        self._httpd.api = self
        self.limits = self._httpd.limits
        self.port: int = self._httpd.server_address[1]
        shown = f"[{address}]" if ":" in address else address
        self.url = f"http://{shown}:{self.port}"
        self._thread: threading.Thread | None = None
        self.token_file: Path | None = None
        self.info_file: Path | None = None
        self._lock_file: Path | None = None
        self.previous: tuple[int, bool] | None = None  # (pid, alive) of the server whose files these replace
        if write_token_file:
            try:
                self._write_token_files()
            except BaseException:
                self._httpd.server_close()
                raise

    @property
    def token_file_hint(self) -> str:
        return str(self.token_file) if self.token_file else "the output of 'mnote-kr serve'"

    def _write_token_files(self) -> None:
        """Write the token and ``server.json``, unless this workspace already has a live server
        (``records.claim``: the default pair, or this workspace's own)."""
        claimed = records.claim(paths.state_dir(), self.host.root.resolve(), self.url, self.token)
        self.token_file, self.info_file, self._lock_file, self.previous = claimed

    def _remove_token_files(self) -> None:
        """Delete the token file and ``server.json`` while they are still this server's own
        (this process, this token): a later server's files are never touched."""
        if self.token_file is None or self.info_file is None or self._lock_file is None:
            return
        records.release(self.token_file, self.info_file, self._lock_file, self.token)

    def start(self) -> ApiServer:
        """Serve in a background (daemon) thread; returns self."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.2},
                                            name="mnote-kr-api", daemon=True)
            self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve in the calling thread until ``stop`` (from another thread) or Ctrl-C."""
        self._httpd.serve_forever(poll_interval=0.2)

    def stop(self) -> None:
        """Stop serving, wake event streams, close the socket, remove the token files."""
        self.jobs.close()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._httpd.server_close()
        self._remove_token_files()

    def __enter__(self) -> ApiServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def run_server(
    host: Host,
    port: int = 0,
    bind: str = "127.0.0.1",
    allow_non_loopback: bool = False,
    cors_origins: list[str] | None = None,
) -> None:
    """Serve the API in the foreground until Ctrl-C (``mnote-kr serve``).

    Prints ``Serving on URL``, the token and the token file's path on stdout.
    """
    server = ApiServer(host, port=port, bind=bind, allow_non_loopback=allow_non_loopback,
                       cors_origins=cors_origins or [])
    # SIGTERM (kill, systemd) and SIGHUP (terminal closed) end the server like Ctrl-C, so the
    # token files are removed; a SIGKILL leaves them, and the next start recognises them as stale.
    previous_handlers: dict[int, Any] = {}
    for signum in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if signum is not None and threading.current_thread() is threading.main_thread():
            previous_handlers[signum] = signal.signal(signum, _interrupt)
    try:
        if not logging.getLogger().handlers:
            logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s",
                                stream=sys.stderr)
        if not is_loopback(bind):
            print(f"WARNING: serving on non-loopback address {bind}; anyone with the token can reach it",
                  file=sys.stderr)
        if server.previous is not None and not server.previous[1]:
            print(f"note: replaced stale files of stopped server (pid {server.previous[0]}) in "
                  f"{server.token_file.parent if server.token_file else paths.state_dir()}", file=sys.stderr)
        print(f"Serving on {server.url}")
        print(f"Token: {server.token}")
        print(f"Token file: {server.token_file}")
        print(f"Web UI: {web.entry_url(server)}  (a sign-in link: works once, within "
              f"{web.state(server).codes.ttl_s:g} s; later, paste the token on the page)")
        print("Press Ctrl-C to stop.", flush=True)
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        for signum, handler in previous_handlers.items():
            signal.signal(signum, handler)
        server.jobs.close()
        server._httpd.server_close()
        server._remove_token_files()
