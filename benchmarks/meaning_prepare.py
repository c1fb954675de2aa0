"""Ingest's preparation with places by meaning against today's, same files, same run; the query's cost.

Three preparations of the same files, each in a fresh cache (the locator plugins' ``prepare_locate``
of every file, then :func:`mnote_kr.citations.rank.meaning.embed_queued`, as ingest runs them):

* **words only**: ``prepare_locate`` alone (every file citable by words; nothing embedded);
* **today's default** (before PDF blocks by meaning): DOCX, Markdown and text paragraphs embedded,
  PDF text blocks not (``mnote_kr_pdf_bbox.answer.BY_MEANING`` off);
* **new default**: PDF text blocks embedded too.

Printed: the runtime (onnxruntime's int8 graph, or numpy without onnxruntime); each step's
seconds; the citable-by-words step (``prepare_locate``) of the new default against today's
(target <= 1.15x); the whole preparation against today's and against words only (target: <= 6x).
Files: those of ``benchmarks/retrieval.py``. Also timed: a second preparation of the same files
(nothing is embedded again: the vectors are found by content hash), the model's load in this
process and in a fresh one (also with the numpy runtime), both runtimes on the same sample of
places, and the per-search cost of the meaning term (a new query's vector, p50/p95 over the
retrieval questions).

    .venv/bin/python benchmarks/meaning_prepare.py
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mnote_kr_testkit.data import CORPUS

sys.path.insert(0, str(Path(__file__).resolve().parent))
from retrieval_labels import load_sets  # noqa: E402


def _prepare(files: list[str], embed: bool, pdf_blocks: bool = True) -> tuple[float, float, list[str], float, float]:
    """Seconds of the citable-by-words step and of the embedding step, in a fresh cache; the
    progress lines; the CPU seconds of both steps (this process, every thread: what the machine's
    load does not change). ``pdf_blocks`` False: today's default (PDF blocks by words only)."""
    home = Path(tempfile.mkdtemp(prefix="mnote-bench-meaning-"))
    os.environ["MNOTE_KR_HOME"] = str(home)
    import mnote_kr_docx_locator
    import mnote_kr_pdf_bbox
    from mnote_kr.citations.rank import e5, meaning
    from mnote_kr.core.config import load_config
    from mnote_kr.default_plugins import text_locator
    from mnote_kr.plugins import load_plugins
    from mnote_kr_pdf_bbox import answer

    for clear in (mnote_kr_docx_locator.clear_cache, mnote_kr_pdf_bbox.clear_cache, text_locator.clear_cache):
        clear()  # parsed in this run's fresh cache, as ingest does
    meaning._memo.clear()
    e5.model()._unigram._seen.clear()  # the words the run before segmented
    plugins = load_plugins(load_config(None))
    lines: list[str] = []
    answer.BY_MEANING = pdf_blocks
    try:
        t0, c0 = time.perf_counter(), time.process_time()
        for rel in files:
            plugins.prepare_locate(str(CORPUS / rel))
        parse_s, parse_cpu = time.perf_counter() - t0, time.process_time() - c0
        t0, c0 = time.perf_counter(), time.process_time()
        if embed:
            meaning.embed_queued(lines.append)
        else:
            meaning._queue.clear()
        return parse_s, time.perf_counter() - t0, lines, parse_cpu, time.process_time() - c0
    finally:
        answer.BY_MEANING = True
        shutil.rmtree(home, ignore_errors=True)


