"""Cold starts: what a person at a terminal (or a shell script) waits for, one process per command.

Measured, each in a fresh process (the installed ``mnote-kr`` console script):

* ``search QUERY --json`` over an ingested corpus (the 16 files of ``benchmarks/retrieval.py``),
  against the same search in one warm process (``Host.search``, every document already located
  once) plus the interpreter's own start (``python -c pass``). Target: cold <= 1.5 x (warm +
  interpreter start).
* ``--help``, ``status``, ``roots list``, against ``python -c pass``. Target: <= 3x.

**Every measured query is new to mnote-kr**, as what a person types is: the questions are the
labelled ones of ``benchmarks/retrieval.py`` (English and Chinese, the document's own words and
other words), none measured twice. The warm process keeps its in-memory memos (documents
parsed, chunks cleaned) but writes nothing to disk (``MNOTE_KR_LOCATE_CACHE=0`` while it runs),
so no cold process finds an answer the warm side computed for its query; the cold processes use
the on-disk caches as a user's do: document models filled at ingest, each chunk's cleaning and
PDF alignment filled by the first search that cites it (an earlier measured query, as in a
user's session). LightRAG's own cache of each query is
filled first by the provider request alone (no locating), so both sides pay the same provider
cost. An earlier version repeated six keyword queries every round, so its cold processes read
answers cached on disk for those exact queries: it measured a repeat, not a first question.

The cold search is also run with the on-disk locate cache turned off
(``MNOTE_KR_LOCATE_CACHE=0``, every process parses each cited DOCX and PDF again) and, after the
rounds, with it emptied before each search (the first search fills it). Commands alternate within
each round so drift hits all of them. A command that exits non-zero, or a search that returns
no citation where the warm one did, counts as a miss.

Fresh processes run with bytecode caching on (an installed package has its ``.pyc``
files) after one untimed run of each command.

    .venv/bin/python benchmarks/cli_cold.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mnote_kr_testkit.data import CORPUS

HERE = Path(__file__).resolve().parent
PER_ROUND = 8  # new queries measured per round
SEARCH_TARGET = 1.5
LIGHT_TARGET = 3.0


def _exe() -> str:
    found = shutil.which("mnote-kr", path=str(Path(sys.executable).parent))
    if not found:
        raise SystemExit("mnote-kr console script not found next to this interpreter")
    return found


def _run(argv: list[str], env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    t0 = time.perf_counter()
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    return time.perf_counter() - t0, proc


def _med(values: list[float]) -> float:
    return statistics.median(values) * 1000


def questions() -> tuple[list[str], list[str], list[str]]:
    """(corpus files, warm-up queries: one per file, measured queries), from the labelled sets.

    The measured list interleaves the sets, languages and wordings, so any round mixes them."""
    labels = [q for name in ("retrieval_questions.json", "retrieval_heldout.json")
              for q in json.loads((HERE / name).read_text(encoding="utf-8"))["questions"]]
    files = sorted({q["doc"] for q in labels})
    warmup: dict[str, str] = {}
    rest: dict[tuple[str, str], list[str]] = {}
    for q in labels:
        if q["doc"] not in warmup:
            warmup[q["doc"]] = q["q"]
        else:
            rest.setdefault((q["lang"], q["wording"]), []).append(q["q"])
    groups = [rest[k] for k in sorted(rest)]
    measured = [g[i] for i in range(max(map(len, groups))) for g in groups if i < len(g)]
    return files, list(warmup.values()), measured


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    files, warmup, measured = questions()
    if args.rounds * PER_ROUND > len(measured):
        parser.error(f"at most {len(measured) // PER_ROUND} rounds: every measured query is new")

    tmp = Path(tempfile.mkdtemp(prefix="mnote-bench-cold-"))
    home = tmp / "home"
    os.environ["MNOTE_KR_HOME"] = str(home)
    from mnote_kr_testkit.engine import seed_tiktoken

    from mnote_kr.app.host import Host
    from mnote_kr.core import paths
    from mnote_kr_lightrag.engine.managed import start_engine, stop_engine

    seed_tiktoken(paths.cache_dir())
    t0 = time.perf_counter()
    engine = start_engine(data_dir=paths.data_dir(), state_dir=paths.state_dir(), cache_dir=paths.cache_dir(),
                          wait_s=120)
    misses = 0
    shown: set[str] = set()

    def miss(label: str, proc: subprocess.CompletedProcess[str], why: str) -> int:
        if label not in shown:  # the first miss of each kind, so a failure is never silent
            shown.add(label)
            print(f"miss ({label}): {why}: {(proc.stderr or proc.stdout).strip()[-300:]}")
        return 1

    try:
        print(f"engine: LightRAG at {engine.url} started in {time.perf_counter() - t0:.1f}s")
        ws = tmp / "kb"
        (ws / "docs").mkdir(parents=True)
        for rel in files:
            shutil.copyfile(CORPUS / rel, ws / "docs" / Path(rel).name)
        env = {**os.environ, "MNOTE_KR_HOME": str(home)}
        env.pop("MNOTE_KR_LOCATE_CACHE", None)
        # An installed package has its bytecode cached; a session that forbids writing it would
        # make every fresh process compile the sources again (not what a user's start costs).
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        exe = _exe()
        base = [exe, "--workspace", str(ws)]
        t_ing, proc = _run([*base, "roots", "add", "docs"], env)
        t_ing, proc = _run([*base, "ingest", "docs", "--wait", "--json"], env)
        if proc.returncode != 0:
            print(f"ingest failed ({proc.returncode}): {proc.stderr.strip()}")
            return 1
        items = json.loads(proc.stdout)["items"]
        print(f"ingest: {len(items)} files in {t_ing:.1f}s (CLI, --wait, locate cache filled)")

        from mnote_kr.citations.pipeline import _query
        from mnote_kr_docx_locator import cache as docx_cache
        from mnote_kr_pdf_bbox import model

        host = Host(ws)  # the warm side: one process that has located every document once
        os.environ["MNOTE_KR_LOCATE_CACHE"] = "0"  # its memos stay in memory, none reaches the disk
        # Every document stays in its memory (the PDF locator keeps 4 by default): with its disk
        # cache off, an evicted PDF would be parsed again and flatter the cold side.
        model._cache._max_items = docx_cache._cache._max_items = len(files)
        docx_cache._cache._max_weight = None
        for q in warmup:
            host.search(q)
        parses = model._cache.stats["parses"] + docx_cache._cache.stats["parses"]

        env_nocache = {**env, "MNOTE_KR_LOCATE_CACHE": "0"}
        for argv in ([*base, "--help"], [*base, "status"], [*base, "roots", "list"],
                     [*base, "search", warmup[0], "--json"]):
            _run(argv, env)  # untimed: writes the bytecode caches, as an installed package has them
        locate_dir = paths.cache_dir() / "locate"
        times: dict[str, list[float]] = {k: [] for k in (
            "pass", "help", "status", "roots", "warm", "cold", "cold_nocache", "cold_first")}
        phases: dict[str, list[float]] = {k: [] for k in (
            "warm_provider", "warm_pipeline", "cold_provider", "cold_pipeline")}
        for rnd in range(args.rounds):
            for name, argv, e in (("pass", [sys.executable, "-c", "pass"], env),
                                  ("help", [*base, "--help"], env),
                                  ("status", [*base, "status"], env),
                                  ("roots", [*base, "roots", "list"], env)):
                dt, proc = _run(argv, e)
                if proc.returncode != 0:
                    misses += miss(name, proc, f"exit {proc.returncode}")
                times[name].append(dt)
            batch = measured[rnd * PER_ROUND:(rnd + 1) * PER_ROUND]
            for i, q in enumerate(batch):
                _query(host, q, top_k=20, mode="mix", rerank=None, want_answer=False)  # LightRAG's cache only
                s = time.perf_counter()
                warm = host.search(q)
                times["warm"].append(time.perf_counter() - s)
                phases["warm_provider"].append(warm.diagnostics["providerMs"] / 1000)
                phases["warm_pipeline"].append(warm.diagnostics["pipelineMs"] / 1000)
                sides = [("cold", env), ("cold_nocache", env_nocache)]
                for label, e in sides if (i + rnd) % 2 == 0 else sides[::-1]:
                    dt, proc = _run([*base, "search", q, "--json"], e)
                    times[label].append(dt)
                    out = json.loads(proc.stdout) if proc.returncode == 0 else {}
                    got = len(out.get("results", [])) if proc.returncode == 0 else -1
                    if label == "cold" and out:
                        phases["cold_provider"].append(out["diagnostics"]["providerMs"] / 1000)
                        phases["cold_pipeline"].append(out["diagnostics"]["pipelineMs"] / 1000)
                    if proc.returncode != 0 or (got == 0 and warm.results):
                        misses += miss(label, proc, f"exit {proc.returncode}, {got} results for {q!r}")
        # Last, so no measured search above runs without the cache the ingest filled: the first
        # search after the cache was emptied (it fills it again), on the first round's queries.
        for q in measured[:PER_ROUND]:
            shutil.rmtree(locate_dir, ignore_errors=True)
            dt, proc = _run([*base, "search", q, "--json"], env)
            if proc.returncode != 0:
                misses += miss("cold_first", proc, f"exit {proc.returncode}")
            times["cold_first"].append(dt)

        ms = {k: _med(v) for k, v in times.items() if v}
        print(f"\n{args.rounds} rounds x {PER_ROUND} new queries each ({args.rounds * PER_ROUND} in all, "
              f"none repeated); medians of fresh processes unless noted")
        print(f"baseline  python -c pass                  {ms['pass']:8.1f} ms")
        for key, label in (("help", "mnote-kr --help"), ("status", "mnote-kr status"),
                           ("roots", "mnote-kr roots list")):
            ratio = ms[key] / ms["pass"]
            verdict = "PASS" if ratio <= LIGHT_TARGET else "FAIL"
            print(f"measured  {label:31} {ms[key]:8.1f} ms  ratio {ratio:5.2f} (target <= {LIGHT_TARGET}: {verdict})")
        print(f"\nbaseline  warm Host.search (one process)  {ms['warm']:8.1f} ms;  + interpreter start = "
              f"{ms['warm'] + ms['pass']:.1f} ms")
        for key, label in (("cold", "search, cache filled at ingest"),
                           ("cold_first", "search, cache emptied first"),
                           ("cold_nocache", "search, no disk cache (before)")):
            ratio = ms[key] / (ms["warm"] + ms["pass"])
            verdict = 'PASS' if ratio <= SEARCH_TARGET else 'FAIL'
            target = f" (target <= {SEARCH_TARGET}: {verdict})" if key == "cold" else ""
            print(f"measured  {label:31} {ms[key]:8.1f} ms  ratio {ratio:5.2f}{target}")
        reparsed = model._cache.stats["parses"] + docx_cache._cache.stats["parses"] - parses
        print(f"          warm process: {reparsed} document(s) parsed again during the measured rounds (0 expected)")
        misses += reparsed
        ph = {k: _med(v) for k, v in phases.items() if v}
        if len(ph) == 4:
            print(f"          phases (median ms): warm provider {ph['warm_provider']:.0f} + pipeline "
                  f"{ph['warm_pipeline']:.0f}; cold provider {ph['cold_provider']:.0f} + pipeline "
                  f"{ph['cold_pipeline']:.0f} (the rest of a cold process is start-up and imports)")
        print(f"\nmisses (non-zero exits, or no citation where the warm search had some): {misses}")
    finally:
        stop_engine(paths.state_dir())
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
