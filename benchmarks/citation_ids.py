"""Citation IDs: the ID store's bytes against its previous encoding, ``open``-by-ID against the former log.

The store (``mnote_kr.citations.caches.citecache`` over ``idstore``: SQLite, one row per ID, one
search's records deflated together) is measured against two earlier versions in the same run, with the
same IDs: its previous encoding (``PreviousStore``: one record deflated alone a row, schema 2, as of
commit 3745dfe) and the log it replaced (``citations.jsonl``, 4 MiB x 2 generations, as of commit
e54a0bb): its ``open`` read both generations whole and decoded every line; its ``remember``
appended one JSON line per citation under a file lock. Both sides get the same citations in the
same run: searches of 15 citations each (a file's place and two alternatives, the shape of a real
search), their quotes cut from this repository's docs (real prose; a record packs as a real one does).

* **write:** one search's ``remember`` (15 citations), median and p95, while the store fills up;
* **disk:** bytes for ``--ids`` and ``--big`` IDs (database and its write-ahead log), bytes per ID and
  where they go (records, ``ids`` pages' slack, the index, free pages: SQLite's ``dbstat``), against the
  previous encoding (a ratio); the log's size at its cap and how many IDs it still knew;
* **levels** (``--levels``): a pack's bytes and packing time at zlib levels 1, 6 and 9;
* **open, warm:** ``citecache.issued`` of a random ID in a process that looked one up before
  (``serve``, ``mcp``); the log side: its ``load`` (both generations read and decoded);
* **open, cold:** a fresh Python process's first lookup (modules imported before the clock starts; the
  OS page cache is warm for both sides: the machine is shared, it is never dropped).

    .venv/bin/python benchmarks/citation_ids.py [--ids 10000] [--big 110000] [--rounds 300] [--cold 11] [--levels]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import msgspec

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

LOG_CAP = 4 * 1024 * 1024  # the former log's CITATION_LOG_MAX_BYTES
PER_SEARCH = 15


def _prose() -> list[str]:
    text = " ".join(p.read_text(encoding="utf-8") for p in sorted((REPO / "docs").glob("*.md")))
    words = text.split()
    # apart, never overlapping: records of neighbouring passages would share their words and deflate together
    # far better than a real search's (``--real`` measures those)
    return [" ".join(words[i:i + 300]) for i in range(0, len(words) - 300, 300)]


def _citation(cid: str, n: int, chunks: list[str], alts: list[Any]) -> Any:
    from mnote_kr.models import Citation, CitationDiagnostics, Locator

    chunk = chunks[n % len(chunks)]
    rel = f"docs/file{n // 40}.docx"
    loc = Locator(locator_precision="paragraph", locator_degraded=True, paragraph_index=n % 40, block_id=f"b{n:032x}",
                  score=1.0, locator_plugin="docx_locator",
                  reason="semantic match: placed by meaning and query terms among the passage's paragraphs (seg)",
                  locator_reason="semantic match: placed by meaning and query terms among the passage's paragraphs")
    return Citation(
        provider="lightrag", citation_id=cid, source_id=f"src-{n // 40:012x}", source_path=f"/home/u/notes/{rel}",
        source_root_relative_path=rel, light_rag_doc_id=f"doc-{n // 40:032x}",
        light_rag_file_path=f"file{n // 40}.docx",
        light_rag_chunk_id=f"chunk-{n:032x}", block_id=f"b{n:032x}", heading_path=["Design", "Citations"],
        raw_quote=chunk, display_quote=chunk[:500], context_quote=chunk, locator_evidence_text=chunk[200:900],
        quote_source="sidecar", search_query=f"question number {n // PER_SEARCH}", locator_precision="paragraph",
        locator_degraded=True, locator=loc,
        citation_url=f"mnote-kr://open?path={rel}&precision=paragraph&paragraph={n % 40}",
        citation_markdown=f"[file{n // 40}.docx · paragraph {n % 40 + 1} (approximate location)](mnote-kr://x)",
        relevance_score=0.5, alternatives=alts, source_map_path=f"/home/u/.mnote/__parsed__/file{n // 40}.blocks.jsonl",
        diagnostics=CitationDiagnostics(quote_source="sidecar", raw_reference_mapped=True, sidecar_block_mapped=True,
                                        display_cleaned=True, locator_text_source="sidecar"))


def searches(count: int, chunks: list[str]) -> list[list[Any]]:
    """``count`` IDs in searches of ``PER_SEARCH``: 5 files, each a citation with two alternatives."""
    from mnote_kr.models import Place

    out = []
    for s in range(count // PER_SEARCH):
        batch = []
        for f in range(PER_SEARCH // 3):
            n = s * PER_SEARCH + f * 3
            folded = [_citation(f"[{n + k:05x}]", n + k, chunks, []) for k in (1, 2)]
            alts = [Place(citation_id=c.citation_id, locator_precision="paragraph", locator=c.locator,
                          display_quote=c.display_quote, relevance_score=0.4, citation_url=c.citation_url)
                    for c in folded]
            batch += [_citation(f"[{n:05x}]", n, chunks, alts), *folded]
        out.append(batch)
    return out


def hash_of(rel: str) -> str:
    """A file's content hash in the registry (what a record keeps of it), one per file."""
    return "sha256:" + hashlib.sha256(rel.encode()).hexdigest()


