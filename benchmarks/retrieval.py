"""Retrieval quality of the managed engine's offline embedders, and the answering place first.

Labels (``benchmarks/retrieval_labels.py`` reads them and resolves the labelled places): eight sets
of questions written by reading documents of ``tests/data/corpus``, each naming the answering
file and its place:

* ``old``: ``retrieval_questions.json``, 64 questions (34 English, 30 Chinese; 24 same wording,
  40 other wording). The embedder mix and the cosine threshold were chosen on this set, and most
  of its "other" questions still share a content word with the answering text.
* ``heldout``: ``retrieval_heldout.json``, 48 other-wording questions (27 English, 21 Chinese)
  written later, sharing no content word with the answering paragraph; tuned on since.
* ``heldout2``: ``retrieval_heldout2.json``, 63 questions (32 Chinese, 31 English; 54
  other wording; 34 on PDF pages, 29 on DOCX paragraphs) over 12 files, written and labelled
  before the ranking by meaning was tuned. Each PDF label names its answering block, resolved to a
  rectangle from the PDF's own text layer (pypdfium2 character boxes, not the project's locator).
  Measured only: ``--misses`` never prints its questions, so nothing is tuned on it.
* ``tune3``: ``retrieval_tune3.json``, 60 questions (30 Chinese; 42 other wording; 39 on PDF
  blocks, 21 on DOCX paragraphs) over 8 files no other set uses, labelled like heldout2 and written
  before any tuning on it: the set the ranking is tuned on from issue 33's sixth round.
* ``heldout3``: ``retrieval_heldout3.json``, 60 questions over 6 files no other set uses, labelled like
  heldout2 before issue 33's seventh round: measured only, its misses never printed.
* ``tables``: ``retrieval_tables.json``, 38 questions on table cells (21 Chinese; 27 PDF, 11 DOCX), one new
  file; written before issue 33's twelfth round tuned on it. PDF labels: page and the cell's value, no block.
* ``tune4``: ``retrieval_tune4.json``, 48 questions on PDF blocks (24 Chinese; 43 other wording) over 3
  files no other set uses, two of them scans whose Chinese OCR text PDFium cannot read; labelled like
  heldout2 and written before any tuning on it: a tuning set, to choose a PDF locator setting (round 14).
* ``tune5``: ``retrieval_tune5.json``, 48 questions, 40 in another language than their file's (36 DOCX, 12 PDF
  blocks; 41 other wording), labelled like heldout2 before any tuning on it: a tuning set (round 21).

For each embedder (baseline ``e5hybrid``, the former default; measured: the default ``e5xlang``),
a fresh real managed engine is started under a temp dir, the files of every set are ingested
(timed: the ingest ratio is the last / the first, both cold), and every question goes through
``Host.search``. The same index is then searched again under other settings, each reported as
``<embedder>-<name>``, question by question (each question searched by every pass before the next, the
passes' order turned by one each question, so a load drifting over the run weighs alike on all):
``ranked`` (rank_passages on, with ``--ranked``) and each
``--variant NAME:KEY=VALUE[,...]`` (workspace config overrides: today's default beside a new one,
in the same run, when the new one is a setting; a ``py:MODULE.NAME`` key sets a module constant
for that variant's searches instead, e.g. ``today:py:mnote_kr_pdf_bbox.answer.BY_MEANING=false``,
remembered locate answers bypassed). An embedder written ``NAME@TOKENS`` (``e5xlang@200``) builds
its index with LightRAG chunks of that many tiktoken tokens (overlap a tenth) instead of the
managed engine's 400: a chunk size is an ingest setting, so it needs an index of its own.

Printed per embedder and variant:

* **places**, per set, language and wording: recall@5 and MRR of the answering file
  (questions with no citation count as misses); over the questions whose file is cited: place@1
  (the file's first citation on the labelled place: DOCX the labelled paragraph index; PDF the
  labelled page with IoU >= 0.5 between the cited ``bbox`` and the labelled block, or, in the
  older sets, which label no block, the labelled page with the snippet in the place's own quote),
  place@3 (the labelled place among the file's first three places: the citation and its
  ``alternatives`` when citations carry that field, else the file's first three citations) and
  in-view (the first citation within 2 paragraphs of the labelled one, or on the labelled page);
  ``exact``: the share of first places declared exact (not ``locatorDegraded``), and place@1 among
  those (``@1|ex``) and among the approximate ones (``@1|apx``): what a claim of exactness is worth;
  against the issue's targets (recall@5 >= 0.90, place@1 >= 0.40, place@3 >= 0.65, in-view >= 0.75);
* for the older sets, as before: recall@5 and MRR per set and wording and for the union of their
  other-wording questions; place@1 per citation order (LightRAG's own, the former host ranking
  ``ids.score``, the order the host returned, that ranking re-applied by this tree);
* ``--misses``: every place@1 miss of the tuning sets, every set but heldout2 and heldout3 (question,
  labelled place, cited place, cited evidence); ``--order rerun`` prints those of this tree's ranking
  re-applied instead of the run's.

``--dump`` keeps every citation of each search (``all``, before ``pipeline.search`` keeps
``top_k``), so ``--from-dump`` re-evaluates a saved run (new measures included) and re-ranks all
of them with this tree's ``ranking`` exactly as the host would (``rerun``).

Targets of the embedder: other-wording recall@5 >= 1.5x hashing's, same-wording no worse,
place@1 >= 80%, ingest time <= 2x hashing's. Targets of the places: as above, per set.

    .venv/bin/python benchmarks/retrieval.py [--embedders e5hybrid,e5xlang] [--top-k 10] [--dump F] [--misses]
    .venv/bin/python benchmarks/retrieval.py --embedders hybrid --variant today:KEY=VALUE --dump F
    .venv/bin/python benchmarks/retrieval.py --from-dump F --misses [--order rerun]   # a saved run
    .venv/bin/python benchmarks/retrieval.py --from-dump F --refold   # + each file's shown places re-ordered by this
                                                                     # tree's folding (retrieval_refold.py): -refold0
                                                                     # without the claim rules, -refoldk with
                                                                     # kindclaims', -refold with thinclaims' too
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
from retrieval_labels import LabelError, cross_group, load_sets, norm, print_cross, resolve  # noqa: E402
from retrieval_overrides import code_overrides  # noqa: E402
from retrieval_places import evaluate_places, in_view, iou, place_hit, print_places  # noqa: E402, F401 - re-exported
from retrieval_refold import refolded  # noqa: E402
from retrieval_times import answered, print_times  # noqa: E402


def on_place(citation: dict[str, Any], label: dict[str, Any], paragraphs: list[int | None] | None) -> bool:
    """Does the citation land on the labelled place, or on one of the ``also`` places?"""
    loc = citation["locator"]
    if label["doc"].endswith(".docx"):
        return loc.get("paragraphIndex") is not None and loc.get("paragraphIndex") in (paragraphs or [])
    quote = norm(citation.get("rawQuote") or citation.get("displayQuote") or "")
    return any(loc.get("page") == x.get("page", label["page"]) and norm(x["answer"]) in quote
               for x in [label, *label.get("also", [])])


def finish_ingest(host: Any, statuses: list[str]) -> list[str]:  # noqa: ANN401
    """The files' statuses once LightRAG has processed (or failed) every one: a search of a half-built index
    measures nothing (round 24's run: an ingest wait that ended at 900 s on a loaded machine left heldout3's files
    unindexed, and its recall read 0.517). Waits on that condition, following the submitted files with ``sync``."""
    while not set(statuses) <= {"processed", "failed"}:
        counts = {s: statuses.count(s) for s in sorted(set(statuses))}
        print(f"  ingest not finished: {counts}; following it ...", flush=True)
        host.sync(wait_s=60)
        statuses = [e.status for e in host.registry().entries.values()]
    return statuses


def parse_variant(text: str) -> tuple[str, dict[str, Any]]:
    """``NAME:KEY=VALUE[,KEY=VALUE...]`` (``KEY`` a dotted path in the workspace config, ``VALUE``
    JSON or a bare string) as the variant's name and its overrides."""
    name, _, rest = text.partition(":")
    overrides: dict[str, Any] = {}
    for item in filter(None, rest.split(",")):
        key, eq, raw = item.partition("=")
        if not eq or not key:
            raise SystemExit(f"Error: --variant {text!r}: each override is KEY=VALUE "
                             "(e.g. today:providers.lightrag.rank_passages=false)")
        try:
            overrides[key] = json.loads(raw)
        except json.JSONDecodeError:
            overrides[key] = raw
    if not name or not overrides:
        raise SystemExit(f"Error: --variant {text!r} needs NAME:KEY=VALUE (e.g. today:providers.lightrag.x=false)")
    return name, overrides


