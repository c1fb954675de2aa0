"""Retrieval quality of the managed engine's offline embedders, and the answering passage first.

Labels (``benchmarks/retrieval_labels.py`` reads them and the labelled places): two sets of
questions written by reading 16 documents of ``tests/data/corpus``, each naming the answering
file, its PDF page and a verbatim snippet of the answering text:

* ``old``: ``retrieval_questions.json``, 64 questions (34 English, 30 Chinese; 24 same wording,
  40 other wording). The embedder mix and the cosine threshold were chosen on this set, and most
  of its "other" questions still share a content word with the answering text.
* ``heldout``: ``retrieval_heldout.json``, 48 other-wording questions (27 English, 21 Chinese)
  written later, sharing no content word with the answering paragraph, never used to choose
  anything: the honest measure of other wording.

For each embedder (baseline ``hashing``, the former default; measured: the default ``hybrid``),
a fresh real managed engine is started under a temp dir, the 16 files are ingested (timed: the
ingest ratio is hybrid / hashing, both cold), and every question goes through ``Host.search``.
Printed per embedder, per set and wording, and for the union of both sets' other-wording questions:

* recall@5: the answering file among the first five citations; MRR of its first citation;
  questions with no citation at all are counted as misses (and shown);
* place@1: for questions whose file is found, how often that file's first citation lands on
  the labelled place (DOCX: the labelled paragraph; PDF: the labelled page, with the snippet in
  the cited chunk), for LightRAG's own order, the former host ranking (``ids.score``), the
  order the host returned (``ranking.relevance``) and that ranking re-applied by this tree;
* for the learned embedders, the same index searched again with ``rank_passages`` ON
  (``<name>-ranked``: each found file's best chunk of a 3x deeper list moved into its places,
  ``mnote_kr_lightrag.passages``; off by default): the before/after of that step;
* ``--misses``: every place@1 miss (question, labelled place, cited place, cited evidence);
  ``--order rerun`` prints those of this tree's ranking re-applied instead of the run's.

``--dump`` keeps every citation of each search (``all``, before ``pipeline.search`` keeps
``top_k``), so ``--from-dump`` re-ranks all of them with this tree's ``ranking`` exactly as the
host would (``rerun``), and the rerun's recall@5 and MRR are printed beside the run's.

Targets (issue 17): other-wording recall@5 >= 1.5x hashing's, same-wording no worse, place@1 >=
80%, ingest time <= 2x hashing's.

    .venv/bin/python benchmarks/retrieval.py [--embedders hashing,hybrid] [--top-k 10] [--dump F] [--misses]
    .venv/bin/python benchmarks/retrieval.py --from-dump F --misses [--order rerun]   # a saved run
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from mnote_kr_testkit.data import CORPUS

sys.path.insert(0, str(Path(__file__).resolve().parent))
from retrieval_labels import docx_paragraph_of, load_sets, norm  # noqa: E402


def places_of(label: dict[str, Any]) -> list[int | None]:
    """The accepted DOCX paragraphs of a label: its snippet's, then those of its ``also`` snippets."""
    path = CORPUS / label["doc"]
    return [docx_paragraph_of(path, x["answer"]) for x in [label, *label.get("also", [])]]


def on_place(citation: dict[str, Any], label: dict[str, Any], paragraphs: list[int | None] | None) -> bool:
    """Does the citation land on the labelled place, or on one of the ``also`` places?"""
    loc = citation["locator"]
    if label["doc"].endswith(".docx"):
        return loc.get("paragraphIndex") is not None and loc.get("paragraphIndex") in (paragraphs or [])
    quote = norm(citation.get("rawQuote") or citation.get("displayQuote") or "")
    return any(loc.get("page") == x.get("page", label["page"]) and norm(x["answer"]) in quote
               for x in [label, *label.get("also", [])])