class _Hashes:
    """The registry's entries as ``citecache`` asks them: every file has its hash."""

    def get(self, rel: str) -> Any:
        return SimpleNamespace(source_hash=hash_of(rel))


class PreviousStore:
    """The store as the previous version wrote it (3745dfe): schema 2, SQLite's default checkpoints, one
    record (``idrecord.encode``, format 1) a row, upserted and evicted by rowid in one transaction."""

    SCHEMA = """
    CREATE TABLE IF NOT EXISTS ids (id TEXT NOT NULL UNIQUE, place INTEGER NOT NULL, record BLOB NOT NULL);
    CREATE TABLE IF NOT EXISTS gone (id TEXT PRIMARY KEY, place INTEGER NOT NULL) WITHOUT ROWID;
    PRAGMA user_version = 2;
    """

    def __init__(self, path: Path, keep: int) -> None:
        import sqlite3

        self.path, self.keep = path, keep
        self.con = sqlite3.connect(path, isolation_level=None)
        self.con.execute("PRAGMA journal_mode=WAL")
        self.con.execute("PRAGMA synchronous=NORMAL")
        self.con.executescript(self.SCHEMA)

    def remember(self, citations: list[Any]) -> None:
        from mnote_kr.citations.caches import idrecord

        rows = [(c.citation_id, idrecord.place_of(c), idrecord.encode(c, hash_of(c.source_root_relative_path)))
                for c in citations]
        con = self.con
        con.execute("BEGIN IMMEDIATE")
        con.executemany("INSERT OR REPLACE INTO ids (id, place, record) VALUES (?, ?, ?)", rows)
        con.executemany("DELETE FROM gone WHERE id = ?", [(r[0],) for r in rows])
        top = con.execute("SELECT max(rowid) FROM ids").fetchone()[0]
        if top > self.keep:
            con.execute("INSERT OR REPLACE INTO gone SELECT id, place FROM ids WHERE rowid <= ?", (top - self.keep,))
            con.execute("DELETE FROM ids WHERE rowid <= ?", (top - self.keep,))
        con.execute("COMMIT")


