"""``serve`` under a burst, slow clients and overload.

The clients here are raw sockets driven from one thread with a selector, so the only threads
that grow with the load are the server's own; every assertion counts them.
"""

from __future__ import annotations

import selectors
import socket
import struct
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.waiting import wait_until

from mnote_kr.context import ProviderContext
from mnote_kr.hookspecs import hookimpl
from mnote_kr.models import ProviderStatus, SourceEntry
from mnote_kr.server.app import ApiServer
from mnote_kr.server.conn import Limits

STATUS = "/api/knowledge-rag/status"
pytestmark = pytest.mark.timeout(120)


def _server_threads() -> int:
    return sum(1 for t in threading.enumerate() if t.name.startswith("mnote-kr-api"))


def _request(server: ApiServer, path: str = STATUS) -> bytes:
    return (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
            f"Authorization: Bearer {server.token}\r\nConnection: close\r\n\r\n").encode()


def _connect(server: ApiServer) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def _exchange_all(socks: list[socket.socket], payloads: list[bytes], timeout: float,
                  done: dict[int, float] | None = None) -> list[tuple[bytes, float]]:
    """Send each payload on its socket at once, read every answer to EOF: (answer, seconds).
    ``done`` (socket index -> seconds) fills as answers complete, for a watching thread."""
    sel = selectors.DefaultSelector()
    t0 = time.monotonic()
    answers: dict[int, bytearray] = {}
    done = {} if done is None else done
    for i, (sock, payload) in enumerate(zip(socks, payloads, strict=True)):
        sock.sendall(payload)
        sock.setblocking(False)
        answers[i] = bytearray()
        sel.register(sock, selectors.EVENT_READ, i)
    while len(done) < len(socks) and time.monotonic() - t0 < timeout:
        for key, _ in sel.select(0.2):
            i = key.data
            try:
                chunk = key.fileobj.recv(65536)  # type: ignore[union-attr]
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if chunk:
                answers[i] += chunk
            else:
                done[i] = time.monotonic() - t0
                sel.unregister(key.fileobj)
    sel.close()
    for sock in socks:
        sock.close()
    return [(bytes(answers[i]), done.get(i, float("inf"))) for i in range(len(socks))]


class _Slowloris:
    """Connections that send a request's headers one byte at a time, from one thread."""

    def __init__(self, server: ApiServer, count: int, interval: float) -> None:
        self.payload = _request(server, "/api/health")
        self.socks = [_connect(server) for _ in range(count)]
        self.sent = [0] * count
        self.closed_by_server: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(interval,), daemon=True)

    def _run(self, interval: float) -> None:
        while not self._stop.wait(interval):
            for i, sock in enumerate(self.socks):
                if sock.fileno() < 0 or self.sent[i] >= len(self.payload) - 4:  # never finish the headers
                    continue
                try:
                    sock.send(self.payload[self.sent[i]: self.sent[i] + 1])
                    self.sent[i] += 1
                except OSError:
                    self._collect(sock)

    def _collect(self, sock: socket.socket) -> None:
        with _suppress():
            sock.settimeout(2)
            self.closed_by_server.append(sock.recv(4096))
        sock.close()

    def __enter__(self) -> _Slowloris:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)
        for sock in self.socks:
            if sock.fileno() >= 0:
                sock.close()


class _suppress:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return exc[0] is not None and issubclass(exc[0], OSError)  # type: ignore[arg-type]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ApiServer]:
    (tmp_path / "ws").mkdir()
    host, _ = fake_host(tmp_path / "ws")
    with ApiServer(host, limits=Limits(header_deadline=3.0, body_deadline=2.0)) as srv:
        yield srv


def _listen_backlog(server: ApiServer) -> int:
    """The listening socket's accept queue size as the kernel holds it (Linux reports it in
    ``tcp_info.tcpi_sacked`` for a listening socket)."""
    info = server._httpd.socket.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    return struct.unpack_from("8x9I", info)[5]


def test_serve_answers_a_burst_and_authorised_requests_during_slowloris_with_bounded_threads(tmp_path: Path):
    # The slow clients' header deadline is far beyond the test: every answer must come while all
    # of them still hang on, so none is answered by a worker freed when a slow client was cut off.
    (tmp_path / "ws").mkdir()
    host, _ = fake_host(tmp_path / "ws")
    with ApiServer(host, limits=Limits(header_deadline=600.0, body_deadline=2.0)) as server:
        _burst_during_slowloris(server)