def run_embedder(name: str, labels: list[dict[str, Any]], files: list[str], top_k: int) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix=f"mnote-bench-retrieval-{name}-"))
    os.environ["MNOTE_KR_HOME"] = str(tmp / "home")
    os.environ["MNOTE_KR_OFFLINE_EMBEDDER"] = name
    import msgspec
    from mnote_kr_testkit.engine import seed_tiktoken

    from mnote_kr.citations import pipeline
    from mnote_kr.core.config import load_config
    from mnote_kr.core.host import Host
    from mnote_kr_lightrag.engine import default_engine_dirs, start_engine, stop_engine

    # Every citation of a search, before the cut to top_k (pipeline.search keeps top_k of them):
    # a saved dump can then be re-ranked offline over the same candidates the host ranked.
    built: list[list[Any]] = []
    build_citations = pipeline.build_citations

    def recording(*args: Any, **kwargs: Any) -> Any:
        out = build_citations(*args, **kwargs)
        built.append(out[0])
        return out

    pipeline.build_citations = recording  # type: ignore[assignment]

    def search_all(h: Any, q: str) -> tuple[list[Any], list[Any]]:
        built.clear()
        res = h.search(q, top_k=top_k).results
        return [msgspec.to_builtins(c) for c in res], [msgspec.to_builtins(c) for c in built[-1]] if built else []

    dirs = default_engine_dirs()
    seed_tiktoken(dirs["cache_dir"])
    try:
        t0 = time.perf_counter()
        info = start_engine(**dirs, wait_s=180)
        start_s = time.perf_counter() - t0
        ws = tmp / "kb"
        (ws / "docs").mkdir(parents=True)
        for rel in files:
            shutil.copyfile(CORPUS / rel, ws / "docs" / Path(rel).name)
        host = Host(ws)
        host.roots_add("docs")
        t0 = time.perf_counter()
        report = host.ingest(["docs"], wait=True, wait_s=900)
        ingest_s = time.perf_counter() - t0
        statuses = [i.status for i in report.items]
        t0 = time.perf_counter()
        both = {label["id"]: search_all(host, label["q"]) for label in labels}
        search_s = time.perf_counter() - t0
        run = {"embedder": info.embedder, "start_s": start_s, "ingest_s": ingest_s, "statuses": statuses,
               "search_s": search_s, "top_k": top_k, "results": {k: v[0] for k, v in both.items()},
               "all": {k: v[1] for k, v in both.items()}}
        if name != "hashing":
            # The same engine and index with each found file's best chunk first turned on (off
            # by default): the before/after of mnote_kr_lightrag.passages, with no second ingest.
            config = load_config(ws)
            config.setdefault("providers", {}).setdefault("lightrag", {})["rank_passages"] = True
            ranked = Host(ws, config=config)
            t0 = time.perf_counter()
            both = {label["id"]: search_all(ranked, label["q"]) for label in labels}
            run["search_ranked_s"] = time.perf_counter() - t0
            run["results_ranked"] = {k: v[0] for k, v in both.items()}
            run["all_ranked"] = {k: v[1] for k, v in both.items()}
        return run
    finally:
        stop_engine(dirs["state_dir"])
        shutil.rmtree(tmp, ignore_errors=True)


def _rerank(cits: list[dict[str, Any]], query: str) -> list[dict[str, Any]]:
    """``cits`` in the order :func:`mnote_kr.citations.ranking.relevance` of this tree gives them."""
    from mnote_kr.citations.ranking import Candidate, relevance

    total = max((c["diagnostics"]["providerRank"] for c in cits), default=0) + 1
    cands = [Candidate(c["diagnostics"]["providerRank"], Path(c["sourceRootRelativePath"]).name,
                       c.get("locatorEvidenceText") or c.get("displayQuote") or "",
                       tuple(c.get("headingPath") or ()), c["locator"].get("meaningScore")) for c in cits]
    scores = [v for v, _ in relevance(query, cands, total)]
    return [c for _, _, c in sorted(zip(scores, range(len(cits)), cits, strict=True), key=lambda t: (-t[0], t[1]))]