def _fresh_load_s(runtime: str = "auto") -> float:
    """Seconds a fresh process takes to load the model and embed one new query, less ``python -c pass``
    (median of 3; in a home where the model file's hash is already verified and the onnxruntime
    graph built, as a user's is). ``runtime``: ``MNOTE_KR_E5_RUNTIME`` (``numpy``: without onnxruntime)."""
    code = "from mnote_kr.citations.rank import e5; e5.model().embed(['a question nobody asked before'], query=True)"
    home = Path(tempfile.mkdtemp(prefix="mnote-bench-meaning-"))
    env = {**os.environ, "MNOTE_KR_HOME": str(home), "MNOTE_KR_E5_RUNTIME": runtime}
    try:
        subprocess.run([sys.executable, "-c", code], check=True, env=env)  # verifies the hash once
        times: dict[str, list[float]] = {"pass": [], "load": []}
        for _ in range(3):
            for name, argv in (("pass", "pass"), ("load", code)):
                t0 = time.perf_counter()
                subprocess.run([sys.executable, "-c", argv], check=True, env=env)
                times[name].append(time.perf_counter() - t0)
        return statistics.median(times["load"]) - statistics.median(times["pass"])
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _prepare_again(files: list[str]) -> tuple[float, float, list[str]]:
    """The new default's preparation twice in one fresh cache; the second one's figures."""
    home = Path(tempfile.mkdtemp(prefix="mnote-bench-meaning-"))
    try:
        os.environ["MNOTE_KR_HOME"] = str(home)
        import mnote_kr_pdf_bbox
        from mnote_kr.citations.rank import meaning
        from mnote_kr.core.config import load_config
        from mnote_kr.plugins import load_plugins

        plugins = load_plugins(load_config(None))
        meaning._memo.clear()  # the vectors of the run before are in memory, not in this cache
        for rel in files:
            plugins.prepare_locate(str(CORPUS / rel))
        meaning.embed_queued(lambda line: None)
        meaning._memo.clear()
        mnote_kr_pdf_bbox.clear_cache()
        lines: list[str] = []
        t0 = time.perf_counter()
        for rel in files:
            plugins.prepare_locate(str(CORPUS / rel))
        parse_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        meaning.embed_queued(lines.append)
        return parse_s, time.perf_counter() - t0, lines
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _runtimes() -> tuple[int, int, float, float]:
    """Places and tokens of a sample of the queued places (every 8th), and the seconds each runtime
    takes to embed them (``numpy``: the float32 forward pass, the runtime without onnxruntime)."""
    from mnote_kr.citations.rank import e5, meaning

    sample = [t for texts in meaning._queue for t in texts if t.strip()][::8]
    meaning._queue.clear()
    model = e5.model()
    tokens = sum(min(len(model.tokens("passage: " + t)), meaning.MAX_PLACE_TOKENS) + 2 for t in sample)
    numpy = e5.E5(e5._model_bytes(), runtime="numpy")
    seconds = []
    for m in (model, numpy):
        t0 = time.perf_counter()
        m.embed(sample, max_tokens=meaning.MAX_PLACE_TOKENS)
        seconds.append(time.perf_counter() - t0)
    return len(sample), tokens, seconds[0], seconds[1]


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main() -> int:
    files, sets = load_sets()
    from mnote_kr.citations.rank import e5, meaning

    t0 = time.perf_counter()
    e5.model()
    load_s = time.perf_counter() - t0
    _prepare(files, embed=False)  # imports and first-use costs, in none of the figures
    words_parse, _, _, words_cpu, _ = _prepare(files, embed=False)
    today_parse, today_embed, today_lines, today_parse_cpu, today_embed_cpu = _prepare(files, embed=True,
                                                                                     pdf_blocks=False)
    parse_s, embed_s, lines, parse_cpu, embed_cpu = _prepare(files, embed=True)
    again_parse, again_embed, again_lines = _prepare_again(files)
    today, new = today_parse + today_embed, parse_s + embed_s
    print(f"{len(files)} files; runtime {e5.model().runtime}; model load {load_s:.2f}s in this process, "
          f"{_fresh_load_s():.2f}s in a fresh one (load + one new query, less the interpreter's start; "
          f"numpy runtime: {_fresh_load_s('numpy'):.2f}s)")
    print(f"words only (prepare_locate): {words_parse:.2f}s")
    print(f"today's default: prepare {today_parse:.2f}s + embedding {today_embed:.2f}s "
          f"({today_lines[-1] if today_lines else '-'})")
    print(f"new default (PDF blocks too): prepare {parse_s:.2f}s + embedding {embed_s:.2f}s "
          f"({lines[-1] if lines else '-'})")
    print(f"second preparation of the same files: prepare {again_parse:.2f}s + embedding {again_embed:.2f}s "
          f"({len(again_lines)} progress lines: nothing embedded again)")
    print(f"ratio citable by words, new / today's: {parse_s / today_parse:.2f} (target <= 1.15)")
    print(f"ratio whole preparation, new / today's default: {new / today:.2f}; "
          f"new / words only: {new / words_parse:.2f} (target <= 6); today's / words only: {today / words_parse:.2f}")
    home = Path(tempfile.mkdtemp(prefix="mnote-bench-meaning-"))
    os.environ["MNOTE_KR_HOME"] = str(home)
    try:
        from mnote_kr.core.config import load_config
        from mnote_kr.plugins import load_plugins

        plugins = load_plugins(load_config(None))
        for rel in files:
            plugins.prepare_locate(str(CORPUS / rel))
        n, tokens, ort_s, numpy_s = _runtimes()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    print(f"runtimes on every 8th place ({n} places, {tokens} tokens): {e5.model().runtime} {ort_s:.2f}s, "
          f"numpy float32 {numpy_s:.2f}s: ratio {ort_s / numpy_s:.2f}")
    print(f"CPU seconds (every thread; the machine's load changes them little): words only {words_cpu:.2f}s, "
          f"today's {today_parse_cpu:.2f}s + {today_embed_cpu:.2f}s, new {parse_cpu:.2f}s + {embed_cpu:.2f}s; "
          f"new / words only {(parse_cpu + embed_cpu) / words_cpu:.2f}, citable by words new / today's "
          f"{parse_cpu / today_parse_cpu:.2f}")
    questions = [q["q"] for q in sets["old"] + sets["heldout"]]
    times = []
    home = Path(tempfile.mkdtemp(prefix="mnote-bench-meaning-"))
    os.environ["MNOTE_KR_HOME"] = str(home)  # the query vectors are kept on disk: in a fresh home, removed
    try:
        for q in questions:
            t0 = time.perf_counter()
            meaning.query_vector(q)
            times.append((time.perf_counter() - t0) * 1000)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    print(f"a new query's vector: p50 {statistics.median(times):.1f} ms, p95 {pct(times, 0.95):.1f} ms "
          f"over {len(times)} questions (warm model; target: search p95 + <= 100 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
