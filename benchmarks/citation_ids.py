"""Citation IDs: ``open``-by-ID from the ID store against the former citation log, and what writing costs.

The store (``mnote_kr.citations.caches.citecache`` over ``idstore``: SQLite, one record per ID) is
measured against the log it replaces (``citations.jsonl``, 4 MiB x 2 generations, as of commit
e54a0bb): its ``open`` read both generations whole and decoded every line; its ``remember``
appended one JSON line per citation under a file lock. Both sides get the same citations in the
same run: searches of 15 citations each (a file's place and two alternatives, the shape of a real
search), their quotes cut from this repository's docs (real prose; a record packs as a real one does).

* **write:** one search's ``remember`` (15 citations), median and p95, while the store fills up;
* **disk:** bytes for ``--ids`` and ``--big`` IDs (database and its write-ahead log), bytes per ID;
  the log's size at its cap and how many IDs it still knew;
* **open, warm:** ``citecache.issued`` of a random ID in a process that looked one up before
  (``serve``, ``mcp``); the log side: its ``load`` (both generations read and decoded);
* **open, cold:** a fresh Python process's first lookup (modules imported before the clock starts; the
  OS page cache is warm for both sides: the machine is shared, it is never dropped).

    .venv/bin/python benchmarks/citation_ids.py [--ids 10000] [--big 110000] [--rounds 300] [--cold 11]
"""

from __future__ import annotations

import argparse
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
    return [" ".join(words[i:i + 300]) for i in range(0, len(words) - 300, 50)]


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
from benchmarks.citation_ids import FormerLog, _host
from mnote_kr.citations.caches import citecache
host = _host(Path(os.environ["MNOTE_KR_HOME"]))
cid, side = sys.argv[2], sys.argv[3]
former = citecache.store_path(host).parent / "former"
t = time.perf_counter()
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


def fill(count: int, chunks: list[str], log: FormerLog | None) -> tuple[list[str], list[float], list[float]]:
    from mnote_kr.citations.caches import citecache

    host = _host(Path(os.environ["MNOTE_KR_HOME"]))
    reg = SimpleNamespace(entries={})
    ids, store_t, log_t = [], [], []
    for batch in searches(count, chunks):
        t = time.perf_counter()
        issued = citecache.remember(host, batch, reg)  # type: ignore[arg-type]
        store_t.append(time.perf_counter() - t)
        if log is not None:
            t = time.perf_counter()
            log.remember(batch)
            log_t.append(time.perf_counter() - t)
        ids += [c.citation_id for c in issued]
    return ids, store_t, log_t


def store_bytes(path: Path) -> tuple[int, int]:
    """The database file's bytes and its write-ahead log's (at most ~4 MB: SQLite checkpoints at 1,000 pages)."""
    wal = Path(str(path) + "-wal")
    return path.stat().st_size, wal.stat().st_size if wal.exists() else 0


def measure(count: int, chunks: list[str], rounds: int, cold_rounds: int, with_log: bool) -> None:
    from mnote_kr.citations.caches import citecache, idstore

    with tempfile.TemporaryDirectory(prefix="citation-ids-") as home:
        os.environ["MNOTE_KR_HOME"] = home
        citecache._memory.clear()
        host = _host(Path(home))
        folder = citecache.store_path(host).parent
        (folder / "former").mkdir()
        log = FormerLog(folder / "former") if with_log else None  # apart: the store would read a log beside it in
        t0 = time.perf_counter()
        ids, store_t, log_t = fill(count, chunks, log)
        took = time.perf_counter() - t0
        print(f"\n== {len(ids):,} IDs ({len(store_t):,} searches of {PER_SEARCH}) filled in {took:.1f} s")
        print(f"write, one search: store {_ms(store_t[len(store_t) // 2:])} (second half: store part full)")
        if log is not None:
            print(f"                   former log {_ms(log_t[len(log_t) // 2:])}")
        citecache._memory.clear()
        path = citecache.store_path(host)
        size, wal = store_bytes(path)
        held = [cid for cid, _, _ in idstore.every(path)]  # least recently issued first
        kept = len(held)
        print(f"disk: store {size / 1e6:.1f} MB + write-ahead log {wal / 1e6:.1f} MB, {size / kept:,.0f} B an ID "
              f"({kept:,} kept; records alone {sum(len(r) for _, _, r in idstore.every(path)) / kept:,.0f} B an ID)")
        if log is not None:
            known = log.load()
            log_size = log.path.stat().st_size + (log.prev.stat().st_size if log.prev.exists() else 0)
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
        print(f"open, warm: store {_ms(warm)}")
        oldest = held[0]
        print(f"open, cold (fresh process, the oldest kept {oldest}): store {_ms(cold(oldest, 'store', cold_rounds))}")
        if log is not None:
            recent = ids[-1]
            warm_log = []
            for _ in range(max(rounds // 30, 5)):
                t = time.perf_counter()
                assert recent in log.load()
                warm_log.append(time.perf_counter() - t)
            print(f"            former log {_ms(warm_log)} (warm); {_ms(cold(recent, 'log', cold_rounds))} (cold, "
                  f"the newest ID {recent}: the log has forgotten the oldest)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ids", type=int, default=10_000)
    parser.add_argument("--big", type=int, default=110_000)  # past the cap: eviction at work
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--cold", type=int, default=11)
    args = parser.parse_args()
    chunks = _prose()
    measure(args.ids, chunks, args.rounds, args.cold, with_log=True)
    if args.big:
        measure(args.big, chunks, args.rounds, args.cold, with_log=False)


if __name__ == "__main__":
    main()