def _orders(cits: list[dict[str, Any]], query: str, full: list[dict[str, Any]] | None,
            top_k: int) -> dict[str, list[dict[str, Any]]]:
    """The citations in four orders: LightRAG's, the former host ranking, the one the host
    returned in the run, and the ranking of this tree re-applied (``rerun``: differs from
    ``current`` only when a saved dump is re-evaluated after a change of ``ranking.py``). With
    ``full`` (every citation of the search, before the cut to ``top_k``; dumps from this version
    on), ``rerun`` re-ranks all of them and keeps ``top_k``, as the host does."""
    from mnote_kr.citations.ids import score

    total = max((c["diagnostics"]["providerRank"] for c in cits), default=0) + 1
    lightrag = sorted(cits, key=lambda c: c["diagnostics"]["providerRank"])
    former = sorted(cits, key=lambda c: -score(c["diagnostics"]["providerRank"], total,
                                              Path(c["sourceRootRelativePath"]).name,
                                              c.get("displayQuote") or "", query)[0])
    rerun = _rerank(full, query)[:top_k] if full else _rerank(cits, query)
    return {"lightrag": lightrag, "former": former, "current": cits, "rerun": rerun}


ORDERS = ("lightrag", "former", "current", "rerun")


def _groups(label: dict[str, Any]) -> list[str]:
    """The report groups a question counts in: its set and wording (by language too), the union of
    the other-wording questions of both sets, and everything."""
    s, w, lang = label["set"], label["wording"], label["lang"]
    out = [f"{s}-{w}", f"{s}-{lang}-{w}", "all"]
    if w == "other":
        out += ["union-other", f"union-{lang}-other"]
    return out


def evaluate(run: dict[str, Any], labels: list[dict[str, Any]],
             paragraphs: dict[str, list[int | None] | None], miss_order: str = "current") -> dict[str, Any]:
    """recall@5, MRR and place@1 (per citation order) by group; questions without a citation; the
    place misses of ``miss_order``. ``recall5``/``mrr`` are the returned order's; ``recall5_rerun``
    and ``mrr_rerun`` those of the re-applied ranking."""
    per: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    empty: list[str] = []
    misses: list[dict[str, Any]] = []
    top_k = int(run.get("top_k") or 10)
    for label in labels:
        cits = run["results"][label["id"]]
        full = (run.get("all") or {}).get(label["id"])
        target = "docs/" + Path(label["doc"]).name
        if not cits:
            empty.append(label["id"])
        orders = _orders(cits, label["q"], full, top_k)
        firsts = {}
        for order_name, ordered in orders.items():
            first = next((c for c in ordered if c["sourceRootRelativePath"] == target), None)
            if first is not None:
                firsts[order_name] = first
        if miss_order in firsts:
            mine = [c for c in orders[miss_order] if c["sourceRootRelativePath"] == target]
            on = [i for i, c in enumerate(mine) if on_place(c, label, paragraphs[label["id"]])]
            if not on_place(firsts[miss_order], label, paragraphs[label["id"]]):
                misses.append({"label": label, "first": firsts[miss_order], "mine": mine,
                               "onPlaceAt": on[0] if on else None,
                               "ofFile": len(mine), "paragraph": (paragraphs[label["id"]] or [None])[0]})
        for group in _groups(label):
            for suffix, ordered in (("", cits), ("_rerun", orders["rerun"])):
                files = [c["sourceRootRelativePath"] for c in ordered]
                per[group]["recall5" + suffix].append(1.0 if target in files[:5] else 0.0)
                per[group]["mrr" + suffix].append(1.0 / (files.index(target) + 1) if target in files else 0.0)
            for order_name, first in firsts.items():  # place@1: over the questions this order found
                hit = on_place(first, label, paragraphs[label["id"]])
                per[group][f"place_{order_name}"].append(1.0 if hit else 0.0)
    return {"groups": {g: {k: (statistics.mean(v) if v else 0.0, len(v)) for k, v in m.items()}
                       for g, m in per.items()}, "empty": empty, "misses": misses}


def _cited_place(c: dict[str, Any]) -> str:
    loc = c["locator"]
    if loc.get("paragraphIndex") is not None:
        return f"paragraph {loc['paragraphIndex']}"
    if loc.get("page") is not None:
        return f"page {loc['page']}"
    return f"{loc.get('locatorPrecision')} ({loc.get('reason', '')[:60]})"