def run_embedder(name: str, labels: list[dict[str, Any]], files: list[str], top_k: int,
                 variants: dict[str, dict[str, Any]] | None = None, ranked: bool = False) -> dict[str, Any]:
    """Ingest ``files`` into a fresh managed engine with embedder ``name`` and search every label;
    then search the same index again under each variant's config overrides (``ranked``:
    rank_passages on, when asked, and those of ``--variant``), kept as
    ``results_<variant>``."""
    tmp = Path(tempfile.mkdtemp(prefix=f"mnote-bench-retrieval-{name.replace('@', '-')}-"))
    os.environ["MNOTE_KR_HOME"] = str(tmp / "home")
    embedder, _, chunk_tokens = name.partition("@")
    os.environ["MNOTE_KR_OFFLINE_EMBEDDER"] = embedder
    import msgspec
    from mnote_kr_testkit.engine import seed_tiktoken

    from mnote_kr.app.host import Host
    from mnote_kr.citations import pipeline
    from mnote_kr.core.config import load_config
    from mnote_kr_lightrag.client.http import ProviderUnavailableError
    from mnote_kr_lightrag.engine.managed import OFFLINE_PARSER_RULES, default_engine_dirs, start_engine, stop_engine

    rules = None
    if chunk_tokens:
        size = int(chunk_tokens)
        rules = OFFLINE_PARSER_RULES.replace("chunk_ts=400,chunk_ol=40", f"chunk_ts={size},chunk_ol={size // 10}")
        assert rules != OFFLINE_PARSER_RULES, "the managed engine's chunk rule changed: update this benchmark"

    # Every citation of a search, before the cut to top_k (pipeline.search keeps top_k of them):
    # a saved dump can then be re-ranked offline over the same candidates the host ranked.
    built: list[list[Any]] = []
    build_citations = pipeline.build_citations

    def recording(*args: Any, **kwargs: Any) -> Any:
        out = build_citations(*args, **kwargs)
        built.append(out[0])
        return out

    pipeline.build_citations = recording  # type: ignore[assignment]

    retried: list[str] = []

    def patient(h: Any, q: str) -> tuple[Any, float, int]:
        """``h.search``, asked again (at most ``SEARCH_TRIES`` times) when LightRAG did not answer in time: a
        run of an hour on a shared machine met one such timeout and lost every figure. Each retry is counted
        and printed with the results; the time kept is the answered attempt's (``retrieval_times.answered``)."""
        def told(error: str) -> None:
            retried.append(q)
            print(f"  retrying after: {error}", file=sys.stderr, flush=True)

        return answered(lambda: h.search(q, top_k=top_k), tries=SEARCH_TRIES, retry_on=ProviderUnavailableError,
                        on_retry=told)

    def search_all(h: Any, q: str, ms: dict[str, list[float]]) -> tuple[list[Any], list[Any]]:
        built.clear()
        result, took, again = patient(h, q)
        ms[q] = [took, float(result.diagnostics.get("providerMs") or 0.0), again]
        res = result.results
        return [msgspec.to_builtins(c) for c in res], [msgspec.to_builtins(c) for c in built[-1]] if built else []

    dirs = default_engine_dirs()
    seed_tiktoken(dirs["cache_dir"])
    try:
        t0 = time.perf_counter()
        info = start_engine(**dirs, wait_s=180, parser_rules=rules)
        start_s = time.perf_counter() - t0
        ws = tmp / "kb"
        (ws / "docs").mkdir(parents=True)
        for rel in files:
            shutil.copyfile(CORPUS / rel, ws / "docs" / Path(rel).name)
        host = Host(ws)
        host.roots_add("docs")
        t0 = time.perf_counter()
        report = host.ingest(["docs"], wait=True, wait_s=900)
        statuses = finish_ingest(host, [i.status for i in report.items])
        ingest_s = time.perf_counter() - t0
        todo = dict(variants or {})
        if ranked and name != "hashing":
            # The same engine and index with each found file's best chunk first turned on (off
            # by default): the before/after of mnote_kr_lightrag.client.passages, with no second ingest.
            todo = {"ranked": {"providers.lightrag.rank_passages": True}, **todo}
        passes = [("", host, {})] + [(suffix, *_varied(ws, overrides, load_config))
                                     for suffix, overrides in todo.items()]
        # One search before any timed one (the models loaded, the engine's first answer), then the
        # passes question by question, their order turning each question: a load that drifts over the
        # run weighs alike on every pass, and each pass searches first a question in n.
        patient(host, "warm-up before the timed searches")
        ms_of: dict[str, dict[str, list[float]]] = {suffix: {} for suffix, _, _ in passes}
        both_of: dict[str, dict[str, Any]] = {suffix: {} for suffix, _, _ in passes}
        for i, label in enumerate(labels):
            for suffix, h, code in turned(passes, i):
                with code_overrides(code):
                    both_of[suffix][label["id"]] = search_all(h, label["q"], ms_of[suffix])
        both = both_of[""]
        search_s = sum(v[0] for v in ms_of[""].values()) / 1000
        run = {"embedder": info.embedder, "start_s": start_s, "ingest_s": ingest_s, "statuses": statuses,
               "search_s": search_s, "top_k": top_k, "results": {k: v[0] for k, v in both.items()},
               "all": {k: v[1] for k, v in both.items()}, "ms": ms_of[""], "interleaved": True,
               "retried": retried}
        for suffix, _, _ in passes[1:]:
            run[f"search_{suffix}_s"] = sum(v[0] for v in ms_of[suffix].values()) / 1000
            run[f"ms_{suffix}"] = ms_of[suffix]
            run[f"results_{suffix}"] = {k: v[0] for k, v in both_of[suffix].items()}
            run[f"all_{suffix}"] = {k: v[1] for k, v in both_of[suffix].items()}
        return run
    finally:
        stop_engine(dirs["state_dir"])
        shutil.rmtree(tmp, ignore_errors=True)


