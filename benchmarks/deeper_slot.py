"""Which deeper files reach the first five, replayed without an engine: LightRAG's deeper list over a saved store.

A ``retrieval.py --dump`` run searched with ``deeper_files = 0`` (the default) holds no deeper file, so
``deep_meaning.py`` has nothing to replay on it. This joins what each side has, on the tuning sets only (``old``,
``tune3``, ``tune4``, ``tune5``, ``tables``; the held-out sets are never read):

* the host's first files of each question, as the engine run ranked them (the dump's citations through this tree's
  ranking, ``deep_meaning.first_files``; the meaning query's and the translation's files included);
* LightRAG's first ``--depth`` chunks of the question, recomputed over an engine store (``kv_store_text_chunks.json``
  and its faiss vectors; the question embedded with the store's embedder, as the model service does), from which
  ``passages.with_deeper_files`` passes on ``--files`` files the engine run's files lack;
* each file's meaning: its best place's cosine with the question, over every place vector its locator queues at
  ingest (``meaning.queue``, computed once into ``--cache`` under ``MNOTE_KR_HOME``), the question as
  ``meaning`` meets places. The host's value is the best among the places it located, which include the file's
  nearest places (``placing.FILE_WIDE``): near this, not equal.

Then ``deeperslot.admitted`` (this tree's) ranks the deeper files under each rule, a deeper file going before the engine
run's file holding the rank it is given. Printed per set and cross/same language: the answering file in the first
five, gained and lost against none, MRR, and files passed on per search.

    MNOTE_KR_HOME=/tmp/x .venv/bin/python benchmarks/deeper_slot.py DUMP STORE_DIR --cache /tmp/x/deeper.pkl
        [--depth 40] [--files 5] [--held-out-aggregates]   # the held-out sets: their own --cache file

Round 30 (r28's dump, r26's store ``/work/scratch/r26/benchstore``), answering file in the first five of 258: none
225; ``--depth 40``: fifth 228 (+5 -2), r23 227 (+4 -2); ``--depth 60``: both 227 (+4 -2). MRR 0.767 none, fifth
0.771 / 0.770, r23 0.759 / 0.756. Files passed on per search: fifth 1.00 at depth 40, 2.06 at 60; in any language
2.78 and 4.17.
"""

from __future__ import annotations

import argparse
import pickle
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from deep_meaning import first_files, tuning_labels  # noqa: E402

#: (name, module constants): each rule's settings of ``deeperslot`` / ``passages``.
RULES = (("fifth", {"FIFTH": True, "OTHER_LANGUAGE_ONLY": True}),
         ("fifth-any-language", {"FIFTH": True, "OTHER_LANGUAGE_ONLY": False}),
         ("r23", {"FIFTH": False, "OTHER_LANGUAGE_ONLY": False}))


def place_vectors(docs: Path) -> dict[str, np.ndarray]:
    """Every place vector of each file of ``docs``, as ingest's preparation queues and embeds them."""
    from mnote_kr.citations.rank import meaning
    from mnote_kr.plugins import load_plugins

    heard: list[list[str]] = []
    queue = meaning.queue
    meaning.queue = lambda texts: heard.append(list(texts))  # type: ignore[assignment]
    try:
        plugins, out = load_plugins(), {}
        for path in sorted(docs.iterdir()):
            heard.clear()
            plugins.prepare_locate(str(path))
            mats = []
            for texts in heard:
                key = meaning.places_key(texts)
                if meaning.stored(key) is None:
                    meaning.embed_places(texts)
                if (vecs := meaning.stored(key)) is not None:
                    mats.append(np.asarray(vecs, dtype=np.float32))
            if mats:
                out["docs/" + path.name] = np.concatenate(mats)
            print(f"  {path.name}: {sum(len(m) for m in mats)} places", file=sys.stderr)
    finally:
        meaning.queue = queue  # type: ignore[assignment]
    return out


def held_out_labels() -> list[dict[str, Any]]:
    """The held-out sets' questions (scored as a whole only: no question of theirs is printed)."""
    import json

    from retrieval_labels import HELDOUT2, HELDOUT3, mark_cross

    labels = [{**q, "set": name} for name, path in (("heldout2", HELDOUT2), ("heldout3", HELDOUT3))
              for q in json.loads(path.read_text(encoding="utf-8"))["questions"]]
    mark_cross(labels)
    return labels


def prepared(dump: Path, store: Path, cache: Path, held_out: bool = False) -> dict[str, Any]:
    if cache.exists():
        return pickle.loads(cache.read_bytes())
    import json

    import xlang_pool as xp

    from mnote_kr.citations.rank import meaning
    from mnote_kr_lightrag.engine import embedders, modelservice

    run = json.loads(dump.read_text(encoding="utf-8"))["e5usexlang"]
    labels = [q for q in (held_out_labels() if held_out else tuning_labels()) if q["id"] in run["all"]]
    files, texts, vectors = xp.load_store(store)
    embedder = json.loads(next(store.rglob("embedder.json")).read_text(encoding="utf-8"))["name"]
    asked = np.asarray(embedders.make_embedder(embedder, modelservice.embed)([q["q"] for q in labels]), np.float32)
    data = {"labels": labels, "files": ["docs/" + f for f in files], "texts": texts,
            "order": {q["id"]: np.argsort(-(vectors @ asked[k]), kind="stable")[:80] for k, q in enumerate(labels)},
            "host": {q["id"]: first_files(run["all"][q["id"]], q["q"]) for q in labels},
            "query": {q["id"]: meaning._placing_vector(q["q"]) for q in labels},
            "places": place_vectors(next(store.rglob("kb/docs")))}
    cache.write_bytes(pickle.dumps(data))
    return data