def miss_class(m: dict[str, Any]) -> str:
    """Where a place@1 miss comes from: ``a`` no citation of the file holds the labelled text
    (the answering chunk was not retrieved, or not kept), ``b`` another citation of the file
    holds it (ranked below the first), ``c`` the first citation's chunk holds it but the
    locator chose another paragraph or page inside it."""
    snippets = [norm(x["answer"]) for x in [m["label"], *m["label"].get("also", [])]]

    def holds(c: dict[str, Any]) -> bool:
        return any(s in norm(c.get("rawQuote") or "") for s in snippets)

    if holds(m["first"]):
        return "c"
    return "b" if any(holds(c) for c in m["mine"]) else "a"


def print_classes(name: str, misses: list[dict[str, Any]]) -> None:
    """The place@1 misses counted by :func:`miss_class`, per set."""
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for m in misses:
        counts[m["label"]["set"]][miss_class(m)] += 1
    print(f"[{name}] place@1 misses by class: "
          + "; ".join(f"{s} " + " ".join(f"{k} {v[k]}" for k in "abc") for s, v in sorted(counts.items())))


def print_misses(name: str, misses: list[dict[str, Any]]) -> None:
    """Every found question whose first citation of the file is not on the labelled place."""
    print(f"\n[{name}] place@1 misses ({len(misses)}): question, labelled place, cited place, cited text")
    for m in misses:
        label, first = m["label"], m["first"]
        want = f"paragraph {m['paragraph']}" if label["doc"].endswith(".docx") else f"page {label['page']}"
        snippet = norm(label["answer"])
        in_chunk = snippet in norm(first.get("rawQuote") or "")
        at = ("not among this file's citations" if m["onPlaceAt"] is None
              else f"this file's citation #{m['onPlaceAt'] + 1}")
        print(f"  {label['id']} [{label['set']}] ({miss_class(m)}) {label['q']!r}\n"
              f"     labelled {Path(label['doc']).name} {want} {label['answer']!r}; cited {_cited_place(first)} "
              f"(snippet in the cited chunk: {in_chunk}; on-place: {at} of {m['ofFile']})\n"
              f"     evidence: {' '.join((first.get('locatorEvidenceText') or '').split())[:220]!r}")


