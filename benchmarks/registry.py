"""Registry round trip (save + cold load) of 100,000 entries against the stdlib json module.

Both sides write the same snapshot to a file with fsync and read it back. The baseline is the
FAIR stdlib one: ``json.dumps`` + ``json.loads`` (the C accelerator, one string in memory), not
the pure-Python streaming ``json.dump(data, fh)``; it gets plain dicts (less work than typed,
validated structs). Equal accounting: each side replaces, inside the timed region, what the
previous round loaded (freeing 100k decoded entries is not free), and each side's save starts
from entry objects it has never encoded (ours: a fresh ``Registry`` built before the clock starts,
so no packed bytes can be reused).

Ours is measured COLD (the in-process snapshot cache is cleared before each load, so every load
decodes the file) in two ways, each with its ratio:
  * round trip + one lookup by path: what most commands do (``locate``, ``open``, one ``ingest``);
    the packed snapshot decodes only its key list, and the looked-up entry on first read;
  * round trip + every entry read: what a full sync does (all entries decoded);
  * round trip + what ``status`` asks of every entry: counts by status, the failed entries with
    their reasons, every provider doc id and name (the stdlib side computes the same from its
    dicts; ours answers from the snapshot's columns).
The previous format (one JSON snapshot, every entry decoded at load) is measured in the same
rounds, for old-vs-new in one run. Apart: a cold load in a FRESH PROCESS (file not in any
process cache; the OS page cache is warm for both sides), the WARM load (unchanged file, what a
long-running ``serve``/``watch`` sees), a save after changing one entry, and the file sizes.
Target: >= 3x faster than the fair stdlib baseline and < 0.5 s per cold round trip.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import msgspec

from mnote_kr.core import registry as registry_module
from mnote_kr.core import registry_format
from mnote_kr.core.registry import Registry, RegistryStore
from mnote_kr.models import IndexedRoot, RegistrySnapshot, SourceEntry

N = int(os.environ.get("BENCH_ENTRIES", "100000"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
PROBE = f"papers/batch{(N // 2) // 1000}/paper-{N // 2}.pdf"  # the entry each lookup reads


FAILED_EVERY = 1000  # one entry in 1,000 failed (status lists it with its reason)

#: Chunk ids per file as the managed engine records them (400-token chunks), measured by
#: ingesting 12 files of tests/data/corpus with ``mnote-kr ingest --wait`` and counting each
#: entry's ``chunkIds`` in ``registry export`` (docling__Strict, docling__word_sample,
#: khoj__bangalore, kotaemon__dummy, markitdown__test.pdf, mineru__demo1.pdf, mineru__test,
#: pdfjs__tracemonkey.pdf, pdfminer__naacl06-shinyama.pdf, poi__stress014, tika__017091,
#: unstructured__tables-with-incomplete-rows): mean 22, about 2.2 million ids at 100,000 files.
#: (Until 2026-12-01 every entry had three: a seventh of the ids, 68 MB of a real 159 MB snapshot.)
CHUNKS_PER_FILE = (1, 1, 106, 5, 3, 36, 4, 56, 22, 6, 23, 1)


def make_snapshot(n: int) -> RegistrySnapshot:
    entries = [
        SourceEntry(
            source_id=f"src-{i:016x}",
            source_path=f"/home/user/kb/papers/batch{i // 1000}/paper-{i}.pdf",
            source_root_relative_path=f"papers/batch{i // 1000}/paper-{i}.pdf",
            # Real digests (incompressible hex), not a counter padded with zeros.
            source_hash="sha256:" + hashlib.sha256(str(i).encode()).hexdigest(),
            size=100_000 + i,
            mtime_ns=1_700_000_000_000_000_000 + i,
            status="failed" if i % FAILED_EVERY == FAILED_EVERY - 1 else "processed",
            last_error="parser error" if i % FAILED_EVERY == FAILED_EVERY - 1 else None,
            light_rag_doc_id=f"doc-{i:032x}",
            light_rag_file_path=f"paper-{i}.{i:08x}-{i:08x}.pdf",
            chunk_ids=[] if i % FAILED_EVERY == FAILED_EVERY - 1 else  # failed: none, as the provider records
            [f"doc-{i:032x}-chunk-{c:03d}" for c in range(CHUNKS_PER_FILE[i % len(CHUNKS_PER_FILE)])],
            indexed_at_ms=1_700_000_000_000 + i,
            updated_at_ms=1_700_000_000_000 + i,
        )
        for i in range(n)
    ]
    return RegistrySnapshot(workspace_id="ws-bench", root_uri="file:///home/user/kb",
                            indexed_roots=[IndexedRoot(root_relative_path="papers")], entries=entries)


def make_registry(n: int) -> Registry:
    """A registry of ``n`` synthetic processed entries (also used by benchmarks/library.py)."""
    return Registry(make_snapshot(n))


N_FAILED = N // FAILED_EVERY


def stdlib_status(entries: list[dict]) -> tuple[dict[str, int], list, int]:
    """What ``status`` asks of every entry, from plain dicts."""
    counts: dict[str, int] = {}
    for e in entries:
        key = "stale" if e.get("stale") else e["status"]
        counts[key] = counts.get(key, 0) + 1
    failed = [(e["sourceRootRelativePath"], e.get("lastError")) for e in entries
              if e["status"] == "failed" and not e.get("stale")]
    known = {e.get("lightRagDocId") for e in entries} | {e.get("lightRagFilePath") for e in entries}
    return counts, failed, len(known)


def ours_status(reg: Registry) -> tuple[dict[str, int], list, int]:
    """The same, as ``Host.status`` asks it (columns; the failed entries' notes)."""
    cols = reg.all_entries().columns()
    failed = [(rel, n.last_error) for rel, n in reg.notes(registry_module.failed_tag)]
    return reg.counts(), failed, len(set(cols.doc_ids) | set(cols.names))


def stdlib_round_trip(path: Path, data: dict, held: list, *, read_all: bool, status: bool = False) -> float:
    """Save + load with the stdlib; the loaded copy replaces the one the previous round left."""
    t0 = time.perf_counter()
    with open(path, "wb") as fh:
        fh.write(json.dumps(data).encode("utf-8"))
        fh.flush()
        os.fsync(fh.fileno())
    loaded = json.loads(path.read_bytes())
    held[:] = [loaded]
    assert len(loaded["entries"]) == N
    if status:
        counts, failed, _ = stdlib_status(loaded["entries"])
        assert counts["failed"] == len(failed) == N_FAILED
    elif read_all:  # json.loads built every entry already; reading them is what a caller does next
        assert sum(1 for e in loaded["entries"] if e["status"] == "processed") == N - N_FAILED
    else:  # a lookup by path: the stdlib side has a list, so it builds the index a caller needs
        by_path = {e["sourceRootRelativePath"]: e for e in loaded["entries"]}
        assert by_path[PROBE]["status"] == "processed"
    return time.perf_counter() - t0


def store_round_trip(store: RegistryStore, fresh: Registry, held: list, *, read_all: bool,
                     status: bool = False) -> float:
    """Save a registry of never-encoded entries, clear the process cache, load, read."""
    t0 = time.perf_counter()
    store.save(fresh)
    registry_module.clear_cache()
    loaded = store.load()
    held[:] = [loaded]
    assert len(loaded.entries) == N
    if status:
        counts, failed, _ = ours_status(loaded)
        assert counts["failed"] == len(failed) == N_FAILED
    elif read_all:
        assert sum(1 for e in loaded.entries.values() if e.status == "processed") == N - N_FAILED
    else:
        assert loaded.entries[PROBE].status == "processed"
    return time.perf_counter() - t0


def atomic_write(path: Path, data: bytes) -> None:
    """What ``RegistryStore.save`` did with the JSON snapshot: temp file, fsync, the current file
    kept as ``.prev`` (hard link), rename, directory fsync."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    if path.exists():
        prev = path.with_name(path.name + ".prev")
        prev.unlink(missing_ok=True)
        os.link(path, prev)
    os.replace(tmp, path)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def previous_format_round_trip(path: Path, fresh: Registry, held: list) -> float:
    """The format before this one, still the import/legacy path: one msgspec JSON snapshot,
    every entry decoded at load (what every command paid until the packed snapshot)."""
    t0 = time.perf_counter()
    atomic_write(path, registry_format.encode_json(fresh.snapshot()))
    loaded = registry_module.decode_snapshot(path.read_bytes(), path)
    held[:] = [loaded]
    assert len(loaded.entries) == N and loaded.entries[PROBE].status == "processed"
    return time.perf_counter() - t0


def timed(fn: Any) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def write_read(path: Path, data: bytes) -> None:
    with open(path, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    path.read_bytes()


FRESH_PROCESS = r"""
import json, sys, time
from pathlib import Path
kind, path, probe = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
if kind == "stdlib":
    t0 = time.perf_counter()
    data = json.loads(path.read_bytes())
    assert {e["sourceRootRelativePath"]: e for e in data["entries"]}[probe]["status"] == "processed"
    t1 = time.perf_counter()
    assert sum(1 for e in data["entries"] if e["status"] in ("processed", "failed")) == len(data["entries"])
else:
    from mnote_kr.core.registry import RegistryStore
    t0 = time.perf_counter()
    reg = RegistryStore(path).load()
    assert reg.entries[probe].status == "processed"
    t1 = time.perf_counter()
    assert sum(1 for e in reg.entries.values() if e.status in ("processed", "failed")) == len(reg.entries)
print(t1 - t0, time.perf_counter() - t0)
"""


def fresh_process(kind: str, path: Path) -> tuple[float, float]:
    """(load + lookup, load + read all) timed inside a new interpreter (start-up excluded)."""
    out = subprocess.run([sys.executable, "-c", FRESH_PROCESS, kind, str(path), PROBE],
                         check=True, capture_output=True, text=True).stdout.split()
    return float(out[0]), float(out[1])


def breakdown(store: RegistryStore, snap: RegistrySnapshot) -> dict[str, float]:
    """Where a cold lookup round trip's time goes (medians): the save's encoding and writing
    (``write_packed``: the entries are encoded and written chunk by chunk; wall and CPU), its
    fsync + renames, the header-only load, the lookup, and a whole decode."""
    parts: dict[str, list[float]] = {k: [] for k in ("encode", "encode_cpu", "write", "load", "lookup", "read_all")}
    original = registry_format.write_packed

    def encode(*args: Any, **kwargs: Any) -> Any:
        w, c = time.perf_counter(), time.process_time()
        out = original(*args, **kwargs)
        parts["encode"].append(time.perf_counter() - w)
        parts["encode_cpu"].append(time.process_time() - c)
        return out

    registry_format.write_packed = encode
    try:
        for _ in range(ROUNDS):
            fresh = Registry(snap)
            t0 = time.perf_counter()
            store.save(fresh)
            parts["write"].append(time.perf_counter() - t0 - parts["encode"][-1])
            registry_module.clear_cache()
            t0 = time.perf_counter()
            loaded = store.load()
            t1 = time.perf_counter()
            loaded.entries[PROBE]
            t2 = time.perf_counter()
            loaded.entries._packed.decode_all()  # type: ignore[union-attr]
            parts["read_all"].append(time.perf_counter() - t2)
            parts["load"].append(t1 - t0)
            parts["lookup"].append(t2 - t1)
            del loaded, fresh
    finally:
        registry_format.write_packed = original
    return {k: statistics.median(v) for k, v in parts.items()}


def main() -> int:
    snap = make_snapshot(N)
    builtins = msgspec.to_builtins(snap)
    results: dict[str, list[float]] = {k: [] for k in ("base_lookup", "ours_lookup", "base_all", "ours_all",
                                                       "base_status", "ours_status", "previous")}
    with tempfile.TemporaryDirectory() as tmp:
        store = RegistryStore(Path(tmp) / "index")
        plain = Path(tmp) / "plain.json"
        # What each series loaded last round: it frees it in its own next round (equal accounting).
        held: dict[str, list] = {k: [] for k in results}
        cpu: dict[str, list[float]] = {k: [] for k in results}  # process CPU time: what the load does not inflate
        for _ in range(ROUNDS):  # interleaved, so drift on a shared machine hits all sides
            for read_all, status, suffix in ((False, False, "lookup"), (True, False, "all"), (False, True, "status")):
                c0 = time.process_time()
                results["base_" + suffix].append(
                    stdlib_round_trip(plain, builtins, held["base_" + suffix], read_all=read_all, status=status))
                cpu["base_" + suffix].append(time.process_time() - c0)
                fresh = Registry(snap)  # entry structs only: the save encodes every one
                c0 = time.process_time()
                results["ours_" + suffix].append(
                    store_round_trip(store, fresh, held["ours_" + suffix], read_all=read_all, status=status))
                cpu["ours_" + suffix].append(time.process_time() - c0)
            results["previous"].append(
                previous_format_round_trip(Path(tmp) / "previous.json", Registry(snap), held["previous"]))
        held.clear()
        # Warm: an unchanged file is served from the process cache.
        store.load()
        warm = [timed(lambda: store.load().entries[PROBE]) for _ in range(ROUNDS)]
        # A transaction's save after changing one entry of a loaded registry.
        reg = store.load()
        one = []
        for i in range(ROUNDS):
            reg.update(PROBE, retry_count=i + 1)
            one.append(timed(lambda: store.save(reg)))
        # Fresh processes: nothing cached in the interpreter.
        export = Path(tmp) / "export.json"
        export.write_bytes(store.export_json())
        fresh_base = [fresh_process("stdlib", plain) for _ in range(3)]
        fresh_ours = [fresh_process("ours", store.index_dir) for _ in range(3)]
        size_packed, size_json, size_export = store.path.stat().st_size, plain.stat().st_size, export.stat().st_size
        gc.collect()
        tracemalloc.start()
        store_round_trip(store, Registry(snap), [], read_all=True)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        parts = breakdown(store, snap)
        data = store.path.read_bytes()
        floors = []
        raw = Path(tmp) / "raw.bin"
        for _ in range(ROUNDS):  # the bytes alone, written with fsync and read back
            floors.append(timed(lambda: write_read(raw, data)))
    med = {k: statistics.median(v) for k, v in results.items()}
    print(f"registry round trip, {N} entries, median of {ROUNDS} (interleaved), load {os.getloadavg()[0]:.2f}")
    print(f"  files: packed snapshot {size_packed / 1e6:.1f} MB; stdlib JSON {size_json / 1e6:.1f} MB; "
          f"'registry export' JSON {size_export / 1e6:.1f} MB")
    for suffix, label in (("lookup", "save + cold load + one lookup by path"),
                          ("all", "save + cold load + read every entry"),
                          ("status", "save + cold load + what status asks of every entry")):
        b, o = med["base_" + suffix], med["ours_" + suffix]
        bc, oc = statistics.median(cpu["base_" + suffix]), statistics.median(cpu["ours_" + suffix])
        print(f"  {label}:")
        print(f"    baseline stdlib json.dumps+json.loads (dicts): {b:.3f} s   (CPU {bc:.3f} s)")
        print(f"    mnote-kr RegistryStore, cold:                  {o:.3f} s   "
              f"{b / o:.1f}x the baseline (target >= 3x), {'OK' if o < 0.5 else 'OVER'} (target < 0.5 s)   "
              f"(CPU {oc:.3f} s, {bc / oc:.1f}x)")
    print("  the previous format (one JSON snapshot, all entries decoded), save + cold load + lookup:")
    print(f"    {med['previous']:.3f} s   {med['base_lookup'] / med['previous']:.1f}x the baseline; "
          f"the packed snapshot takes {med['ours_lookup'] / med['previous']:.2f} of its time")
    fb = [statistics.median(x[k] for x in fresh_base) for k in (0, 1)]
    fo = [statistics.median(x[k] for x in fresh_ours) for k in (0, 1)]
    print("  cold load in a fresh process (median of 3; interpreter start-up excluded):")
    print(f"    load + lookup:   stdlib {fb[0]:.3f} s, mnote-kr {fo[0]:.3f} s ({fb[0] / fo[0]:.1f}x)")
    print(f"    load + read all: stdlib {fb[1]:.3f} s, mnote-kr {fo[1]:.3f} s ({fb[1] / fo[1]:.1f}x)")
    print(f"  warm load + lookup (unchanged file, cache hit): {statistics.median(warm) * 1000:.1f} ms")
    print(f"  save after changing one entry of a loaded registry: {statistics.median(one):.3f} s")
    print(f"  peak traced memory during a read-all round trip: {peak / 1e6:.0f} MB")
    print(f"  floor: write+fsync+read of the packed bytes alone: {statistics.median(floors):.3f} s")
    print(f"  breakdown of a cold lookup round trip: save = encode + write {parts['encode']:.3f} s "
          f"(CPU {parts['encode_cpu']:.3f} s) + fsync, renames {parts['write']:.3f} s; "
          f"header-only load {parts['load']:.3f} s; lookup (one chunk read and decoded) {parts['lookup']:.3f} s; "
          f"decoding every entry after it {parts['read_all']:.3f} s")
    print(f"  load average at the end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
