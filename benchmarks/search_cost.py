"""What the ranking by meaning costs a warm search: host-side time of the default against ``MEANING_WEIGHT=0``.

Issue 33 allows the new default +100 ms of warm search p95. ``benchmarks/retrieval.py`` reads the same
figure over its whole corpus (round 27: host side p50 2,797 ms default, 1,266 ms words alone, at a load
of ~10 on 2 cores); this one reproduces it on a small workspace in a few minutes. A real managed engine
(offline model stand-in) is started under a temp dir; the documents of the tuning sets ``tune3`` and
``tune5`` (``--files``) are ingested (their places embedded), then each question of those sets on them
(``--questions``) is searched once per side in ONE warm process, the sides' order turned each question:

* ``default``: this tree as it ships (``--quote-sets``: with ingest embedding long places' quote sentences,
  ``quotesets.SENTENCES_AT_INGEST``, off as it ships: its ingest cost);
* ``words``: ``meaning.MEANING_WEIGHT = 0`` (places by words alone), the remembered locate answers
  bypassed as ``retrieval.py``'s ``py:`` variants are (``retrieval_overrides.code_overrides``);
* ``before`` (``--before``, with ``--quote-sets``): the quote sentences ingest embedded are not read; the side
  embeds them at search time and keeps them as the default as it ships does (its own store and memo): the
  switch's before/after in the same run, and its citations asserted identical to the default's;
* ``words-kept`` (``--words-kept``): ``words`` writing its own remembered locate answers (in their own folder) as
  a words-only product would: ``words`` bypasses them (``code_overrides``), while the default writes one per
  locate, which the plain ratio charges to ranking by meaning.

Each timed search is a new question (:func:`new_question`, checked before each): the memos keyed by the question's
text are emptied, so the side searching it second is not served what the first remembered of it (round 29);
memos keyed by a file's content or places stay, as a warm engine has them.
Host side = the search's wall time minus LightRAG's answer (``providerMs``). Printed: p50 and p95 per side
and their ratios against ``words`` (the baseline measured in the same run). ``--profile`` prints each side's
top functions by cumulative time; ``--dump FILE`` writes each side's citations (ids, order, locators,
quotes) so two trees' results can be compared (``--same-as FILE`` asserts they are identical).
Held-out sets are never read.

    .venv/bin/python benchmarks/search_cost.py [--questions 30] [--files 10] [--profile] [--before] [--words-kept]
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import os
import pstats
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter, OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mnote_kr_testkit.data import CORPUS

HERE = Path(__file__).resolve().parent
SETS = ("tune3", "tune5")  # tuning sets only: held-out sets are never read here


def _labels(n_files: int, n_questions: int) -> tuple[list[str], list[dict[str, Any]]]:
    """The first ``n_files`` documents of the tuning sets and up to ``n_questions`` of their questions, the
    sets and languages interleaved."""
    docs: list[str] = []
    qs: list[dict[str, Any]] = []
    for name in SETS:
        data = json.loads((HERE / f"retrieval_{name}.json").read_text(encoding="utf-8"))
        docs += [d for d in data["documents"] if d not in docs]
        qs += data["questions"]
    docs = docs[:n_files]
    mine = [q for q in qs if q["doc"] in docs]
    # interleave: one of each file in turn, so every file is asked about
    by_doc: dict[str, list[dict[str, Any]]] = {}
    for q in mine:
        by_doc.setdefault(q["doc"], []).append(q)
    picked: list[dict[str, Any]] = []
    while len(picked) < n_questions and any(by_doc.values()):
        for d in docs:
            if by_doc.get(d) and len(picked) < n_questions:
                picked.append(by_doc[d].pop(0))
    return docs, picked


def _pct(values: list[float], q: int) -> float:
    return float(statistics.quantiles(values, n=100, method="inclusive")[q - 1]) if len(values) > 1 else values[0]


def _shape(result: Any) -> list[dict[str, Any]]:
    """What must not change: each citation's id, order, file, locator and quotes."""
    import msgspec

    out = []
    for c in result.results:
        d = msgspec.to_builtins(c)
        out.append({k: d.get(k) for k in ("citationId", "sourceRootRelativePath", "locatorPrecision", "locator",
                                          "displayQuote", "locatorEvidenceText", "alternatives")})
    return out


