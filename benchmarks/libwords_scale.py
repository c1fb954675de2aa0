"""What the library's word counts (``libwords``) cost ingest's preparation as a library grows.

N small DOCX files (paragraphs sampled, seeded, from the repo's corpus copies ``tests/data/corpus/docx``) are
prepared by the host's own step (``Host._prepare_locate``: the locators parse each file and queue its places, which
``libwords`` counts) in one call, as an ingest of N files does; then U of them are changed and prepared one call
each, as ``watch`` follows edits. Each is run with the counts off (the baseline: nothing gathered, as before they
were kept) and on, each run in a fresh workspace and cache. Reported: seconds and the on/off ratio, and the bytes
written to the ``libwords`` files (counts and each file's words), all measured in this run.

    .venv/bin/python benchmarks/libwords_scale.py --files 1000 --updates 100
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS_DOCX = REPO / "tests" / "data" / "corpus" / "docx"


def paragraphs() -> list[str]:
    import docx

    got: list[str] = []
    for path in sorted(CORPUS_DOCX.glob("*.docx")):
        try:
            got += [p.text.strip() for p in docx.Document(str(path)).paragraphs if len(p.text.strip()) >= 20]
        except Exception:  # noqa: BLE001 - a corpus file python-docx cannot read: its paragraphs are not sampled
            continue
    return got


def write_doc(path: Path, texts: list[str]) -> None:
    import docx

    d = docx.Document()
    for t in texts:
        d.add_paragraph(t)
    d.save(str(path))


@contextlib.contextmanager
def counted_writes() -> Iterator[dict[str, int]]:
    """Bytes written whole (``core.atomic.write_atomic``) to the ``libwords`` files while open."""
    from mnote_kr.core import atomic

    real = atomic.write_atomic
    seen = {"bytes": 0, "writes": 0}

    def counting(path: Path | str, data: str | bytes, **kw: object) -> None:
        if "libwords" in str(path):
            seen["bytes"] += len(data)
            seen["writes"] += 1
        real(path, data, **kw)  # type: ignore[arg-type]

    atomic.write_atomic = counting  # type: ignore[assignment]
    try:
        yield seen
    finally:
        atomic.write_atomic = real


@contextlib.contextmanager
def counts_off() -> Iterator[list[str]]:
    yield []  # nothing gathered: no file is counted, nothing written


def run(tmp: Path, docs: dict[str, list[str]], updates: dict[str, list[str]], on: bool) -> dict[str, float]:
    from mnote_kr.app.host import Host
    from mnote_kr.citations.caches import libwords
    from mnote_kr.citations.rank import meaning

    home, ws = tmp / "home", tmp / "ws"
    os.environ["MNOTE_KR_HOME"] = str(home)
    (ws / "docs").mkdir(parents=True)
    for name, texts in docs.items():
        write_doc(ws / "docs" / name, texts)
    host = Host(ws)
    host.roots_add("docs")
    real_collecting = libwords.collecting
    if not on:
        libwords.collecting = counts_off  # type: ignore[assignment]
    try:
        with counted_writes() as w:
            t0 = time.perf_counter()
            host._prepare_locate([(str(ws / "docs" / n), f"docs/{n}") for n in docs])
            ingest_s = time.perf_counter() - t0
            ingest_bytes = w["bytes"]
            meaning._queue.clear()
            update_s = 0.0
            for name, texts in updates.items():
                write_doc(ws / "docs" / name, texts)
                t0 = time.perf_counter()
                host._prepare_locate([(str(ws / "docs" / name), f"docs/{name}")])
                update_s += time.perf_counter() - t0
                meaning._queue.clear()
        lib = libwords.load(host.workspace.index_dir)
    finally:
        libwords.collecting = real_collecting
        shutil.rmtree(tmp, ignore_errors=True)
    return {"ingest_s": ingest_s, "ingest_bytes": ingest_bytes, "update_s": update_s,
            "update_bytes": w["bytes"] - ingest_bytes, "files": lib.files if lib else 0}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--updates", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    sys.path[:0] = [str(REPO)]
    pool = paragraphs()
    rng = random.Random(args.seed)
    docs = {f"f{i:05d}.docx": rng.sample(pool, rng.randint(8, 40)) for i in range(args.files)}
    updates = {n: rng.sample(pool, rng.randint(8, 40)) for n in rng.sample(sorted(docs), args.updates)}
    print(f"{args.files} files of 8-40 paragraphs from {len(pool)} corpus paragraphs; {args.updates} updates")
    got = {}
    for on in (False, True):
        got[on] = run(Path(tempfile.mkdtemp(prefix="mnote-bench-libwords-scale-")), docs, updates, on)
    off, on_ = got[False], got[True]
    print(f"counts: {on_['files']} files")
    print(f"ingest of {args.files}: off {off['ingest_s']:.1f} s, on {on_['ingest_s']:.1f} s "
          f"(x{on_['ingest_s'] / off['ingest_s']:.3f}); libwords bytes written {on_['ingest_bytes']:,}")
    print(f"{args.updates} one-file updates: off {off['update_s']:.1f} s, on {on_['update_s']:.1f} s "
          f"(x{on_['update_s'] / off['update_s']:.3f}); libwords bytes written {on_['update_bytes']:,} "
          f"({on_['update_bytes'] / max(args.updates, 1):,.0f} a update)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