def turned(passes: list[Any], i: int) -> list[Any]:
    """The passes in the order question ``i`` searches them: turned by one each question."""
    k = i % len(passes)
    return passes[k:] + passes[:k]


def _varied(ws: Path, overrides: dict[str, Any], load_config: Any) -> tuple[Any, dict[str, Any]]:  # noqa: ANN401
    """A host of the workspace under a variant's config overrides, and its module constants (``py:``)."""
    from mnote_kr.app.host import Host

    config = load_config(ws)
    code = {k.removeprefix("py:"): v for k, v in overrides.items() if k.startswith("py:")}
    for key, value in overrides.items():
        if key.startswith("py:"):
            continue
        *path, leaf = key.split(".")
        node = config
        for part in path:
            node = node.setdefault(part, {})
        node[leaf] = value
    return Host(ws, config=config), code


def _rerank(cits: list[dict[str, Any]], query: str) -> list[dict[str, Any]]:
    """``cits`` in the order :func:`mnote_kr.citations.rank.ranking.relevance` of this tree gives them, ranking what
    the host ranks: a dump's places behind a passage's best (``runner_citations``: the passage's file, provider rank
    and score parts) are no candidates of their own, their cosines the passage's ``nearest``; they follow it."""
    from mnote_kr.citations.rank.ranking import Candidate, relevance

    mains: list[dict[str, Any]] = []
    behind: dict[int, list[dict[str, Any]]] = defaultdict(list)
    of: dict[tuple[str, int, str], int] = {}
    for c in cits:
        key = (c["sourceRootRelativePath"], c["diagnostics"]["providerRank"], repr(c["diagnostics"].get("scoreParts")))
        if key in of:
            behind[of[key]].append(c)
        else:
            of[key] = len(mains)
            mains.append(c)
    total = max((c["diagnostics"]["providerRank"] for c in mains), default=0) + 1
    cands = []
    for i, c in enumerate(mains):
        cosines = [x["locator"].get("meaningScore") for x in (c, *behind[i])]
        loc = c["locator"]
        cands.append(Candidate(c["diagnostics"]["providerRank"], Path(c["sourceRootRelativePath"]).name,
                               c.get("locatorEvidenceText") or c.get("displayQuote") or "",
                               tuple(c.get("headingPath") or ()), loc.get("meaningScore"), slide=loc.get("slide"),
                               page=loc.get("page"), sheet=loc.get("sheet"), approximate=bool(c.get("locatorDegraded")),
                               place=c.get("displayQuote") or "", unplaced=c.get("locatorPrecision") == "file",
                               nearest=max((x for x in cosines if x is not None), default=None)))
    scores = [v for v, _ in relevance(query, cands, total)]
    order = sorted(range(len(mains)), key=lambda i: (-scores[i], i))
    return [x for i in order for x in (mains[i], *behind[i])]


