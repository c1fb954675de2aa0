"""Connections of ``mnote-kr serve``: bounded threads, deadlines, and a backlog for bursts.

The standard library's ``ThreadingHTTPServer`` listens with a backlog of 5 and gives every
connection its own thread for as long as the connection lives: a burst of 200 connections
from a desktop shell made most of them wait over a second, and a client that sends its
headers one byte a second held a thread forever (1,000 were held in one trial).

:class:`GatedHTTPServer` keeps the stdlib's request handling and changes who waits where:

* **Backlog.** The listening socket's queue holds :attr:`Limits.backlog` connections (the
  kernel caps it at ``somaxconn``), so a burst waits in the kernel instead of failing.
* **The gate.** One thread holds every connection that is between requests (just accepted,
  or idle after a keep-alive answer) in a selector and reads its header bytes without
  blocking. A request goes to a worker only when its whole header block has arrived, and
  that must happen within :attr:`Limits.header_deadline` seconds of its first byte (an idle
  connection may wait :attr:`Limits.idle_timeout` for that first byte). A slow or silent
  client therefore costs one socket and no thread, and is answered ``408`` at its deadline.
  The gate holds at most :attr:`Limits.max_open` connections; a new one beyond that pushes
  out the one that has waited longest.
* **Workers.** At most :attr:`Limits.max_workers` handler threads (started on demand) take
  complete requests from a FIFO of at most :attr:`Limits.max_queued`; when that is full the
  gate answers ``503`` with ``Retry-After: 1`` at once instead of starting another thread.
  After a keep-alive answer the connection, with any bytes already read, goes back to the gate.
* **Bodies** are read by :meth:`GatedHandler.read_exact` under :attr:`Limits.body_deadline`
  (a total, not a per-``recv`` timeout, so a trickle does not extend it).
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import queue
import selectors
import socket
import socketserver
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

__all__ = ["GatedHTTPServer", "GatedHandler", "Limits"]

log = logging.getLogger("mnote_kr.server.conn")

_MAX_HEADER_BYTES = 65536 + 4096  # the stdlib's own line limit, plus room for the other lines


@dataclass(frozen=True)
class Limits:
    """Bounds on what clients can make ``serve`` hold (seconds, counts)."""

    backlog: int = 256
    max_workers: int = 16
    max_queued: int = 256
    max_open: int = 512
    header_deadline: float = 10.0
    body_deadline: float = 30.0
    idle_timeout: float = 60.0
    linger: float = 0.02  # how long a worker waits for a keep-alive client's next request


def _status_bytes(status: int, code: str, message: str, retry_after: int | None = None) -> bytes:
    body = json.dumps({"error": {"code": code, "message": message, "hint": None}}).encode("ascii")
    reason = {408: "Request Timeout", 431: "Request Header Fields Too Large", 503: "Service Unavailable"}[status]
    head = [f"HTTP/1.1 {status} {reason}", "Content-Type: application/json", f"Content-Length: {len(body)}",
            "Cache-Control: no-store", "Connection: close"]
    if retry_after is not None:
        head.append(f"Retry-After: {retry_after}")
    return ("\r\n".join(head) + "\r\n\r\n").encode("ascii") + body


_TIMEOUT_408 = _status_bytes(408, "timeout", "The request headers did not arrive in time")
_TOO_LARGE_431 = _status_bytes(431, "headers_too_large", "The request headers are too large")
_BUSY_503 = _status_bytes(503, "busy", "The server is busy; retry in a moment", retry_after=1)


def _header_complete(buf: bytearray) -> bool:
    return b"\r\n\r\n" in buf or b"\n\n" in buf


class _Conn:
    """A connection waiting in the gate: its socket, the bytes read so far, its clocks."""

    __slots__ = ("sock", "addr", "buf", "since", "first_byte")

    def __init__(self, sock: socket.socket, addr: Any, buf: bytes) -> None:
        self.sock = sock
        self.addr = addr
        self.buf = bytearray(buf)
        self.since = time.monotonic()
        self.first_byte: float | None = self.since if buf else None

    def deadline(self, limits: Limits) -> float:
        if self.first_byte is None:
            return self.since + limits.idle_timeout
        return self.first_byte + limits.header_deadline


def _close(sock: socket.socket, answer: bytes | None = None) -> None:
    """Best effort: send a short answer without blocking, then close."""
    with contextlib.suppress(OSError):
        sock.setblocking(False)
        if answer:
            sock.send(answer)
        sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        sock.close()


class GatedHTTPServer(socketserver.TCPServer):
    """A TCP server whose handler threads are bounded and never wait for a slow client's headers."""

    allow_reuse_address = True
    limits: Limits = Limits()

    def __init__(self, server_address: Any, handler: type[GatedHandler], limits: Limits | None = None) -> None:
        if limits is not None:
            self.limits = limits
        self.request_queue_size = self.limits.backlog  # read by server_activate's listen()
        super().__init__(server_address, handler)
        self._incoming: list[_Conn] = []
        self._lock = threading.Lock()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._ready: queue.Queue[tuple[socket.socket, Any, bytes] | None] = queue.Queue(self.limits.max_queued)
        self._workers: list[threading.Thread] = []
        self._idle_workers = 0
        self._gate: threading.Thread | None = None
        self._closing = False

    # ------------------------------------------------------------------ accept side

    def process_request(self, request: Any, client_address: Any) -> None:
        """Hand a new connection to the gate (called in the accept thread; never blocks)."""
        if self._gate is None:
            self._gate = threading.Thread(target=self._gate_loop, name="mnote-kr-api-gate", daemon=True)
            self._gate.start()
        self.park(request, client_address, b"")

    def park(self, sock: socket.socket, addr: Any, buffered: bytes) -> None:
        """Put a connection (back) into the gate, with bytes of its next request already read."""
        if self._closing:
            _close(sock)
            return
        sock.setblocking(False)
        with self._lock:
            self._incoming.append(_Conn(sock, addr, buffered))
        with contextlib.suppress(OSError):
            self._wake_w.send(b"\0")

    def active_workers(self) -> int:
        """Handler threads alive now (for tests and status)."""
        with self._lock:
            return sum(1 for t in self._workers if t.is_alive())

    def all_workers_idle(self) -> bool:
        """No handler thread holds a connection: every open one waits in the gate (for tests)."""
        with self._lock:
            return self._idle_workers == sum(1 for t in self._workers if t.is_alive())

    # ------------------------------------------------------------------ the gate

    def _gate_loop(self) -> None:
        sel = selectors.DefaultSelector()
        sel.register(self._wake_r, selectors.EVENT_READ, None)
        waiting: dict[socket.socket, _Conn] = {}
        try:
            while not self._closing:
                try:
                    self._gate_step(sel, waiting)
                except Exception:  # noqa: BLE001 - the gate must outlive any one connection's oddity
                    log.exception("connection gate")
                    time.sleep(0.05)
        finally:
            for conn in waiting.values():
                _close(conn.sock)
            sel.close()

    def _gate_step(self, sel: selectors.BaseSelector, waiting: dict[socket.socket, _Conn]) -> None:
        """Wait for bytes, a new connection or the next deadline; then act on what happened."""
        now = time.monotonic()
        next_due = min((c.deadline(self.limits) for c in waiting.values()), default=now + 1.0)
        for key, _ in sel.select(max(0.01, min(1.0, next_due - now))):
            if key.data is None:
                with contextlib.suppress(OSError):
                    while self._wake_r.recv(4096):
                        pass
                continue
            self._read_some(key.data, sel, waiting)
        self._admit(sel, waiting)
        self._expire(sel, waiting)

    def _admit(self, sel: selectors.BaseSelector, waiting: dict[socket.socket, _Conn]) -> None:
        with self._lock:
            fresh, self._incoming = self._incoming, []
        for conn in fresh:
            if len(waiting) >= self.limits.max_open:
                # Full: the connection that has waited longest gives way (an idle keep-alive
                # client reconnects; a slow one was nearest its deadline anyway).
                oldest = min(waiting.values(), key=lambda c: c.since)
                self._drop(oldest, sel, waiting, _BUSY_503 if oldest.first_byte else None)
            try:
                sel.register(conn.sock, selectors.EVENT_READ, conn)
            except (OSError, ValueError):  # closed under us (the client went away): nothing to serve
                _close(conn.sock)
                continue
            waiting[conn.sock] = conn
            if conn.buf and _header_complete(conn.buf):  # a pipelined request arrived with the last one
                self._dispatch(conn, sel, waiting)

    def _read_some(self, conn: _Conn, sel: selectors.BaseSelector, waiting: dict[socket.socket, _Conn]) -> None:
        try:
            data = conn.sock.recv(16384)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:  # the client closed
            self._drop(conn, sel, waiting, None)
            return
        if conn.first_byte is None:
            conn.first_byte = time.monotonic()
        conn.buf += data
        if _header_complete(conn.buf):
            self._dispatch(conn, sel, waiting)
        elif len(conn.buf) > _MAX_HEADER_BYTES:
            self._drop(conn, sel, waiting, _TOO_LARGE_431)

    def _expire(self, sel: selectors.BaseSelector, waiting: dict[socket.socket, _Conn]) -> None:
        now = time.monotonic()
        for conn in [c for c in waiting.values() if c.deadline(self.limits) <= now]:
            self._drop(conn, sel, waiting, _TIMEOUT_408 if conn.first_byte is not None else None)

    def _drop(self, conn: _Conn, sel: selectors.BaseSelector, waiting: dict[socket.socket, _Conn],
              answer: bytes | None) -> None:
        waiting.pop(conn.sock, None)
        with contextlib.suppress(KeyError, ValueError):
            sel.unregister(conn.sock)
        _close(conn.sock, answer)

    def _dispatch(self, conn: _Conn, sel: selectors.BaseSelector, waiting: dict[socket.socket, _Conn]) -> None:
        waiting.pop(conn.sock, None)
        with contextlib.suppress(KeyError, ValueError):
            sel.unregister(conn.sock)
        try:
            self._ready.put_nowait((conn.sock, conn.addr, bytes(conn.buf)))
        except queue.Full:
            _close(conn.sock, _BUSY_503)
            return
        with self._lock:
            self._workers = [t for t in self._workers if t.is_alive()]
            start = self._idle_workers == 0 and len(self._workers) < self.limits.max_workers
            if start:
                worker = threading.Thread(target=self._work, name="mnote-kr-api-worker", daemon=True)
                self._workers.append(worker)
                self._idle_workers += 1  # counted idle until it takes its first request
        if start:
            worker.start()

    # ------------------------------------------------------------------ workers

    def _work(self) -> None:
        while True:
            item = self._ready.get()
            with self._lock:
                self._idle_workers -= 1
            if item is None:
                return
            sock, addr, prefix = item
            try:
                self._serve_one(sock, addr, prefix)
            finally:
                with self._lock:
                    self._idle_workers += 1

    def _serve_one(self, sock: socket.socket, addr: Any, prefix: bytes) -> None:
        while True:
            handler: Any = None
            try:
                sock.setblocking(True)
                handler = self.RequestHandlerClass(sock, addr, self, prefix)  # type: ignore[call-arg, arg-type]
            except Exception:  # noqa: BLE001 - one bad connection never ends a worker
                self.handle_error(sock, addr)
            if handler is None or handler.close_connection or self._closing:
                _close(sock)
                return
            prefix = self._next_request(sock, handler.leftover)
            if not _header_complete(bytearray(prefix)):
                self.park(sock, addr, prefix)
                return

    def _next_request(self, sock: socket.socket, buffered: bytes) -> bytes:
        """Wait ``linger`` seconds in this thread for the client's next request.

        A client that sends its requests back to back (a shell polling, a benchmark) then skips
        the trip through the gate, which costs two thread wake-ups; anything slower is parked.
        """
        if _header_complete(bytearray(buffered)) or self.limits.linger <= 0:
            return buffered
        try:
            sock.settimeout(self.limits.linger)
            return buffered + sock.recv(_MAX_HEADER_BYTES)
        except OSError:  # TimeoutError included: nothing yet, the gate waits for it
            return buffered

    def server_close(self) -> None:
        """Close the listening socket, the gate and its connections; let idle workers end."""
        self._closing = True
        super().server_close()
        with contextlib.suppress(OSError):
            self._wake_w.send(b"\0")
        with self._lock:
            count = len(self._workers)
        for _ in range(count):
            with contextlib.suppress(queue.Full):
                self._ready.put_nowait(None)
        if self._gate is not None:
            self._gate.join(timeout=2)
        with self._lock:
            for conn in self._incoming:
                _close(conn.sock)
            self._incoming = []
        self._wake_r.close()
        self._wake_w.close()


