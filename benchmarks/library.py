"""A whole library through the managed engine, against LightRAG alone.

1. Generates a library (``--files``, default 2,000): Markdown, DOCX and PDF in a 4:3:3 mix, of
   realistic sizes (notes of 1-4 KB, reports of 20-60 paragraphs, papers of 2-4 pages), every
   file with its own content (LightRAG de-duplicates identical content).
2. BASELINE, LightRAG alone: the same files COPIED into the input dir of a LightRAG namespace
   of its own and one ``/documents/scan``; timed until every document is processed or failed.
3. OURS: ``mnote-kr ingest <library> --wait`` through the Host API on the managed engine
   (its own namespace and server, started beforehand so neither side pays a server start).
   Prints ours / baseline (target <= 1.15).
4. GROWTH: the time of ``status``, ``search`` and an unchanged re-``ingest`` of the library at
   the real registry size, then padded with synthetic entries to each size of ``--entries``
   (default 2,000,20,000), COLD (the process's snapshot cache cleared before each call: what a
   new CLI process pays for the registry) and WARM (unchanged file: what ``serve``/``watch``
   pay); then how each grows: its time at each size over its time at the smallest, next to
   how much the registry grew (the baseline a per-entry cost would follow).
   ``--growth-only`` skips 2-3 and ingests a small real library (``--growth-files``, default 24)
   instead, so the growth figures take minutes, not the 2,000-file ingest.

Both sides use the same server build, offline models, parser rules and vector storage (what
``start_engine`` chooses for a new namespace: Faiss, docs/engine-storage.md). Run:
``.venv/bin/python benchmarks/library.py [--files 2000] [--entries 2000,20000]``
``.venv/bin/python benchmarks/library.py --growth-only --entries 2000,20000,100000``
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import httpx
from mnote_kr_testkit.docx_docs import DocxBuilder
from mnote_kr_testkit.engine import seed_tiktoken
from mnote_kr_testkit.pdfs import PdfBuilder

from mnote_kr.app.host import Host
from mnote_kr.core import registry as registry_module
from mnote_kr.core.config import load_config
from mnote_kr.models import SourceEntry
from mnote_kr_lightrag.client.naming import workspace_tag
from mnote_kr_lightrag.client.workspaces import PREFIX
from mnote_kr_lightrag.engine.managed import (
    EngineInfo,
    engine_status,
    start_engine,
    stop_engine,
    workspace_state_dir,
)

WORDS = ("turbine blade icing heater anode cathode electrolyte gearbox bearing lubricant valve piston "
         "nitrogen pressure sensor calibration drift thermal margin fatigue crack weld coating corrosion "
         "voltage current impedance spectrum sample batch protocol review result method").split()


def _sentence(rng: random.Random, n: int = 14) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + f" ({uuid.uuid4().hex[:12]})."


def make_library(root: Path, n: int, seed: int = 14) -> list[Path]:
    """Markdown : DOCX : PDF = 4 : 3 : 3, each file unique."""
    rng = random.Random(seed)
    out: list[Path] = []
    for i in range(n):
        folder = root / f"shelf{i // 200:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        kind = ("md", "md", "md", "md", "docx", "docx", "docx", "pdf", "pdf", "pdf")[i % 10]
        path = folder / f"item{i:05d}.{kind}"
        if kind == "md":
            paras = [f"# Note {i}"] + [_sentence(rng) + " " + _sentence(rng) for _ in range(rng.randint(6, 24))]
            path.write_text("\n\n".join(paras) + "\n", encoding="utf-8")
        elif kind == "docx":
            b = DocxBuilder()
            b.heading(f"Report {i}", 1)
            for k in range(rng.randint(20, 60)):
                if k % 12 == 0:
                    b.heading(f"Section {k // 12 + 1}", 2)
                b.para(_sentence(rng, 18))
            path.write_bytes(b.build())
        else:
            pdf = PdfBuilder()
            for _ in range(rng.randint(2, 4)):
                page = pdf.add_page()
                for line in range(40):
                    pdf.text(page, 56, 740 - line * 17, _sentence(rng, 11), size=10)
            path.write_bytes(pdf.build())
        out.append(path)
    return out


def _counts(client: httpx.Client) -> dict[str, int]:
    body = client.post("/documents/paginated", json={"page": 1, "page_size": 10}).json()
    return {k.lower(): int(v) for k, v in (body.get("status_counts") or {}).items()}


def baseline_lightrag_alone(shared: EngineInfo, state_dir: Path, files: list[Path], timeout: float) -> float:
    """Copy the files into a fresh LightRAG namespace's input dir, scan once, wait for all."""
    info = start_engine(data_dir=Path(shared.working_dir).parents[1], state_dir=state_dir / "baseline",
                        cache_dir=state_dir.parent / "cache", workspace="baseline_alone", wait_s=180)
    inputs = Path(info.input_dir) / "baseline_alone"
    inputs.mkdir(parents=True, exist_ok=True)
    with httpx.Client(base_url=info.url, headers={"X-API-Key": info.api_key}, trust_env=False, timeout=60) as c:
        print(f"  baseline starts ({_load()})")
        with LoadSampler() as load:
            t0 = time.perf_counter()
            for i, path in enumerate(files):
                shutil.copyfile(path, inputs / f"{i:05d}-{path.name}")
            c.post("/documents/scan")
            deadline = time.monotonic() + timeout
            progress: list[tuple[float, int]] = []
            while time.monotonic() < deadline:
                counts = _counts(c)
                done = counts.get("processed", 0) + counts.get("failed", 0)
                progress.append((time.perf_counter() - t0, done))
                if done >= len(files):
                    break
                time.sleep(0.5)
            took = time.perf_counter() - t0
        counts = _counts(c)
    print(f"  baseline LightRAG alone: {took:.1f} s  {counts}  ({load}; {len(files) / took:.2f} files/s)")
    space = Path(info.working_dir) / "baseline_alone"
    stores = sorted(space.glob("vdb_chunks.json")) + sorted(space.glob("faiss_index_chunks.index*"))
    print(f"    LightRAG's own pace: {_rate(progress, 0.0, 0.25, len(files)):.2f} files/s over the first quarter, "
          f"{_rate(progress, 0.75, 1.0, len(files)):.2f} over the last; {info.vector_storage or 'its vector storage'}"
          f" ends at {sum(p.stat().st_size for p in stores) / 1e6:.0f} MB (chunk vectors and their metadata), "
          "written whole after every document")
    return took


