"""Retrieval quality of the managed engine's offline embedders, and the answering passage first.

Labels: ``benchmarks/retrieval_questions.json``: 64 questions (34 English, 30 Chinese; 40 asked
in other words than the answering text) written by reading 16 documents of
``tests/data/corpus``. Each names the answering file, its PDF page, and a verbatim snippet of the
answering text. The labelled DOCX paragraph is found here from ``word/document.xml`` with a
reader of its own (every ``w:p`` under ``w:body`` in order, nested ones skipped: the
paragraphIndex contract of ``mnote_kr.models.Locator``), not by the locators under test.

For each embedder (baseline ``hashing``, the former default; measured: the default ``hybrid``),
a fresh real managed engine is started under a temp dir, the 16 files are ingested (timed: the
ingest ratio is hybrid / hashing, both cold), and every question goes through ``Host.search``.
Printed per embedder and wording (same / other):

* recall@5: the answering file among the first five citations; MRR of its first citation;
  questions with no citation at all are counted as misses (and shown);
* place@1: for questions whose file is found, how often that file's first citation lands on
  the labelled place (DOCX: the labelled paragraph; PDF: the labelled page, with the snippet in
  the cited passage), for three orders of the same citations: LightRAG's own order, the former
  host ranking (``ids.score``: provider order plus term-share boosts) and the current one
  (``ranking.relevance``: provider order plus BM25).

Targets (issue 17): other-wording recall@5 >= 1.5x hashing's, same-wording no worse, place@1 >=
80%, ingest time <= 2x hashing's.

    .venv/bin/python benchmarks/retrieval.py [--embedders hashing,hybrid] [--top-k 10]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
import unicodedata
import zipfile
from collections import defaultdict
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from mnote_kr_testkit.data import CORPUS

HERE = Path(__file__).resolve().parent
LABELS = HERE / "retrieval_questions.json"
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def _norm(text: str) -> str:
    """Folded text without whitespace: PDF line breaks and CJK spacing do not matter."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text).casefold()).replace("-", "")


def docx_paragraph_of(path: Path, snippet: str) -> int | None:
    """Index of the first body paragraph (every w:p in order, nested w:p skipped) holding ``snippet``."""
    with zipfile.ZipFile(path) as zf:
        root = ElementTree.fromstring(zf.read("word/document.xml"))
    body = root.find(f"{W}body")
    if body is None:
        return None
    paragraphs: list[str] = []

    def walk(node: ElementTree.Element, inside_p: bool) -> None:
        for child in node:
            if child.tag == f"{W}p" and not inside_p:
                paragraphs.append("".join(t.text or "" for t in child.iter(f"{W}t")))
                walk(child, True)
            else:
                walk(child, inside_p)

    walk(body, False)
    want = _norm(snippet)
    return next((i for i, text in enumerate(paragraphs) if want in _norm(text)), None)


def on_place(citation: dict[str, Any], label: dict[str, Any], paragraph: int | None) -> bool:
    loc = citation["locator"]
    if label["doc"].endswith(".docx"):
        return paragraph is not None and loc.get("paragraphIndex") == paragraph
    quote = citation.get("rawQuote") or citation.get("displayQuote") or ""
    return loc.get("page") == label["page"] and _norm(label["answer"]) in _norm(quote)


def run_embedder(name: str, labels: list[dict[str, Any]], files: list[str], top_k: int) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix=f"mnote-bench-retrieval-{name}-"))
    os.environ["MNOTE_KR_HOME"] = str(tmp / "home")
    os.environ["MNOTE_KR_OFFLINE_EMBEDDER"] = name
    import msgspec
    from mnote_kr_testkit.engine import seed_tiktoken

    from mnote_kr.core.host import Host
    from mnote_kr_lightrag.engine import default_engine_dirs, start_engine, stop_engine

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
        results = {}
        t0 = time.perf_counter()
        for label in labels:
            found = host.search(label["q"], top_k=top_k)
            results[label["id"]] = [msgspec.to_builtins(c) for c in found.results]
        search_s = time.perf_counter() - t0
        return {"embedder": info.embedder, "start_s": start_s, "ingest_s": ingest_s, "statuses": statuses,
                "search_s": search_s, "results": results}
    finally:
        stop_engine(dirs["state_dir"])
        shutil.rmtree(tmp, ignore_errors=True)


def _orders(cits: list[dict[str, Any]], query: str) -> dict[str, list[dict[str, Any]]]:
    """The same citations in three orders: LightRAG's, the former host ranking, the current one."""
    from mnote_kr.citations.ids import score

    total = max((c["diagnostics"]["providerRank"] for c in cits), default=0) + 1
    lightrag = sorted(cits, key=lambda c: c["diagnostics"]["providerRank"])
    former = sorted(cits, key=lambda c: -score(c["diagnostics"]["providerRank"], total,
                                              Path(c["sourceRootRelativePath"]).name,
                                              c.get("displayQuote") or "", query)[0])
    return {"lightrag": lightrag, "former": former, "current": cits}


