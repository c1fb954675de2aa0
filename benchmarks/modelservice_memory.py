"""Peak memory and time of the managed engine's offline model service under LightRAG's embedding load.

The load is what LightRAG 1.5.7 sends while it ingests the retrieval benchmark's files (the 38
corpus files of ``benchmarks/retrieval_labels.py``): the chunks a real managed engine made of them
(read from its ``kv_store_text_chunks.json`` after a real ingest; ``--chunks FILE`` keeps them for
the next run), embedded as its vector store's flush embeds them: one flush after each document,
its chunks in batches of ``EMBEDDING_BATCH_NUM`` (10) texts, all sent at once with at most
``EMBEDDING_FUNC_MAX_ASYNC`` (8) requests in flight, ``encoding_format`` base64 and ``dimensions``
(lightrag's ``constants``, ``kg/nano_vector_db_impl.py`` and ``llm/openai.py``; the managed engine
sets neither). Flushes run one at a time (LightRAG embeds while holding the store's lock).

Settings, each in a fresh model-service process started as ``engine/managed.py`` starts it (the
same module, arguments and environment), the model loaded before the clock starts:

* ``today``: no bound on the forward passes run at once, glibc's default malloc arenas (before);
* ``gate``: ``e5.FORWARDS`` alone (one forward pass per core at once, at most 4: ``e5_onnx.passes()``);
* ``fix``: what the managed engine runs now: the gate and ``modelservice.PROCESS_ENV``.

Per setting and round: a cold pass (the first of a new process) and a warm pass (the same load
again in that process); wall time, the service's CPU time (user + system: the work done, which the
shared machine's load moves less than the wall time), and peak RSS as the kernel's high-water mark
(``VmHWM``). The settings alternate within a round, their order rotated each round, so a change in
the shared machine's load falls on all of them. Printed: medians, the ratio of each setting to
``today``, the least cosine between a setting's vectors and ``today``'s for the same chunk, the
load averages. Measured figures: docs/budgets.md, "The offline model service's memory".

``--engine`` also ingests the files into a fresh real managed engine once per setting (``today``
and ``fix``; its model service started as above) and reports the ingest time and the model
service's peak RSS there: the check that the replay's load is LightRAG's.

    .venv/bin/python benchmarks/modelservice_memory.py [--rounds 2] [--chunks FILE] [--engine]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from retrieval_labels import load_sets  # noqa: E402

from mnote_kr_lightrag.engine import modelservice  # noqa: E402
from mnote_kr_lightrag.engine.managed import free_port  # noqa: E402
from mnote_kr_lightrag.engine.procs import base_env  # noqa: E402

MODULE = "mnote_kr_lightrag.engine.modelservice"
EMBEDDER = "e5xlang"
#: ``today``: the module run with the gate opened (room for every pass at once).
UNGATED = ("import runpy\n"
           "from mnote_kr.citations.rank import e5\n"
           "e5.FORWARDS = e5.Passes(1 << 30)\n"
           f"runpy.run_module({MODULE!r}, run_name='__main__', alter_sys=True)\n")
#: name -> (the code that runs the service instead of ``-m MODULE``, or None; PROCESS_ENV applied)
SETTINGS: dict[str, tuple[str | None, bool]] = {"today": (UNGATED, False), "gate": (None, False),
                                                "fix": (None, True)}


def lightrag_load() -> tuple[int, int]:
    """LightRAG's embedding batch size and requests in flight (its defaults; the engine sets neither)."""
    from lightrag.constants import DEFAULT_EMBEDDING_BATCH_NUM, DEFAULT_EMBEDDING_FUNC_MAX_ASYNC

    return DEFAULT_EMBEDDING_BATCH_NUM, DEFAULT_EMBEDDING_FUNC_MAX_ASYNC


def service_command(setting: str, cmd: list[str], env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """The engine's model-service command and environment, changed into ``setting``'s."""
    code, process_env = SETTINGS[setting]
    at = cmd.index("-m")
    if code is not None:
        cmd = [*cmd[:at], "-c", code, *cmd[at + 2:]]
    env = {k: v for k, v in env.items() if k not in modelservice.PROCESS_ENV}
    return cmd, {**env, **(modelservice.PROCESS_ENV if process_env else {})}


def memory(pid: int) -> dict[str, int]:
    """``VmRSS`` and ``VmHWM`` of ``pid`` in MiB."""
    out: dict[str, int] = {}
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0]) // 1024
    return out


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of ``pid`` so far."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


# --------------------------------------------------------------------------- the replay