class _PrefixedRaw(io.RawIOBase):
    """Bytes the gate already read, then the socket."""

    def __init__(self, prefix: bytes, raw: Any) -> None:
        self._prefix = memoryview(prefix)
        self._raw = raw

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int | None:
        if self._prefix:
            n = min(len(buffer), len(self._prefix))
            buffer[:n] = self._prefix[:n]
            self._prefix = self._prefix[n:]
            return n
        return self._raw.readinto(buffer)

    def close(self) -> None:
        self._raw.close()
        super().close()


class _Writer(io.BufferedIOBase):
    """Unbuffered writes that always send everything (a raw socket file may write partially)."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self._sock.sendall(data)
        with memoryview(data) as view:
            return view.nbytes


class GatedHandler(BaseHTTPRequestHandler):
    """Handles exactly one request per call; the server parks keep-alive connections in its gate.

    ``leftover`` holds bytes of the next request read together with this one.
    """

    server: GatedHTTPServer

    def __init__(self, request: Any, client_address: Any, server: GatedHTTPServer, prefix: bytes = b"") -> None:
        self._prefix = prefix
        self.leftover = b""
        super().__init__(request, client_address, server)

    def setup(self) -> None:
        self.connection = self.request
        # Every blocking read or write of a worker is bounded; read_exact bounds bodies in total.
        self.connection.settimeout(self.server.limits.body_deadline)
        if self.disable_nagle_algorithm:
            with contextlib.suppress(OSError):
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, True)
        self.rfile = io.BufferedReader(_PrefixedRaw(self._prefix, self.connection.makefile("rb", buffering=0)))
        self.wfile = _Writer(self.connection)

    def handle(self) -> None:
        self.close_connection = True
        self.handle_one_request()

    def finish(self) -> None:
        if not self.close_connection:
            # Keep what was read of the next request: the gate continues from there.
            parts: list[bytes] = []
            try:
                self.connection.setblocking(False)
                while chunk := self.rfile.read1(65536):
                    parts.append(chunk)
                    if sum(map(len, parts)) > 2 * _MAX_HEADER_BYTES:
                        self.close_connection = True
                        break
            except (OSError, ValueError):
                self.close_connection = True
            self.leftover = b"".join(parts)
        with contextlib.suppress(OSError, ValueError):
            self.wfile.close()
        with contextlib.suppress(OSError, ValueError):
            self.rfile.close()

    def read_exact(self, length: int) -> bytes | None:
        """``length`` body bytes within the body deadline, or None (then the connection is closed)."""
        deadline = time.monotonic() + self.server.limits.body_deadline
        parts: list[bytes] = []
        remaining = length
        try:
            while remaining > 0:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                self.connection.settimeout(left)
                chunk = self.rfile.read1(min(remaining, 65536))
                if not chunk:
                    raise ConnectionError("the client closed the connection mid-body")
                parts.append(chunk)
                remaining -= len(chunk)
        except (TimeoutError, ConnectionError, OSError):
            self.close_connection = True
            return None
        finally:
            with contextlib.suppress(OSError):
                self.connection.settimeout(self.server.limits.body_deadline)
        return b"".join(parts)