@contextlib.contextmanager
def _before() -> Iterator[None]:
    """Round 29's change undone: the quote sentences ingest embedded are not read (``quotesets``); the side keeps
    its own sentence vectors, in memory and on disk (``meaning-sentences-before``), as a search before it did."""
    from mnote_kr.citations.caches.filecache import KeyedStore
    from mnote_kr.citations.rank import meaning

    real = meaning._sentence_store()
    mine = KeyedStore("meaning-sentences-before", real.version, real.max_entries)
    saved = meaning._sentence_store, meaning._sentence_memo
    meaning._sentence_store, meaning._sentence_memo = (lambda: mine), _BEFORE_SENTENCES  # type: ignore[assignment]
    try:
        yield
    finally:
        meaning._sentence_store, meaning._sentence_memo = saved  # type: ignore[assignment]


#: The ``before`` side's sentence vectors by content, kept across its searches as a process before round 29 kept them.
_BEFORE_SENTENCES: OrderedDict[str, Any] = OrderedDict()


#: The memos keyed by a question's text (``module:name`` of an ``lru_cache``d function), emptied before each timed
#: search by :func:`new_question`: a user asks a new question each time, and both sides search the same one in this
#: process, so what the first side remembered of it would serve the second. Memos keyed by a file's content or its
#: places (vectors, document models, glyph and header checks, a place's sentences) are kept: a warm engine has them.
QUERY_LRU = ("mnote_kr.citations.locate.saidacross:_said", "mnote_kr.citations.text.cjkwords:_query_words",
             "mnote_kr.citations.text.cjkwords:_asking_verbs", "mnote_kr.citations.text.cjkwords:_miscuts",
             "mnote_kr.citations.rank.ranking:_query_terms",
             "mnote_kr.citations.cleaning.window:_query_re", "mnote_kr.citations.text.definitions:_naming",
             "mnote_kr.citations.rank.cues:_count_pattern", "mnote_kr.citations.rank.meaning:query_vector",
             "mnote_kr.citations.render.typedwords:_typed", "mnote_kr.citations.text.namedplaces:_parse")
#: Every other ``lru_cache`` under ``mnote_kr.citations``, and why a warm process may keep it between questions
#: (tests/test_search_cost_memos.py fails on a memo in neither list: review30 finding 11).
KEPT_LRU = {
    **dict.fromkeys(("mnote_kr.citations.rank.meaning:_keyed_store", "mnote_kr.citations.rank.meaning:model_installed",
                     "mnote_kr.citations.rank.meaning:_query_store", "mnote_kr.citations.rank.meaning:_sentence_store",
                     "mnote_kr.citations.rank.neutral:_means", "mnote_kr.citations.rank.e5:_openblas",
                     "mnote_kr.citations.text.crosslang:_raw_text", "mnote_kr.citations.text.crosslang:_headwords"),
                    "keyed by nothing: a store, a model or a dictionary loaded once per process"),
    **dict.fromkeys(("mnote_kr.citations.locate.locating:_sidecar", "mnote_kr.citations.cleaning.latex:latex_to_plain",
                     "mnote_kr.citations.cleaning.tags:_name", "mnote_kr.citations.cleaning.markup:_table",
                     "mnote_kr.citations.render.weakwords:passage_words"),
                    "keyed by a file or a passage's text: a warm engine has them"),
    **dict.fromkeys(("mnote_kr.citations.text.scripts:char_script", "mnote_kr.citations.rank.ranking:_fold_char",
                     "mnote_kr.citations.rank.ranking:_settled", "mnote_kr.citations.text.crosslang:meanings",
                     "mnote_kr.citations.text.crosslang:synonyms", "mnote_kr.citations.locate.saidacross:_heads",
                     "mnote_kr.citations.locate.saidacross:_senses"),
                    "keyed by a character, a word or a dictionary headword, which passages say as questions do: a "
                    "warm process holds the common ones"),
    **dict.fromkeys(("mnote_kr.citations.text.scripts:_units", "mnote_kr.citations.text.values:value_mentions"),
                    "keyed by a text, mostly a passage's or a cell's (the question's one entry among them is a "
                    "single regex pass; emptying them would re-read every cell on both sides)"),
}


