"""Ingest planning overhead (walk, hash, registry diff) for 10,000 files.

Baselines measured in the same run:
* ``sha256sum`` over the same files (the cost of just hashing them), target: first run within 2x;
* the first planning run, target: an unchanged second run under 10% of it (it stats, never hashes).
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mnote_kr.app.host import Host
from mnote_kr.core.config import load_config
from mnote_kr.models import SourceEntry

N = int(os.environ.get("BENCH_FILES", "10000"))
# Document-like sizes (the corpus' DOCX/PDF files are 10 KB - 4 MB); BENCH_MAX_KB=12 gives tiny notes.
MAX_KB = int(os.environ.get("BENCH_MAX_KB", "120"))


def make_tree(root: Path, n: int) -> list[Path]:
    rng = random.Random(7)
    files = []
    for i in range(n):
        folder = root / "kb" / f"d{i % 50:02d}" / f"s{i % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"note-{i:05d}.md"
        path.write_bytes(rng.randbytes(rng.randint(MAX_KB * 80, MAX_KB * 1000)))
        files.append(path)
    return files


def main() -> int:
    tmp = Path(tempfile.mkdtemp(prefix="mnote-bench-ingest-"))
    os.environ.setdefault("MNOTE_KR_HOME", str(tmp / "home"))
    try:
        files = make_tree(tmp, N)
        listing = tmp / "files.txt"
        listing.write_text("\n".join(str(f) for f in files) + "\n")
        sha_tool = shutil.which("sha256sum")
        t0 = time.perf_counter()
        if sha_tool:
            with open(listing) as fh:
                subprocess.run(["xargs", "-d", "\n", sha_tool], stdin=fh, stdout=subprocess.DEVNULL, check=True)
        base = time.perf_counter() - t0

        config = load_config(tmp / "kb")
        config["max_files_per_call"] = N * 2
        host = Host(tmp / "kb", config=config)

        t0 = time.perf_counter()
        sources, report = host.plan_ingest(["."])
        with host.store.transaction() as reg:  # what a finished ingest leaves behind
            for s in sources:
                reg.put(SourceEntry(source_id=s.source_id, source_path=s.path, source_root_relative_path=s.rel_path,
                                    source_hash=s.sha256, size=s.size, mtime_ns=s.mtime_ns, status="processed"))
        first = time.perf_counter() - t0
        assert len(sources) == N, (len(sources), report.skipped[:3])

        t0 = time.perf_counter()
        walked = sum(1 for folder, _, names in os.walk(tmp / "kb") for n in names if os.stat(os.path.join(folder, n)))
        plain_walk = time.perf_counter() - t0

        t0 = time.perf_counter()
        again, report2 = host.plan_ingest(["."])
        second = time.perf_counter() - t0
        assert not again and sum(i.status == "already_registered" for i in report2.items) == N

        # A walk asks the provider once which new walked files it cannot index (a suffix check; the
        # unchanged run asks nothing): the check over every name, CPU time, against the first run.
        names = [i.source_path for i in report2.items] + [f"kb/odd-{i}.bin" for i in range(N // 100)]
        t0 = time.process_time()
        for _ in range(5):
            cannot = host.unindexable(names)
        hook = (time.process_time() - t0) / 5
        assert len(cannot) == N // 100

        print(f"ingest planning, {N} files ({sum(f.stat().st_size for f in files) / 1e6:.0f} MB)")
        print(f"  baseline sha256sum over the same files: {base:.3f} s")
        print(f"  first run (walk + hash + registry):     {first:.3f} s   ratio {first / base:.2f}x (target <= 2x)")
        print(f"  unchanged second run (walk + stat):     {second:.3f} s   {100 * second / first:.1f}% of first "
              f"(target < 10%)")
        print(f"  unindexable hook over {len(names)} new names ({N // 100} .bin): {1000 * hook:.1f} ms CPU, "
              f"{100 * hook / first:.1f}% of the first run (the unchanged run does not ask)")
        print(f"  for scale: plain os.walk + stat of the {walked} files: {plain_walk:.3f} s "
              f"(second run = {second / plain_walk:.2f}x of it)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
