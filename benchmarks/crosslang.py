"""Questions in another language: file recall@5 and MRR with the dictionary's query translation on
and off (``mnote_kr_lightrag.client.crossquery.TRANSLATE``), and the warm search latency it adds.

Eight files of the *tuning* sets only (never a held-out set's file), their questions from
``retrieval_questions.json``, ``retrieval_tune3.json``, ``retrieval_tune4.json``,
``retrieval_tables.json`` and ``retrieval_tune5.json`` (written for this: Chinese questions about
Japanese, Persian, Korean and English files, English ones about Chinese files; ``--all`` ingests its
files), split into cross-language (the question's language is not the document's) and same-language. A
real managed engine (the default ``e5xlang`` embedder) is started under ``DIR``, so the index can be searched
again after a change without a new ingest:

    .venv/bin/python benchmarks/crosslang.py setup DIR    # start the engine, ingest the 8 files
    .venv/bin/python benchmarks/crosslang.py search DIR [--rounds 2] [--misses]
    .venv/bin/python benchmarks/crosslang.py stop DIR

``search`` alternates the two sides question by question (on, off, on, off...) so a loaded
machine weighs on both alike; the first round warms up and is not timed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SETS = ("retrieval_questions.json", "retrieval_tune3.json", "retrieval_tune4.json", "retrieval_tables.json",
        "retrieval_tune5.json")
#: The files and their language (read from the documents: two are Chinese scans, OCR'd at ingest).
FILES = {
    "pdf/pdfplumber__pr-136-example.pdf": "zh",
    "pdf/mineru__complex_layout.pdf": "zh",
    "pdf/pdfplumber__issue-336-example.pdf": "zh",
    "pdf/pdfplumber__federal-register-2020-17221.pdf": "en",
    "pdf/mineru__demo3.pdf": "en",
    "pdf/docling__2305.03393v1-pg9.pdf": "en",
    "docx/tika__017091.docx": "en",
    "docx/poi__stress023.docx": "en",
}
MODULE = "mnote_kr_lightrag.client.crossquery"


def tuning_files() -> dict[str, str]:
    """Every file of the five tuning sets (``--all``), its language the first of the corpus
    manifest's ``languages`` (the document's main one)."""
    import csv

    from mnote_kr_testkit.data import CORPUS

    with (CORPUS / "MANIFEST.tsv").open(encoding="utf-8") as f:
        langs = {row["file"]: row["languages"].split(",")[0] for row in csv.DictReader(f, delimiter="\t")}
    out: dict[str, str] = {}
    for name in SETS:
        for rel in json.loads((HERE / name).read_text(encoding="utf-8"))["documents"]:
            out.setdefault(rel, langs[rel])
    return out


def chosen(every: bool) -> dict[str, str]:
    return tuning_files() if every else FILES


def questions(files: dict[str, str] | None = None) -> list[dict[str, Any]]:
    files = files or FILES
    out = []
    for name in SETS:
        for q in json.loads((HERE / name).read_text(encoding="utf-8"))["questions"]:
            if q["doc"] in files:
                out.append({**q, "cross": q["lang"] != files[q["doc"]]})
    return out


def setup(base: Path, files: dict[str, str]) -> None:
    from mnote_kr_testkit.engine import seed_tiktoken
    from retrieval_labels import corpus_host  # this folder: the script's own

    from mnote_kr_lightrag.engine.managed import default_engine_dirs, start_engine

    dirs = default_engine_dirs()
    seed_tiktoken(dirs["cache_dir"])
    start_engine(**dirs, wait_s=180)
    host = corpus_host(base / "kb", list(files))
    t0 = time.perf_counter()
    report = host.ingest(["docs"], wait=True, wait_s=1800)
    print(f"ingested in {time.perf_counter() - t0:.0f} s:", [i.status for i in report.items])


def _timed(owner: Any, name: str, log: list[tuple[str, float, int]]) -> None:
    """Wrap ``owner.name`` to log (name, ms, size of its second argument's list) per call."""
    real = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            size = next((len(a) for a in args[2:3] if isinstance(a, list)), 0)
            log.append((name, (time.perf_counter() - t0) * 1000, size))

    setattr(owner, name, wrapper)


def fresh_load_ms() -> float:
    """The dictionary's load (its cached parse) in a fresh process, imports included."""
    import subprocess

    code = ("import time; t=time.perf_counter(); from mnote_kr.citations.text import crosslang; "
            "crosslang.dictionary(); print((time.perf_counter()-t)*1000)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ)
    return float(out.stdout.strip())


def profile(host: Any, qs: list[dict[str, Any]], module: Any) -> None:
    """Where a translated search's time goes: each /query/data, each /v1/rerank call (and how many
    chunks it scored), the provider's whole time and the host's placing (``pipelineMs``)."""
    from mnote_kr_lightrag.client import http, querying

    log: list[tuple[str, float, int]] = []
    _timed(http.LightRagClient, "query_data", log)
    _timed(querying, "_similarity", log)
    rows: dict[bool, list[dict[str, float]]] = {True: [], False: []}
    for q in qs:
        for flag in (True, False):
            module.TRANSLATE = flag
            log.clear()
            t0 = time.perf_counter()
            result = host.search(q["q"], top_k=10)
            d = result.diagnostics
            rows[flag].append({
                "total": (time.perf_counter() - t0) * 1000, "provider": d.get("providerMs", 0.0),
                "placing": d.get("pipelineMs", 0.0),
                "query_data_n": sum(1 for n, _, _ in log if n == "query_data"),
                "query_data_ms": sum(ms for n, ms, _ in log if n == "query_data"),
                "rerank_n": sum(1 for n, _, _ in log if n == "_similarity"),
                "rerank_ms": sum(ms for n, ms, _ in log if n == "_similarity"),
                "rerank_chunks": sum(k for n, _, k in log if n == "_similarity"),
                "files": len({c.source_root_relative_path for c in result.results})})
    for flag in (True, False):
        print(f"translate={'on ' if flag else 'off'} median per search:",
              {k: round(statistics.median(r[k] for r in rows[flag]), 1) for k in rows[flag][0]})
    print(f"dictionary load in a fresh process: {fresh_load_ms():.0f} ms")


def search(base: Path, rounds: int, misses: bool, files: dict[str, str], prof: int = 0) -> None:
    import importlib

    from mnote_kr.app.host import Host
    from mnote_kr.citations.text import crosslang

    module = importlib.import_module(MODULE)
    t0 = time.perf_counter()
    crosslang.dictionary()
    print(f"dictionary loaded in {time.perf_counter() - t0:.2f} s")
    host = Host(base / "kb")
    qs = questions(files)
    if prof:
        profile(host, qs[:prof], module)
        return
    ranks: dict[bool, dict[str, int | None]] = {True: {}, False: {}}
    ms: dict[bool, list[float]] = {True: [], False: []}
    for r in range(rounds):
        for q in qs:
            for flag in (True, False):
                module.TRANSLATE = flag
                t0 = time.perf_counter()
                result = host.search(q["q"], top_k=10)
                if r:
                    ms[flag].append((time.perf_counter() - t0) * 1000)
                files: list[str] = []
                for c in result.results:
                    name = Path(c.source_root_relative_path).name
                    if name not in files:
                        files.append(name)
                want = Path(q["doc"]).name
                ranks[flag][q["id"]] = files.index(want) + 1 if want in files else None
    for cross in (True, False):
        group = [q for q in qs if q["cross"] == cross]
        for flag in (True, False):
            got = [ranks[flag][q["id"]] for q in group]
            r5 = sum(1 for g in got if g is not None and g <= 5) / len(group)
            mrr = sum(1 / g for g in got if g is not None) / len(group)
            print(f"{'cross' if cross else 'same '}-language n={len(group):3d} translate={'on ' if flag else 'off'}"
                  f" recall@5={r5:.3f} MRR={mrr:.3f}")
    for flag in (True, False):
        if ms[flag]:
            xs = sorted(ms[flag])
            print(f"warm search ms translate={'on ' if flag else 'off'}: p50={statistics.median(xs):.0f}"
                  f" p95={xs[int(0.95 * (len(xs) - 1))]:.0f} (n={len(xs)})")
    if misses:
        for q in qs:
            on, off = ranks[True][q["id"]], ranks[False][q["id"]]
            if on != off or on is None or on > 5:
                print(f"{q['id']:10s} {'x' if q['cross'] else ' '} on={on} off={off} {q['q']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("setup", "search", "stop"))
    parser.add_argument("dir", type=Path)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--misses", action="store_true")
    parser.add_argument("--all", action="store_true", help="every file of the five tuning sets, not the 8")
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="search: where a translated search's time goes, over the first N questions")
    args = parser.parse_args()
    base = args.dir.resolve()
    base.mkdir(parents=True, exist_ok=True)
    os.environ["MNOTE_KR_HOME"] = str(base / "home")
    if args.action == "setup":
        setup(base, chosen(args.all))
    elif args.action == "search":
        search(base, args.rounds, args.misses, chosen(args.all), args.profile)
    else:
        from mnote_kr_lightrag.engine.managed import default_engine_dirs, stop_engine

        stop_engine(default_engine_dirs()["state_dir"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
