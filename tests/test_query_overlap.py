"""A search's query is started before the citation pipeline loads (docs/cold-start.md): the provider's
``start_query`` sends it from a thread and returns at once. Its answers and its failures must be
exactly those of ``query``: same result, same error type, message and exit code.

A small standard-library HTTP server on loopback answers as a LightRAG would (recorded
``/health`` and ``/query/data`` bodies, or a failure), so the real plain-socket client runs.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.data import SAMPLES
from mnote_kr_testkit.replay import load_sample

from mnote_kr.app.host import Host
from mnote_kr.errors import MnoteKrError
from mnote_kr.models import QueryRequest
from mnote_kr_lightrag.client import settings
from tests.cli_helpers import cli_env

HEALTH = load_sample(SAMPLES, "02_health_auth.json")[1]
QUERY_DATA = load_sample(SAMPLES, "40_query_data_hybrid.json")[1]


class Engine(ThreadingHTTPServer):
    """Answers ``/health``; ``/query/data`` as ``mode`` says, once ``release`` is set (``hold``)."""

    daemon_threads = True
    mode = "ok"
    hold = False  # hold each /query/data answer until the test sets ``release``

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.received = threading.Event()  # a POST /query/data arrived
        self.release = threading.Event()  # a held answer may go (and a "slow" one never comes before)
        self.answered = threading.Event()  # a /query/data answer is about to be sent
        self.queries: list[dict[str, Any]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class Handler(BaseHTTPRequestHandler):
    server: Engine

    def log_message(self, *args: Any) -> None:  # quiet
        return None

    def _send(self, status: int, body: bytes, kind: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self._send(200, json.dumps(HEALTH).encode())

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        length = int(self.headers.get("Content-Length") or 0)
        self.server.queries.append(json.loads(self.rfile.read(length)))
        self.server.received.set()
        if self.server.hold:
            self.server.release.wait(30)  # bounds a hung test only: the test releases it
        self.server.answered.set()  # before the answer goes, so a caller that waited for it sees this set
        mode = self.server.mode
        if mode == "ok":
            self._send(200, json.dumps(QUERY_DATA).encode())
        elif mode == "500":
            self._send(500, b'{"detail": "internal error in the retriever"}')
        elif mode == "422":
            self._send(422, b'{"detail": [{"loc": ["body", "query"], "msg": "String should have at most 3 chars"}]}')
        elif mode == "garbage":
            self._send(200, b"<html>not json</html>", "text/html")
        elif mode == "failure":
            self._send(200, b'{"status": "failure", "message": "the graph is locked", "data": {}}')
        elif mode == "close":
            self.close_connection = True  # no answer at all
        elif mode == "slow":  # never answers before the client's timeout, however loaded the machine
            self.server.release.wait(30)
            self._send(200, json.dumps(QUERY_DATA).encode())


@pytest.fixture
def engine() -> Iterator[Engine]:
    server = Engine()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.release.set()  # frees a handler still holding its answer
    server.shutdown()
    server.server_close()


@pytest.fixture(autouse=True)
def _fresh() -> None:
    settings.clear_cache()


def _host(tmp_path: Path, url: str, timeout_s: float = 30.0) -> Host:
    ws = tmp_path / "ws"
    (ws / ".mnote").mkdir(parents=True, exist_ok=True)
    (ws / ".mnote" / "config.toml").write_text(
        f'[providers.lightrag]\nurl = "{url}"\ninput_dir = "{tmp_path / "inputs"}"\nworkspace = ""\n'
        f"timeout_s = {timeout_s}\n", encoding="utf-8")
    return Host(ws)


def _request() -> QueryRequest:
    return QueryRequest(query="Nordwind battery study", mode="mix", top_k=20, chunk_top_k=20)


def _outcome(call: Any) -> tuple[str, str, int] | list[Any]:
    """What a call gives: its references' keys, or its error's type, message and exit code."""
    try:
        result = call()
    except MnoteKrError as exc:
        return type(exc).__name__, str(exc), exc.exit_code
    return [(r.file_path, r.chunk_id, r.rank) for r in result.references]


def test_a_started_query_is_sent_before_start_returns_and_answered_after(tmp_path: Path, engine: Engine) -> None:
    # LightRAG holds its answer until the test releases it: a start that waited for the answer
    # would return only after the 30 s hold, with the answer sent (conditions, not a time bound).
    engine.hold = True
    host = _host(tmp_path, engine.url)
    ctx = host.context()
    wait = host.plugins.start_query(ctx, _request())
    assert not engine.answered.is_set()  # the caller did not wait for the answer...
    assert engine.received.wait(30)  # ...which LightRAG was already working on
    engine.release.set()
    started = _outcome(wait)
    engine.hold = False
    assert started == _outcome(lambda: host.plugins.query(ctx, _request()))
    assert started and engine.queries[0] == engine.queries[1]  # the same request, the same references


@pytest.mark.parametrize("mode", ["500", "422", "garbage", "failure", "close", "refused", "timeout"])
def test_a_started_query_fails_exactly_as_query_fails(tmp_path: Path, engine: Engine, mode: str) -> None:
    url = engine.url
    if mode == "refused":
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            url = f"http://127.0.0.1:{s.getsockname()[1]}"  # closed when the block ends
    engine.mode = "slow" if mode == "timeout" else mode
    host = _host(tmp_path, url, timeout_s=1.0 if mode == "timeout" else 30.0)
    ctx = host.context()

    def started() -> Any:
        return host.plugins.start_query(ctx, _request())()

    direct = _outcome(lambda: host.plugins.query(ctx, _request()))
    early = _outcome(started)
    assert isinstance(direct, tuple), direct  # every mode here is a failure
    assert early == direct
    assert direct[2] == (2 if mode == "422" else 1)  # a refused query is a usage error


def test_a_usage_error_is_raised_by_start_before_anything_is_sent(tmp_path: Path, engine: Engine) -> None:
    host = _host(tmp_path, engine.url)
    bad = QueryRequest(query="x", mode="sideways")
    with pytest.raises(MnoteKrError) as raised:
        host.plugins.start_query(host.context(), bad)
    assert "Unknown query mode" in str(raised.value) and raised.value.exit_code == 2
    assert engine.queries == []


@pytest.mark.parametrize("mode", ["500", "garbage", "close"])
def test_the_cli_search_still_fails_with_one_line_and_exit_1(tmp_path: Path, engine: Engine, mode: str) -> None:
    engine.mode = mode
    host = _host(tmp_path, engine.url)
    env = cli_env(tmp_path / "home", "a-key")
    expected = _outcome(lambda: host.plugins.query(host.context(), QueryRequest(
        query="Nordwind battery", mode="mix", top_k=20, chunk_top_k=20)))
    assert isinstance(expected, tuple)
    for argv in (["-m", "mnote_kr"], ["-c", "import sys; from mnote_kr.cli.main import main; sys.exit(main())"]):
        # the console script's plain path, then the click command line
        proc = subprocess.run([sys.executable, *argv, "-w", str(host.root), "search", "Nordwind battery"],
                              capture_output=True, text=True, env=env, timeout=120)
        assert proc.returncode == 1 and proc.stdout == "", proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: "), proc.stderr
        assert expected[1].split(" (")[0] in lines[0]  # the provider's own message, as query raises it


_LOADED_AT_ANSWER = """
import json, sys
from mnote_kr.citations.map import request
wanted = ("mnote_kr_pdf_bbox.locator", "mnote_kr_pdf_bbox.answer", "mnote_kr_docx_locator.cache",
          "mnote_kr.citations.locate.textmatch", "mnote_kr.citations.caches.cleancache")
seen = {}
result = request.StartedQuery.result
def wait(self):
    seen.setdefault("loaded", [m for m in wanted if m in sys.modules])  # before the answer is read
    return result(self)
request.StartedQuery.result = wait
from mnote_kr.app.host import Host
out = Host(sys.argv[1]).search("Nordwind battery study")
print(json.dumps({"loaded": seen["loaded"], "wanted": wanted, "results": len(out.results)}))
"""


def test_the_locators_code_loads_while_the_provider_works(tmp_path: Path, engine: Engine) -> None:
    host = _host(tmp_path, engine.url)
    env = cli_env(tmp_path / "home", "a-key")
    proc = subprocess.run([sys.executable, "-c", _LOADED_AT_ANSWER, str(host.root)], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got["loaded"] == got["wanted"]  # prepare_search ran before the host waited for the answer