def _burst_during_slowloris(server: ApiServer) -> None:
    before = _server_threads()  # the accept thread
    burst_size = 200
    # A burst of connections at once waits in the kernel's accept queue, not dropped (a dropped
    # SYN costs the client a second); the queue the kernel holds for the socket is what counts.
    assert _listen_backlog(server) >= burst_size
    probes: list[float] = []
    peak = [0]
    results: list[tuple[bytes, float]] = []
    with _Slowloris(server, 100, interval=0.2) as slow:
        wait_until(lambda: all(slow.sent), timeout_s=60, what="the slow clients never started their headers")
        held_by_slow = _server_threads()
        connect_times: list[float] = []

        def run_burst() -> None:  # 200 connections at once, each with an authorised request
            socks = []
            for _ in range(burst_size):
                t0 = time.monotonic()
                socks.append(_connect(server))
                connect_times.append(time.monotonic() - t0)
            results.extend(_exchange_all(socks, [_request(server, "/api/health")] * burst_size, timeout=60))

        burst = threading.Thread(target=run_burst)
        burst.start()
        with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {server.token}"},
                          timeout=60) as client:
            # A shell keeps asking for status while the burst runs and the slow clients hang on.
            while burst.is_alive() or len(probes) < 10:
                t0 = time.monotonic()
                assert client.get(STATUS).status_code == 200
                probes.append(time.monotonic() - t0)
                peak[0] = max(peak[0], _server_threads())
        burst.join()
        still_hanging = sum(1 for sock in slow.socks if sock.fileno() >= 0) - len(slow.closed_by_server)
    statuses = [r[0].split(b" ", 2)[1] if r[0] else b"none" for r in results]
    slowest = max(r[1] for r in results)
    print(f"burst: {statuses.count(b'200')}/{burst_size} OK, slowest connect {max(connect_times):.3f}s, slowest "
          f"answer {slowest:.3f}s; {len(probes)} status probes, max {max(probes):.3f}s; server threads: idle "
          f"{before}, with 100 slow clients {held_by_slow}, peak {peak[0]}")
    assert statuses.count(b"200") == burst_size, statuses
    assert still_hanging == 100  # every answer came while all the slow clients still held their connections
    assert held_by_slow <= before + 1  # the gate alone: slow headers hold no worker thread
    assert peak[0] <= before + 1 + server.limits.max_workers


def test_serve_closes_slow_headers_and_slow_bodies_at_their_deadline(server):
    with _Slowloris(server, 5, interval=0.2) as slow:
        # The server closes each at its header deadline; the slow sender notices on its next byte.
        wait_until(lambda: len(slow.closed_by_server) == 5, timeout_s=60,
                   what=lambda: f"{len(slow.closed_by_server)} of 5 slow clients closed by the server")
    assert len(slow.closed_by_server) == 5
    assert all(answer.startswith(b"HTTP/1.1 408") for answer in slow.closed_by_server), slow.closed_by_server
    # A body that trickles in is cut off at the body deadline, not kept alive by each byte.
    sock = _connect(server)
    sock.sendall((f"POST /api/knowledge-rag/search HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                  f"Authorization: Bearer {server.token}\r\nContent-Type: application/json\r\n"
                  "Content-Length: 200\r\n\r\n{").encode())
    t0 = time.monotonic()
    answer = b""
    sock.settimeout(0.3)
    while time.monotonic() - t0 < 60:  # a body kept alive by each byte would run to this end
        with _suppress():
            sock.send(b" ")
        try:
            chunk = sock.recv(4096)
        except TimeoutError:
            continue
        except OSError:
            break
        if not chunk:
            break
        answer += chunk
    elapsed = time.monotonic() - t0
    sock.close()
    assert answer.startswith(b"HTTP/1.1 408") and b'"timeout"' in answer, answer
    assert elapsed > server.limits.body_deadline - 0.5  # not before its deadline (a loaded machine only adds)


class _HeldStatus(FakeProvider):
    """A status that answers only once the test lets it: the workers stay busy until then."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()

    @hookimpl
    def provider_status(self, ctx: ProviderContext, entries: list[SourceEntry]) -> ProviderStatus:
        assert self.release.wait(60)
        return ProviderStatus(provider="fake", reachable=True)


def test_serve_answers_503_when_its_workers_and_queue_are_full(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    held = _HeldStatus()
    host, _ = fake_host(tmp_path / "ws", held)
    limits = Limits(max_workers=2, max_queued=2)
    with ApiServer(host, limits=limits) as server:
        socks = [_connect(server) for _ in range(10)]
        done: dict[int, float] = {}
        results: list[tuple[bytes, float]] = []
        exchange = threading.Thread(target=lambda: results.extend(
            _exchange_all(socks, [_request(server)] * 10, timeout=60, done=done)))
        exchange.start()
        # While the workers are held, at most workers + queue requests can wait; the rest are
        # answered at once. Only then are the held ones let go.
        refused_first = 10 - limits.max_workers - limits.max_queued
        wait_until(lambda: len(done) >= refused_first, timeout_s=60, what=lambda: f"{len(done)} answered of 10")
        answered_while_held = set(done)
        peak = _server_threads()
        held.release.set()
        exchange.join()
    codes = sorted(r[0].split(b" ", 2)[1] for r in results)
    assert codes.count(b"200") >= 4 and codes.count(b"503") >= 4, codes
    busy = {i for i, r in enumerate(results) if r[0].startswith(b"HTTP/1.1 503")}
    assert all(b"Retry-After: 1" in results[i][0] for i in busy)
    assert busy == answered_while_held  # refused at once, while the workers were held, not after a wait
    assert peak <= 1 + 1 + 2


def test_serve_keeps_pipelined_and_keep_alive_requests_in_order(server):
    sock = _connect(server)
    one = _request(server, "/api/health").replace(b"Connection: close\r\n", b"")
    sock.sendall(one + one)  # two requests in one packet
    answer = b""
    sock.settimeout(5)
    while answer.count(b'{"ok":true') < 2:
        chunk = sock.recv(65536)
        assert chunk, answer
        answer += chunk
    # The connection goes back to the gate once its worker stops lingering for more; reuse it from there.
    wait_until(server._httpd.all_workers_idle, timeout_s=60, what="the connection parked in the gate")
    sock.sendall(_request(server, "/api/health"))
    rest = b""
    while chunk := sock.recv(65536):
        rest += chunk
    sock.close()
    assert answer.count(b"HTTP/1.1 200") == 2
    assert rest.startswith(b"HTTP/1.1 200") and b'{"ok":true' in rest
