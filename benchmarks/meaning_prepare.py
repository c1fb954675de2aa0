"""Ingest's preparation with places by meaning against today's, same files, same run; the query's cost.

Baseline: today's preparation step, ``prepare_locate`` of every file (the locator plugins parse
each DOCX, PDF and text file and keep the model on disk), in a fresh cache. Measured: the same
step plus :func:`mnote_kr.citations.meaning.embed_queued` (every DOCX, Markdown and text paragraph
embedded with multilingual-e5-small), in another fresh cache. Files: the 16 documents of
``benchmarks/retrieval.py``. Also timed: a second preparation of the same files (nothing is
embedded again: the vectors are found by content hash), the model's load, and the per-search cost
of the meaning term (a new query's vector, p50/p95 over the retrieval questions, and the
cosines of a passage's paragraphs).

Target: the whole preparation <= 6x today's; warm search p95 grows by <= 100 ms.

    .venv/bin/python benchmarks/meaning_prepare.py
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mnote_kr_testkit.data import CORPUS

sys.path.insert(0, str(Path(__file__).resolve().parent))
from retrieval_labels import load_sets  # noqa: E402


def _prepare(files: list[str], embed: bool) -> tuple[float, float, list[str]]:
    """Seconds of today's step and of the embedding step, in a fresh cache; the progress lines."""
    home = Path(tempfile.mkdtemp(prefix="mnote-bench-meaning-"))
    os.environ["MNOTE_KR_HOME"] = str(home)
    import mnote_kr_docx_locator
    import mnote_kr_pdf_bbox
    from mnote_kr.citations import meaning
    from mnote_kr.core.config import load_config
    from mnote_kr.default_plugins import text_locator
    from mnote_kr.plugins import load_plugins

    for clear in (mnote_kr_docx_locator.clear_cache, mnote_kr_pdf_bbox.clear_cache, text_locator.clear_cache):
        clear()  # parsed in this run's fresh cache, as ingest does
    meaning._memo.clear()
    plugins = load_plugins(load_config(None))
    lines: list[str] = []
    try:
        t0 = time.perf_counter()
        for rel in files:
            plugins.prepare_locate(str(CORPUS / rel))
        parse_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        if embed:
            meaning.embed_queued(lines.append)
        else:
            meaning._queue.clear()
        embed_s = time.perf_counter() - t0
        return parse_s, embed_s, lines
    finally:
        shutil.rmtree(home, ignore_errors=True)


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main() -> int:
    files, sets = load_sets()
    from mnote_kr.citations import e5, meaning

    t0 = time.perf_counter()
    e5.model()
    load_s = time.perf_counter() - t0
    _prepare(files, embed=False)  # imports and first-use costs, in neither figure
    base_parse, _, _ = _prepare(files, embed=False)
    parse_s, embed_s, lines = _prepare(files, embed=True)
    print(f"{len(files)} files; model load {load_s:.2f}s")
    print(f"today's preparation (parse): {base_parse:.2f}s")
    print(f"with places by meaning: parse {parse_s:.2f}s + embedding {embed_s:.2f}s ({lines[-1] if lines else '-'})")
    print(f"ratio whole preparation / today's: {(parse_s + embed_s) / base_parse:.2f} (target <= 6)")
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