def _lru(spec: str) -> Any:  # noqa: ANN401
    import importlib

    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


def query_memos(question: str) -> dict[str, int]:
    """What each memo keyed by question text holds: entries in memory, and the question's vector on disk
    (``meaning``'s query store, 1 when stored). :func:`new_question` leaves them all 0."""
    from mnote_kr.citations import pipeline
    from mnote_kr.citations.rank import meaning, searchmemo

    sizes = {spec: _lru(spec).cache_info().currsize for spec in QUERY_LRU if hasattr(_lru(spec), "cache_info")}
    sizes["pipeline._locator_memo"] = sum(len(m) for m in pipeline._locator_memo._by_plugins.values())
    sizes["pipeline._clean_memo"] = sum(len(m) for m in pipeline._clean_memo._by_plugins.values())
    sizes["searchmemo._tables"], sizes["searchmemo._placing"] = len(searchmemo._tables), len(searchmemo._placing)
    store = meaning._query_store()
    sizes["meaning-queries on disk"] = int((store.folder / store._entry_name(" ".join(question.split()))).exists())
    return sizes


def new_question(question: str) -> None:
    """Forget what an earlier search remembered of ``question`` (:data:`QUERY_LRU`, the locate and cleaning answers
    by query, the query's cosines and centred vector, its vector on disk, ``re``'s compiled patterns: the question's
    own are compiled anew), as if it were asked for the first time."""
    import re
    import threading

    from mnote_kr.citations import pipeline
    from mnote_kr.citations.rank import meaning, searchmemo

    for t in threading.enumerate():  # the default's background query vector lands before the memos are emptied
        if t.name == "mnote-kr-query-vector":
            t.join()
    for spec in QUERY_LRU:
        f = _lru(spec)
        if hasattr(f, "cache_clear"):  # a side may swap one for a plain function
            f.cache_clear()
    pipeline.clear_memos()
    searchmemo.clear()
    store = meaning._query_store()
    (store.folder / store._entry_name(" ".join(question.split()))).unlink(missing_ok=True)
    re.purge()


#: ``--warm-sides``: searched once by each side, untimed, before the timed searches (not the tuning sets' questions):
#: the tables a side reads once per process (the dictionary's headwords and senses for a question across languages,
#: ~0.9 s under ``--profile``, read by the default's first such search and never by words alone) are then not timed
#: in one of its 40 searches.
WARM_UPS = ("How long does the battery last after a full charge?", "这份文件里提到的主要风险有哪些？")

#: ``--shipped``: the side searching as the tree shipped before round 30, its cuts switched off.
SHIPPED = {"py:mnote_kr.citations.rank.e5.KEEP_THREADS": False,
           "py:mnote_kr.citations.caches.answercache.WRITE_BEHIND": False,
           "py:mnote_kr_pdf_bbox.blocks.REMEMBER_WRITTEN": False,
           "py:mnote_kr.citations.locate.quotemark.BY_FIND": False}


def timed_search(host: Any, question: str, top_k: int, profile: cProfile.Profile | None = None) -> tuple[Any, float]:
    """One timed search of ``question`` as a new question (:func:`new_question`, checked): its result and host-side
    ms (wall time minus LightRAG's ``providerMs``). The answers it put are written before it returns, untimed
    (``answercache.flush``): a side writing them behind its search must not write them while the next is timed."""
    new_question(question)
    left = {k: n for k, n in query_memos(question).items() if n}
    if left:
        raise AssertionError(f"memos keyed by the question not empty before a timed search: {left}")
    if profile is not None:
        profile.enable()
    t = time.perf_counter()
    result = host.search(question, top_k=top_k)
    wall = (time.perf_counter() - t) * 1000
    if profile is not None:
        profile.disable()
    from mnote_kr.citations.caches import answercache

    answercache.flush()
    return result, wall - float(result.diagnostics.get("providerMs") or 0.0)


