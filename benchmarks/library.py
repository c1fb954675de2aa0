"""A whole library through the managed engine, against LightRAG alone (issue 14).

1. Generates a library (``--files``, default 2,000): Markdown, DOCX and PDF in a 4:3:3 mix, of
   realistic sizes (notes of 1-4 KB, reports of 20-60 paragraphs, papers of 2-4 pages), every
   file with its own content (LightRAG de-duplicates identical content).
2. BASELINE, LightRAG alone: the same files COPIED into the input dir of a LightRAG namespace
   of its own and one ``/documents/scan``; timed until every document is processed or failed.
3. OURS: ``mnote-kr ingest <library> --wait`` through the Host API on the managed engine
   (its own namespace and server, started beforehand so neither side pays a server start).
   Prints ours / baseline (target <= 1.15).
4. The time of ``status``, ``search`` and an unchanged re-``ingest`` at the real registry size,
   then with synthetic entries added up to ``--entries`` (default 20,000), cold (snapshot cache
   cleared) and warm.

Both sides use the same server build, offline models and parser rules. Run:
``.venv/bin/python benchmarks/library.py [--files 2000] [--entries 20000]``
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

from mnote_kr.core import registry as registry_module
from mnote_kr.core.config import load_config
from mnote_kr.core.host import Host
from mnote_kr.models import SourceEntry
from mnote_kr_lightrag.engine import EngineInfo, start_engine, stop_engine

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
    store = Path(info.working_dir) / "baseline_alone" / "vdb_chunks.json"
    if store.is_file():
        print(f"    LightRAG's own pace: {_rate(progress, 0.0, 0.25, len(files)):.2f} files/s over the first quarter, "
              f"{_rate(progress, 0.75, 1.0, len(files)):.2f} over the last; its vector store ends at "
              f"{store.stat().st_size / 1e6:.0f} MB, written whole after every document")
    return took


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


def measure_commands(host: Host, lib: Path, label: str) -> None:
    n = len(host.registry().entries)
    status = _timed(host.status)
    status_cold = _timed(_cold(host.status))
    search = _timed(lambda: host.search("turbine blade icing heater", mode="naive"))
    search_cold = _timed(_cold(lambda: host.search("turbine blade icing heater", mode="naive")))
    again = _timed(lambda: host.ingest([lib]), rounds=1)
    print(f"  {label:<24} entries {n:>6}: status {status * 1000:7.0f} ms (cold {status_cold * 1000:.0f}), "
          f"search {search * 1000:6.0f} ms (cold {search_cold * 1000:.0f}), unchanged re-ingest {again * 1000:7.0f} ms")


def add_synthetic(host: Host, total: int) -> None:
    with host.store.transaction() as reg:
        for i in range(len(reg.entries), total):
            rel = f"synthetic/s{i:06d}.pdf"
            reg.put(SourceEntry(source_id=f"syn-{i:012x}", source_path=str(host.root / rel),
                                source_root_relative_path=rel, source_hash="sha256:" + f"{i:064x}", size=1000 + i,
                                mtime_ns=1_700_000_000_000_000_000 + i, status="processed",
                                light_rag_doc_id=f"doc-{i:032x}", light_rag_file_path=f"s{i:06d}.{i:08x}-{i:08x}.pdf"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--entries", type=int, default=20000)
    parser.add_argument("--timeout", type=float, default=7200)
    args = parser.parse_args()
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
            base_s = baseline_lightrag_alone(shared, home / "state", files, args.timeout)
            config = load_config(base / "kb")
            config["providers"] = {"lightrag": {}}
            host = Host(base / "kb", config=config)
            host.status()  # starts this workspace's server now: neither side pays a start-up
            print(f"  ours starts ({_load()})")
            with LoadSampler() as load:
                t0, cpu0 = time.perf_counter(), time.process_time()
                report = host.ingest([lib], wait=True, wait_s=args.timeout)
                ours, cpu = time.perf_counter() - t0, time.process_time() - cpu0
            print(f"  ours (mnote-kr ingest --wait): {ours:.1f} s  {report.counts}  ({load}; "
                  f"{len(files) / ours:.2f} files/s; mnote-kr's own CPU {cpu:.1f} s, locate preparation included)")
            print(f"  ratio ours / LightRAG alone: {ours / base_s:.2f}  (target <= 1.15)")
            measure_commands(host, lib, "real entries")
            add_synthetic(host, args.entries)
            measure_commands(host, lib, "with synthetic entries")
        finally:
            stop_engine(home / "state" / "baseline")
            stop_engine(home / "state")
    return 0


if __name__ == "__main__":
    sys.exit(main())