def _orders(cits: list[dict[str, Any]], query: str, full: list[dict[str, Any]] | None,
            top_k: int) -> dict[str, list[dict[str, Any]]]:
    """The citations in four orders: LightRAG's, the former host ranking, the one the host
    returned in the run, and the ranking of this tree re-applied (``rerun``: differs from
    ``current`` only when a saved dump is re-evaluated after a change of ``ranking.py``). With
    ``full`` (every citation of the search, before the cut to ``top_k``; dumps from this version
    on), ``rerun`` re-ranks all of them and keeps ``top_k``, as the host does."""
    from mnote_kr.citations.render.ids import score

    total = max((c["diagnostics"]["providerRank"] for c in cits), default=0) + 1
    lightrag = sorted(cits, key=lambda c: c["diagnostics"]["providerRank"])
    former = sorted(cits, key=lambda c: -score(c["diagnostics"]["providerRank"], total,
                                              Path(c["sourceRootRelativePath"]).name,
                                              c.get("displayQuote") or "", query)[0])
    # the host returns one citation per file (its other places folded in as alternatives): so does rerun
    rerun = _first_per_file(_rerank(full, query))[:top_k] if full else _rerank(cits, query)
    return {"lightrag": lightrag, "former": former, "current": cits, "rerun": rerun}


