"""Files named by the query's words beside LightRAG (``mnote_kr.citations.map.heldwords``), replayed on a saved run.

Each labelled question of a ``benchmarks/retrieval.py --dump`` run is searched again through ``pipeline.search`` on a
copy of that run's store (``--store``: the benchmark's temp dir, ``home`` and ``kb``, with the files, the registry,
the library's words and the locate caches), LightRAG's answer replayed from the dump (every citation of the search,
``all``: one reference per chunk, in its provider rank, its raw chunk as the content), once with the held-words pass
off and once on. So the two differ only by the pass; against the dump's own results the replay shows its fidelity
(passages the pipeline dropped are not in ``all``). Printed per set: recall@5, MRR and place@1 of the labelled file
(``retrieval.evaluate``), off and on (the pass names files, it cites none: the
two must agree, and the searches whose citations differ are counted); how many searches looked for held files and
found some; the pass's own time (mean, p95) beside the search's. The questions whose first file changed are listed for
the tuning sets only: the held-out sets (``retrieval.HELD_OUT``) are counted, never listed.

``--probe N``: sentences copied from the files instead (up to N per file, seeded, from the chunks LightRAG stored:
what a person copies), LightRAG's list simulated from its own store (the first 20 chunks by the query's vector under
the store's embedder, ``faiss_index_chunks``: the offline engine builds no graph, so ``mix`` is these chunks), and the
held-words pass run on each (the store's words): how many sentences' files LightRAG's 20 miss, and how many of
those the pass names (``heldWords.files``) with the command that finds the place. ``--fragments``: six words of each
(twelve characters of a Chinese one), as "extracting text from binary files" is of its sentence.

    .venv/bin/python benchmarks/held_words.py DUMP --store DIR [--run e5usexlang] [--sets old,tables,tune3,tune4,tune5]
    .venv/bin/python benchmarks/held_words.py --probe 3 [--fragments] --store DIR
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
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from retrieval import HELD_OUT, evaluate  # noqa: E402
from retrieval_labels import LabelError, load_sets, resolve  # noqa: E402

TUNING = ("old", "tables", "tune3", "tune4", "tune5")


def references(cits: list[dict[str, Any]]) -> list[Any]:
    """The provider's references a search's citations came from: one per chunk, in provider rank."""
    from mnote_kr.models import ProviderReference

    seen: dict[Any, Any] = {}
    for c in sorted(cits, key=lambda c: c["diagnostics"].get("providerRank", 0)):
        key = c.get("lightRagChunkId") or (c["sourceRootRelativePath"], c.get("rawQuote"))
        if key in seen:
            continue
        seen[key] = ProviderReference(provider=c["provider"], file_path=c.get("lightRagFilePath") or "",
                                      chunk_id=c.get("lightRagChunkId"), doc_id=c.get("lightRagDocId"),
                                      content=c.get("rawQuote") or "", rank=c["diagnostics"].get("providerRank", 0))
    return list(seen.values())


def replay(host: Any, query: str, refs: list[Any], provider: str, top_k: int) -> tuple[Any, float]:
    """``pipeline.search`` on LightRAG's replayed references; the search and its time (ms)."""
    from mnote_kr.citations import pipeline
    from mnote_kr.citations.map.request import StartedQuery
    from mnote_kr.models import ProviderQueryResult

    result = ProviderQueryResult(provider=provider, references=refs)
    t0 = time.perf_counter()
    found = pipeline.search(host, query, scope=[], top_k=top_k, started=StartedQuery(lambda: result, t0))
    return found, (time.perf_counter() - t0) * 1000


#: What ends a sentence the probe copies.
_SENTENCE_END = r"(?<=[.!?。！？；])\s*|\n+"


def fragment(sentence: str, rng: Any) -> str:
    """A piece of ``sentence`` a person might copy: six words in a row, or twelve characters of Chinese."""
    from mnote_kr.citations.rank.neutral import han_share

    if han_share(sentence) >= 0.5:
        at = rng.randrange(max(1, len(sentence) - 11))
        return sentence[at:at + 12]
    words = sentence.split()
    at = rng.randrange(max(1, len(words) - 5))
    return " ".join(words[at:at + 6])


