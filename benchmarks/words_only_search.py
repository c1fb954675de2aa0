"""What remembering files placed by words only costs a search (``mnote_kr.citations.rank.wordsonly``).

A workspace of ``--files`` Markdown files (8 paragraphs each) is ingested through the in-process fake
provider, each chunk mapped with a block so the text locator places a paragraph; every query returns every
file. Three timings, each the median of ``--searches`` searches of 10 queries after one untimed pass:

* ``warm``: ``host.search`` again with the per-process memos (the locator is not asked again);
* ``relocate``: the locator memos and remembered answers bypassed, so every passage is located and asks
  for its places' vectors (``meaning.cosines``/``nearest``), which are stored;
* ``no-vectors``: as ``relocate`` with no file's places embedded (each lookup misses: the record is
  written once per file in the untimed pass, then only looked up in memory).

Run it once with the code before and once after, alternating, and compare the medians:

    PYTHONPATH=<old tree>:... python benchmarks/words_only_search.py --label before
    PYTHONPATH=<this tree>:... python benchmarks/words_only_search.py --label after

On a loaded machine two processes differ by more than the feature costs; ``--alternate N`` (this tree
only) measures it in one process instead: N rounds, each timing every scenario with the feature on and
off (``wordsonly.located`` a plain call, no lookup hook), the order flipped every round; it prints each
scenario's median on / off and their ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

WORDS = ("river bridge council winter budget road school harvest market station doctor library museum "
         "plague tram mill census harbour railway election flood").split()
QUERIES = ["which river flooded the harbour", "when did the tram reach the station", "school budget council",
           "library museum opening", "plague census doctor", "railway election winter", "mill harvest market",
           "bridge road budget", "harbour flood railway", "council election school"]


def _provider() -> Any:
    from mnote_kr_testkit.fakes import FakeProvider

    from mnote_kr.hookspecs import hookimpl
    from mnote_kr.models import MappedReference, SidecarBlock

    class BlockProvider(FakeProvider):
        @hookimpl
        def map_reference(self, ctx: Any, reference: Any, entries: Any, query: str) -> Any:
            entry = entries.get(reference.file_path)
            if entry is None:
                return None
            block = SidecarBlock(blockid=f"b-{reference.chunk_id}", content=reference.content or "", positions=[])
            return MappedReference(reference=reference, entry=entry, block=block)

    return BlockProvider(delete_status="delete_completed")


def _timed(host: Any, searches: int, relocate: bool) -> float:
    from mnote_kr.citations import pipeline
    from mnote_kr.citations.caches import answercache

    real_get = answercache.get
    if relocate:
        answercache.get = lambda name: None  # type: ignore[assignment]
    try:
        times: list[float] = []
        for n in range(searches + 1):
            started = time.perf_counter()
            for q in QUERIES:
                if relocate:
                    pipeline.clear_memos()
                host.search(q, top_k=20)
            if n:  # the first pass is untimed (queries' vectors, the record's one write per file)
                times.append((time.perf_counter() - started) * 1000 / len(QUERIES))
        return statistics.median(times)
    finally:
        answercache.get = real_get  # type: ignore[assignment]


def _off(on: bool) -> None:
    """The feature on (as shipped) or off (the pipeline calls the locator directly, no lookup hook)."""
    from mnote_kr.citations.rank import meaning, wordsonly

    if not hasattr(wordsonly, "_shipped"):
        wordsonly._shipped = (wordsonly.located, meaning._without_vectors)  # type: ignore[attr-defined]
    located, hook = wordsonly._shipped  # type: ignore[attr-defined]
    wordsonly.located = located if on else (lambda host, rel, fn, *a, **k: fn(*a, **k))  # type: ignore[assignment]
    meaning._without_vectors = hook if on else (lambda key: None)  # type: ignore[assignment]


def _alternate(hosts: dict[str, Any], rounds: int, searches: int) -> dict[str, Any]:
    timings: dict[str, dict[bool, list[float]]] = {}
    for r in range(rounds):
        for on in ((True, False) if r % 2 == 0 else (False, True)):
            _off(on)
            for name, (host, relocate) in hosts.items():
                timings.setdefault(name, {True: [], False: []})[on].append(_timed(host, searches, relocate))
    _off(True)
    out: dict[str, Any] = {}
    for name, t in timings.items():
        on_ms, off_ms = statistics.median(t[True]), statistics.median(t[False])
        out[name] = {"on_ms": round(on_ms, 3), "off_ms": round(off_ms, 3), "ratio": round(on_ms / off_ms, 3)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--searches", type=int, default=15)
    parser.add_argument("--label", default="")
    parser.add_argument("--alternate", type=int, default=0, help="rounds of feature on / off in this process")
    args = parser.parse_args()
    import random

    with tempfile.TemporaryDirectory(prefix="mnote-words-only-") as tmp:
        os.environ["MNOTE_KR_HOME"] = str(Path(tmp) / "home")
        from mnote_kr_testkit.fakes import fake_host

        rnd = random.Random(7)
        out: dict[str, Any] = {"label": args.label, "files": args.files}
        hosts: dict[str, Any] = {}
        for scenario, embed in (("with-vectors", True), ("no-vectors", False)):
            ws = Path(tmp) / scenario
            (ws / "kb").mkdir(parents=True)
            for i in range(args.files):
                paras = [" ".join(rnd.choice(WORDS) for _ in range(14)).capitalize() + "." for _ in range(8)]
                (ws / "kb" / f"note{i}.md").write_text("\n\n".join(paras) + "\n", encoding="utf-8")
            host, _ = fake_host(ws, _provider())
            host.progress = lambda line: None
            host.roots_add("kb")
            host.ingest(["kb"], wait=True, embed=embed)
            if args.alternate:
                hosts.update({"warm": (host, False), "relocate": (host, True)} if embed
                             else {"no_vectors_relocate": (host, True)})
                _timed(host, 1, relocate=True)  # the record's one write per file (no-vectors), untimed
            elif embed:
                out["warm_ms"] = round(_timed(host, args.searches, relocate=False), 3)
                out["relocate_ms"] = round(_timed(host, args.searches, relocate=True), 3)
            else:
                out["no_vectors_relocate_ms"] = round(_timed(host, args.searches, relocate=True), 3)
        if args.alternate:
            out.update(_alternate(hosts, args.alternate, args.searches))
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    sys.exit(main())
