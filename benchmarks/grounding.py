"""Answers grounded sentence by sentence: recorded answers replayed through ``ask``.

For each labelled question of ``retrieval_questions.json`` (``old``: the set tuned on),
``grounding_tune_pdf.json`` (``tunepdf``: tuned on, 28 sentences labelled on PDF blocks of PDFs
heldout2 does not use), ``grounding_tune_pdf2.json`` (``tunepdf2``: tuned on, 25 sentences on PDF blocks
of two long PDFs neither of those uses, mostly past the first page: answers outside the file's first
chunk), ``retrieval_tune3.json`` (``tune3``: tuned on, written before it was, 60 questions over 8
files no other set uses), ``retrieval_tune5.json`` (``tune5``: tuned on, written before it was, 48
questions mostly in another language than their document's), ``retrieval_heldout2.json`` and
``retrieval_heldout3.json`` (``heldout2``, ``heldout3``: reported only, their misses never printed), a recorded
answer is written from the labelled place's own text, **verbatim**: the sentence of the labelled
DOCX paragraph (or of the PDF page around the labelled snippet, cut to the labelled block when the
label has one) that holds the snippet, and for a DOCX label the paragraph's next sentence when it
has one. The sentences are cut by this file's own
splitter from text ``retrieval_labels`` reads out of the document (python's zipfile / pypdf), never
from mnote-kr's output. Each answer gets one off-topic sentence more (``OFF_TOPIC``), which no
cited place supports.

A fresh managed engine (offline model service, default embedder) ingests the files of both sets;
every question then goes through ``Host.ask`` with the provider's answer replaced by the recorded
one (the offline engine has no LLM), so the citations are exactly those of the product. Printed per
set: the share of answer sentences grounded at the labelled place (``place_hit`` of
``benchmarks/retrieval.py``: DOCX the labelled paragraph; PDF with a labelled block the same page
and IoU >= 0.5; PDF without one, in the old set, the labelled page), against the baseline measured in
the same run, **every sentence to its file's first citation** (what ``ask`` marked before: LightRAG's
``[n]`` names a file, the host put that file's citation there); and the share of off-topic sentences
marked unsupported. Target: >= 0.85 grounded at the labelled place. ``in block`` reads the same
places once more, also counting a PDF box that lies inside the labelled block (``within``): a sentence
grounded on its own lines of a long block has an IoU with the whole block below 0.5. ``where the
file is cited``: the grounded share of the sentences whose file the search cited (an answer is
written from what the provider found; a recorded one is written whether or not it was found).

    .venv/bin/python benchmarks/grounding.py [--top-k 10] [--sets old,tunepdf] [--misses] [--dump F]
    # --misses: the tuning sets' only (old, tunepdf, tunepdf2, tune3, tune5), never heldout2's or heldout3's
    .venv/bin/python benchmarks/grounding.py --from-dump F [--reground] [--misses]  # a run again
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from retrieval import finish_ingest, iou, place_hit  # noqa: E402
from retrieval_labels import LabelError, answering_text, corpus_host, load_sets, norm, resolve  # noqa: E402

SETS = ("old", "tunepdf", "tunepdf2", "tune3", "tune5", "heldout2", "heldout3")
#: Tuned on: their misses may be printed (``--misses``); never ``heldout2``'s or ``heldout3``'s.
TUNING = ("old", "tunepdf", "tunepdf2", "tune3", "tune5")
#: This benchmark's own tuning sets of PDF block labels, by set name.
TUNE_PDF = {name: Path(__file__).resolve().parent / f"grounding_{name.replace('tune', 'tune_')}.json"
            for name in ("tunepdf", "tunepdf2")}
OFF_TOPIC = {"en": "The recipe needs two cups of flour and a pinch of salt before baking.",
             "zh": "这道菜需要两杯面粉和一小撮盐，然后放进烤箱烘烤。"}
TARGET = 0.85
#: ``within``: the share of a grounded PDF box's area inside the labelled block (a line's box and the
#: label's, read by two PDF libraries, differ by a point or two at its edges).
INSIDE = 0.75
_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“(])|(?<=[。！？；])|\s*•\s*")


def _sentences(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for m in _END.finditer(text):
        if text[start:m.start()].strip():
            spans.append((start, m.start()))
        start = m.end()
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


def recorded_answer(label: dict[str, Any]) -> list[str]:
    """The answer sentences written from the labelled place's text (verbatim), or [] when the
    snippet cannot be found in it."""
    text = answering_text(label, window=1000)
    if not text:
        return []
    text = " ".join(text.split())
    keep = [(i, c) for i, ch in enumerate(text) for c in norm(ch)]
    flat = "".join(c for _, c in keep)
    at = flat.find(norm(label["answer"]))
    if at < 0:
        return []
    if "block" in label:  # a labelled PDF block: the answer is written from the block alone
        text, keep, at = _inside_block(text, keep, flat, at, label)
    first, last = keep[at][0], keep[min(at + len(norm(label["answer"])), len(keep)) - 1][0]
    spans = _sentences(text)
    mine = [k for k, (a, b) in enumerate(spans) if b > first and a <= last]
    if not mine:
        return []
    out = [text[spans[mine[0]][0]:spans[mine[-1]][1]].strip()]
    if not re.search(r"[.!?。！？：:]\W*$", out[0]):  # cut by the page's window: a sentence all the same
        out[0] += "。" if re.search(r"[\u4e00-\u9fff]$", out[0]) else "."
    if label["doc"].endswith(".docx") and mine[-1] + 1 < len(spans):
        nxt = text[slice(*spans[mine[-1] + 1])].strip()
        if len(nxt) >= 20:
            out.append(nxt)
    return out


def _inside_block(text: str, keep: list[tuple[int, str]], flat: str, at: int,
                  label: dict[str, Any]) -> tuple[str, list[tuple[int, str]], int]:
    """The page text cut to the labelled block (its ``first`` words before the snippet to its
    ``last`` words after it), with its folded map and the snippet's place in it; the page text as
    it was when either end is not found. The page text runs on through a block's end (a heading,
    the next column, a footnote), so a sentence cut from it alone can end in another block."""
    first = norm(label["block"]["first"])
    start = flat.rfind(first, 0, at + len(first))  # the block's first words may hold the snippet's start
    end = flat.find(norm(label["block"]["last"]), at)
    if start < 0 or end < 0:
        return text, keep, at
    a, b = keep[start][0], keep[end + len(norm(label["block"]["last"])) - 1][0] + 1
    cut = text[a:b]
    kept = [(i, c) for i, ch in enumerate(cut) for c in norm(ch)]
    return cut, kept, at - start


def run(labels: list[dict[str, Any]], files: list[str], top_k: int, kb: Path) -> dict[str, Any]:
    """Ingest ``files`` into a fresh engine (workspace ``kb``, kept) and ``ask`` every question with its
    recorded answer; also keeps the places each answer was grounded among (``places``, for ``--from-dump``)."""
    tmp = Path(tempfile.mkdtemp(prefix="mnote-bench-grounding-"))
    # beside the workspace, kept with it: a --reground finds the places' vectors (ranking by meaning)
    os.environ["MNOTE_KR_HOME"] = str(kb.parent / "home")
    import msgspec
    from mnote_kr_testkit.engine import seed_tiktoken

    from mnote_kr.citations import answering, pipeline
    from mnote_kr_lightrag.engine.managed import default_engine_dirs, start_engine, stop_engine

    answers = {q["q"]: " ".join([*q["sentences"], OFF_TOPIC[q["lang"]]]) for q in labels}
    start_query = pipeline.start_query

    class Recorded:
        """The provider's query with the recorded answer in place of the (absent) LLM's."""

        def __init__(self, started: Any, answer: str) -> None:
            self._started, self._answer = started, answer
            self.elapsed_ms: float | None = None

        def result(self) -> Any:
            out = msgspec.structs.replace(self._started.result(), answer=self._answer, llm_generated=True)
            self.elapsed_ms = self._started.elapsed_ms
            return out

    def recorded(host: Any, query: str, **kw: Any) -> Any:
        return Recorded(start_query(host, query, **{**kw, "want_answer": False}), answers[query])

    pipeline.start_query = recorded
    ground_answer = answering.ground_answer
    places: dict[str, list[Any]] = {}

    def recording(host: Any, answer: str, cited: list[Any], search: Any = None) -> Any:  # noqa: ANN401
        places[answer] = [msgspec.to_builtins(c) for c in cited]
        return ground_answer(host, answer, cited, search)

    answering.ground_answer = recording  # type: ignore[assignment]
    dirs = default_engine_dirs()
    seed_tiktoken(dirs["cache_dir"])
    try:
        start_engine(**dirs, wait_s=180)
        host = corpus_host(kb, files)
        t0 = time.perf_counter()
        report = host.ingest(["docs"], wait=True, wait_s=1800)
        finish_ingest(host, [e.status for e in host.registry().entries.values()])
        ingest_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        # answering.ask itself (Host.ask starts the provider's query before the pipeline is loaded)
        out = {q["id"]: msgspec.to_builtins(answering.ask(host, q["q"], scope=[], top_k=top_k)) for q in labels}
        return {"ingest_s": ingest_s, "ask_s": time.perf_counter() - t0, "results": out, "kb": str(kb),
                "home": os.environ["MNOTE_KR_HOME"],
                "statuses": sorted({i.status for i in report.items}),
                "places": {q["id"]: places.get(answers[q["q"]], []) for q in labels}}
    finally:
        pipeline.start_query = start_query
        answering.ground_answer = ground_answer
        stop_engine(dirs["state_dir"])
        shutil.rmtree(tmp, ignore_errors=True)


def regrounded(dump: dict[str, Any], labels: list[dict[str, Any]]) -> dict[str, Any]:
    """A ``--dump`` with every answer grounded again by this tree over the places it recorded."""
    if dump.get("home"):
        os.environ["MNOTE_KR_HOME"] = dump["home"]
    import msgspec

    from mnote_kr.app.host import Host
    from mnote_kr.citations import answering
    from mnote_kr.models import Citation

    host = Host(Path(dump["kb"]))
    t0 = time.perf_counter()
    for q in labels:
        if q["id"] not in dump["places"]:
            continue
        places = msgspec.convert(dump["places"][q["id"]], list[Citation])
        answer = " ".join([*q["sentences"], OFF_TOPIC[q["lang"]]])
        sentences = answering.ground_answer(host, answer, places)[1]
        dump["results"][q["id"]]["sentences"] = msgspec.to_builtins(sentences)
    return {**dump, "ask_s": time.perf_counter() - t0}


def within(loc: dict[str, Any], place: dict[str, Any]) -> bool:
    """A PDF box on the labelled block's page lying inside the block (``INSIDE`` of its area): the
    sentence's own lines in the answering block, which ``place_hit``'s IoU with the whole block
    (made for a search's first place, a block boxed whole) counts as a miss when the block is long."""
    bbox = loc.get("bbox")
    if "rect" not in place or bbox is None or loc.get("page") != place["pages"][0]:
        return False
    x0, y0, x1, y1 = bbox
    r = place["rect"]
    area = max(0.0, x1 - x0) * max(0.0, y1 - y0)
    common = max(0.0, min(x1, r[2]) - max(x0, r[0])) * max(0.0, min(y1, r[3]) - max(y0, r[1]))
    return area > 0 and common / area >= INSIDE


def _key(text: str) -> str:
    return re.sub(r"\W", "", re.sub(r"\[\d{1,3}\]", "", norm(text)))


def score(label: dict[str, Any], result: dict[str, Any], place: dict[str, Any]) -> dict[str, Any]:
    """Sentences at the labelled place, grounded and by the baseline; off-topic marked unsupported."""
    by_text = {s["text"]: s for s in result["sentences"]}
    doc = Path(label["doc"]).name
    first = next((c for c in result["citations"] if Path(c["sourceRootRelativePath"]).name == doc), None)
    grounded = inside = baseline = 0
    for sentence in label["sentences"]:
        # the answer's sentences as ask split them, inside this one (a split may differ from ours)
        # (compared without the footnote markers [87] that ask drops, either way round: a sentence ask
        # read as one with the next, at a colon, still counts)
        mine = _key(sentence)
        parts = [s for s in result["sentences"] if _key(s["text"]) in mine or mine in _key(s["text"])]
        mine_file = bool(parts) and all(s.get("locator") and Path(s["sourceRootRelativePath"] or "").name == doc
                                        for s in parts)
        grounded += mine_file and all(place_hit(s["locator"], None, label, place) for s in parts)
        inside += mine_file and all(place_hit(s["locator"], None, label, place) or within(s["locator"], place)
                                    for s in parts)
        if first is not None:
            baseline += place_hit(first["locator"], first.get("rawQuote"), label, place)
    off = by_text.get(OFF_TOPIC[label["lang"]])
    return {"n": len(label["sentences"]), "grounded": grounded, "inside": inside, "baseline": baseline,
            "offTopicUnsupported": off is not None and not off["supported"], "fileCited": first is not None}


def load() -> tuple[list[str], dict[str, list[dict[str, Any]]]]:
    """``retrieval_labels.load_sets`` with this benchmark's own tuning sets of PDF block labels
    (``TUNE_PDF``: sets ``tunepdf`` and ``tunepdf2``) and their documents."""
    files, sets = load_sets()
    for name, path in TUNE_PDF.items():
        tune = json.loads(path.read_text(encoding="utf-8"))
        sets[name] = [{**q, "set": name} for q in tune["questions"]]
        files = files + [d for d in tune["documents"] if d not in files]
    return files, sets


def _miss(q: dict[str, Any], place: dict[str, Any], result: dict[str, Any]) -> str:
    """One tuning question's grounded sentences beside its label (page, and IoU with a labelled block)."""
    got = []
    for x in result["sentences"]:
        loc = x.get("locator") or {}
        where: tuple[Any, ...] = (loc.get("paragraphIndex"), loc.get("page"))
        if "rect" in place and loc.get("bbox"):
            where = (loc.get("page"), [round(v) for v in loc["bbox"]], round(iou(loc["bbox"], place["rect"]), 2))
        got.append((x["text"][:50], where, Path(x.get("sourceRootRelativePath") or "-").name[:24]))
    label = {k: (v if k != "rect" else [round(c) for c in v]) for k, v in place.items()}
    return f"  miss {q['id']} {q['doc']} {label} {q['q']!r}\n     {got}"


def _met(share: float) -> str:
    return "met" if share >= TARGET else "NOT met"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--sets", default=",".join(SETS),
                        help=f"comma-separated sets (default all: {','.join(SETS)}); only their files are ingested")
    parser.add_argument("--misses", action="store_true",
                        help=f"print the misses of the tuning sets ({', '.join(TUNING)}; "
                             "never heldout2's or heldout3's)")
    parser.add_argument("--dump", type=Path, help="keep the run (answers, places, the workspace) in this JSON file")
    parser.add_argument("--from-dump", type=Path,
                        help="score a --dump's answers again (with --reground: grounded again by this tree)")
    parser.add_argument("--reground", action="store_true")
    args = parser.parse_args()
    chosen = [n.strip() for n in args.sets.split(",") if n.strip()]
    if not chosen or any(n not in SETS for n in chosen):
        print(f"Error: --sets {args.sets!r} names no known set (choose among {', '.join(SETS)})", file=sys.stderr)
        return 2
    files, sets = load()
    labels = []
    places = {}
    for name in chosen:
        for q in sets[name]:
            try:
                places[q["id"]] = resolve(q)
            except LabelError as e:
                where = TUNE_PDF[name].name if name in TUNE_PDF else "retrieval_*.json"
                print(f"Error: {e} (fix the label's snippet in benchmarks/{where})", file=sys.stderr)
                return 2
            q["sentences"] = recorded_answer(q)
            if q["sentences"]:
                labels.append(q)
    files = [f for f in files if any(q["doc"] == f for q in labels)]
    skipped = sum(len(sets[n]) for n in chosen) - len(labels)
    print(f"{len(labels)} questions with a recorded answer ({skipped} without: snippet not found in the "
          f"answering text), {sum(len(q['sentences']) for q in labels)} answer sentences, verbatim; "
          f"ingesting {len(files)} files ...", flush=True)
    if args.from_dump:
        r = json.loads(args.from_dump.read_text(encoding="utf-8"))
        if args.reground:
            r = regrounded(r, labels)
    else:
        kb = Path(tempfile.mkdtemp(prefix="mnote-bench-grounding-kb-")) / "kb"
        r = run(labels, files, args.top_k, kb)
        if args.dump:
            args.dump.write_text(json.dumps(r, ensure_ascii=False), encoding="utf-8")
        else:
            shutil.rmtree(kb.parent, ignore_errors=True)
    print(f"ingest {r['ingest_s']:.0f}s {r['statuses']}; {len(labels)} asks {r['ask_s']:.1f}s")
    print(f"\n{'set':10} {'sentences':>9} {'grounded':>9} {'in block':>9} {'baseline':>9} {'ratio':>6} "
          f"{'file cited':>10} {'off-topic unsupported':>22}")
    for name in chosen:
        mine = [q for q in labels if q["set"] == name]
        scores = [score(q, r["results"][q["id"]], places[q["id"]]) for q in mine]
        n = sum(s["n"] for s in scores)
        g, b = sum(s["grounded"] for s in scores), sum(s["baseline"] for s in scores)
        inside = sum(s["inside"] for s in scores)
        cited = [s for s in scores if s["fileCited"]]
        nc = sum(s["n"] for s in cited)
        print(f"{name:10} {n:>9} {g / n:>9.3f} {inside / n:>9.3f} {b / n:>9.3f} {g / b if b else float('inf'):>6.2f} "
              f"{sum(s['fileCited'] for s in scores):>5}/{len(scores):<4} "
              f"{sum(s['offTopicUnsupported'] for s in scores):>15}/{len(scores)}"
              f"   target >= {TARGET}: grounded {_met(g / n)}, in block {_met(inside / n)}; where the file is "
              f"cited {sum(s['grounded'] for s in cited) / max(nc, 1):.3f} ({nc} sentences)")
        for kind in ("pdf", "docx"):
            mk = [(q, s) for q, s in zip(mine, scores, strict=True) if q["doc"].endswith(kind)]
            nk = sum(s["n"] for _, s in mk)
            if nk:
                print(f"  {kind:8} {nk:>9} {sum(s['grounded'] for _, s in mk) / nk:>9.3f} "
                      f"{sum(s['inside'] for _, s in mk) / nk:>9.3f} {sum(s['baseline'] for _, s in mk) / nk:>9.3f}")
        if args.misses and name in TUNING:
            for q, s in zip(mine, scores, strict=True):
                if s["grounded"] < s["n"]:
                    print(_miss(q, places[q["id"]], r["results"][q["id"]]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