def probe(tmp: Path, per_file: int, seed: int = 26, pieces: bool = False) -> None:
    """``--probe``: sentences copied from the store's chunks, LightRAG's 20 simulated by its own vectors, searched
    with the held-words pass off and on (see the module docstring)."""
    import random
    import re

    import faiss
    import numpy as np

    from mnote_kr.app.host import Host
    from mnote_kr.citations.map import heldwords
    from mnote_kr.citations.rank.ranking import terms
    from mnote_kr_lightrag.engine import embedders, modelservice

    rag = next(p for p in (tmp / "home" / "data" / "engine" / "rag_storage").glob("mnote_*") if p.is_dir())
    chunks = json.loads((rag / "kv_store_text_chunks.json").read_text(encoding="utf-8"))
    index = faiss.read_index(str(rag / "faiss_index_chunks.index"))
    meta = json.loads((rag / "faiss_index_chunks.index.meta.json").read_text(encoding="utf-8"))
    vectors = index.reconstruct_n(0, index.ntotal)
    ids = [meta[str(i)]["__id__"] for i in range(index.ntotal)]
    name = json.loads((tmp / "home" / "data" / "engine" / "embedder.json").read_text(encoding="utf-8"))["name"]
    embed = embedders.make_embedder(name, modelservice.embed)
    host = Host(tmp / "kb")
    live = host.registry().by_provider_name()
    rng = random.Random(seed)
    by_file: dict[str, list[str]] = {}
    for cid in sorted(chunks):
        c = chunks[cid]
        for sentence in re.split(_SENTENCE_END, c["content"]):
            sentence = " ".join(sentence.split())
            if 30 <= len(sentence) <= 200 and "<" not in sentence and len(set(terms(sentence))) >= heldwords.MIN_TERMS:
                by_file.setdefault(c["file_path"], []).append(sentence)
    picked = [(f, s) for f in sorted(by_file) for s in rng.sample(by_file[f], min(per_file, len(by_file[f])))]
    if pieces:
        picked = [(f, p) for f, s in picked if len(set(terms(p := fragment(s, rng)))) >= heldwords.MIN_TERMS]
    counts = {"sentences": len(picked), "fileIn20": 0, "firstOff": 0, "firstOn": 0, "top5Off": 0, "top5On": 0,
              "looked": 0, "named": 0, "namedOther": 0}
    for path, sentence in picked:
        entry = live.get(path)
        target = entry.source_root_relative_path if entry is not None else None
        scores = vectors @ np.asarray(embed([sentence])[0], dtype=np.float32)
        top = np.argsort(-scores)[:20]
        from mnote_kr.models import ProviderReference

        refs = [ProviderReference(provider="lightrag", file_path=chunks[ids[j]]["file_path"], chunk_id=ids[j],
                                  content=chunks[ids[j]]["content"], rank=k) for k, j in enumerate(top)]
        counts["fileIn20"] += any(r.file_path == path for r in refs)
        for mode, on in (("Off", False), ("On", True)):
            heldwords.HELD_WORDS = on
            found, _ = replay(host, sentence, refs, "lightrag", 10)
            files = list(dict.fromkeys(c.source_root_relative_path for c in found.results))
            counts["first" + mode] += files[:1] == [target]
            counts["top5" + mode] += target in files[:5]
            held = found.diagnostics.get("heldWords")
            if on and held is not None:
                counts["looked"] += 1
                counts["named"] += target in held["files"]
                counts["namedOther"] += bool(set(held["files"]) - {target})
            if on and target not in files[:5]:
                told = held and {k: held[k] for k in ("files", "count")}
                print(f"  missed: {target}: {sentence[:90]!r}; held {told}")
    kind = "fragments" if pieces else "sentences"
    print(f"probe: {counts['sentences']} {kind} copied from {len(by_file)} files; their file among LightRAG's 20 "
          f"chunks {counts['fileIn20']}; first file off {counts['firstOff']} on {counts['firstOn']}; in the first five "
          f"off {counts['top5Off']} on {counts['top5On']}; the pass looked {counts['looked']}, named the sentence's "
          f"file {counts['named']}, named another {counts['namedOther']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dump", type=Path, nargs="?")
    parser.add_argument("--probe", type=int, default=0, metavar="N", help="N sentences per file instead of a dump")
    parser.add_argument("--fragments", action="store_true", help="with --probe: six words of each sentence")
    parser.add_argument("--store", type=Path, required=True, help="the run's temp dir (home/ and kb/), copied first")
    parser.add_argument("--run", default="e5usexlang")
    parser.add_argument("--sets", default=",".join(TUNING) + ",heldout2,heldout3")
    args = parser.parse_args()
    if args.probe:
        tmp = Path(tempfile.mkdtemp(prefix="held-words-"))
        shutil.copytree(args.store / "home", tmp / "home", symlinks=True)
        shutil.copytree(args.store / "kb", tmp / "kb", symlinks=True)
        os.environ["MNOTE_KR_HOME"] = str(tmp / "home")
        try:
            probe(tmp, args.probe, pieces=args.fragments)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return 0
    if args.dump is None:
        parser.error("a dump, or --probe N")
    run = json.loads(args.dump.read_text(encoding="utf-8"))[args.run]
    _, sets = load_sets()
    labels = [q for name in args.sets.split(",") for q in sets[name] if q["id"] in (run.get("all") or {})]
    try:
        paragraphs = {q["id"]: resolve(q).get("paragraphs") for q in labels}
    except LabelError as e:
        print(f"Error: {e}", file=sys.stderr)
        return 2
    tmp = Path(tempfile.mkdtemp(prefix="held-words-"))
    shutil.copytree(args.store / "home", tmp / "home", symlinks=True)
    shutil.copytree(args.store / "kb", tmp / "kb", symlinks=True)
    os.environ["MNOTE_KR_HOME"] = str(tmp / "home")
    from mnote_kr.app.host import Host
    from mnote_kr.citations.map import heldwords

    timed: list[float] = []
    real = heldwords.held_files

    def timing(*a: Any, **k: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return real(*a, **k)
        finally:
            timed.append((time.perf_counter() - t0) * 1000)

    heldwords.held_files = timing  # type: ignore[assignment]
    import msgspec

    host = Host(tmp / "kb")
    top_k = int(run.get("top_k") or 10)
    out: dict[str, dict[str, Any]] = {"off": {"results": {}, "top_k": top_k}, "on": {"results": {}, "top_k": top_k}}
    ms: dict[str, list[float]] = {"off": [], "on": []}
    held: list[tuple[dict[str, Any], dict[str, Any], list[str], list[str]]] = []
    weak = {"off": 0, "on": 0}
    try:
        for q in labels:
            refs = references(run["all"][q["id"]])
            provider = refs[0].provider if refs else "lightrag"
            for name, on in (("off", False), ("on", True)):
                heldwords.HELD_WORDS = on
                timed.clear()
                found, took = replay(host, q["q"], refs, provider, top_k)
                ms[name].append(took)
                if on:
                    ms.setdefault("pass", []).extend(timed)
                out[name]["results"][q["id"]] = [msgspec.to_builtins(c) for c in found.results]
                weak[name] += found.weak
                if on and "heldWords" in found.diagnostics:
                    files = [c["sourceRootRelativePath"] for c in out[name]["results"][q["id"]]]
                    before = [c["sourceRootRelativePath"] for c in out["off"]["results"][q["id"]]]
                    held.append((q, found.diagnostics["heldWords"], before, files))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    evals = {name: evaluate(r, labels, paragraphs) for name, r in out.items()}
    dumped = evaluate({"results": run["results"], "top_k": top_k}, labels, paragraphs)
    print(f"{len(labels)} questions of {args.run} replayed; per set: recall@5, MRR, place@1 (found files)")
    print(f"{'set':10} {'n':>4} {'dump r@5':>9} {'off r@5':>8} {'on r@5':>7} {'off MRR':>8} {'on MRR':>7} "
          f"{'off p@1':>8} {'on p@1':>7}")
    for s in args.sets.split(","):
        groups = [g for g in evals["off"]["groups"] if g.startswith(f"{s}-") and g.count("-") == 1]
        n = sum(evals["off"]["groups"][g]["recall5"][1] for g in groups)
        if not n:
            continue

        def mean(e: dict[str, Any], key: str, groups: list[str] = groups) -> float:
            pairs = [e["groups"][g][key] for g in groups if key in e["groups"][g]]
            total = sum(k for _, k in pairs)
            return sum(v * k for v, k in pairs) / total if total else 0.0

        off, on = evals["off"], evals["on"]
        print(f"{s:10} {n:>4} {mean(dumped, 'recall5'):>9.3f} {mean(off, 'recall5'):>8.3f} {mean(on, 'recall5'):>7.3f} "
              f"{mean(off, 'mrr'):>8.3f} {mean(on, 'mrr'):>7.3f} "
              f"{mean(off, 'place_current'):>8.3f} {mean(on, 'place_current'):>7.3f}")
    looked = len(held)
    found_any = sum(1 for _, h, _, _ in held if h["files"])

    def shown(name: str, qid: str) -> list[Any]:
        return [(c["sourceRootRelativePath"], c["locator"], c.get("displayQuote")) for c in out[name]["results"][qid]]

    differ = sum(1 for q in labels if shown("off", q["id"]) != shown("on", q["id"]))
    print(f"held-words pass: looked {looked} of {len(labels)} searches, files holding every term {found_any}; "
          f"searches whose citations differ off and on {differ}; said weak: off {weak['off']}, on {weak['on']}")
    for q, h, before, after in held:
        if not h["files"]:
            continue
        target = "docs/" + Path(q["doc"]).name
        moved = before[:1] != after[:1]
        if q["set"] in HELD_OUT:
            continue  # counted above, never listed
        print(f"  {q['id']} [{q['set']}] {q['q'][:70]!r}: holding {h['files']}; first "
              f"{before[:1]} -> {after[:1]}{' (moved)' if moved else ''}; labelled {target}")
    heldout = [(q, h, b, a) for q, h, b, a in held if q["set"] in HELD_OUT and h["files"]]
    if heldout:
        print(f"  held-out: {len(heldout)} search(es) named a held file, first file changed in "
              f"{sum(1 for _, _, b, a in heldout if b[:1] != a[:1])}")
    for name, values in ms.items():
        if values:
            values = sorted(values)
            p95 = values[int(0.95 * (len(values) - 1))]
            print(f"{name:>4}: mean {statistics.mean(values):.1f} ms, p95 {p95:.1f} ms over {len(values)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
