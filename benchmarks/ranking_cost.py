"""What the ranking's cues cost a search: ``ranking.relevance`` with and without them.

The cues (``mnote_kr.citations.rank.cues``: apparatus, answer types; and the settled stems of
``ranking._bm25_terms``) run inside ``relevance``, once per search over its citations. Measured on the
citations of a saved ``benchmarks/retrieval.py --dump`` (every citation of each search):

* warm: CPU time (``time.process_time``) of ``relevance`` over every search, the sides
  alternating in one process, ``--reps`` rounds; the baseline is this tree with the cues off
  (no answer types, no apparatus factor, no in-file cues, one-pass stems: the former ranking),
  and ``in-file off`` is this tree without the in-file cues alone (``cues.is_notice`` and the
  reordering of each file's passages, ``ranking._order_within_files``: their cost), ``coverage off``
  this tree with the word match divided by the search's best alone (``ranking.LEXICAL_COVERAGE``);
* cold: a fresh process per call, the first ``relevance`` of one search (its patterns compiled
  or read from the regex cache), the two sides alternating, ``--cold`` pairs; and the import
  of ``cues``, the one module this change adds to a search's imports.

    .venv/bin/python benchmarks/ranking_cost.py --from-dump run.json [--reps 20] [--cold 10]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

CHILD = r"""
import json, sys, time
from mnote_kr.citations.text import textnorm  # imported by ranking before cues either way
t0 = time.perf_counter()
from mnote_kr.citations.rank import cues  # the module this change adds to a search's imports
t_cues = time.perf_counter()
from mnote_kr.citations.rank import ranking
if sys.argv[1] in ("off", "prev"):
    ranking.is_notice = lambda t, h=(): False
    ranking._order_within_files = lambda out, files, key: None
if sys.argv[1] == "off":
    ranking.answer_types = lambda q: ()
    ranking.is_apparatus = lambda t, h=(): False
    ranking._bm25_terms = ranking.terms
query, cands = json.loads(sys.stdin.read())
cands = [ranking.Candidate(r, f, t, tuple(h)) for r, f, t, h in cands]
t1 = time.perf_counter()
ranking.relevance(query, cands, len(cands))
print(json.dumps({"cues_import_ms": (t_cues - t0) * 1000, "first_ms": (time.perf_counter() - t1) * 1000}))
"""


def _searches(dump: Path) -> list[tuple[str, list[tuple[int, str, str, list[str]]]]]:
    runs: dict[str, Any] = json.loads(dump.read_text(encoding="utf-8"))
    run = next(r for r in runs.values() if isinstance(r, dict) and r.get("all"))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from retrieval_labels import load_sets

    _, sets = load_sets()
    queries = {q["id"]: q["q"] for s in sets.values() for q in s}
    out = []
    for qid, cits in run["all"].items():
        cands = [(c["diagnostics"]["providerRank"], Path(c["sourceRootRelativePath"]).name,
                  c.get("locatorEvidenceText") or c.get("displayQuote") or "", c.get("headingPath") or [])
                 for c in cits]
        out.append((queries[qid], cands))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from-dump", type=Path, required=True)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--cold", type=int, default=10)
    args = parser.parse_args()
    from mnote_kr.citations.rank import ranking

    searches = _searches(args.from_dump)
    cands = [(q, [ranking.Candidate(r, f, t, tuple(h)) for r, f, t, h in cs]) for q, cs in searches]
    no_notice, no_reorder = (lambda t, h=(): False), (lambda out, files, key: None)
    on = (ranking.answer_types, ranking.is_apparatus, ranking._bm25_terms, ranking.is_notice,
          ranking._order_within_files)
    prev = (*on[:3], no_notice, no_reorder)
    off = (lambda q: (), lambda t, h=(): False, ranking.terms, no_notice, no_reorder)
    print(f"load {os.getloadavg()[0]:.2f}; {len(cands)} searches, "
          f"{statistics.mean(len(c) for _, c in cands):.1f} citations each")

    def side(values: tuple[Any, ...], coverage: bool = True) -> float:
        (ranking.answer_types, ranking.is_apparatus, ranking._bm25_terms, ranking.is_notice,
         ranking._order_within_files) = values
        ranking.LEXICAL_COVERAGE = coverage
        t0 = time.process_time()
        for q, c in cands:
            ranking.relevance(q, c, len(c))
        return (time.process_time() - t0) * 1000 / len(cands)

    side(on), side(off), side(prev)  # patterns compiled, caches warm
    times: dict[str, list[float]] = {"on": [], "off": [], "prev": [], "nocov": []}
    for _ in range(args.reps):
        times["off"].append(side(off))
        times["prev"].append(side(prev))
        times["nocov"].append(side(on, coverage=False))
        times["on"].append(side(on))
    side(on)
    m_on, m_off, m_prev = (statistics.median(times[k]) for k in ("on", "off", "prev"))
    print(f"warm relevance per search, median of {args.reps}: cues on {m_on:.3f} ms, off {m_off:.3f} ms "
          f"({m_on / m_off:.2f}x, +{m_on - m_off:.3f} ms); in-file cues off {m_prev:.3f} ms "
          f"({m_on / m_prev:.2f}x, +{m_on - m_prev:.3f} ms)")
    m_nocov = statistics.median(times["nocov"])
    print(f"  coverage off (LEXICAL_COVERAGE False) {m_nocov:.3f} ms: today / coverage off {m_on / m_nocov:.2f}x "
          f"(+{m_on - m_nocov:.3f} ms)")
    if args.cold:
        query, cs = next((q, c) for q, c in searches if len(c) >= 15)
        payload = json.dumps([query, cs], ensure_ascii=False)
        cold: dict[str, list[dict[str, float]]] = {"on": [], "off": [], "prev": []}
        for _ in range(args.cold):
            for name in ("off", "prev", "on"):
                out = subprocess.run([sys.executable, "-c", CHILD, name], input=payload, capture_output=True,
                                     text=True, check=True)
                cold[name].append(json.loads(out.stdout))
        a = statistics.median(x["first_ms"] for x in cold["on"])
        b = statistics.median(x["first_ms"] for x in cold["off"])
        p = statistics.median(x["first_ms"] for x in cold["prev"])
        print(f"cold first relevance, median of {args.cold} fresh processes: cues on {a:.2f} ms, off {b:.2f} ms "
              f"(+{a - b:.2f} ms), in-file cues off {p:.2f} ms (+{a - p:.2f} ms)")
        c = statistics.median(x["cues_import_ms"] for x in cold["on"] + cold["off"] + cold["prev"])
        print(f"cold import of mnote_kr.citations.rank.cues (new in a search's imports): {c:.2f} ms")
    print(f"load {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
