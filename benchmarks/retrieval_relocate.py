"""Re-locate a saved ``retrieval.py --dump`` run with this tree's locators, on the tuning sets: every chunk LightRAG
returned for the answering file is located again (the dump's evidence, the chunk as passage, the query), its places
(the chosen one and ``Locator.runners_up``) folded as the host folds a file's places (``folding.runner_citations``,
``behind_by_meaning``, ``fold_places``), and place@1 / place@3 / in-view scored for two settings of how many places
behind its best each passage gives: ``RUNNERS_UP`` as this tree has it, and every paragraph or block of the passage.
Unlike ``--refold`` (which re-orders only the three places the run showed) it measures a change of the candidate places
themselves. A DOCX chunk gets the heading block LightRAG's own DOCX parser gives it (its sidecar scope, rebuilt: the
run's sidecars are gone). Prints the questions whose outcome differs, where the labelled place ranks among all of its
file's places (``--ranks``), and the warm locate+fold time of each setting. Reads the held-out sets only with
``--held-out-aggregates``, and then prints their aggregate figures alone.

    .venv/bin/python benchmarks/retrieval_relocate.py --from-dump F [--ids en01,tb_zh20] [--ranks]
    .venv/bin/python benchmarks/retrieval_relocate.py --from-dump F --against module.NAME=VALUE ...  # a rule off

Round 24 (window), r23's dump: every passage place a candidate left place@3 unchanged on all five tuning sets and
cost tune3 two place@1 (0.627 -> 0.593), warm locate+fold 1.08x (98.5 s -> 106.2 s over 232 questions). The answers
outside the three places shown are mostly no place of any passage at all: a PDF box cut otherwise than the labelled
block (IoU 0.49), a block the passage's alignment leaves out, a JSON table chunk placed at the file level."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import msgspec
from mnote_kr_testkit.data import CORPUS

sys.path.insert(0, str(Path(__file__).resolve().parent))
from retrieval_labels import HELDOUT2, HELDOUT3, OLD, TABLES, TUNE3, TUNE4, TUNE5, norm, resolve  # noqa: E402
from retrieval_places import in_view, place_hit  # noqa: E402

TUNING = (("old", OLD), ("tables", TABLES), ("tune3", TUNE3), ("tune4", TUNE4), ("tune5", TUNE5))
#: ``--held-out-aggregates``: these sets are scored as a whole, never question by question (their misses stay unread).
HELD_OUT = (("heldout2", HELDOUT2), ("heldout3", HELDOUT3))
_ENC = msgspec.json.Encoder()
_BLOCKS: dict[str, list[dict[str, Any]]] = {}
#: The PDF reader's time backstop (``mnote_kr_pdf_bbox.budget.MAX_SECONDS``, CPU seconds since round 29) while
#: relocating, at least.
READ_SECONDS = 900.0
#: A DOCX chunk's sidecar block is the one holding its evidence's lines (False: its own lines, as before round 28).
EVIDENCE_BLOCK = True


def _docx_block(doc: str, chunk: str, evidence: str = "") -> Any:
    """The heading block of LightRAG's DOCX parser holding most of the ``evidence``'s lines (the host's evidence is
    the words of the sidecar block the run mapped the chunk to), else of ``chunk``'s, as a sidecar block. By the
    chunk's lines alone (before round 28), a chunk spanning several blocks took the one holding most of it, not the
    run's: r27's dump relocated lost old en25, en28 and en31 and tune3 t3_zh27 and t3_zh30, each cited in view by the
    run (en28 the labelled paragraph 613, "matched evidence") and placed at the file level or in another block here."""
    from lightrag.parser.docx.parse_document import extract_docx_blocks

    from mnote_kr.models import SidecarBlock, SidecarPosition

    if doc not in _BLOCKS:
        try:
            _BLOCKS[doc] = extract_docx_blocks(str(CORPUS / doc))
        except ValueError:  # python-docx opens no template-typed part (heldout3's poi__stress014.docx): no block
            _BLOCKS[doc] = []
    if not _BLOCKS[doc]:
        return None

    def held(text: str) -> tuple[list[str], Any]:
        lines = [norm(x) for x in text.splitlines() if len(norm(x)) > 8]
        top = max(_BLOCKS[doc], key=lambda b: sum(1 for x in lines if x in norm(b["content"])))
        return [x for x in lines if x in norm(top["content"])], top

    said, best = held(evidence) if EVIDENCE_BLOCK and evidence else ([], None)
    if not said:
        best = held(chunk)[1]
    return SidecarBlock(blockid=f"b{best['uuid']}", content=best["content"], heading=best.get("heading"),
                        parent_headings=list(best.get("parent_headings") or []), level=best.get("level") or 0,
                        positions=[SidecarPosition(type="paraid", range=[best["uuid"], best["uuid_end"]])])


def _setting(wide: bool, base: tuple[int, int], against: list[tuple[Any, str, Any, Any]] | None = None) -> None:
    """The first setting (``wide`` False: this tree as it is) or the second: every passage place a candidate, or with
    ``against`` (``--against``), this tree with those module settings (each ``(module, name, as is, other)``)."""
    from mnote_kr.citations.locate import placing
    from mnote_kr_pdf_bbox import answer

    if against:
        for module, name, now, other in against:
            setattr(module, name, other if wide else now)
        return
    placing.RUNNERS_UP, answer.RUNNERS_UP = (10_000, 10_000) if wide else base


def _against(specs: list[str]) -> list[tuple[Any, str, Any, Any]]:
    """``--against`` settings, ``module.NAME=VALUE`` (a Python literal), as ``(module, name, as is, other)``."""
    import ast
    import importlib

    out = []
    for spec in specs:
        target, _, value = spec.partition("=")
        mod, _, name = target.rpartition(".")
        module = importlib.import_module(mod)
        out.append((module, name, getattr(module, name), ast.literal_eval(value)))
    return out


def file_places(pm: Any, run: dict[str, Any], label: dict[str, Any]) -> list[Any]:
    """The answering file's places in the host's order (its first, then the rest), each a ``Citation``."""
    from mnote_kr.citations.render import folding
    from mnote_kr.citations.render.claims import not_another_numbered, place_key
    from mnote_kr.models import Citation, LocateRequest

    target = "docs/" + Path(label["doc"]).name
    chunks: dict[tuple[str, str], dict[str, Any]] = {}
    for c in run["all"][label["id"]]:
        key = (c["lightRagChunkId"] or "", c["rawQuote"] or "")
        if c["sourceRootRelativePath"] == target and (
                key not in chunks or (c["relevanceScore"] or 0) > (chunks[key]["relevanceScore"] or 0)):
            chunks[key] = c  # a chunk's own place scores above the places behind it
    mains, runners = [], []
    for (cid, raw), c in sorted(chunks.items(), key=lambda kv: -(kv[1]["relevanceScore"] or 0)):
        block = _docx_block(label["doc"], raw, c["locatorEvidenceText"] or "") \
            if label["doc"].endswith(".docx") and c["blockId"] else None
        loc = pm.locate(LocateRequest(file=str(CORPUS / label["doc"]), evidence=c["locatorEvidenceText"] or raw,
                                      passage=raw, query=label["q"], block=block,
                                      block_id=block.blockid if block else None))
        loc = not_another_numbered(loc, label["q"])
        first = msgspec.json.decode(_ENC.encode({**c, "alternatives": []}), type=Citation)
        main = msgspec.structs.replace(first, locator=msgspec.structs.replace(loc, runners_up=[], place_text=None),
                                       locator_precision=loc.locator_precision, locator_degraded=loc.locator_degraded,
                                       display_quote=loc.place_text or loc.quote or c["displayQuote"],
                                       search_query=label["q"])
        mains.append(main)
        runners.append(folding.runner_citations(main, loc, cid or raw[:40], set(), ""))
    held: set[str] = set()
    out, behind = [], []
    for m in mains:
        if (k := place_key(m.locator)) and k in held:
            continue
        held.add(k)
        out.append(m)
    for m, rs in zip(mains, runners, strict=True):
        for k, r in enumerate(rs):
            if place_key(r.locator) not in held:
                held.add(place_key(r.locator))
                score = (m.relevance_score or 0) * (1 - 0.01 * (k + 1))  # as the pipeline scores a place behind
                behind.append(msgspec.structs.replace(r, relevance_score=score))
    return folding.behind_by_meaning(out + behind)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--from-dump", type=Path, required=True)
    parser.add_argument("--ids", default="", help="only these questions (comma-separated)")
    parser.add_argument("--ranks", action="store_true", help="where the labelled place ranks among the file's places")
    parser.add_argument("--against", action="append", default=[], metavar="module.NAME=VALUE",
                        help="compare this tree with these settings changed (instead of every passage place)")
    parser.add_argument("--held-out-aggregates", action="store_true",
                        help="the held-out sets instead of the tuning sets, their aggregate figures only (once, at "
                             "the end of a round: never a question's outcome or rank)")
    args = parser.parse_args()
    os.environ.setdefault("MNOTE_KR_LOCATE_CACHE", "0")
    import mnote_kr_pdf_bbox.budget as budget

    # it measures where places land, not how fast a PDF reads: round 28's run on a machine at load 27 (2 cores) read
    # tracemonkey past the reader's 20 s backstop (wall time then; CPU time since round 29, which a loaded machine does
    # not spend) and the whole run died at its 100th question
    budget.MAX_SECONDS = max(budget.MAX_SECONDS, READ_SECONDS)
    import mnote_kr_docx_locator
    import mnote_kr_pdf_bbox
    from mnote_kr.citations.locate import placing
    from mnote_kr.citations.rank import meaning
    from mnote_kr.citations.render import folding
    from mnote_kr.plugins import load_plugins
    from mnote_kr_pdf_bbox import answer

    run = next(iter(json.loads(args.from_dump.read_text(encoding="utf-8")).values()))
    only = set(args.ids.split(",")) - {""}
    sets = HELD_OUT if args.held_out_aggregates else TUNING
    if args.held_out_aggregates and (only or args.ranks):
        parser.error("--held-out-aggregates prints aggregates only: no --ids, no --ranks")
    labels = [dict(q, set=name) for name, path in sets for q in json.loads(path.read_text("utf-8"))["questions"]]
    labels = [q for q in labels if q["id"] in run["results"] and (not only or q["id"] in only) and any(
        c["sourceRootRelativePath"] == "docs/" + Path(q["doc"]).name for c in run["results"][q["id"]])]
    pm = load_plugins(None)
    for doc in sorted({q["doc"] for q in labels}):
        (mnote_kr_pdf_bbox if doc.endswith(".pdf") else mnote_kr_docx_locator).prepare_locate(str(CORPUS / doc))
    meaning.embed_queued(lambda line: None)
    base = (placing.RUNNERS_UP, answer.RUNNERS_UP)
    against = _against(args.against)
    other = "with " + ", ".join(args.against) if against else "every passage place"
    tot: dict[tuple[str, bool], dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    took = {False: 0.0, True: 0.0}
    for label in labels:
        place, res = resolve(label), {}
        file_places(pm, run, label)  # warm: the file parsed, its vectors read, before either setting is timed
        for wide in (False, True):
            _setting(wide, base, against)
            t0 = time.perf_counter()
            ordered = file_places(pm, run, label)
            shown = folding.fold_places(ordered)[0][0]
            took[wide] += time.perf_counter() - t0
            loc = [json.loads(_ENC.encode(p.locator)) for p in (shown, *shown.alternatives)]
            quotes = [shown.display_quote, *(a.display_quote for a in shown.alternatives)]
            hits = [place_hit(x, q, label, place) for x, q in zip(loc[:3], quotes[:3], strict=True)]
            rank = next((k for k, o in enumerate(ordered) if place_hit(json.loads(_ENC.encode(o.locator)),
                                                                      o.display_quote or o.locator.place_text,
                                                                      label, place)), None)
            res[wide] = (hits[0], any(hits), in_view(loc[0], place), rank, len(ordered))
            for group in (label["set"], "all"):
                for key, value in zip(("p1", "p3", "view"), res[wide], strict=False):
                    tot[(group, wide)][key].append(value)
        _setting(False, base, against)
        if not args.held_out_aggregates and (res[False][:3] != res[True][:3] or args.ranks):
            print(f"{label['id']:8} as is {res[False]} {other} {res[True]} {label['q'][:60]}")
    for group in (*(name for name, _ in sets), "all"):
        m, w = tot[(group, False)], tot[(group, True)]
        if m["p1"]:
            mean = {k: (sum(m[k]) / len(m[k]), sum(w[k]) / len(w[k])) for k in ("p1", "p3", "view")}
            print(f"{group:7} n={len(m['p1']):3}" + "".join(f"  {k} {a:.3f} -> {b:.3f}" for k, (a, b) in mean.items()))
    print(f"locate+fold time: as is {took[False]:.1f}s, {other} {took[True]:.1f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