class FormerLog:
    """The former log (e54a0bb): ``remember`` appends a JSON line a citation under the file lock, past 4 MiB
    the log becomes ``.1``; ``open`` reads and decodes both generations whole, later lines winning."""

    def __init__(self, folder: Path) -> None:
        from mnote_kr.citations.caches.citecache import _Issued

        self.path = folder / "citations.jsonl"
        self.prev = folder / "citations.jsonl.1"
        self._issued = _Issued
        self._decoder = msgspec.json.Decoder(_Issued)
        self._encoder = msgspec.json.Encoder()

    def remember(self, citations: list[Any]) -> None:
        from mnote_kr.core.locks import exclusive
        from mnote_kr.core.private import open_private_append

        fields = citations[0].__struct_fields__
        stamp = "sha256:" + "0" * 64
        lines = [self._encoder.encode(self._issued(**{k: getattr(c, k) for k in fields}, source_hash=stamp))
                 for c in citations]
        with exclusive(str(self.path) + ".lock", timeout=10):
            with open_private_append(self.path) as fh:
                fh.write(b"\n".join(lines) + b"\n")
            if self.path.stat().st_size > LOG_CAP:
                os.replace(self.path, self.prev)

    def load(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for p in (self.prev, self.path):
            if p.exists():
                for line in p.read_bytes().splitlines():
                    c = self._decoder.decode(line)
                    out[c.citation_id] = c
        return out


def _previous_open(path: Path, cid: str) -> Any:
    """``open``'s lookup as the previous version did it: one row, one record inflated (a fresh connection
    each time, as its cached one would be warm: measured warm below with one connection)."""
    import sqlite3

    from mnote_kr.citations.caches import idrecord

    con = sqlite3.connect(path, timeout=10.0, isolation_level=None)
    try:  # the previous version's connection set-up (``idstore._prepare``), then its lookup
        if con.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=NORMAL")
        con.execute("PRAGMA user_version").fetchone()
        row = con.execute("SELECT place, record FROM ids WHERE id = ?", (cid,)).fetchone()
    finally:
        con.close()
    return idrecord.decode(bytes(row[1]), cid) if row is not None else None


def lookups(path: Path, previous: Path, picks: list[str]) -> str:
    """One ID's row and record, the same SQL and decoding on both sides, one connection each (warm)."""
    import sqlite3

    from mnote_kr.citations.caches import idrecord, idstore

    out = []
    for where, sql in ((path, idstore._ROW + " WHERE i.id = ?"), (previous, "SELECT place, record, NULL FROM ids "
                                                                              "WHERE id = ?")):
        con = sqlite3.connect(where, isolation_level=None)
        times = []
        for cid in picks:
            t = time.perf_counter()
            _, record, shared = con.execute(sql, (cid,)).fetchone()
            assert idrecord.decode(bytes(record) + bytes(shared or b""), cid) is not None
            times.append(time.perf_counter() - t)
        con.close()
        out.append(times)
    ratio = statistics.median(out[0]) / statistics.median(out[1])
    return f"row and decode alone: store {_ms(out[0])}, previous encoding {_ms(out[1])}; store / previous {ratio:.2f}"


def _ms(values: list[float]) -> str:
    values = sorted(values)
    return f"median {statistics.median(values) * 1000:.3f} ms, p95 {values[int(len(values) * 0.95)] * 1000:.3f} ms"


def _host(home: Path) -> Any:
    ws = home / "ws"
    return SimpleNamespace(workspace=SimpleNamespace(index_dir=ws / ".mnote", workspace_id="ws-bench",
                                                     rel_to_abs=lambda rel: ws / rel), config={})


_COLD = """
import os, sys, time
from pathlib import Path
from types import SimpleNamespace
sys.path.insert(0, sys.argv[1])
from benchmarks.citation_ids import FormerLog, _host, _previous_open
from mnote_kr.citations.caches import citecache
host = _host(Path(os.environ["MNOTE_KR_HOME"]))
cid, side = sys.argv[2], sys.argv[3]
former = citecache.store_path(host).parent / "former"
t = time.perf_counter()
if side == "previous":
    found = _previous_open(former / "previous.sqlite3", cid)
else:
    found = citecache.issued(host, cid) if side == "store" else FormerLog(former).load().get(cid)
print(time.perf_counter() - t if found is not None else -1.0)
"""


def cold(cid: str, side: str, rounds: int) -> list[float]:
    out = []
    for _ in range(rounds):
        done = subprocess.run([sys.executable, "-c", _COLD, str(REPO), cid, side], capture_output=True, text=True,
                              check=True, env=os.environ.copy())
        value = float(done.stdout.strip())
        assert value >= 0, f"{side}: {cid} not found in a fresh process"
        out.append(value)
    return out


def fill(count: int, chunks: list[str], log: FormerLog | None,
         previous: PreviousStore) -> tuple[list[str], list[float], list[float], list[float]]:
    from mnote_kr.citations.caches import citecache

    host = _host(Path(os.environ["MNOTE_KR_HOME"]))
    reg = SimpleNamespace(entries=_Hashes())
    ids, store_t, prev_t, log_t = [], [], [], []
    for batch in searches(count, chunks):
        t = time.perf_counter()
        issued = citecache.remember(host, batch, reg)  # type: ignore[arg-type]
        store_t.append(time.perf_counter() - t)
        t = time.perf_counter()
        previous.remember(issued)
        prev_t.append(time.perf_counter() - t)
        if log is not None:
            t = time.perf_counter()
            log.remember(batch)
            log_t.append(time.perf_counter() - t)
        ids += [c.citation_id for c in issued]
    return ids, store_t, prev_t, log_t


def store_bytes(path: Path) -> tuple[int, int]:
    """The database file's bytes and its write-ahead log's (the previous version's grew to ~4 MB: SQLite
    checkpoints at 1,000 pages by default)."""
    wal = Path(str(path) + "-wal")
    return path.stat().st_size, wal.stat().st_size if wal.exists() else 0


def where_bytes_go(path: Path) -> dict[str, int]:
    """Bytes of the file by use: records (payload of ``ids`` and ``batches``), slack (unused bytes of their
    pages), index, free pages, the rest (``gone``, schema, page headers)."""
    import sqlite3

    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        stats = con.execute("SELECT name, sum(pgsize), sum(payload), sum(unused) FROM dbstat GROUP BY name").fetchall()
        free = con.execute("PRAGMA freelist_count").fetchone()[0] * con.execute("PRAGMA page_size").fetchone()[0]
    finally:
        con.close()
    out = {"records": 0, "slack": 0, "index": 0, "free": free, "other": 0}
    for name, size, payload, unused in stats:
        if name in ("ids", "batches"):
            out["records"] += payload
            out["slack"] += unused
            out["other"] += size - payload - unused
        elif name.startswith("sqlite_autoindex_ids"):
            out["index"] += size
        else:
            out["other"] += size
    return out


def _split(parts: dict[str, int], kept: int) -> str:
    return ", ".join(f"{k} {v / kept:,.0f}" for k, v in parts.items())


def levels(chunks: list[str]) -> None:
    """A pack of one search's records at zlib levels 1, 6 and 9: bytes per record and packing time."""
    from mnote_kr.citations.caches import idrecord

    packs = [[idrecord.record_of(c, hash_of(c.source_root_relative_path)) for c in batch]
             for batch in searches(3000, chunks)]
    print("\n== zlib level of a pack (3,000 IDs, packs of one search)")
    for level in (1, 6, 9):
        t = time.perf_counter()
        size = sum(len(idrecord.pack(p, level)[1]) for p in packs)
        took = time.perf_counter() - t
        print(f"level {level}: {size / 3000:,.0f} B an ID, {took / len(packs) * 1000:.3f} ms a search")


def measure(count: int, chunks: list[str], rounds: int, cold_rounds: int, with_log: bool) -> None:
    from mnote_kr.citations.caches import citecache, idstore

    with tempfile.TemporaryDirectory(prefix="citation-ids-") as home:
        os.environ["MNOTE_KR_HOME"] = home
        citecache._memory.clear()
        host = _host(Path(home))
        folder = citecache.store_path(host).parent
        (folder / "former").mkdir()
        log = FormerLog(folder / "former") if with_log else None  # apart: the store would read a log beside it in
        previous = PreviousStore(folder / "former" / "previous.sqlite3", citecache.MAX_IDS)
        t0 = time.perf_counter()
        ids, store_t, prev_t, log_t = fill(count, chunks, log, previous)
        took = time.perf_counter() - t0
        print(f"\n== {len(ids):,} IDs ({len(store_t):,} searches of {PER_SEARCH}) filled in {took:.1f} s")
        now, before = statistics.median(store_t[len(store_t) // 2:]), statistics.median(prev_t[len(prev_t) // 2:])
        print(f"write, one search: store {_ms(store_t[len(store_t) // 2:])} (second half: store part full)")
        print(f"                   previous encoding {_ms(prev_t[len(prev_t) // 2:])}; "
              f"store / previous {now / before:.2f}")
        if log is not None:
            print(f"                   former log {_ms(log_t[len(log_t) // 2:])}")
        citecache._memory.clear()
        path = citecache.store_path(host)
        size, wal = store_bytes(path)
        prev_size, prev_wal = store_bytes(previous.path)
        previous.con.close()
        held = [cid for cid, _, _ in idstore.every(path)]  # least recently issued first
        kept = len(held)
        print(f"disk: store {size / 1e6:.1f} MB + write-ahead log {wal / 1e6:.1f} MB, {size / kept:,.0f} B an ID "
              f"({kept:,} kept): {_split(where_bytes_go(path), kept)}")
        print(f"      previous encoding {prev_size / 1e6:.1f} MB + write-ahead log {prev_wal / 1e6:.1f} MB, "
              f"{prev_size / kept:,.0f} B an ID: {_split(where_bytes_go(previous.path), kept)}")
        print(f"      store / previous, same IDs: {size / prev_size:.2f} (file), "
              f"{(size + wal) / (prev_size + prev_wal):.2f} (with the write-ahead logs)")
        if log is not None:
            known = log.load()
            log_size = sum(p.stat().st_size for p in (log.path, log.prev) if p.exists())  # just rotated: no .jsonl
            print(f"      former log {log_size / 1e6:.1f} MB, {log_size / max(len(known), 1):,.0f} B an ID, "
                  f"knows {len(known):,} of the {len(ids):,} IDs (the oldest: #{ids.index(next(iter(known))):,})")
        if kept < len(ids):
            assert citecache.issued(host, ids[0]) is None
            print(f"      the {len(ids) - kept:,} least recently issued evicted: 'Citation ... has expired'")
        rng = random.Random(7)
        picks = [rng.choice(held) for _ in range(rounds)]
        citecache.issued(host, picks[0])  # the connection a long-running process keeps
        warm = []
        for cid in picks:
            citecache._memory.clear()
            t = time.perf_counter()
            assert citecache.issued(host, cid) is not None
            warm.append(time.perf_counter() - t)
        print(f"open, warm: store {_ms(warm)} (citecache.issued)")
        print(f"            {lookups(path, previous.path, picks)}")
        oldest = held[0]
        cold_now = cold(oldest, 'store', cold_rounds)
        cold_before = cold(oldest, 'previous', cold_rounds)
        ratio = statistics.median(cold_now) / statistics.median(cold_before)
        print(f"open, cold (fresh process, the oldest kept {oldest}): store {_ms(cold_now)}; previous encoding "
              f"{_ms(cold_before)}; store / previous {ratio:.2f}")
        if log is not None:
            recent = ids[-1]
            warm_log = []
            for _ in range(max(rounds // 30, 5)):
                t = time.perf_counter()
                assert recent in log.load()
                warm_log.append(time.perf_counter() - t)
            print(f"            former log {_ms(warm_log)} (warm); {_ms(cold(recent, 'log', cold_rounds))} (cold, "
                  f"the newest ID {recent}: the log has forgotten the oldest)")


def real(store: Path) -> None:
    """The records of an existing store (a copy: it is only read), written both ways: one deflated record a
    row (the previous encoding) and one search's records a pack (a search: consecutive rows with one query)."""
    import itertools
    import sqlite3

    from mnote_kr.citations.caches import idrecord, idstore

    src = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        try:
            rows = src.execute(idstore._ROW.replace("SELECT ", "SELECT i.id, ") + " ORDER BY i.rowid").fetchall()
        except sqlite3.OperationalError:  # a store of the previous version
            rows = src.execute("SELECT id, place, record, NULL FROM ids ORDER BY rowid").fetchall()
    finally:
        src.close()
    found = [(cid, place, idrecord.decode(bytes(r) + bytes(b or b""), cid)) for cid, place, r, b in rows]
    records = [(cid, place, rec) for cid, place, rec in found if rec is not None]
    with tempfile.TemporaryDirectory(prefix="citation-ids-real-") as tmp:
        before = PreviousStore(Path(tmp) / "previous.sqlite3", len(records) + 1)
        after = Path(tmp) / "ids.sqlite3"
        for _, group in itertools.groupby(records, key=lambda row: row[2].search_query):
            part = list(group)
            before.con.execute("BEGIN")
            before.con.executemany("INSERT OR REPLACE INTO ids (id, place, record) VALUES (?, ?, ?)",
                                   [(cid, place, b"\x01" + idrecord._deflate(idrecord._encoder.encode(rec), 6))
                                    for cid, place, rec in part])
            before.con.execute("COMMIT")
            for start in range(0, len(part), idrecord.PACK_MAX):
                chunk = part[start:start + idrecord.PACK_MAX]
                slots, shared = idrecord.pack([rec for _, _, rec in chunk])
                with idstore.writing(after) as tx:
                    tx.upsert([(cid, place, slot) for (cid, place, _), slot in zip(chunk, slots, strict=True)], shared)
        before.con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        before.con.close()
        with idstore.writing(after):
            pass
        n = len(records)
        size_before, size_after = before.path.stat().st_size, after.stat().st_size
        print(f"\n== {n:,} real records of {store}")
        print(f"store {size_after / n:,.0f} B an ID: {_split(where_bytes_go(after), n)}")
        print(f"previous encoding {size_before / n:,.0f} B an ID: {_split(where_bytes_go(before.path), n)}")
        print(f"store / previous, same IDs: {size_after / size_before:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ids", type=int, default=10_000)
    parser.add_argument("--big", type=int, default=110_000)  # past the cap: eviction at work
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--cold", type=int, default=11)
    parser.add_argument("--levels", action="store_true", help="also compare zlib levels for a pack")
    parser.add_argument("--real", type=Path, action="append", default=[],
                        help="also re-write the records of this ids.sqlite3 both ways (read only)")
    args = parser.parse_args()
    chunks = _prose()
    for store in args.real:
        real(store)
    if args.levels:
        levels(chunks)
    measure(args.ids, chunks, args.rounds, args.cold, with_log=True)
    if args.big:
        measure(args.big, chunks, args.rounds, args.cold, with_log=False)


if __name__ == "__main__":
    main()