class _SentenceSets:
    """``--sentence-sets``: the sets of sentences the default's quotes embed at search time (``meaning
    .sentence_cosines``), and how many of them ingest could have embedded beforehand: a set equal to the sentences of
    one of a file's places (the texts ingest embedded, cut by ``cleaning.sentences`` as a quote cuts them)."""

    def __init__(self) -> None:
        from mnote_kr.citations.rank import meaning

        self.places: list[str] = []
        self.asked: list[str] = []  # places key of each set asked, in the default's timed searches
        self.embedded = 0  # model calls among them
        self.on = False
        real_files, real_vectors, real_cos = meaning._embed_files, meaning._sentence_vectors, meaning.sentence_cosines

        def embed_files(files: Any, progress: Any) -> None:  # noqa: ANN401
            self.places += [t for texts in files for t in texts]
            real_files(files, progress)

        def sentence_vectors(key: str, texts: list[str]) -> Any:  # noqa: ANN401
            if self.on:
                self.embedded += 1
            return real_vectors(key, texts)

        def sentence_cosines(texts: Any, query: str) -> Any:  # noqa: ANN401
            if self.on and texts:
                self.asked.append(meaning.places_key([" ".join(t.split()) for t in texts]))
            return real_cos(texts, query)

        meaning._embed_files, meaning._sentence_vectors = embed_files, sentence_vectors
        meaning.sentence_cosines = sentence_cosines

    def report(self) -> str:
        from mnote_kr.citations.cleaning.quote import QUOTE_CHARS
        from mnote_kr.citations.cleaning.sentences import sentences
        from mnote_kr.citations.rank import meaning

        sets = {}
        for text in dict.fromkeys(self.places):
            said = [" ".join(text[a:b].split()) for a, b in sentences(text)]
            if len(said) > 1:
                sets[meaning.places_key(said)] = len(text) > QUOTE_CHARS
        hits = sum(k in sets for k in self.asked)
        return (f"  sentence sets asked by the default's quotes: {len(self.asked)} ({len(set(self.asked))} distinct), "
                f"{self.embedded} embedded at search; equal to a place's sentences (ingest could embed them): {hits} "
                f"({len({k for k in self.asked if k in sets})} distinct); places of 2+ sentences {len(sets)}, "
                f"longer than a quote {sum(sets.values())} of {len(set(self.places))} places")


@contextlib.contextmanager
def _stacked(*managers: contextlib.AbstractContextManager[None]) -> Iterator[None]:
    with contextlib.ExitStack() as stack:
        for m in managers:
            stack.enter_context(m)
        yield


