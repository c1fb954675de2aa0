"""How deep LightRAG's chunk list holds the answering file, and whether a deeper file may take a slot.

A sibling of ``benchmarks/xlang_pool.py`` (same engine store, same tuning questions, held-out sets
never read): the chunk order is the default embedder's (``e5usexlang``: ``mix@0.2`` of the engine's
e5xlang vectors and USE), what LightRAG's ``/query/data`` returns. Per tuning set and cross/same:

* ``@20 @40 @60 @80``: the answering file among the files of the first N chunks;
* per rule, ``r@5`` and ``MRR`` of the file order the rule gives, and how many questions' files
  it moves into (``won``) or out of (``lost``) the first five against LightRAG's own order.

Rules (``--rules``):

* ``lightrag``: LightRAG's file order (first chunk of each file), the baseline;
* ``admit@K``: the files of the first 20 chunks in LightRAG's order, then at most ``K`` more files
  from chunks 21-60 whose *meaning score* (below) is the highest, each placed before the first
  pool file whose meaning score it beats (``admit@K/D`` reads chunks 21-D; ``admit@K+M``: beats by M);
* ``xadmit@K`` / ``oadmit@K`` / ``xoadmit@K``: only chunks in another language than the question's
  (``crossquery.language``; a Japanese chunk reads as Chinese) / deeper files in LightRAG's order;
* ``madmit@K/D``: as ``admit`` but the deeper files are those of the first ``D`` chunks of the whole
  store ordered by meaning score (what a second ``/query/data`` whose query vector weighs e5 and USE
  so would return);
* ``meaning``: every file of the first 60 chunks by its meaning score alone (an upper bound of
  what a re-scoring of the deeper list could do, not a rule: it moves same-language files too).

A chunk's meaning score (``--signal meaning``) is ``(1-U) * cos_e5 + U * cos_use`` (``--use U``,
default 0.5): the engine vector's e5 half alone (its hashed half, which matches words only within one script, left out)
and USE multilingual v3; a file's is its best chunk's. ``--signal rerank``: the model service's
``/v1/rerank`` cosine (WordLlama), which a search already computes over the deeper list.

    .venv/bin/python benchmarks/xlang_deep.py DIR [--rules lightrag,admit@3,meaning] [--use 0.5] [--check DUMP]

``--cost EVERY``: warm search time (whole search and the provider's part, p50/p95) with
``[providers.lightrag] deeper_files`` 0 and its default, alternated, on the store's engine.

``--check DUMP``: per tuning set, the engine's own pool (files a ``retrieval.py --dump`` run of
``e5usexlang`` cited) and recall@5 beside this harness's ``@20``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import xlang_pool as xp  # noqa: E402

DEPTHS = (20, 40, 60, 80)
#: The default embedder's USE share of the cosine (``embedders.USE_SHARE``).
USE_SHARE = 0.2
E5_DIM = 384


def files_in(order: np.ndarray, files: list[str], depth: int) -> list[str]:
    out: list[str] = []
    for i in order[:depth]:
        if files[i] not in out:
            out.append(files[i])
    return out


def admit(order: np.ndarray, files: list[str], meaning: np.ndarray, k: int, depth: int,
          other: list[bool] | None = None, by_order: bool = False, margin: float = 0.0,
          source: np.ndarray | None = None) -> list[str]:
    """LightRAG's pool files, then up to ``k`` deeper ones by meaning (``by_order``: LightRAG's order),
    only chunks in another language than the question's when ``other`` is given, each placed before
    the first pool file whose meaning score it beats by ``margin``."""
    pool = files_in(order, files, xp.POOL)
    best: dict[str, float] = {}
    for i in order[:depth]:
        best[files[i]] = max(best.get(files[i], -9.0), float(meaning[i]))
    seen: list[str] = []
    if source is not None:  # the deeper files come from another order's first ``depth`` chunks
        for i in source[:depth]:
            best[files[i]] = max(best.get(files[i], -9.0), float(meaning[i]))
    for i in (order[xp.POOL:depth] if source is None else source[:depth]):
        if files[i] not in pool and files[i] not in seen and (other is None or other[i]):
            seen.append(files[i])
    deeper = (seen if by_order else sorted(seen, key=lambda f: -best[f]))[:k]
    out = list(pool)
    for f in deeper:
        at = next((j for j, g in enumerate(out) if g in pool and best[f] > best[g] + margin), len(out))
        out.insert(at, f)
    return out


def cost(base: Path, every: int, rounds: int) -> None:
    """Warm search time with ``deeper_files`` 0 and its default, alternated (0, N, 0, N...), on the
    store's own engine and workspace (``DIR/kb``, what ``xlang_pool.py setup`` built): every
    ``every``-th tuning question, the first round of each setting untimed. Run it under ``flock
    /tmp/mnote-engine.lock``. The store's embedder is the one the engine starts with
    (``MNOTE_KR_OFFLINE_EMBEDDER``)."""
    import statistics

    from mnote_kr_testkit.engine import seed_tiktoken

    from mnote_kr.app.host import Host
    from mnote_kr.core.config import load_config
    from mnote_kr_lightrag.client import passages
    from mnote_kr_lightrag.engine.managed import default_engine_dirs, start_engine, stop_engine

    embedder = json.loads(next(base.rglob("embedder.json")).read_text(encoding="utf-8"))["name"]
    os.environ.setdefault("MNOTE_KR_OFFLINE_EMBEDDER", embedder)
    qs = [q["q"] for q in xp.tuning_labels()][::every]
    dirs = default_engine_dirs()
    seed_tiktoken(dirs["cache_dir"])
    start_engine(**dirs, wait_s=180)
    try:
        hosts = {}
        for n in (0, passages.DEEPER_FILES):
            config = load_config(base / "kb")
            config.setdefault("providers", {}).setdefault("lightrag", {})["deeper_files"] = n
            hosts[n] = Host(base / "kb", config=config)
        ms: dict[int, list[tuple[float, float, int]]] = {n: [] for n in hosts}
        for r in range(rounds * 2 + 2):
            n = list(hosts)[r % 2]
            for q in qs:
                t0 = time.perf_counter()
                result = hosts[n].search(q, top_k=10)
                if r >= 2:
                    ms[n].append(((time.perf_counter() - t0) * 1000, float(result.diagnostics.get("providerMs") or 0),
                                  len({c.source_root_relative_path for c in result.results})))
        for n, rows in ms.items():
            total = sorted(t for t, _, _ in rows)
            provider = sorted(p for _, p, _ in rows)
            print(f"deeper_files={n}: search p50 {statistics.median(total):.0f} ms p95 "
                  f"{total[int(0.95 * (len(total) - 1))]:.0f} ms, provider p50 {statistics.median(provider):.0f} ms "
                  f"p95 {provider[int(0.95 * (len(provider) - 1))]:.0f} ms (n={len(rows)}, {embedder})")
    finally:
        stop_engine(dirs["state_dir"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--cost", type=int, metavar="EVERY", help="time searches with deeper_files 0 and its default "
                        "on the store's engine (every EVERY-th tuning question), instead of measuring")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--rules", default="lightrag,admit@1,admit@2,admit@3,admit@5,admit@3/80,meaning")
    parser.add_argument("--use", type=float, default=0.5)
    parser.add_argument("--signal", choices=("meaning", "rerank"), default="meaning",
                        help="rerank: the model service's /v1/rerank cosine (WordLlama), what a search already has")
    parser.add_argument("--check", type=Path, help="a retrieval.py --dump file: its e5usexlang run's pool beside @20")
    parser.add_argument("--misses", action="store_true")
    args = parser.parse_args()
    base = args.dir.resolve()
    os.environ.setdefault("MNOTE_KR_HOME", str(base / "home"))
    if args.cost:
        cost(base, args.cost, args.rounds)
        return 0
    files, texts, engine = xp.load_store(base)
    if engine is None:
        raise SystemExit("Error: the store has no faiss vectors (the e5 half is read from them)")
    every = [{**q, "orig": q["doc"], "doc": xp.stored_name(q["doc"], set(files))} for q in xp.tuning_labels()]
    labels = [q for q in every if q["doc"] in set(files)]
    e5 = engine[:, :E5_DIM] / np.linalg.norm(engine[:, :E5_DIM], axis=1, keepdims=True)
    use = xp._cached(base / "xlang_cache", "use", texts, xp.use_model())
    models = {"e5xlang": xp.e5xlang(), "use": xp.use_model()}
    rules = [r for r in args.rules.split(",") if r]
    from mnote_kr_lightrag.client import crossquery
    from mnote_kr_lightrag.engine.embedders import learned_similarity

    lang = [crossquery.language(t) for t in texts]
    rows: dict[str, dict[str, Any]] = {}
    for q in labels:
        qe = np.asarray(models["e5xlang"]([q["q"]])[0], dtype=np.float32)
        qe /= np.linalg.norm(qe)
        qu = np.asarray(models["use"]([q["q"]])[0], dtype=np.float32)
        qu /= np.linalg.norm(qu)
        lightrag = (1 - USE_SHARE) * (engine @ qe) + USE_SHARE * (use @ qu)
        qe5 = qe[:E5_DIM] / np.linalg.norm(qe[:E5_DIM])
        meaning = (1 - args.use) * (e5 @ qe5) + args.use * (use @ qu)
        if args.signal == "rerank":
            meaning = np.asarray(learned_similarity(q["q"], texts), dtype=np.float32)
        order = np.argsort(-lightrag, kind="stable")
        want = Path(q["doc"]).name
        got: dict[str, Any] = {f"@{d}": want in files_in(order, files, d) for d in DEPTHS}
        for rule in rules:
            if rule == "lightrag":
                fo = files_in(order, files, len(order))
            elif rule == "meaning":
                fo = sorted(files_in(order, files, 60), key=lambda f: -max(
                    float(meaning[i]) for i in order[:60] if files[i] == f))
            elif rule.startswith(("admit@", "xadmit@", "oadmit@", "xoadmit@", "madmit@")):
                kind, _, spec = rule.partition("@")
                spec, _, m = spec.partition("+")
                k, _, d = spec.partition("/")
                ql = crossquery.language(q["q"])
                other = [lang[i] is not None and lang[i] != ql for i in range(len(lang))] if "x" in kind else None
                source = np.argsort(-meaning, kind="stable") if kind == "madmit" else None
                fo = admit(order, files, meaning, int(k), int(d or 60), other, by_order="o" in kind,
                           margin=float(m or 0), source=source)
                got[rule + ":pool"] = want in fo[:len(files_in(order, files, xp.POOL)) + int(k)]
                got[rule + ":n"] = len(fo) - len(files_in(order, files, xp.POOL))
            else:
                raise SystemExit(f"Error: unknown rule {rule!r} (lightrag, [x][o|m]admit@K[/D][+M], meaning)")
            got[rule] = fo.index(want) + 1 if want in fo else None
        rows[q["id"]] = got
    groups: dict[tuple[str, str], list[str]] = {}
    for q in labels:
        side = "cross" if q["cross"] else "same"
        groups.setdefault((q["set"], side), []).append(q["id"])
        groups.setdefault(("ALL", side), []).append(q["id"])
    print(f"{len(texts)} chunks of {len(set(files))} files; {len(labels)} tuning questions; meaning U={args.use}")
    for (name, side), ids in sorted(groups.items(), key=lambda kv: (kv[0][0] == "ALL", kv[0])):
        n = len(ids)
        deep = " ".join(f"@{d}={sum(rows[i][f'@{d}'] for i in ids):3d}" for d in DEPTHS)
        print(f"{name:8s} {side:5s} n={n:3d} files found {deep}")
        for rule in rules:
            r5 = [bool(rows[i][rule] and rows[i][rule] <= 5) for i in ids]
            base5 = [bool(rows[i]["lightrag"] and rows[i]["lightrag"] <= 5) for i in ids] if "lightrag" in rules else r5
            mrr = sum(1 / rows[i][rule] for i in ids if rows[i][rule]) / n
            won = sum(a and not b for a, b in zip(r5, base5, strict=True))
            lost = sum(b and not a for a, b in zip(r5, base5, strict=True))
            extra = ""
            if rule + ":pool" in rows[ids[0]]:
                extra = (f" files passed={sum(rows[i][rule + ':pool'] for i in ids):3d}"
                         f" added/search={sum(rows[i][rule + ':n'] for i in ids) / n:.2f}")
            print(f"    {rule:12s} r@5={sum(r5) / n:.3f} MRR={mrr:.3f} won={won} lost={lost}{extra}")
    if args.check:
        run = json.loads(args.check.read_text(encoding="utf-8"))["e5usexlang"]
        for (name, side), ids in sorted(groups.items()):
            byid = {q["id"]: q for q in labels}
            mine = [i for i in ids if i in run["all"]]
            want = {i: Path(byid[i]["orig"]).name for i in mine}
            eng = sum(want[i] in {Path(c["sourceRootRelativePath"]).name for c in run["all"][i]} for i in mine)
            top = sum(want[i] in {Path(c["sourceRootRelativePath"]).name for c in run["results"][i]} for i in mine)
            print(f"check {name:8s} {side:5s} n={len(mine):3d} engine pool={eng:3d} harness @20="
                  f"{sum(rows[i]['@20'] for i in mine):3d} engine recall@5={top:3d}")
    if args.misses:
        for q in labels:
            r = rows[q["id"]]
            if not r["@20"]:
                print(f"  miss {q['id']} {'x' if q['cross'] else ' '} " + " ".join(
                    f"{k}={v}" for k, v in r.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
