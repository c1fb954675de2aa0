"""Search latency with each found file's best chunk first (``rank_passages``) against without it.

Baseline: ``Host.search`` on the same managed engine and index with ``[providers.lightrag]
rank_passages = false`` (LightRAG's first ``chunk_top_k`` chunks as they come). Measured: the
default, where the plugin asks LightRAG for 3x the chunks and the offline model service's
``/v1/rerank`` scores them (``mnote_kr_lightrag.client.passages``). Quality is measured by
``benchmarks/retrieval.py`` (``hybrid-plain`` against ``hybrid``); this one measures the cost.

A real managed engine (hybrid embedder) is started under a temp dir, the 16 files of the
retrieval benchmark are ingested, and 28 of its questions are searched (``top_k`` 10):

* cold: each question's first search in a fresh Python process (a CLI call), both sides, the
  process start and imports excluded;
* warm: both sides alternate in one process for ``--rounds`` rounds after one warm-up round.

    .venv/bin/python benchmarks/rank_passages.py [--rounds 3] [--cold 6]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mnote_kr_testkit.data import CORPUS

sys.path.insert(0, str(Path(__file__).resolve().parent))
from retrieval_labels import load_sets  # noqa: E402

_COLD = """
import json, sys, time
from pathlib import Path
from mnote_kr.core.config import load_config
from mnote_kr.app.host import Host
ws, query, flag = sys.argv[1], sys.argv[2], sys.argv[3] == "on"
config = load_config(Path(ws))
config.setdefault("providers", {}).setdefault("lightrag", {})["rank_passages"] = flag
host = Host(ws, config=config)
t0 = time.perf_counter()
n = len(host.search(query, top_k=10).results)
print(json.dumps({"searchS": time.perf_counter() - t0, "n": n}))
"""


def _host(ws: Path, flag: bool):  # noqa: ANN202 - Host is imported after MNOTE_KR_HOME is set
    from mnote_kr.app.host import Host
    from mnote_kr.core.config import load_config

    config = load_config(ws)
    config.setdefault("providers", {}).setdefault("lightrag", {})["rank_passages"] = flag
    return Host(ws, config=config)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cold", type=int, default=6, help="questions searched cold, each side")
    args = parser.parse_args()
    files, sets = load_sets()
    questions = [q["q"] for q in sets["old"][::4] + sets["heldout"][::4]]
    tmp = Path(tempfile.mkdtemp(prefix="mnote-bench-rank-passages-"))
    os.environ["MNOTE_KR_HOME"] = str(tmp / "home")
    os.environ["MNOTE_KR_OFFLINE_EMBEDDER"] = "hybrid"
    from mnote_kr_testkit.engine import seed_tiktoken

    from mnote_kr.app.host import Host
    from mnote_kr_lightrag.engine.managed import default_engine_dirs, start_engine, stop_engine

    dirs = default_engine_dirs()
    seed_tiktoken(dirs["cache_dir"])
    try:
        info = start_engine(**dirs, wait_s=180)
        print(f"engine: embedder {info.embedder['name']}, model service {info.models_url}")
        ws = tmp / "kb"
        (ws / "docs").mkdir(parents=True)
        for rel in files:
            shutil.copyfile(CORPUS / rel, ws / "docs" / Path(rel).name)
        Host(ws).roots_add("docs")
        report = Host(ws).ingest(["docs"], wait=True, wait_s=900)
        print(f"ingested {len(report.items)} files; {len(questions)} questions")
        cold: dict[str, list[float]] = {"on": [], "off": []}
        for q in questions[: args.cold]:
            for side in ("on", "off") if len(cold["on"]) % 2 == 0 else ("off", "on"):
                out = subprocess.run([sys.executable, "-c", _COLD, str(ws), q, side], capture_output=True,
                                     text=True, check=True, env=os.environ.copy())
                cold[side].append(json.loads(out.stdout.strip().splitlines()[-1])["searchS"])
        hosts = {"on": _host(ws, True), "off": _host(ws, False)}
        for host in hosts.values():
            for q in questions:
                host.search(q, top_k=10)
        warm: dict[str, list[float]] = {"on": [], "off": []}
        for rnd in range(args.rounds):
            for q in questions:
                for side in ("on", "off") if rnd % 2 == 0 else ("off", "on"):
                    t0 = time.perf_counter()
                    hosts[side].search(q, top_k=10)
                    warm[side].append(time.perf_counter() - t0)
    finally:
        stop_engine(dirs["state_dir"])
        shutil.rmtree(tmp, ignore_errors=True)
    for name, m in (("cold", cold), ("warm", warm)):
        on, off = statistics.median(m["on"]) * 1000, statistics.median(m["off"]) * 1000
        print(f"{name}: rank_passages on median {on:.0f} ms (n={len(m['on'])}), off (baseline) {off:.0f} ms "
              f"(n={len(m['off'])}); ratio on/off {on / off:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