class PaceSampler:
    """Our side's engine's done count every 5 s (LightRAG's doc status, as the baseline polls it),
    for its pace over the first and last quarter; None engine: nothing sampled."""

    def __init__(self, info: EngineInfo | None) -> None:
        self.info, self.t0 = info, time.perf_counter()
        self.progress: list[tuple[float, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        assert self.info is not None
        with httpx.Client(base_url=self.info.url, headers={"X-API-Key": self.info.api_key}, trust_env=False,
                          timeout=60) as c:
            while not self._stop.wait(5.0):
                try:
                    counts = _counts(c)
                except httpx.HTTPError:
                    continue
                self.progress.append((time.perf_counter() - self.t0,
                                      counts.get("processed", 0) + counts.get("failed", 0)))

    def __enter__(self) -> PaceSampler:
        if self.info is not None:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self.info is not None:
            self._thread.join()


def _rate(progress: list[tuple[float, int]], lo: float, hi: float, n: int) -> float:
    """Documents per second while the done count went from ``lo`` to ``hi`` of ``n`` (from the
    first document done: the scan's classification of every file comes before it)."""
    start = next((t for t, d in progress if d >= max(1.0, lo * n)), 0.0)
    end = next((t for t, d in progress if d >= hi * n), progress[-1][0] if progress else 0.0)
    return (hi - lo) * n / max(end - start, 1e-6)


def _load() -> str:
    """The machine's 1-minute load average: both sides share a machine other work may load."""
    return f"load {os.getloadavg()[0]:.1f}"


class LoadSampler:
    """The 1-minute load average every 10 s while one side runs (mean and max), so a ratio
    can be read against what else the machine was doing."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while True:
            self.samples.append(os.getloadavg()[0])
            if self._stop.wait(10.0):
                return

    def __enter__(self) -> LoadSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def __str__(self) -> str:
        return f"load mean {statistics.fmean(self.samples):.1f}, max {max(self.samples):.1f}"


def _timed(fn: Callable[[], object], rounds: int = 3) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _cold(fn: Callable[[], object]) -> Callable[[], object]:
    def run() -> object:
        registry_module.clear_cache()
        return fn()
    return run


QUERY = "turbine blade icing heater"
#: Synthetic entries: one in 1,000 failed (status lists it with its reason), one in 2,000
#: waiting for a retry; the rest processed. Spread evenly, as real failures would be.
FAILED_EVERY, PENDING_EVERY = 1000, 2000


def measure_commands(host: Host, lib: Path) -> dict[str, float]:
    """Median seconds of each command, cold (snapshot cache cleared) and warm."""
    search = lambda: host.search(QUERY, mode="naive")  # noqa: E731
    again = lambda: host.ingest([lib])  # noqa: E731
    host.status()  # the engine's first answers (connections, caches) are not the registry's cost
    return {
        "status cold": _timed(_cold(host.status)), "status warm": _timed(host.status),
        "search cold": _timed(_cold(search)), "search warm": _timed(search),
        "re-ingest cold": _timed(_cold(again)), "re-ingest warm": _timed(again),
    }


def add_synthetic(host: Host, total: int) -> None:
    """Pad the registry to ``total`` entries (none of them in the engine: only the registry grows)."""
    with host.store.transaction() as reg:
        for i in range(len(reg.entries), total):
            rel = f"synthetic/s{i:06d}.pdf"
            failed, pending = i % FAILED_EVERY == FAILED_EVERY - 1, i % PENDING_EVERY == 1
            chunks = [] if pending or failed else [f"doc-{i:032x}-chunk-{c:03d}" for c in range(3)]
            reg.put(SourceEntry(source_id=f"syn-{i:012x}", source_path=str(host.root / rel),
                                source_root_relative_path=rel, source_hash="sha256:" + f"{i:064x}", size=1000 + i,
                                mtime_ns=1_700_000_000_000_000_000 + i,
                                status="failed" if failed else "pending" if pending else "processed",
                                last_error="parser error: synthetic" if failed else None,
                                pending_action="ingest" if pending else None,
                                light_rag_doc_id=None if pending else f"doc-{i:032x}",
                                light_rag_file_path=None if pending else f"s{i:06d}.{i:08x}-{i:08x}.pdf",
                                chunk_ids=chunks))


def growth(host: Host, lib: Path, sizes: list[int]) -> None:
    """Section 4: the commands at the real registry size, then padded to each of ``sizes``."""
    rows: list[tuple[int, dict[str, float]]] = []
    for target in [len(host.registry().entries)] + sorted(sizes):
        if target > len(host.registry().entries):
            add_synthetic(host, target)
        registry_module.clear_cache()
        n = len(host.registry().entries)
        rows.append((n, measure_commands(host, lib)))
        size_mb = host.store.path.stat().st_size / 1e6
        print(f"  measured at {n} entries (registry file {size_mb:.1f} MB, {_load()})", flush=True)
    names = list(rows[0][1])
    print(f"\nGROWTH: median of 3 per cell, milliseconds ({_load()})")
    print(f"  {'entries':>8}  " + "  ".join(f"{k:>14}" for k in names))
    for n, cells in rows:
        print(f"  {n:>8}  " + "  ".join(f"{cells[k] * 1000:>14.0f}" for k in names))
    base_n, base = rows[1] if len(rows) > 1 else rows[0]  # the smallest padded size
    print(f"  growth over {base_n} entries (time ratio; the registry grew by the ratio in the first column):")
    for n, cells in rows[2:]:
        print(f"  {n / base_n:>7.0f}x  " + "  ".join(f"{cells[k] / base[k]:>13.2f}x" for k in names))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--entries", default="2000,20000",
                        help="registry sizes for the growth figures, comma-separated (synthetic padding)")
    parser.add_argument("--growth-only", action="store_true",
                        help="skip the 2,000-file comparison: ingest --growth-files real files, then measure growth")
    parser.add_argument("--growth-files", type=int, default=24)
    parser.add_argument("--timeout", type=float, default=7200)
    args = parser.parse_args()
    try:
        sizes = [int(x) for x in args.entries.split(",") if x.strip()]
    except ValueError:
        parser.error(f"--entries: comma-separated numbers expected, got {args.entries!r}")
    if args.growth_only:
        args.files = args.growth_files
    with tempfile.TemporaryDirectory(prefix="mnote-library-") as tmp:
        base = Path(tmp)
        home = base / "home"
        os.environ["MNOTE_KR_HOME"] = str(home)
        os.environ.pop("MNOTE_KR_LIGHTRAG_API_KEY", None)
        seed_tiktoken(home / "cache")
        t0 = time.perf_counter()
        lib = base / "kb" / "library"
        files = make_library(lib, args.files)
        size = sum(p.stat().st_size for p in files)
        print(f"library: {len(files)} files ({size / 1e6:.1f} MB) generated in {time.perf_counter() - t0:.1f} s")
        shared = start_engine(data_dir=home / "data", state_dir=home / "state", cache_dir=home / "cache", wait_s=180)
        try:
            base_s = 0.0 if args.growth_only else baseline_lightrag_alone(shared, home / "state", files, args.timeout)
            config = load_config(base / "kb")
            config["providers"] = {"lightrag": {}}
            host = Host(base / "kb", config=config)
            host.status()  # starts this workspace's server now: neither side pays a start-up
            print(f"  ours starts ({_load()})")
            ours_engine = engine_status(workspace_state_dir(home / "state", PREFIX + workspace_tag(host.root)))
            with LoadSampler() as load, PaceSampler(ours_engine) as pace:
                t0, cpu0 = time.perf_counter(), time.process_time()
                pace.t0 = t0
                report = host.ingest([lib], wait=True, wait_s=args.timeout)
                ours, cpu = time.perf_counter() - t0, time.process_time() - cpu0
            print(f"  ours (mnote-kr ingest --wait): {ours:.1f} s  {report.counts}  ({load}; "
                  f"{len(files) / ours:.2f} files/s; mnote-kr's own CPU {cpu:.1f} s, locate preparation included)")
            if pace.progress:
                print(f"    its engine's pace: {_rate(pace.progress, 0.0, 0.25, len(files)):.2f} files/s over the "
                      f"first quarter, {_rate(pace.progress, 0.75, 1.0, len(files)):.2f} over the last "
                      f"({ours_engine.vector_storage if ours_engine else '?'})")
            if not args.growth_only:
                print(f"  ratio ours / LightRAG alone: {ours / base_s:.2f}  (target <= 1.15)")
            growth(host, lib, sizes)
        finally:
            if not args.growth_only:
                stop_engine(home / "state" / "baseline")
            stop_engine(home / "state")
    return 0


if __name__ == "__main__":
    sys.exit(main())