def _first_per_file(cits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: set[str] = set()
    return [c for c in cits if not (c["sourceRootRelativePath"] in seen or seen.add(c["sourceRootRelativePath"]))]


ORDERS = ("lightrag", "former", "current", "rerun")
SEARCH_TRIES = 3  # a search LightRAG did not answer in time is asked again, counted (run["retried"])
HELD_OUT = ("heldout2", "heldout3")  # the sets never tuned on: their misses are never printed


def _groups(label: dict[str, Any]) -> list[str]:
    """The report groups a question counts in: its set and wording (by language too), cross-language or not
    (``cross_group``), the union of the other-wording questions of both sets, and everything."""
    s, w, lang = label["set"], label["wording"], label["lang"]
    # measured apart (print_places): the older groups keep their meaning
    if s in HELD_OUT or s in ("tune3", "tables", "tune4", "tune5"):
        return [f"{s}-{w}", f"{s}-{lang}-{w}", cross_group(label, HELD_OUT)]
    out = [f"{s}-{w}", f"{s}-{lang}-{w}", "all", cross_group(label, HELD_OUT)]
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
            firsts.update({order_name: first} if first is not None else {})
        if miss_order in firsts and label["set"] not in HELD_OUT:  # never read the held-out sets' misses
            every = _rerank(full, label["q"]) if miss_order == "rerun" and full else orders[miss_order]  # all places
            mine = [c for c in every if c["sourceRootRelativePath"] == target]
            on = [i for i, c in enumerate(mine) if on_place(c, label, paragraphs[label["id"]])]
            if not on_place(firsts[miss_order], label, paragraphs[label["id"]]):
                misses.append({"label": label, "first": firsts[miss_order], "mine": mine,
                               "onPlaceAt": on[0] if on else None, "ofFile": len(mine),
                               "paragraph": (paragraphs[label["id"]] or [None])[0]})
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
    parser.add_argument("--embedders", default="e5hybrid,e5xlang", help="baseline first, comma-separated")
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--variant", action="append", default=[], metavar="NAME:KEY=VALUE[,KEY=VALUE]",
                        help="also search each index with these workspace config overrides (repeatable), "
                             "reported as <embedder>-NAME: e.g. today's default beside a new one")
    parser.add_argument("--ranked", action="store_true",
                        help="also search each index with rank_passages on (a whole search pass: off by default)")
    parser.add_argument("--dump", type=Path, help="write every search's citations to this JSON file")
    parser.add_argument("--from-dump", type=Path, help="evaluate a saved --dump instead of running the engine")
    parser.add_argument("--misses", action="store_true", help="print every place@1 miss of the last embedder")
    parser.add_argument("--refold", action="store_true",
                        help="with --from-dump: also each run with its files' places re-ordered by this tree's "
                             "folding.behind_by_meaning, reported as <run>-refold (retrieval_refold.py)")
    parser.add_argument("--order", choices=("current", "rerun"), default="current",
                        help="the order whose misses --misses prints: as returned, or this tree's ranking re-applied")
    args = parser.parse_args()
    variants = dict(parse_variant(v) for v in args.variant)
    files, sets = load_sets()
    labels = [q for qs in sets.values() for q in qs]
    try:
        places = {q["id"]: resolve(q) for q in labels}
    except LabelError as e:
        print(f"Error: {e} (fix the label's snippet in benchmarks/retrieval_*.json)", file=sys.stderr)
        return 2
    paragraphs = {k: v.get("paragraphs") for k, v in places.items()}
    missing = [q["id"] for q in labels if q["doc"].endswith(".docx") and not paragraphs[q["id"]]]
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
            runs[name] = run_embedder(name, labels, files, args.top_k, variants, args.ranked)
    for name, r in runs.items():
        print(f"[{name}] embedder {r['embedder']}; start {r['start_s']:.1f}s, ingest {r['ingest_s']:.1f}s "
              f"({sorted(set(r['statuses']))}), {len(r['results'])} searches {r['search_s']:.1f}s")
    if args.dump:
        args.dump.write_text(json.dumps(runs, ensure_ascii=False, indent=1), encoding="utf-8")
    for name in list(runs):  # "<embedder>-<variant>": the same index searched under other settings
        r = runs[name]
        for suffix in [k.removeprefix("results_") for k in list(r) if k.startswith("results_")]:
            runs[f"{name}-{suffix}"] = {**r, "results": r.pop(f"results_{suffix}"),
                                        "search_s": r.pop(f"search_{suffix}_s"), "all": r.pop(f"all_{suffix}", None),
                                        "ms": r.pop(f"ms_{suffix}", None)}
    for r in runs.values():  # each expanded run keeps only its own results
        for key in [k for k in r if k.startswith(("results_", "all_", "search_", "ms_")) and k != "search_s"]:
            r.pop(key)
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
        g = {n: evals[n]["groups"][group] for n in names}
        print(f"{group:18} {g0['recall5'][1]:>3} "
              + " ".join(f"{g[n]['recall5'][0]:>13.3f} {g[n]['mrr'][0]:>13.3f}" for n in names))
    print("the same with this tree's ranking re-applied (over every citation of the search when the dump has them):")
    print_cross(evals, names)
    for group in ("old-same", "old-other", "heldout-other", "all"):
        gs = {n: evals[n]["groups"][group] for n in names}
        print(f"{group:18} " + " ".join(
            f"{n}: r@5 {gs[n]['recall5_rerun'][0]:.3f} MRR {gs[n]['mrr_rerun'][0]:.3f}" for n in names))
    for name in names:
        print(f"[{name}] questions with no citation at all: {len(evals[name]['empty'])} {evals[name]['empty']}")
    print_times(runs)
    for run in runs.values():
        if run.get("retried"):
            print(f"{run['embedder']}: {len(run['retried'])} search(es) asked again: LightRAG did not answer in time")
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
        print("\nplace@1 misses by class (a: the answering chunk is not cited, b: it is cited below another chunk of "
              "the file, c: the first chunk holds it, the locator chose another place inside it):")
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
    from mnote_kr_lightrag.engine.embedders import DEFAULT_EMBEDDER

    if args.refold and args.from_dump:
        runs.update({f"{name}-refold{tag}": refolded(run, kinds, thin) for name, run in list(runs.items())
                     for tag, kinds, thin in (("0", False, False), ("k", True, False), ("", True, True))})
        # without the claim rules, with kindclaims' only, with kindclaims' and thinclaims'
    print_places({name: evaluate_places(run, labels, places) for name, run in runs.items()}, list(sets),
                 DEFAULT_EMBEDDER)
    return 0


if __name__ == "__main__":
    sys.exit(main())
