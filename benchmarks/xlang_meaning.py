"""The question asked a second time for meaning (``client.meaningquery``), replayed on an engine store.

A sibling of ``benchmarks/xlang_pool.py`` and ``xlang_deep.py`` (same store, held-out sets never
read: only ``old``, ``tables``, ``tune3``, ``tune4``, ``tune5``). Per question:

* ``lightrag``: the files of LightRAG's list under the default embedder (``e5usexlang``: the engine's
  e5xlang vectors and USE, ``embedders.USE_SHARE``), in order;
* ``deeper``: that list with r23's host rule approximated (at most 2 files of chunks 21-60 in another
  script than the question, each before the first of the first five it beats by e5 cosine): today's search;
* ``meaning``: ``deeper`` with ``meaningquery.added_files`` of the marked question's 20 chunks, ranked by
  ``embedders.MEANING_HASH``/``MEANING_USE``'s mix of e5, hashed-word and USE cosines (what the model
  service's marked vector gives: plugins/lightrag/tests/test_lr_meaningquery.py).

Prints, per set and cross/same language, recall@5 of the answering file and MRR, and how many files
``meaning`` wins and loses against ``deeper``. ``--hash H --use U`` try other weights.

    .venv/bin/python benchmarks/xlang_meaning.py DIR [--hash 0.1] [--use 0.3]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import xlang_pool as xp  # noqa: E402

SETS = ("old", "tables", "tune3", "tune4", "tune5")
E5_DIM = 384


def main() -> int:
    from mnote_kr.models import ProviderReference
    from mnote_kr_lightrag.client import meaningquery as mq
    from mnote_kr_lightrag.engine import embedders

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--hash", type=float, default=embedders.MEANING_HASH)
    parser.add_argument("--use", type=float, default=embedders.MEANING_USE)
    args = parser.parse_args()
    base = args.dir.resolve()
    os.environ.setdefault("MNOTE_KR_HOME", str(base / "home"))
    xp.TUNING = SETS  # the held-out sets are never read
    files, texts, engine = xp.load_store(base)
    if engine is None:
        raise SystemExit("Error: the store has no faiss vectors")
    labels = [{**q, "doc": xp.stored_name(q["doc"], set(files))} for q in xp.tuning_labels()]
    labels = [q for q in labels if q["doc"] in set(files)]
    e5 = engine[:, :E5_DIM] / np.linalg.norm(engine[:, :E5_DIM], axis=1, keepdims=True)
    hashed = engine[:, E5_DIM:] / np.maximum(np.linalg.norm(engine[:, E5_DIM:], axis=1, keepdims=True), 1e-9)
    use = xp._cached(base / "xlang_cache", "use", texts, xp.use_model())
    questions = [q["q"] for q in labels]
    qe = np.asarray(xp.e5xlang()(questions), dtype=np.float32)
    qu = np.asarray(xp.use_model()(questions), dtype=np.float32)
    qu /= np.linalg.norm(qu, axis=1, keepdims=True)
    scripts = [mq.script(t) for t in texts]
    share = embedders.USE_SHARE

    def refs(order: np.ndarray) -> list[ProviderReference]:
        return [ProviderReference(provider="lightrag", file_path=files[i], content=texts[i], rank=k)
                for k, i in enumerate(order, start=1)]

    def file_order(rs: list[ProviderReference]) -> list[str]:
        return list(dict.fromkeys(r.file_path for r in rs))

    ranks: dict[str, dict[str, int]] = {"lightrag": {}, "deeper": {}, "meaning": {}}
    for k, q in enumerate(labels):
        qn = qe[k] / np.linalg.norm(qe[k])
        c_e5 = e5 @ (qn[:E5_DIM] / np.linalg.norm(qn[:E5_DIM]))
        c_h = hashed @ (qn[E5_DIM:] / max(float(np.linalg.norm(qn[E5_DIM:])), 1e-9))
        default = (1 - share) * (engine @ qn) + share * (use @ qu[k])
        meant = (1 - args.use) * ((1 - args.hash) * c_e5 + args.hash * c_h) + args.use * (use @ qu[k])
        order = np.argsort(-default, kind="stable")
        pool = refs(order[:xp.POOL])
        ranks["lightrag"][q["id"]] = _rank(file_order(refs(order)), q["doc"])
        mine = mq.script(q["q"])
        ranks["deeper"][q["id"]] = _rank(_deeper(file_order(pool), order, files, scripts, c_e5, mine), q["doc"])
        # as a search does: the marked query's files among the first 20 chunks', then the deeper files
        second = refs(np.argsort(-meant, kind="stable")[:mq.CHUNKS])
        both = file_order(mq.added_files(pool, second, q["q"]))
        ranks["meaning"][q["id"]] = _rank(_deeper(both, order, files, scripts, c_e5, mine), q["doc"])
    groups: dict[tuple[str, str], list[str]] = {}
    for q in labels:
        side = "cross" if q["cross"] else "same"
        groups.setdefault((q["set"], side), []).append(q["id"])
        groups.setdefault(("ALL", side), []).append(q["id"])
    print(f"{len(texts)} chunks of {len(set(files))} files; {len(labels)} tuning questions; "
          f"meaning query: hashed {args.hash}, USE {args.use}")
    for (name, side), ids in sorted(groups.items(), key=lambda kv: (kv[0][0] == "ALL", kv[0])):
        cells = []
        for rule, got in ranks.items():
            r5 = sum(got[i] <= 5 for i in ids)
            cells.append(f"{rule} {r5:3d} ({r5 / len(ids):.3f}) MRR {sum(1 / got[i] for i in ids) / len(ids):.3f}")
        won = sum(ranks["meaning"][i] <= 5 < ranks["deeper"][i] for i in ids)
        lost = sum(ranks["deeper"][i] <= 5 < ranks["meaning"][i] for i in ids)
        print(f"{name:7s} {side:5s} n={len(ids):3d}  " + " | ".join(cells) + f" | meaning +{won} -{lost}")
    return 0


def _rank(order: list[str], doc: str) -> int:
    return order.index(doc) + 1 if doc in order else 10**6


def _deeper(shown: list[str], order: np.ndarray, files: list[str], scripts: list[str | None], c_e5: np.ndarray,
            mine: str | None) -> list[str]:
    """r23's host rule, approximated: the ``shown`` files, then at most 2 files of chunks 21-60 in another
    script than the question, each before the first of the first five it beats by best e5 cosine."""
    out = list(shown)
    best: dict[str, float] = {}
    for i in range(len(files)):
        best[files[i]] = max(best.get(files[i], -9.0), float(c_e5[i]))
    deeper: list[str] = []
    for i in order[xp.POOL:60]:
        if files[i] not in out and files[i] not in deeper and scripts[i] not in (mine, None):
            deeper.append(files[i])
    admitted = 0
    for f in sorted(deeper[:5], key=lambda f: -best[f]):
        at = next((j for j, g in enumerate(out[:5]) if best[f] > best[g]), None)
        if admitted < 2 and at is not None:
            out.insert(at, f)
            admitted += 1
    return out


if __name__ == "__main__":
    sys.exit(main())
