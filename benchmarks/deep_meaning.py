"""Deeper files admitted by meaning (``mnote_kr.citations.rank.deeper``), replayed on a saved engine run.

A ``retrieval.py --dump`` run searched with ``[providers.lightrag] deeper_files`` above 0 holds every citation
of each search (``all``), the deeper files' included (provider rank above ``--wanted``), each with its place's
cosine (``locator.meaningScore``). This re-ranks them with this tree's ranking three ways, on the tuning sets
only (``old``, ``tune3``, ``tune4``, ``tune5``, ``tables``: the held-out files are never read):

* ``none``: the deeper files' citations left out (what ``deeper_files = 0`` returns);
* ``order``: all of them at their own rank (r22's rule);
* ``meaning``: those :func:`deeperslot.admitted` admits (this tree's rule), at the rank it gives.

Printed per set and cross/same language (``retrieval_labels.mark_cross``): the answering file in the first
five, gained and lost against ``none``, and deeper files ranked per search.

    .venv/bin/python benchmarks/deep_meaning.py /work/scratch/r22/retrieval.json [--run e5usexlang]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from retrieval_labels import OLD, TABLES, TUNE3, TUNE4, TUNE5, mark_cross  # noqa: E402

TUNING = {"old": OLD, "tune3": TUNE3, "tune4": TUNE4, "tune5": TUNE5, "tables": TABLES}


def tuning_labels() -> list[dict[str, Any]]:
    labels = []
    for name, path in TUNING.items():
        for q in json.loads(path.read_text(encoding="utf-8"))["questions"]:
            labels.append({**q, "set": name})
    mark_cross(labels)
    return labels


def first_files(cits: list[dict[str, Any]], query: str) -> list[str]:
    """The files of ``cits`` in the order this tree's ranking gives them (the host's, one per file)."""
    from mnote_kr.citations.rank.ranking import Candidate, relevance

    if not cits:
        return []
    total = max(c["diagnostics"]["providerRank"] for c in cits) + 1
    cands = [Candidate(c["diagnostics"]["providerRank"], Path(c["sourceRootRelativePath"]).name,
                       c.get("locatorEvidenceText") or c.get("displayQuote") or "", tuple(c.get("headingPath") or ()),
                       c["locator"].get("meaningScore"), approximate=bool(c.get("locatorDegraded")),
                       unplaced=c.get("locatorPrecision") == "file") for c in cits]
    scores = [v for v, _ in relevance(query, cands, total)]
    out: list[str] = []
    for _, _, c in sorted(zip(scores, range(len(cits)), cits, strict=True), key=lambda t: (-t[0], t[1])):
        if c["sourceRootRelativePath"] not in out:
            out.append(c["sourceRootRelativePath"])
    return out


def by_meaning(cits: list[dict[str, Any]], query: str, wanted: int) -> list[dict[str, Any]]:
    """``cits`` as :func:`deeperslot.admitted` leaves them: deeper files admitted at their new rank, else out."""
    from mnote_kr.citations.rank import deeper, deeperslot

    rows = [deeper.Row(c["sourceRootRelativePath"], c["diagnostics"]["providerRank"],
                       c["diagnostics"]["providerRank"] > wanted, c["locator"].get("meaningScore"),
                       c.get("locatorEvidenceText") or c.get("displayQuote") or "") for c in cits]
    out = []
    for c, rank in zip(cits, deeperslot.admitted(query, rows), strict=True):
        if rank is not None:
            out.append({**c, "diagnostics": {**c["diagnostics"], "providerRank": rank}})
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dump", type=Path)
    parser.add_argument("--run", default="e5usexlang", help="the dump's run searched with deeper files")
    parser.add_argument("--wanted", type=int, default=20, help="the references the provider was asked for")
    args = parser.parse_args()
    run = json.loads(args.dump.read_text(encoding="utf-8"))[args.run]
    labels = [q for q in tuning_labels() if q["id"] in run["all"]]
    hits: dict[str, dict[str, bool]] = defaultdict(dict)
    ranked: dict[str, int] = defaultdict(int)
    for q in labels:
        cits = run["all"][q["id"]]
        want = "docs/" + Path(q["doc"]).name
        ways = {"none": [c for c in cits if c["diagnostics"]["providerRank"] <= args.wanted], "order": cits,
                "meaning": by_meaning(cits, q["q"], args.wanted)}
        for way, chosen in ways.items():
            hits[way][q["id"]] = want in first_files(chosen, q["q"])[:5]
            ranked[way] += len({c["sourceRootRelativePath"] for c in chosen if c["diagnostics"]["providerRank"]
                                > args.wanted} | {c["sourceRootRelativePath"] for c in chosen} - {
                c["sourceRootRelativePath"] for c in ways["none"]})
    groups: dict[str, list[str]] = defaultdict(list)
    for q in labels:
        side = "cross" if q["cross"] else "same"
        for name in (f"{q['set']}-{side}", f"ALL-{side}"):
            groups[name].append(q["id"])
    print(f"{len(labels)} tuning questions of run {args.run}; the answering file in the first five "
          "(gained/lost vs none)")
    for name in sorted(groups, key=lambda n: (n.startswith("ALL"), n)):
        ids = groups[name]
        cells = []
        for way in ("none", "order", "meaning"):
            got = sum(hits[way][i] for i in ids)
            won = sum(hits[way][i] and not hits["none"][i] for i in ids)
            lost = sum(hits["none"][i] and not hits[way][i] for i in ids)
            cells.append(f"{way} {got:3d}/{len(ids):3d} +{won}-{lost}")
        print(f"  {name:14s} " + "   ".join(cells))
    print("  deeper files ranked per search: " + ", ".join(f"{w} {ranked[w] / len(labels):.2f}" for w in ranked))
    return 0


if __name__ == "__main__":
    sys.exit(main())