class Service:
    """A model-service process of one setting, started as the managed engine starts it."""

    def __init__(self, setting: str) -> None:
        self.key = secrets.token_urlsafe(16)
        self.port = free_port("127.0.0.1")
        cmd = [sys.executable, "-m", MODULE, "--host", "127.0.0.1", "--port", str(self.port), "--embedder", EMBEDDER]
        env = {**base_env(), **modelservice.PROCESS_ENV, modelservice.KEY_ENV: self.key}
        cmd, env = service_command(setting, cmd, env)
        self.proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 600
        while True:
            if self.proc.poll() is not None:
                raise SystemExit(f"Error: the {setting} model service exited with {self.proc.returncode}")
            try:
                if httpx.get(self.url + "/health", trust_env=False, timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit(f"Error: the {setting} model service did not answer /health in 600 s")
            time.sleep(0.2)
        self.client = httpx.Client(timeout=1800, trust_env=False, headers=modelservice.auth_headers(self.key),
                                   limits=httpx.Limits(max_connections=16))

    def embed(self, texts: list[str], dim: int) -> np.ndarray:
        r = self.client.post(self.url + "/v1/embeddings", json={
            "model": f"{modelservice.EMBED_MODEL}:{EMBEDDER}", "input": texts, "encoding_format": "base64",
            "dimensions": dim})
        r.raise_for_status()
        return np.stack([np.frombuffer(base64.b64decode(row["embedding"]), "<f4") for row in r.json()["data"]])

    def close(self) -> None:
        self.client.close()
        self.proc.terminate()
        self.proc.wait(timeout=30)


def replay(svc: Service, docs: list[list[str]], batch: int, at_once: int, dim: int) -> tuple[float, np.ndarray]:
    """Every document's flush in turn, its batches at once with at most ``at_once`` in flight: (seconds, vectors)."""
    out: list[np.ndarray] = []
    t0 = time.perf_counter()
    with ThreadPoolExecutor(at_once) as pool:
        for chunks in docs:
            batches = [chunks[i:i + batch] for i in range(0, len(chunks), batch)]
            out += list(pool.map(lambda b: svc.embed(b, dim), batches))
    return time.perf_counter() - t0, np.concatenate(out)


# --------------------------------------------------------------------------- the real engine


def engine_ingest(setting: str, files: list[str]) -> tuple[dict[str, Any], list[list[str]]]:
    """Ingest ``files`` into a fresh managed engine whose model services run ``setting``: the
    figures of the workspace engine's (the one that embeds), and the chunks LightRAG made, grouped
    by document in its store's order."""
    from mnote_kr_testkit.engine import seed_tiktoken
    from retrieval_labels import corpus_host

    from mnote_kr.app.host import Host
    from mnote_kr_lightrag.engine import managed

    tmp = Path(tempfile.mkdtemp(prefix=f"mnote-bench-msmem-{setting}-"))
    os.environ["MNOTE_KR_HOME"] = str(tmp / "home")
    real_spawn = managed.spawn

    def spawn(cmd: list[str], *, cwd: Path, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
        if MODULE in cmd:
            cmd, env = service_command(setting, cmd, env)
        return real_spawn(cmd, cwd=cwd, env=env, log=log)

    managed.spawn = spawn  # type: ignore[assignment]
    dirs = managed.default_engine_dirs()
    seed_tiktoken(dirs["cache_dir"])
    try:
        info = managed.start_engine(**dirs, wait_s=600)
        host: Host = corpus_host(tmp / "kb", files)
        t0 = time.perf_counter()
        report = host.ingest(["docs"], wait=True, wait_s=3600)
        seconds = time.perf_counter() - t0
        # the workspace's own engine (client/workspaces.py), started by the ingest, did the embedding
        (ws_state,) = managed.workspace_state_dirs(dirs["state_dir"])
        ws_info = managed.engine_status(ws_state)
        assert ws_info is not None, "the workspace's engine is not running after its ingest"
        # the shared engine's model service, which the workspace's server uses (engine/modelshare.py)
        pid = ws_info.shared_models_pid or ws_info.pids["models"]
        figures = {"ingest_s": seconds, "peak_mb": memory(pid)["VmHWM"], "end_mb": memory(pid)["VmRSS"],
                   "idle_mb": memory(info.pids["models"])["VmRSS"],
                   "statuses": sorted({i.status for i in report.items}), "load": load()}
        chunks = _chunks(Path(info.working_dir))
        return figures, chunks
    finally:
        managed.spawn = real_spawn  # type: ignore[assignment]
        managed.stop_engine(dirs["state_dir"])
        shutil.rmtree(tmp, ignore_errors=True)


def _chunks(working_dir: Path) -> list[list[str]]:
    store: dict[str, dict[str, Any]] = {}
    for path in working_dir.rglob("kv_store_text_chunks.json"):
        store.update(json.loads(path.read_text(encoding="utf-8")))
    docs: dict[str, list[tuple[int, str]]] = {}
    for chunk in store.values():
        docs.setdefault(chunk["full_doc_id"], []).append((chunk.get("chunk_order_index", 0), chunk["content"]))
    return [[text for _, text in sorted(chunks)] for chunks in docs.values()]


# --------------------------------------------------------------------------- report


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="rounds of every setting (each a fresh process)")
    parser.add_argument("--settings", default="today,gate,fix", help="comma-separated; the first is the baseline")
    parser.add_argument("--chunks", type=Path, help="the chunks of a former run (written here when missing)")
    parser.add_argument("--engine", action="store_true", help="also ingest into a real engine per setting")
    args = parser.parse_args()
    names = args.settings.split(",")
    if unknown := [n for n in names if n not in SETTINGS]:
        print(f"Error: unknown settings {unknown} (choose from {', '.join(SETTINGS)})", file=sys.stderr)
        return 2
    files, _ = load_sets()
    batch, at_once = lightrag_load()
    print(f"cores {len(os.sched_getaffinity(0))}, load {load()}; LightRAG: {batch} texts a request, "
          f"{at_once} requests at once", flush=True)
    docs: list[list[str]] | None = None
    if args.chunks and args.chunks.exists():
        docs = json.loads(args.chunks.read_text(encoding="utf-8"))
    if args.engine or docs is None:
        for setting in ([n for n in names if n != "gate"] if args.engine else names[:1]):
            print(f"[engine {setting}] ingesting {len(files)} files into a fresh managed engine ...", flush=True)
            figures, made = engine_ingest(setting, files)
            print(f"[engine {setting}] ingest {figures['ingest_s']:.1f}s {figures['statuses']}; the workspace "
                  f"engine's model service: peak RSS {figures['peak_mb']} MiB, {figures['end_mb']} MiB at the end "
                  f"(the shared engine's, idle: {figures['idle_mb']} MiB); load {figures['load']}", flush=True)
            docs = docs or made
        assert docs is not None
        if args.chunks and not args.chunks.exists():
            args.chunks.write_text(json.dumps(docs, ensure_ascii=False), encoding="utf-8")
    assert docs is not None
    n_chunks = sum(map(len, docs))
    words = sum(len(c.split()) for d in docs for c in d)
    print(f"load: {n_chunks} chunks of {len(docs)} documents ({words / max(n_chunks, 1):.0f} words a chunk "
          f"on average), {sum(-(-len(d) // batch) for d in docs)} requests", flush=True)
    dim = modelservice.embedders.spec(EMBEDDER).dim
    keys = ("cold", "cold_cpu", "peak_cold", "warm", "warm_cpu", "peak_warm")
    runs: dict[str, dict[str, list[float]]] = {n: {k: [] for k in keys} for n in names}
    vectors: dict[str, np.ndarray] = {}
    for r in range(args.rounds):
        for setting in names[r % len(names):] + names[:r % len(names)]:
            before = load()
            svc = Service(setting)
            try:
                cpu0 = cpu_seconds(svc.proc.pid)
                cold, vecs = replay(svc, docs, batch, at_once, dim)
                cpu1, peak_cold = cpu_seconds(svc.proc.pid), memory(svc.proc.pid)["VmHWM"]
                warm, _ = replay(svc, docs, batch, at_once, dim)
                cpu2, peak_warm = cpu_seconds(svc.proc.pid), memory(svc.proc.pid)["VmHWM"]
            finally:
                svc.close()
            vectors.setdefault(setting, vecs)
            for key, value in zip(keys, (cold, cpu1 - cpu0, peak_cold, warm, cpu2 - cpu1, peak_warm), strict=True):
                runs[setting][key].append(value)
            print(f"  round {r + 1} {setting:6} cold {cold:6.1f}s (CPU {cpu1 - cpu0:6.1f}s) peak {peak_cold:5d} MiB"
                  f" | warm {warm:6.1f}s (CPU {cpu2 - cpu1:6.1f}s) peak {peak_warm:5d} MiB"
                  f" | load {before} -> {load()}", flush=True)
    heads = ("cold s", "CPU s", "peak MiB", "warm s", "CPU s", "after warm")
    print(f"\n{'setting':8} " + " ".join(f"{h:>10} {'x':>5}" for h in heads) + f" {'min cos':>8}")
    ref = vectors[names[0]] / np.linalg.norm(vectors[names[0]], axis=1, keepdims=True)
    for n in names:
        unit = vectors[n] / np.linalg.norm(vectors[n], axis=1, keepdims=True)
        cells = [f"{median(runs[n][k]):10.1f} {median(runs[n][k]) / median(runs[names[0]][k]):5.2f}" for k in keys]
        print(f"{n:8} " + " ".join(cells) + f" {(unit * ref).sum(1).min():8.5f}")
    print(f"(medians of {args.rounds} rounds; x: against {names[0]}; CPU: the service's user + system time; "
          f"peak: VmHWM after the cold pass, after warm: after both; load now {load()})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
