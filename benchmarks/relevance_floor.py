"""The relevance floor and one card per file, on a fresh managed engine.

The files of ``benchmarks/retrieval.py`` are ingested into a fresh managed engine (default
embedder); then every labelled question (every set ``retrieval_labels.load_sets`` reads:
``retrieval_questions.json``, ``retrieval_heldout.json``, ...) and every query of
``offtopic_queries.json``, ``offtopic_numbers.json``, ``offtopic_libwords.json`` and ``offtopic_names.json``
(nothing in the files answers them; the second holds years and quantities, the third is made of words common in the
library and comes with answerable questions in the same words, counted as the "library words" set, the fourth names
what the library holds and comes with answerable questions naming it, the "names" set), and of ``offtopic_heldout.json``
(never tuned on), goes through ``Host.search`` (top 10).
Printed, against today's default measured in the same run (baseline: the same citations before
``pipeline.search`` marks and folds them, i.e. no floor and one card per place):

* off-topic queries said weak, and labelled questions said weak (the rule must keep real hits:
  a labelled question is weak only when no passage found holds a word of it);
* labelled questions that lose their answering file among the returned cards (nothing is
  dropped by the floor, so any loss comes from folding a file's places into one card);
* cards per query (files now, places before), off-topic and labelled: the ratio new / baseline;
* the quote's length (``displayQuote``: the answering sentences) against the chunk's
  (``contextQuote``, what ``displayQuote`` was), median and max;
* what cleared the flag (``weak_variants.cleared_by``: the query's words some passage holds, a script apart,
  a named place), counted per group of the tuning sets, and each variant of the rule
  (``weak_variants.VARIANTS``) read on the same citations as today's rule: the tuning sets' counts and the
  labelled questions it flags that today's rule does not. Its held-out counts only with ``--held-out``
  (read them after deciding, never to decide).

    .venv/bin/python benchmarks/relevance_floor.py [--dump F] [--held-out]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent))
from retrieval import finish_ingest  # noqa: E402
from retrieval_labels import corpus_host, load_sets  # noqa: E402
from weak_variants import VARIANTS, cleared_by, is_held_out  # noqa: E402

HERE = Path(__file__).resolve().parent
#: The prefixes of the off-topic groups counted apart from the tuning set's (held out, numbers, library words, names).
_OTHER_OFF = ("offh", "offn", "offl", "offm")


def run(queries: list[tuple[str, str]], files: list[str]) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="mnote-bench-floor-"))
    os.environ["MNOTE_KR_HOME"] = str(tmp / "home")
    from mnote_kr_testkit.engine import seed_tiktoken

    from mnote_kr.citations import pipeline
    from mnote_kr.citations.rank.neutral import han_share
    from mnote_kr_lightrag.engine.managed import default_engine_dirs, start_engine, stop_engine

    built: list[Any] = []
    build_citations = pipeline.build_citations

    def recording(*args: Any, **kwargs: Any) -> Any:
        out = build_citations(*args, **kwargs)
        built.append(out[0])
        return out

    pipeline.build_citations = recording
    weak_reason = pipeline.weak_reason
    read: list[Any] = []  # the citations the weak rule reads: every place, before one card per file

    def reading(citations: Any, query: str = "", *rest: Any) -> Any:  # rest: the library's word counts, when kept
        read.append(list(citations))
        return weak_reason(citations, query, *rest)

    pipeline.weak_reason = reading
    dirs = default_engine_dirs()
    seed_tiktoken(dirs["cache_dir"])
    try:
        start_engine(**dirs, wait_s=300)
        host = corpus_host(tmp / "kb", files)
        host.ingest(["docs"], wait=True, wait_s=1500)
        finish_ingest(host, [e.status for e in host.registry().entries.values()])
        out = {}
        for qid, query in queries:
            built.clear()
            read.clear()
            found = host.search(query, top_k=10)
            seen = read[-1] if read else []
            before = built[-1][:10] if built else []
            out[qid] = {"q": query, "weak": found.weak, "files": [c.source_root_relative_path for c in found.results],
                        "placesBefore": [c.source_root_relative_path for c in before],
                        "quotes": [len(c.display_quote or "") for c in found.results],
                        "chunks": [len(c.context_quote or "") for c in found.results],
                        # what a floor may read: each card's cosine with the query and its share of Han characters
                        "meaning": [c.locator.meaning_score for c in found.results],
                        "han": [round(han_share(c.raw_quote or c.context_quote or c.display_quote or ""), 3)
                                for c in found.results],
                        # and what the weak rule reads: each card's passage and its ranking's parts
                        "passages": [c.raw_quote or c.context_quote or c.display_quote or "" for c in found.results],
                        "parts": [c.diagnostics.score_parts for c in found.results],
                        "weakReason": found.weak_reason,
                        "clearedBy": cleared_by(seen, query), "placesRead": len(seen),
                        # every place the rule read, whole, so ``weak_variants.py --dump F`` replays the rules offline
                        "read": [msgspec.to_builtins(c) for c in seen],
                        "variants": {name: rule(seen, query) for name, rule in VARIANTS.items()}}
        return out
    finally:
        stop_engine(dirs["state_dir"])
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dump", type=Path, help="write every search's summary to this JSON file")
    parser.add_argument("--held-out", action="store_true", help="print the variants' held-out counts too")
    args = parser.parse_args()
    files, sets = load_sets()
    labels = {q["id"]: q for qs in sets.values() for q in qs}  # every labelled set
    off = json.loads((HERE / "offtopic_queries.json").read_text(encoding="utf-8"))["queries"]
    offh = json.loads((HERE / "offtopic_heldout.json").read_text(encoding="utf-8"))["queries"]
    offn = json.loads((HERE / "offtopic_numbers.json").read_text(encoding="utf-8"))["queries"]
    libw = json.loads((HERE / "offtopic_libwords.json").read_text(encoding="utf-8"))
    named = json.loads((HERE / "offtopic_names.json").read_text(encoding="utf-8"))
    queries = [(k, q["q"]) for k, q in labels.items()] + [(f"off{i:02d}", q) for i, q in enumerate(off)] + \
              [(f"offh{i:02d}", q) for i, q in enumerate(offh)] + [(f"offn{i:02d}", q) for i, q in enumerate(offn)] + \
              [(f"offl{i:02d}", q) for i, q in enumerate(libw["queries"])] + \
              [(q["id"], q["q"]) for q in libw["labelled"]] + \
              [(f"offm{i:02d}", q) for i, q in enumerate(named["queries"])] + \
              [(q["id"], q["q"]) for q in named["labelled"]]
    runs = run(queries, files)
    if args.dump:
        args.dump.write_text(json.dumps(runs, ensure_ascii=False, indent=1), encoding="utf-8")
    offs = [r for k, r in runs.items() if k.startswith("off")]
    labelled = {k: r for k, r in runs.items() if k in labels}

    def has(names: list[str], doc: str) -> bool:
        return any(Path(doc).name.rsplit(".", 1)[0] in n for n in names)

    off_tune = [r for k, r in runs.items() if k.startswith("off") and not k.startswith(_OTHER_OFF)]
    off_lib = [r for k, r in runs.items() if k.startswith("offl")]
    off_names = [r for k, r in runs.items() if k.startswith("offm")]
    off_num = [r for k, r in runs.items() if k.startswith("offn")]
    off_held = [r for k, r in runs.items() if k.startswith("offh")]
    print(f"off-topic queries said weak: tuning {sum(r['weak'] for r in off_tune)}/{len(off_tune)}, "
          f"tuning with numbers {sum(r['weak'] for r in off_num)}/{len(off_num)}, "
          f"tuning of library words {sum(r['weak'] for r in off_lib)}/{len(off_lib)}, "
          f"tuning of names {sum(r['weak'] for r in off_names)}/{len(off_names)}, "
          f"held out {sum(r['weak'] for r in off_held)}/{len(off_held)} (baseline: 0, no floor)")
    for set_name, qs in sets.items():  # the held-out sets (every heldout...) are counted, never named
        weak = [q["id"] for q in qs if runs[q["id"]]["weak"]]
        shown = "" if is_held_out(set_name) else f" {weak}"
        print(f"labelled questions said weak, {set_name}: {len(weak)}/{len(qs)}{shown}")
    weak = [q["id"] for q in libw["labelled"] if runs[q["id"]]["weak"]]
    print(f"labelled questions said weak, library words: {len(weak)}/{len(libw['labelled'])} {weak}")
    weak = [q["id"] for q in named["labelled"] if runs[q["id"]]["weak"]]
    print(f"labelled questions said weak, names: {len(weak)}/{len(named['labelled'])} {weak}")
    lost = [k for k, r in labelled.items() if has(r["placesBefore"], labels[k]["doc"])
            and not has(r["files"], labels[k]["doc"])]
    print(f"labelled questions losing their answering file from the cards: {len(lost)}")
    for name, group in (("off-topic", offs), ("labelled", list(labelled.values()))):
        new = statistics.mean(len(r["files"]) for r in group)
        old = statistics.mean(len(r["placesBefore"]) for r in group)
        print(f"cards per {name} query: {new:.2f} (baseline {old:.2f}), ratio {new / old:.2f}")
    quotes = [n for r in runs.values() for n in r["quotes"]]
    chunks = [n for r in runs.values() for n in r["chunks"]]
    print(f"quote characters: median {statistics.median(quotes):.0f}, max {max(quotes)} "
          f"(baseline, the chunk: median {statistics.median(chunks):.0f}, max {max(chunks)}), "
          f"ratio of medians {statistics.median(quotes) / statistics.median(chunks):.2f}")
    variants(runs, {**sets, "library words": libw["labelled"], "names": named["labelled"]}, args.held_out)
    return 0


def variants(runs: dict[str, Any], sets: dict[str, list[dict[str, Any]]], held_out: bool) -> None:
    """What cleared the flag, per group of the tuning sets, and each variant's counts beside today's."""
    groups = {"off-topic": [k for k in runs if k.startswith("off") and not k.startswith(_OTHER_OFF)],
              "off-topic numbers": [k for k in runs if k.startswith("offn")],
              "off-topic library words": [k for k in runs if k.startswith("offl")],
              "off-topic names": [k for k in runs if k.startswith("offm")],
              **{name: [q["id"] for q in qs] for name, qs in sets.items() if not is_held_out(name)}}
    for name, keys in groups.items():
        why: dict[str, int] = {}
        for k in keys:
            cause = runs[k]["clearedBy"].split(":")[0]
            why[cause] = why.get(cause, 0) + 1
        print(f"cleared by, {name}: {dict(sorted(why.items()))}")
    if held_out:
        groups |= {"off-topic held out": [k for k in runs if k.startswith("offh")],
                   **{name: [q["id"] for q in qs] for name, qs in sets.items() if is_held_out(name)}}
    for variant in VARIANTS:
        for name, keys in groups.items():
            now = [k for k in keys if runs[k]["weak"]]
            new = [k for k in keys if runs[k]["variants"][variant] and not runs[k]["weak"]]
            gone = [k for k in keys if runs[k]["weak"] and not runs[k]["variants"][variant]]
            named = "" if is_held_out(name) else f" {new}"  # off-topic held out too (it was named)
            cleared = f", newly cleared {len(gone)}" + ("" if is_held_out(name) else f" {gone}") if gone else ""
            print(f"variant {variant}, {name}: weak {len(now) + len(new) - len(gone)}/{len(keys)} (today {len(now)}), "
                  f"newly weak {len(new)}{named}{cleared}")


if __name__ == "__main__":
    raise SystemExit(main())
