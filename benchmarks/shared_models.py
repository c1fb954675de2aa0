"""Memory of the managed engine's processes, and time to a new workspace's first search, with a
model service per workspace (before) and the engine's one model service shared (now).

Each mnote-kr workspace gets a ``lightrag-server`` of its own; each used to start its own offline
model service too (e5 loaded once per workspace). ``engine/modelshare.py`` lends the shared
engine's instead. Per setting, in a fresh ``MNOTE_KR_HOME`` with a fresh engine:

1. three workspaces ingest a small folder each at once (the demo's three files plus a real DOCX of
   the corpus, a different one each), through ``Host.ingest`` as ``mnote-kr ingest`` does; every
   process of the engine (found by its working directory under the home: the guarded servers and
   the model services) is sampled every 0.25 s: peak of the summed RSS and of the summed PSS (PSS
   splits pages the processes share, such as Python's libraries, so it does not count them twice);
   then the sums once the ingests are done (idle);
2. a fourth, new workspace: wall time from ``Host`` creation through the ingest of one Markdown file
   to its first search's results (its server starts on the way), and that server's recorded start.

"before" is this code with the lending switched off (``modelshare.usable`` answering None), in the
same run; the settings alternate, their order rotated each round. Printed: each setting's figures
per round, the medians and after/before ratios, the load averages.

    .venv/bin/python benchmarks/shared_models.py [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from mnote_kr_testkit.engine import seed_tiktoken

from mnote_kr.app.host import Host
from mnote_kr_lightrag.client.workspaces import lightrag_workspace
from mnote_kr_lightrag.engine import managed, modelshare
from mnote_kr_lightrag.engine.procs import MARKERS

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "plugins" / "lightrag" / "mnote_kr_lightrag" / "demo_data"
CORPUS = REPO / "tests" / "data" / "corpus" / "docx"
DOCX = ("docling__word_sample.docx", "kotaemon__dummy.docx", "tika__017091.docx")


def _engine_procs(base: Path) -> dict[int, str]:
    """PID -> role of every live process whose working directory is under ``base``."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if not Path(os.readlink(entry / "cwd")).is_relative_to(base):
                continue
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        found[int(entry.name)] = next((r for r, m in MARKERS.items() if m in cmd), "other")
    return found


def _mem_kb(pid: int) -> tuple[int, int]:
    rss = pss = 0
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Rss:"):
                rss = int(line.split()[1])
            elif line.startswith("Pss:"):
                pss = int(line.split()[1])
    except OSError:
        pass
    return rss, pss


def _totals(base: Path) -> dict[str, Any]:
    procs = _engine_procs(base)
    mem = {pid: _mem_kb(pid) for pid in procs}
    return {"rss_mb": sum(r for r, _ in mem.values()) / 1024, "pss_mb": sum(p for _, p in mem.values()) / 1024,
            "processes": sorted(procs.values())}


def _workspace(root: Path, docx: str | None) -> Host:
    (root / "kb").mkdir(parents=True)
    if docx:
        for folder in DEMO.iterdir():
            for f in folder.iterdir():
                shutil.copyfile(f, root / "kb" / f.name)
        shutil.copyfile(CORPUS / docx, root / "kb" / docx)
    host = Host(root)
    host.roots_add("kb")
    return host


def run(setting: str, tmp: Path) -> dict[str, Any]:
    base = tmp / setting
    os.environ["MNOTE_KR_HOME"] = str(base)
    real_usable = modelshare.usable
    if setting == "before":
        modelshare.usable = lambda owner, spec: None  # type: ignore[assignment]
    dirs = managed.default_engine_dirs()
    seed_tiktoken(dirs["cache_dir"])
    try:
        managed.start_engine(**dirs, wait_s=600)
        hosts = [_workspace(base / f"ws{i}", DOCX[i]) for i in range(3)]
        peak = {"rss_mb": 0.0, "pss_mb": 0.0}
        done = threading.Event()

        def sample() -> None:
            while not done.is_set():
                now = _totals(base)
                for key in peak:
                    peak[key] = max(peak[key], now[key])
                time.sleep(0.25)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        statuses: list[str] = []

        def ingest(host: Host) -> None:
            statuses.extend(i.status for i in host.ingest(["kb"], wait=True, wait_s=1800).items)

        t0 = time.perf_counter()
        workers = [threading.Thread(target=ingest, args=(h,)) for h in hosts]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        ingest_s = time.perf_counter() - t0
        done.set()
        sampler.join()
        idle = _totals(base)

        t1 = time.perf_counter()
        fresh = _workspace(base / "new", None)
        (fresh.root / "kb" / "pump.md").write_text("# Bilge pump\n\nThe bilge pump runs every 6 hours.\n")
        fresh.ingest(["kb"], wait=True, wait_s=600)
        hits = fresh.search("how often does the bilge pump run", mode="naive").results
        first_s = time.perf_counter() - t1
        own = managed.engine_status(managed.workspace_state_dir(dirs["state_dir"], lightrag_workspace(fresh.context())),
                                    check_health=False)
        assert own is not None, "the new workspace's server is not running after its search"
        return {"peak_rss_mb": peak["rss_mb"], "peak_pss_mb": peak["pss_mb"], "idle_rss_mb": idle["rss_mb"],
                "idle_pss_mb": idle["pss_mb"], "processes": idle["processes"], "ingest_s": ingest_s,
                "statuses": sorted(set(statuses)), "first_search_s": first_s, "hits": len(hits),
                "server_start_s": own.start_seconds, "load": os.getloadavg()}
    finally:
        modelshare.usable = real_usable  # type: ignore[assignment]
        managed.stop_engine(dirs["state_dir"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="share-bench-"))
    results: dict[str, list[dict[str, Any]]] = {"before": [], "after": []}
    try:
        for r in range(args.rounds):
            order = ("before", "after") if r % 2 == 0 else ("after", "before")
            for setting in order:
                out = run(setting, tmp / f"r{r}")
                results[setting].append(out)
                print(f"round {r} {setting}: " + ", ".join(
                    f"{k}={v:.1f}" if isinstance(v, float) else f"{k}={v}" for k, v in out.items()), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("\nmedians (after / before):")
    for key in ("peak_rss_mb", "peak_pss_mb", "idle_rss_mb", "idle_pss_mb", "ingest_s", "first_search_s",
                "server_start_s"):
        before = statistics.median(o[key] for o in results["before"])
        after = statistics.median(o[key] for o in results["after"])
        print(f"  {key:<15} before {before:9.1f}  after {after:9.1f}  ratio {after / before:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
