"""Registry round trip (save + load) of 100,000 entries against the stdlib json module.

Both sides write the same snapshot to a file with fsync and read it back. The baseline is the
FAIR stdlib one: ``json.dumps`` + ``json.loads`` (the C accelerator, one string in memory), not
the pure-Python streaming ``json.dump(data, fh)``; it gets plain dicts (less work than typed,
validated structs). Ours is measured COLD (the in-process snapshot cache is cleared before each
load, so every load decodes) and, apart, WARM (an unchanged file served from the cache, what a
long-running ``serve``/``watch`` sees).
Target: >= 3x faster than the fair stdlib baseline and < 0.5 s per cold round trip.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import msgspec

from mnote_kr.core import registry as registry_module
from mnote_kr.core.registry import Registry, RegistryStore
from mnote_kr.models import IndexedRoot, RegistrySnapshot, SourceEntry

N = int(os.environ.get("BENCH_ENTRIES", "100000"))
ROUNDS = 5


def make_registry(n: int) -> Registry:
    entries = [
        SourceEntry(
            source_id=f"src-{i:016x}",
            source_path=f"/home/user/kb/papers/batch{i // 1000}/paper-{i}.pdf",
            source_root_relative_path=f"papers/batch{i // 1000}/paper-{i}.pdf",
            source_hash="sha256:" + f"{i:064x}",
            size=100_000 + i,
            mtime_ns=1_700_000_000_000_000_000 + i,
            status="processed",
            light_rag_doc_id=f"doc-{i:032x}",
            light_rag_file_path=f"paper-{i}.{i:08x}-{i:08x}.pdf",
            chunk_ids=[f"doc-{i:032x}-chunk-{c:03d}" for c in range(3)],
            indexed_at_ms=1_700_000_000_000 + i,
            updated_at_ms=1_700_000_000_000 + i,
        )
        for i in range(n)
    ]
    snap = RegistrySnapshot(workspace_id="ws-bench", root_uri="file:///home/user/kb",
                            indexed_roots=[IndexedRoot(root_relative_path="papers")], entries=entries)
    return Registry(snap)


def stdlib_round_trip(path: Path, data: dict, held: list) -> float:
    """Save + load; the loaded copy replaces the one the previous round left in memory.

    Both sides pay the same bookkeeping: ours replaces its cached copy of the previous
    generation (freeing 100k decoded entries costs about 0.1 s), so the baseline frees its
    previous copy inside the timed region too.
    """
    t0 = time.perf_counter()
    with open(path, "wb") as fh:
        fh.write(json.dumps(data).encode("utf-8"))
        fh.flush()
        os.fsync(fh.fileno())
    held[:] = [json.loads(path.read_bytes())]
    assert len(held[0]["entries"]) == N
    return time.perf_counter() - t0


def store_round_trip(store: RegistryStore, reg: Registry, *, cold: bool = True) -> float:
    t0 = time.perf_counter()
    store.save(reg)
    if cold:
        registry_module.clear_cache()
    loaded = store.load()
    assert len(loaded.entries) == N
    return time.perf_counter() - t0


def warm_load(store: RegistryStore) -> float:
    t0 = time.perf_counter()
    loaded = store.load()
    assert len(loaded.entries) == N
    return time.perf_counter() - t0


def main() -> int:
    reg = make_registry(N)
    builtins = msgspec.to_builtins(reg.snapshot())
    with tempfile.TemporaryDirectory() as tmp:
        store = RegistryStore(Path(tmp) / "index")
        held: list = []
        base, ours = [], []
        for _ in range(ROUNDS):  # interleaved, so drift on a shared machine hits both sides
            base.append(stdlib_round_trip(Path(tmp) / "plain.json", builtins, held))
            ours.append(store_round_trip(store, reg))
        held.clear()
        store.load()
        warm = [warm_load(store) for _ in range(ROUNDS)]
        tracemalloc.start()
        store_round_trip(store, reg)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        size = store.path.stat().st_size
    b, o = statistics.median(base), statistics.median(ours)
    print(f"registry round trip, {N} entries, file {size / 1e6:.1f} MB, median of {ROUNDS}")
    print(f"  baseline stdlib json.dumps+json.loads (dicts): {b:.3f} s")
    print(f"  mnote-kr RegistryStore save+load, cold:        {o:.3f} s")
    print(f"  speed-up vs the fair stdlib baseline:          {b / o:.1f}x   (target >= 3x)")
    print(f"  absolute:                                      {'OK' if o < 0.5 else 'OVER'} (target < 0.5 s)")
    print(f"  warm load (unchanged file, cache hit):         {statistics.median(warm) * 1000:.1f} ms")
    print(f"  peak traced memory during round trip: {peak / 1e6:.0f} MB")
    # A lower bound for the cold round trip on this machine: the same bytes written with fsync
    # and read back, with no encoding or decoding at all.
    data = msgspec.json.encode(reg.snapshot())
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw.json"
        floors = []
        for _ in range(ROUNDS):
            t0 = time.perf_counter()
            with open(raw, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            raw.read_bytes()
            floors.append(time.perf_counter() - t0)
    print(f"  floor: write+fsync+read of the bytes alone:    {statistics.median(floors):.3f} s "
          f"({len(data) / 1e6:.0f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
