"""HTTP API overhead: ``POST /api/knowledge-rag/search`` against calling ``Host.search`` directly,
and sustained ``GET /api/knowledge-rag/status`` requests per second from a concurrent client.

Both sides use the same host, the same in-process provider (``FakeProvider``: the host's real
citation pipeline runs, the retrieval engine is not measured) and the same queries; calls are
interleaved in rotating order so drift hits every side equally, and status throughput is
compared at the same thread count on both sides. A second section repeats the search comparison with a
real managed LightRAG behind the host (``--no-real-engine`` skips it). The server runs in its
own process, as a shell would run it. Loopback only; bounded in count and time (< 1 minute).

    .venv/bin/python benchmarks/http_api.py [--rounds 150] [--threads 8] [--seconds 5]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx

QUERIES = ["compression ratio", "quick brown fox", "Canterbury corpus", "bbox locator page", "paragraph index",
           "LightRAG references", "registry entry stale", "citation markdown", "rerank model", "source truth"]

WORDS = ("compression ratio corpus Canterbury fox brown quick lazy dog locator bbox page paragraph index LightRAG "
         "reference registry entry stale citation markdown rerank model source truth folder knowledge base").split()


def make_workspace(root: Path, files: int = 20) -> None:
    docs = root / "docs"
    docs.mkdir(parents=True)
    for i in range(files):
        body = "\n\n".join(
            f"## Section {j}\n\n" + " ".join(WORDS[(i * 7 + j * 3 + k) % len(WORDS)] for k in range(60))
            for j in range(6)
        )
        (docs / f"note-{i:02d}.md").write_text(f"# Note {i}\n\n{body}\n", encoding="utf-8")


def _setup_host(ws: Path):  # noqa: ANN202 - (Host, FakeProvider)
    from mnote_kr_testkit.fakes import FakeProvider, fake_host

    host, provider = fake_host(ws, FakeProvider(refs_per_file=2))
    host.roots_add(ws / "docs")
    # force: each process's in-memory provider must hold the texts, whoever ingested first.
    host.ingest([ws / "docs"], force=True)
    return host, provider


def serve_child(ws: Path) -> int:
    """The server side, in its own process, as a desktop shell would run it."""
    from mnote_kr.server.app import ApiServer

    host, _ = _setup_host(ws)
    server = ApiServer(host, write_token_file=False).start()
    print(json.dumps({"url": server.url, "token": server.token}), flush=True)
    sys.stdin.read()  # until the parent closes our stdin
    server.stop()
    return 0


def _status_load(url: str, token: str, threads: int, seconds: float, max_requests: int) -> tuple[int, int, float]:
    """(ok, errors, wall seconds) for ``threads`` keep-alive clients hammering status."""
    netloc = urlsplit(url)
    count = [0, 0]
    lock = threading.Lock()
    stop_at = time.perf_counter() + seconds
    headers = {"Authorization": f"Bearer {token}"}

    def worker() -> None:
        conn = http.client.HTTPConnection(netloc.hostname, netloc.port, timeout=30)
        try:
            while time.perf_counter() < stop_at:
                with lock:
                    if count[0] + count[1] >= max_requests:
                        return
                conn.request("GET", "/api/knowledge-rag/status", headers=headers)
                resp = conn.getresponse()
                resp.read()
                with lock:
                    count[0 if resp.status == 200 else 1] += 1
        finally:
            conn.close()

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    t0 = time.perf_counter()
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return count[0], count[1], time.perf_counter() - t0


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=150, help="search calls per side (default 150)")
    parser.add_argument("--threads", type=int, default=8, help="concurrent status clients (default 8)")
    parser.add_argument("--seconds", type=float, default=5.0, help="status load duration cap (default 5)")
    parser.add_argument("--max-requests", type=int, default=20000, help="status request cap (default 20000)")
    parser.add_argument("--serve-child", help=argparse.SUPPRESS)
    parser.add_argument("--serve-real", help=argparse.SUPPRESS)
    parser.add_argument("--no-real-engine", action="store_true", help="skip the section against real LightRAG")
    args = parser.parse_args()
    if args.serve_child:
        return serve_child(Path(args.serve_child))
    if args.serve_real:
        return serve_real(Path(args.serve_real))
    rc = _fake_section(args)
    if not args.no_real_engine:
        _real_engine_section(rounds=30)
    return rc


def serve_real(ws: Path) -> int:
    """Serve a Host whose provider is a real LightRAG (configured in the workspace)."""
    from mnote_kr.app.host import Host
    from mnote_kr.server.app import ApiServer

    server = ApiServer(Host(ws), write_token_file=False).start()
    print(json.dumps({"url": server.url, "token": server.token}), flush=True)
    sys.stdin.read()
    server.stop()
    return 0


def _real_engine_section(rounds: int) -> None:
    """The same comparison with the real retrieval engine behind the host (what a shell sees)."""
    # (the fake-provider section above isolates the pure HTTP cost; this one shows it in context)
    from mnote_kr.app.host import Host
    from mnote_kr_lightrag.engine.managed import start_engine, stop_engine

    with tempfile.TemporaryDirectory(prefix="mnote-kr-bench-real-") as tmp:
        base = Path(tmp)
        os.environ["MNOTE_KR_HOME"] = str(base / "home")
        engine = start_engine(data_dir=base / "e" / "data", state_dir=base / "e" / "state",
                              cache_dir=base / "e" / "cache", wait_s=120)
        child = None
        try:
            ws = base / "ws"
            make_workspace(ws)
            (ws / ".mnote").mkdir(exist_ok=True)
            (ws / ".mnote" / "config.toml").write_text(
                f'[providers.lightrag]\nurl = "{engine.url}"\ninput_dir = "{engine.input_dir}"\n')
            os.environ["MNOTE_KR_LIGHTRAG_API_KEY"] = engine.api_key
            host = Host(ws)
            host.ingest([ws / "docs"], wait=True, wait_s=120)
            child = subprocess.Popen([sys.executable, __file__, "--serve-real", str(ws)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=dict(os.environ))
            hello = json.loads(child.stdout.readline())  # type: ignore[union-attr]
            headers = {"Authorization": f"Bearer {hello['token']}", "Content-Type": "application/json"}
            netloc = urlsplit(hello["url"])
            conn = http.client.HTTPConnection(netloc.hostname, netloc.port, timeout=60)

            def api(q: str) -> int:
                conn.request("POST", "/api/knowledge-rag/search", body=json.dumps({"query": q, "topK": 20}),
                             headers=headers)
                resp = conn.getresponse()
                return len(json.loads(resp.read())["results"])

            for q in QUERIES:  # warm both sides (LightRAG's cache, locators, connections)
                host.search(q, top_k=20)
                api(q)
            direct: list[float] = []
            over_http: list[float] = []
            for i in range(rounds):
                q = QUERIES[i % len(QUERIES)]
                for side in ((0, 1) if i % 2 == 0 else (1, 0)):
                    t0 = time.perf_counter()
                    host.search(q, top_k=20) if side == 0 else api(q)
                    (direct if side == 0 else over_http).append(time.perf_counter() - t0)
            conn.close()
            # Status with the real engine behind it: each call asks LightRAG for /health and every
            # document page, so this, not the HTTP layer, sets the rate a shell can poll at.
            t0 = time.perf_counter()
            direct_calls = 0
            while direct_calls < 200 and time.perf_counter() - t0 < 3.0:
                host.status()
                direct_calls += 1
            status_direct = direct_calls / (time.perf_counter() - t0)
            status = _status_load(hello["url"], hello["token"], threads=8, seconds=5.0, max_requests=2000)
        finally:
            if child is not None:
                child.stdin.close()  # type: ignore[union-attr]
                child.wait(timeout=20)
                child.stdout.close()  # type: ignore[union-attr]
            stop_engine(base / "e" / "state")
    d, a = statistics.median(direct), statistics.median(over_http)
    print(f"search against a real LightRAG ({rounds} calls per side, warm, server in its own process)")
    print(f"  baseline Host.search direct            : median {d * 1000:7.2f} ms")
    print(f"  POST /api/knowledge-rag/search (stdlib): median {a * 1000:7.2f} ms")
    print(f"  overhead ratio API/direct              : {a / d:.3f}  (target <= 1.2; {(a - d) * 1000:+.2f} ms)")
    ok, errors, wall = status
    print(f"status against a real LightRAG (8 keep-alive client threads, {wall:.1f} s, {ok} ok, {errors} errors)")
    print(f"  baseline Host.status direct (1 thread): {status_direct:8.1f} calls/s")
    print(f"  GET /api/knowledge-rag/status         : {ok / wall:8.1f} req/s sustained")
    print(f"  ratio HTTP/direct                     : {ok / wall / status_direct:.3f}")


def _fake_section(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="mnote-kr-bench-") as tmp:
        os.environ["MNOTE_KR_HOME"] = str(Path(tmp) / "home")
        ws = Path(tmp) / "ws"
        make_workspace(ws)
        child = subprocess.Popen([sys.executable, __file__, "--serve-child", str(ws)], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True, env=dict(os.environ))
        try:
            hello = json.loads(child.stdout.readline())  # type: ignore[union-attr]
            host, _ = _setup_host(ws)
            return _measure(args, host, hello["url"], hello["token"])
        finally:
            child.stdin.close()  # type: ignore[union-attr]
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
            child.stdout.close()  # type: ignore[union-attr]


def _measure(args: argparse.Namespace, host: object, url: str, token: str) -> int:
    netloc = urlsplit(url)
    lean = http.client.HTTPConnection(netloc.hostname, netloc.port, timeout=30)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def lean_search(q: str) -> dict:
        lean.request("POST", "/api/knowledge-rag/search", body=json.dumps({"query": q, "topK": 20}), headers=headers)
        resp = lean.getresponse()
        body = resp.read()
        if resp.status != 200:
            raise SystemExit(f"search failed: {resp.status} {body[:200]!r}")
        return json.loads(body)

    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=30) as client:
        # ---------------------------------------------------------------- search overhead
        for q in QUERIES[:3]:  # warm all paths (imports, caches, connections)
            host.search(q, top_k=20)  # type: ignore[attr-defined]
            lean_search(q)
            client.post("/api/knowledge-rag/search", json={"query": q, "topK": 20}).raise_for_status()
        direct: list[float] = []
        api: list[float] = []
        api_httpx: list[float] = []
        n_results = set()
        def timed(fn, q):  # noqa: ANN001, ANN202
            t0 = time.perf_counter()
            out = fn(q)
            return time.perf_counter() - t0, out

        def httpx_search(q: str) -> dict:
            r = client.post("/api/knowledge-rag/search", json={"query": q, "topK": 20})
            r.raise_for_status()
            return r.json()

        sides = [("direct", lambda q: host.search(q, top_k=20)), ("lean", lean_search),  # type: ignore[attr-defined]
                 ("httpx", httpx_search)]
        for i in range(args.rounds):
            q = QUERIES[i % len(QUERIES)]
            # Interleaved, one thread, and the order rotates every round so no side always runs
            # first (warmest caches) or last. The API sides include decoding the JSON answer.
            got: dict[str, tuple[float, object]] = {}
            for name, fn in sides[i % 3:] + sides[: i % 3]:
                got[name] = timed(fn, q)
            res, body, hx = got["direct"][1], got["lean"][1], got["httpx"][1]
            if not len(body["results"]) == len(hx["results"]) == len(res.results):  # type: ignore[index, attr-defined]
                raise SystemExit("API and direct search disagree")
            n_results.add(len(res.results))  # type: ignore[attr-defined]
            direct.append(got["direct"][0])
            api.append(got["lean"][0])
            api_httpx.append(got["httpx"][0])
    lean.close()
    d_med, a_med, h_med = (statistics.median(x) for x in (direct, api, api_httpx))
    d_mean, a_mean, h_mean = (statistics.fmean(x) for x in (direct, api, api_httpx))
    print(f"search ({args.rounds} calls per side, {sorted(n_results)} citations per answer, top_k=20, "
          f"server in its own process, keep-alive, answer decoded)")
    print(f"  baseline Host.search direct            : median {d_med * 1000:7.2f} ms  mean {d_mean * 1000:7.2f} ms")
    print(f"  POST /api/knowledge-rag/search (stdlib): median {a_med * 1000:7.2f} ms  mean {a_mean * 1000:7.2f} ms")
    print(f"  POST /api/knowledge-rag/search (httpx) : median {h_med * 1000:7.2f} ms  mean {h_mean * 1000:7.2f} ms")
    print(f"  overhead ratio API/direct (stdlib)     : median {a_med / d_med:.3f}  mean {a_mean / d_mean:.3f}"
          f"  (target <= 1.2; {(a_med - d_med) * 1000:+.2f} ms per call)")
    print(f"  overhead ratio API/direct (httpx)      : median {h_med / d_med:.3f}  mean {h_mean / d_mean:.3f}"
          f"  ({(h_med - d_med) * 1000:+.2f} ms per call)")

    # -------------------------------------------------------------------- status throughput
    # Like with like: the direct side runs the same number of threads as the HTTP side, and
    # the two alternate (direct first at 1 thread, HTTP first at N threads).
    errors_total = 0
    print(f"status throughput ({args.seconds:.1f} s per measurement, keep-alive clients)")
    for n, http_first in ((1, False), (args.threads, True)):
        rates: dict[str, float] = {}
        for side in (("http", "direct") if http_first else ("direct", "http")):
            if side == "direct":
                rates["direct"] = _direct_status_rate(host, n, args.seconds)
            else:
                ok, errors, wall = _status_load(url, token, n, args.seconds, args.max_requests)
                errors_total += errors
                rates["http"] = ok / wall
        print(f"  {n} thread(s): Host.status direct {rates['direct']:8.1f} calls/s, "
              f"GET /api/knowledge-rag/status {rates['http']:8.1f} req/s -> ratio HTTP/direct "
              f"{rates['http'] / rates['direct']:.3f}")
    return 1 if errors_total else 0


def _direct_status_rate(host: object, threads: int, seconds: float) -> float:
    """``Host.status`` calls per second from ``threads`` threads in this process."""
    count = [0]
    lock = threading.Lock()
    stop = time.perf_counter() + seconds

    def worker() -> None:
        n = 0
        while time.perf_counter() < stop:
            host.status()  # type: ignore[attr-defined]
            n += 1
        with lock:
            count[0] += n

    t0 = time.perf_counter()
    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return count[0] / (time.perf_counter() - t0)


if __name__ == "__main__":
    sys.exit(main())
