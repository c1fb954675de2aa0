"""Why a tuning question's answering file is not among a search's first five: where it was lost.

Reads a ``benchmarks/retrieval.py --dump`` (which keeps every citation a search built, before the cut to
``top_k``: the files of every chunk LightRAG returned) and, for each question of a *tuning* set whose file
is not in the first five the host returned, says where it was lost:

* ``absent``: no chunk LightRAG returned is of the file (LightRAG's retrieval missed it: only what is sent
  to LightRAG, or a retriever beside it, can find it);
* ``lightrag>5``: LightRAG returned the file, but after five other files (its first chunk's rank);
* ``host``: LightRAG ranked the file among its first five, the host's ordering moved it out.

Each miss is printed with its question, the file's best meaning score among its located places and that
score's rank among the search's files (what a re-ordering by the stored e5 place vectors could use), and the
dictionary's translation of the question (``plugin_api.crosslang``, what ``crossquery`` would send). The
held-out sets' questions are never printed (``retrieval.HELD_OUT``, and ``heldout``).

    .venv/bin/python benchmarks/file_misses.py DUMP [--run e5usexlang-old] [--sets tune5]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

NEVER = ("heldout", "heldout2", "heldout3")


def classify(target: str, returned: list[dict[str, Any]], every: list[dict[str, Any]]) -> str | None:
    """``None`` when ``target`` is among the first five files ``returned``; else where it was lost (module
    docstring), from every citation of the search (``every``, each with ``diagnostics.providerRank``)."""
    files = list(dict.fromkeys(c["sourceRootRelativePath"] for c in returned))
    if target in files[:5]:
        return None
    by_rank = sorted(every, key=lambda c: c["diagnostics"]["providerRank"])
    provider_files = list(dict.fromkeys(c["sourceRootRelativePath"] for c in by_rank))
    if target not in provider_files:
        return "absent"
    return "lightrag>5" if provider_files.index(target) >= 5 else "host"


def meaning_rank(target: str, every: list[dict[str, Any]]) -> tuple[float | None, int | None, int]:
    """The file's best meaning score among its citations, its rank among the search's files by theirs, and
    how many files the search holds."""
    best: dict[str, float] = {}
    for c in every:
        score = (c.get("locator") or {}).get("meaningScore")
        if score is not None:
            f = c["sourceRootRelativePath"]
            best[f] = max(best.get(f, score), score)
    files = {c["sourceRootRelativePath"] for c in every}
    if target not in best:
        return None, None, len(files)
    return best[target], 1 + sum(v > best[target] for v in best.values()), len(files)


def _run(dump: dict[str, Any], name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The named run's results and all-citations (``e5usexlang-old``: the variant ``old`` of ``e5usexlang``)."""
    if name in dump:
        return dump[name]["results"], dump[name].get("all") or {}
    base, _, variant = name.rpartition("-")
    if base in dump and f"results_{variant}" in dump[base]:
        return dump[base][f"results_{variant}"], dump[base].get(f"all_{variant}") or {}
    raise SystemExit(f"Error: no run {name!r} in the dump (runs: {sorted(dump)}; a variant is EMBEDDER-NAME)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dump", type=Path)
    parser.add_argument("--run", default="e5usexlang", help="an embedder of the dump, or EMBEDDER-VARIANT")
    parser.add_argument("--sets", default="old,tune3,tables,tune4,tune5", help="tuning sets, comma-separated")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from retrieval_labels import OLD, TABLES, TUNE3, TUNE4, TUNE5, mark_cross

    paths = {"old": OLD, "tune3": TUNE3, "tables": TABLES, "tune4": TUNE4, "tune5": TUNE5}
    wanted = [s for s in args.sets.split(",") if s]
    if bad := [s for s in wanted if s in NEVER or s not in paths]:
        raise SystemExit(f"Error: {bad}: only the tuning sets {sorted(paths)} are read")
    labels = []
    for s in wanted:
        for q in json.loads(paths[s].read_text(encoding="utf-8"))["questions"]:
            labels.append({**q, "set": s})
    mark_cross(labels)
    results, every = _run(json.loads(args.dump.read_text(encoding="utf-8")), args.run)
    from mnote_kr.plugin_api import crosslang

    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for q in labels:
        if q["id"] not in results:
            continue
        target = "docs/" + Path(q["doc"]).name
        lost = classify(target, results[q["id"]], every.get(q["id"], []))
        side = "cross" if q.get("cross") else "same"
        counts[f"{q['set']}-{side}"][lost or "found"] += 1
        if lost is None:
            continue
        score, rank, n = meaning_rank(target, every.get(q["id"], []))
        found = crosslang.translate(q["q"])
        print(f"{q['id']} [{q['set']} {side}] {lost}; meaning {score if score is None else round(score, 3)} "
              f"(#{rank} of {n} files) {q['q']!r} -> {Path(q['doc']).name}\n"
              f"    translated: {found.text if found else None!r}")
    for group, c in sorted(counts.items()):
        print(f"{group:14} " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