def ranked(data: dict[str, Any], q: dict[str, Any], depth: int, files: int) -> tuple[list[str], int]:
    """The host's first files with this tree's deeper rule applied, and how many files were passed on."""
    from mnote_kr.citations.rank import deeper, deeperslot
    from mnote_kr.models import ProviderReference
    from mnote_kr_lightrag.client import passages

    host = data["host"][q["id"]]
    chunks = [ProviderReference(provider="lightrag", file_path=data["files"][i], chunk_id=str(i), rank=k,
                                content=data["texts"][i]) for k, i in enumerate(data["order"][q["id"]][:depth], 1)]
    head = [ProviderReference(provider="lightrag", file_path=f, chunk_id=f, rank=k) for k, f in enumerate(host, 1)]
    deep = [r for r in passages.with_deeper_files(head, head + chunks[20:], len(head), files, q["q"]) if r.deeper]
    vec = data["query"][q["id"]]

    def best(f: str) -> float | None:
        m = data["places"].get(f)
        return None if m is None else float(np.max(m @ vec))

    own: dict[str, str] = defaultdict(str)
    for r in chunks:
        own[r.file_path] += (r.content or "")[:300] + "\n"
    rows = [deeper.Row(f, k, False, best(f), own[f]) for k, f in enumerate(host, 1)]
    rows += [deeper.Row(r.file_path, len(host) + k, True, best(r.file_path), r.content or "")
             for k, r in enumerate(deep, 1)]
    out = list(host)
    for row, rank in zip(rows, deeperslot.admitted(q["q"], rows), strict=True):
        if row.deeper and rank is not None:
            out.insert(min(rank - 1, len(out)), row.file)
    return out, len(deep)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dump", type=Path, help="a retrieval.py --dump file (its e5usexlang run)")
    parser.add_argument("store", type=Path, help="a directory holding an engine store of the same files")
    parser.add_argument("--cache", type=Path, required=True, help="where the replay's inputs are kept")
    parser.add_argument("--depth", type=int, default=60)
    parser.add_argument("--files", type=int, default=5, help="deeper files passed on ([providers.lightrag])")
    parser.add_argument("--held-out-aggregates", action="store_true",
                        help="the held-out sets instead (their own --cache), each set's totals alone")
    args = parser.parse_args()
    from mnote_kr.citations.rank import deeperslot
    from mnote_kr_lightrag.client import passages

    data = prepared(args.dump, args.store, args.cache, args.held_out_aggregates)
    hits: dict[str, dict[str, int | None]] = defaultdict(dict)
    passed: Counter[str] = Counter()
    for name, consts in (("none", None), *RULES):
        for q in data["labels"]:
            if consts is None:
                order, n = data["host"][q["id"]], 0
            else:
                deeperslot.FIFTH, passages.OTHER_LANGUAGE_ONLY = consts["FIFTH"], consts["OTHER_LANGUAGE_ONLY"]
                order, n = ranked(data, q, args.depth, args.files)
            want = "docs/" + Path(q["doc"]).name
            hits[name][q["id"]] = order.index(want) + 1 if want in order else None
            passed[name] += n
    groups: dict[str, list[str]] = defaultdict(list)
    for q in data["labels"]:
        side = "cross" if q["cross"] else "same"
        for g in (f"{q['set']}-{side}", f"ALL-{side}", "ALL"):
            groups[g].append(q["id"])
    n = len(data["labels"])
    kind = "held-out" if args.held_out_aggregates else "tuning"
    print(f"{n} {kind} questions; answering file in the first five (gained/lost vs none); depth {args.depth}, "
          f"{args.files} deeper files")
    for g in sorted(groups, key=lambda g: (g.startswith("ALL"), g)):
        if args.held_out_aggregates and g not in ("ALL", "heldout2-cross", "heldout2-same", "heldout3-cross",
                                                  "heldout3-same", "ALL-cross", "ALL-same"):
            continue
        ids = groups[g]
        cells = []
        for name in hits:
            top = {i for i in ids if (hits[name][i] or 99) <= 5}
            base = {i for i in ids if (hits["none"][i] or 99) <= 5}
            cells.append(f"{name} {len(top):3d}/{len(ids):3d} +{len(top - base)}-{len(base - top)}")
        print(f"  {g:13s} " + "   ".join(cells))
    for name in hits:
        mrr = sum(1 / r for r in hits[name].values() if r) / n
        print(f"  {name}: MRR {mrr:.3f}, files passed on per search {passed[name] / n:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