def _ratio(a: float, b: float) -> float:
    return a / b if b else float("inf")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedders", default="hashing,hybrid", help="baseline first, comma-separated")
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--dump", type=Path, help="write every search's citations to this JSON file")
    parser.add_argument("--from-dump", type=Path, help="evaluate a saved --dump instead of running the engine")
    parser.add_argument("--misses", action="store_true", help="print every place@1 miss of the last embedder")
    parser.add_argument("--order", choices=("current", "rerun"), default="current",
                        help="the order whose misses --misses prints: as returned, or this tree's ranking re-applied")
    args = parser.parse_args()
    files, sets = load_sets()
    labels = sets["old"] + sets["heldout"]
    paragraphs = {q["id"]: places_of(q) if q["doc"].endswith(".docx") else None for q in labels}
    missing = [q["id"] for q in labels if q["doc"].endswith(".docx") and None in (paragraphs[q["id"]] or [])]
    words: dict[tuple[str, str, str], int] = defaultdict(int)
    for q in labels:
        words[(q["set"], q["lang"], q["wording"])] += 1
    print(f"labels: {len(labels)} questions over {len(files)} files: "
          + ", ".join(f"{s}/{lang}/{w} {n}" for (s, lang, w), n in sorted(words.items()))
          + f"; DOCX labels without a paragraph: {missing or 'none'}")
    if args.from_dump:
        runs: dict[str, dict[str, Any]] = json.loads(args.from_dump.read_text(encoding="utf-8"))
    else:
        runs = {}
        for name in args.embedders.split(","):
            print(f"\n[{name}] starting a fresh engine, ingesting {len(files)} files (cold) ...", flush=True)
            runs[name] = run_embedder(name, labels, files, args.top_k)
    for name, r in runs.items():
        print(f"[{name}] embedder {r['embedder']}; start {r['start_s']:.1f}s, ingest {r['ingest_s']:.1f}s "
              f"({sorted(set(r['statuses']))}), {len(r['results'])} searches {r['search_s']:.1f}s")
    if args.dump:
        args.dump.write_text(json.dumps(runs, ensure_ascii=False, indent=1), encoding="utf-8")
    for name in list(runs):  # "<embedder>-ranked": the same index, rank_passages on (before/after)
        if "results_ranked" in runs[name]:
            r = runs[name]
            runs[f"{name}-ranked"] = {**r, "results": r.pop("results_ranked"), "search_s": r.pop("search_ranked_s"),
                                      "all": r.pop("all_ranked", None)}
    labels = [q for q in labels if all(q["id"] in r["results"] for r in runs.values())]
    evals = {name: evaluate(run, labels, paragraphs, args.order) for name, run in runs.items()}
    names = list(runs)
    print(f"\n{'group':18} {'n':>3} " + " ".join(f"{n + ' r@5':>13} {n + ' MRR':>13}" for n in names))
    for group in ("old-same", "old-other", "old-en-same", "old-en-other", "old-zh-same", "old-zh-other",
                  "heldout-other", "heldout-en-other", "heldout-zh-other",
                  "union-other", "union-en-other", "union-zh-other", "all"):
        g0 = evals[names[0]]["groups"].get(group)
        if not g0:
            continue
        row = f"{group:18} {g0['recall5'][1]:>3} "
        row += " ".join(f"{evals[n]['groups'][group]['recall5'][0]:>13.3f} {evals[n]['groups'][group]['mrr'][0]:>13.3f}"
                        for n in names)
        print(row)
    print("the same with this tree's ranking re-applied (over every citation of the search when the dump has them):")
    for group in ("old-same", "old-other", "heldout-other", "all"):
        gs = {n: evals[n]["groups"][group] for n in names}
        print(f"{group:18} " + " ".join(
            f"{n}: r@5 {gs[n]['recall5_rerun'][0]:.3f} MRR {gs[n]['mrr_rerun'][0]:.3f}" for n in names))
    for name in names:
        print(f"[{name}] questions with no citation at all: {len(evals[name]['empty'])} {evals[name]['empty']}")
    print("\nplace@1 (first citation of the found file on the labelled place), by citation order:")
    for name in names:
        for group in ("old-same", "old-other", "heldout-other", "union-other", "all"):
            g = evals[name]["groups"].get(group, {})
            n = g.get("place_current", (0, 0))[1]
            n_re = g.get("place_rerun", (0, 0))[1]
            print(f"  [{name}] {group:13} found {n:>3}: " + "  ".join(
                f"{order} {g.get('place_' + order, (0.0, 0))[0]:.3f}" for order in ORDERS)
                + (f" (rerun found {n_re})" if n_re != n else ""))
    if args.misses:
        print("\nplace@1 misses by class (a: the answering chunk is not cited, b: it is cited below another chunk "
              "of the file, c: the first chunk holds it, the locator chose another place inside it):")
        for name in names:
            print_classes(name, evals[name]["misses"])
        print_misses(f"{names[-1]}, {args.order} order", evals[names[-1]]["misses"])
    if len(names) >= 2:
        base, new = names[0], names[-1]
        gb, gn = evals[base]["groups"], evals[new]["groups"]
        print(f"\nratio {new}/{base} (targets: other-wording recall@5 >= 1.5, same-wording >= 1.0, ingest <= 2.0):")
        for group in ("old-other", "heldout-other", "union-other", "old-same"):
            if group not in gn:
                continue
            print(f"  recall@5 {group:13} {_ratio(gn[group]['recall5'][0], gb[group]['recall5'][0]):.2f} "
                  f"({gn[group]['recall5'][0]:.3f} / {gb[group]['recall5'][0]:.3f})")
        print(f"  ingest time {_ratio(runs[new]['ingest_s'], runs[base]['ingest_s']):.2f}; "
              f"place@1 {new} current ranking: all {gn['all'].get('place_current', (0.0, 0))[0]:.3f}, "
              f"held-out {gn.get('heldout-other', {}).get('place_current', (0.0, 0))[0]:.3f} (target >= 0.8)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