@contextlib.contextmanager
def _own_answers(folder: str, get: Any, put: Any) -> Iterator[None]:  # noqa: ANN401
    """Inside ``code_overrides``: the remembered locate answers read and written again, in a folder of the side's
    own (``answers-<side>``: a side never reads another's answers to the same question)."""
    from mnote_kr.citations.caches import answercache

    saved = answercache.get, answercache.put, answercache.FOLDER
    answercache.get, answercache.put, answercache.FOLDER = get, put, f"answers-{folder}"
    try:
        yield
    finally:
        answercache.get, answercache.put, answercache.FOLDER = saved


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=30)
    parser.add_argument("--files", type=int, default=10)
    parser.add_argument("--top-k", type=int, default=20)
    parser.add_argument("--profile", action="store_true", help="cProfile each side and print its top functions")
    parser.add_argument("--before", action="store_true",
                        help="also search with round 29's change undone (before) for its before/after")
    parser.add_argument("--shipped", action="store_true",
                        help="also search as the tree shipped before round 30 (shipped): its cuts switched off "
                             "(SHIPPED), citations asserted identical to the default's")
    parser.add_argument("--warm-sides", action="store_true",
                        help="each side searches WARM_UPS (an English and a Chinese question, untimed) before the "
                             "timed searches: what a side loads once per process is loaded, as in a warm server")
    parser.add_argument("--words-kept", action="store_true",
                        help="also search by words alone writing their own remembered answers (words-kept)")
    parser.add_argument("--profile-dump", type=Path,
                        help="with --profile: write each side's pstats here (<dir>/<side>.pstats)")
    parser.add_argument("--quote-sets", action="store_true",
                        help="ingest embeds long places' quote sentences (quotesets.SENTENCES_AT_INGEST on; --before: "
                             "the side not reading them)")
    parser.add_argument("--sentence-sets", action="store_true",
                        help="count the sentence sets the default's quotes embed and those ingest could embed")
    parser.add_argument("--dump", type=Path, help="write each side's citations here (JSON)")
    parser.add_argument("--same-as", type=Path, help="assert each side's citations equal this earlier --dump")
    args = parser.parse_args()

    docs, labels = _labels(args.files, args.questions)
    tmp = Path(tempfile.mkdtemp(prefix="mnote-bench-searchcost-"))
    os.environ["MNOTE_KR_HOME"] = str(tmp / "home")
    sys.path.insert(0, str(HERE))
    from mnote_kr_testkit.engine import seed_tiktoken
    from retrieval_overrides import code_overrides

    from mnote_kr.app.host import Host
    from mnote_kr_lightrag.engine.managed import default_engine_dirs, start_engine, stop_engine

    dirs = default_engine_dirs()  # under MNOTE_KR_HOME: the host finds the managed engine as a user's does
    state = dirs["state_dir"]
    seed_tiktoken(dirs["cache_dir"])
    t0 = time.perf_counter()
    engine = start_engine(**dirs, wait_s=180)
    try:
        print(f"load {os.getloadavg()[0]:.1f}; engine {engine.embedder} started in {time.perf_counter() - t0:.1f}s")
        ws = tmp / "kb"
        (ws / "docs").mkdir(parents=True)
        for rel in docs:
            shutil.copyfile(CORPUS / rel, ws / "docs" / Path(rel).name)
        if args.quote_sets:
            from mnote_kr.citations.rank import quotesets

            quotesets.SENTENCES_AT_INGEST = True
        sets = _SentenceSets() if args.sentence_sets else None
        host = Host(ws)
        host.roots_add("docs")
        t0 = time.perf_counter()
        report = host.ingest(["docs"], wait=True, wait_s=900)
        statuses = [i.status for i in report.items]
        while not set(statuses) <= {"processed", "failed"}:
            host.sync(wait_s=60)
            statuses = [e.status for e in host.registry().entries.values()]
        print(f"ingest: {len(docs)} files {dict(Counter(statuses))} in {time.perf_counter() - t0:.1f}s; "
              f"{len(labels)} questions")

        sides: dict[str, dict[str, Any]] = {"default": {}, "words": {"py:mnote_kr.citations.rank.meaning."
                                                                       "MEANING_WEIGHT": 0.0}}
        if args.words_kept:
            sides["words-kept"] = dict(sides["words"])
        if args.before:  # a constant set (read by ingest alone), so code_overrides clears the locate memo; _before
            # undoes round 29's sentences (its own sentence store and memo)
            sides["before"] = {"py:mnote_kr.citations.rank.quotesets.SENTENCES_AT_INGEST": False}
        if args.shipped:  # round 30's cuts off; its own remembered answers, written as a search wrote them
            sides["shipped"] = dict(SHIPPED)
        code = {name: {k.removeprefix("py:"): v for k, v in o.items()} for name, o in sides.items()}
        from mnote_kr.citations.caches import answercache

        answers = answercache.get, answercache.put
        extra = {"before": lambda: _stacked(_before(), _own_answers("before", *answers)),
                 "words-kept": lambda: _own_answers("words-kept", *answers),
                 "shipped": lambda: _own_answers("shipped", *answers)}
        names = list(sides)
        host.search("warm-up before the timed searches", top_k=args.top_k)
        if args.warm_sides:  # each side loads what it loads once per process before its first timed search
            for name in names:
                for text in WARM_UPS:
                    with code_overrides(code[name]), extra.get(name, contextlib.nullcontext)():
                        new_question(text)
                        host.search(text, top_k=args.top_k)
                    answercache.flush()
        ms: dict[str, list[float]] = {n: [] for n in names}
        shapes: dict[str, dict[str, Any]] = {n: {} for n in names}
        profiles = {n: cProfile.Profile() for n in names} if args.profile else {}
        for i, label in enumerate(labels):
            k = i % len(names)
            for name in names[k:] + names[:k]:
                if sets is not None:
                    sets.on = name == "default"
                with code_overrides(code[name]), extra.get(name, contextlib.nullcontext)():
                    result, host_ms = timed_search(host, label["q"], args.top_k, profiles.get(name))
                ms[name].append(host_ms)
                shapes[name][label["id"]] = _shape(result)
        base = statistics.median(ms["words"]), _pct(ms["words"], 95)
        print(f"\nhost side per warm search, ms ({len(labels)} questions, one process, sides turned each question; "
              f"load {os.getloadavg()[0]:.1f}):")
        for n in names:
            p50, p95 = statistics.median(ms[n]), _pct(ms[n], 95)
            print(f"  {n:14} p50 {p50:7.0f}  p95 {p95:7.0f}   vs words: p50 x{p50 / base[0]:.2f}, "
                  f"p95 x{p95 / base[1]:.2f} ({p95 - base[1]:+.0f} ms)")
        if args.before:
            b = _pct(ms["before"], 95), statistics.median(ms["before"])
            print(f"  the fix: default / before p50 x{statistics.median(ms['default']) / b[1]:.2f}, "
                  f"p95 x{_pct(ms['default'], 95) / b[0]:.2f} ({_pct(ms['default'], 95) - b[0]:+.0f} ms)")
            diff = [q for q in shapes["default"] if shapes["default"][q] != shapes["before"][q]]
            print(f"  default and before: citations (ids, order, locators, quotes) "
                  f"{'identical' if not diff else f'differ for {diff}'} on {len(labels)} questions")
            if diff:
                return 1
        if args.shipped:
            b = _pct(ms["shipped"], 95), statistics.median(ms["shipped"])
            print(f"  round 30: default / shipped p50 x{statistics.median(ms['default']) / b[1]:.2f}, "
                  f"p95 x{_pct(ms['default'], 95) / b[0]:.2f} ({_pct(ms['default'], 95) - b[0]:+.0f} ms)")
            diff = [q for q in shapes["default"] if shapes["default"][q] != shapes["shipped"][q]]
            print(f"  default and shipped: citations (ids, order, locators, quotes, alternatives) "
                  f"{'identical' if not diff else f'differ for {diff}'} on {len(labels)} questions")
            if diff:
                return 1
        if sets is not None:
            print(sets.report())
        if args.dump:
            args.dump.write_text(json.dumps(shapes, ensure_ascii=False, sort_keys=True), encoding="utf-8")
            # each side's host ms by question (tuning sets only), beside it: which questions make the p95
            args.dump.with_suffix(".ms.json").write_text(json.dumps(
                {n: dict(zip([q["id"] for q in labels], ms[n], strict=True)) for n in names}), encoding="utf-8")
        if args.same_as:
            old = json.loads(args.same_as.read_text(encoding="utf-8"))
            now = json.loads(json.dumps(shapes, ensure_ascii=False, sort_keys=True))
            for n in names:
                if n in old:
                    diff = [q for q in now[n] if old[n].get(q) != now[n][q]]
                    print(f"  {n}: citations as in {args.same_as.name}: "
                          f"{'identical' if not diff else f'{len(diff)} questions differ: {diff}'}")
                    if diff:
                        return 1
        for n, prof in profiles.items():
            if args.profile_dump:
                args.profile_dump.mkdir(parents=True, exist_ok=True)
                prof.dump_stats(str(args.profile_dump / f"{n}.pstats"))
            out = io.StringIO()
            pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(45)
            pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(20)
            print(f"\n===== profile: {n} (cumulative) =====\n" + out.getvalue())
        return 0
    finally:
        stop_engine(state)
        if os.environ.get("MNOTE_BENCH_KEEP"):
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