def evaluate(run: dict[str, Any], labels: list[dict[str, Any]], paragraphs: dict[str, int | None]) -> dict[str, Any]:
    per: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    empty: list[str] = []
    for label in labels:
        cits = run["results"][label["id"]]
        target = "docs/" + Path(label["doc"]).name
        if not cits:
            empty.append(label["id"])
        for group in (label["wording"], f"{label['lang']}-{label['wording']}", "all"):
            files = [c["sourceRootRelativePath"] for c in cits]
            per[group]["recall5"].append(1.0 if target in files[:5] else 0.0)
            per[group]["mrr"].append(1.0 / (files.index(target) + 1) if target in files else 0.0)
            per[group]["empty"].append(1.0 if not cits else 0.0)
            if target in files:
                for order_name, ordered in _orders(cits, label["q"]).items():
                    first = next(c for c in ordered if c["sourceRootRelativePath"] == target)
                    per[group][f"place_{order_name}"].append(
                        1.0 if on_place(first, label, paragraphs[label["id"]]) else 0.0)
    return {"groups": {g: {k: (statistics.mean(v) if v else 0.0, len(v)) for k, v in m.items()}
                       for g, m in per.items()}, "empty": empty}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedders", default="hashing,hybrid", help="baseline first, comma-separated")
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--dump", type=Path, help="write every search's citations to this JSON file")
    args = parser.parse_args()
    data = json.loads(LABELS.read_text(encoding="utf-8"))
    labels, files = data["questions"], data["documents"]
    paragraphs = {q["id"]: docx_paragraph_of(CORPUS / q["doc"], q["answer"]) if q["doc"].endswith(".docx") else None
                  for q in labels}
    missing = [q for q, p in paragraphs.items() if p is None and next(x for x in labels if x["id"] == q)["doc"]
               .endswith(".docx")]
    words = defaultdict(int)
    for q in labels:
        words[(q["lang"], q["wording"])] += 1
    print(f"labels: {len(labels)} questions over {len(files)} files: {dict(words)}; "
          f"DOCX labels without a paragraph: {missing or 'none'}")
    runs: dict[str, dict[str, Any]] = {}
    for name in args.embedders.split(","):
        print(f"\n[{name}] starting a fresh engine, ingesting {len(files)} files (cold) ...", flush=True)
        runs[name] = run_embedder(name, labels, files, args.top_k)
        r = runs[name]
        print(f"[{name}] embedder {r['embedder']}; start {r['start_s']:.1f}s, ingest {r['ingest_s']:.1f}s "
              f"({sorted(set(r['statuses']))}), {len(labels)} searches {r['search_s']:.1f}s")
    if args.dump:
        args.dump.write_text(json.dumps(runs, ensure_ascii=False, indent=1), encoding="utf-8")
    evals = {name: evaluate(run, labels, paragraphs) for name, run in runs.items()}
    names = list(runs)
    print(f"\n{'group':10} {'n':>3} " + " ".join(f"{n + ' r@5':>13} {n + ' MRR':>13}" for n in names))
    for group in ("same", "other", "en-same", "en-other", "zh-same", "zh-other", "all"):
        g0 = evals[names[0]]["groups"].get(group)
        if not g0:
            continue
        row = f"{group:10} {g0['recall5'][1]:>3} "
        row += " ".join(f"{evals[n]['groups'][group]['recall5'][0]:>13.3f} {evals[n]['groups'][group]['mrr'][0]:>13.3f}"
                        for n in names)
        print(row)
    for name in names:
        print(f"[{name}] questions with no citation at all: {len(evals[name]['empty'])} {evals[name]['empty']}")
    print("\nplace@1 (first citation of the found file on the labelled place), by citation order:")
    for name in names:
        for group in ("same", "other", "all"):
            g = evals[name]["groups"][group]
            n = g.get("place_current", (0, 0))[1]
            print(f"  [{name}] {group:5} found {n:>2}: " + "  ".join(
                f"{order} {g.get('place_' + order, (0.0, 0))[0]:.3f}" for order in ("lightrag", "former", "current")))
    if len(names) >= 2:
        base, new = names[0], names[-1]
        gb, gn = evals[base]["groups"], evals[new]["groups"]
        other = gn["other"]["recall5"][0] / gb["other"]["recall5"][0] if gb["other"]["recall5"][0] else float("inf")
        same = gn["same"]["recall5"][0] / gb["same"]["recall5"][0] if gb["same"]["recall5"][0] else float("inf")
        ingest = runs[new]["ingest_s"] / runs[base]["ingest_s"]
        place = gn["all"].get("place_current", (0.0, 0))[0]
        print(f"\nratio {new}/{base}: other-wording recall@5 {other:.2f} (target >= 1.5), same-wording recall@5 "
              f"{same:.2f} (target >= 1.0), ingest time {ingest:.2f} (target <= 2.0); "
              f"place@1 {new} current ranking {place:.3f} (target >= 0.8)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
