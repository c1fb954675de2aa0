"""Cold starts: what a person at a terminal (or a shell script) waits for, one process per command.

Measured, each in a fresh process (the installed ``mnote-kr`` console script):

* ``search QUERY --json`` over an ingested corpus, against the same search warm in one
  process (``Host.search`` after a first run) plus the interpreter's own start
  (``python -c pass``). Target: cold <= 1.5 x (warm + interpreter start).
* ``--help``, ``status``, ``roots list``, against ``python -c pass``. Target: <= 3x.

The cold search is also run with the on-disk locate cache turned off
(``MNOTE_KR_LOCATE_CACHE=0``, every process parses each cited DOCX and PDF again: the
behaviour before the cache) and with it emptied after ingest (the first search fills it),
so the gain is measured in the same run.

A real managed LightRAG engine (offline model stand-in) runs under a temp dir. LightRAG's
own query cache is warmed by the warm side first, so both sides pay the same provider cost.
Commands alternate within each round so drift hits all of them. A command that exits
non-zero, or a search that returns no citation where the warm one did, counts as a miss.

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

DOCX = ["docling__word_sample.docx", "mineru__test.docx", "docling__equations.docx", "kotaemon__dummy.docx",
        "tika__017097.docx", "chatchat__核电厂定期安全审查指南 第1部分：通用要求（征求意见稿）.docx"]
PDF = ["pdfplumber__scotus-transcript-p1.pdf", "markitdown__test.pdf", "mineru__2list_1table.pdf",
       "pdfminer__naacl06-shinyama.pdf", "pdfjs__tracemonkey.pdf"]
QUERIES = ["Supreme Court oral argument", "trace compilation JavaScript", "word sample heading",
           "named entity extraction", "核电厂 定期安全审查", "table of results"]
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="mnote-bench-cold-"))
    home = tmp / "home"
    os.environ["MNOTE_KR_HOME"] = str(home)
    from mnote_kr_testkit.engine import seed_tiktoken

    from mnote_kr.core import paths
    from mnote_kr.core.host import Host
    from mnote_kr_lightrag.engine import start_engine, stop_engine

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
        for sub, names in (("docx", DOCX), ("pdf", PDF)):
            for name in names:
                shutil.copyfile(CORPUS / sub / name, ws / "docs" / name)
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

        host = Host(ws)  # the warm side: one process, caches filled by a first run
        warm_hits: dict[str, int] = {}
        for q in QUERIES:
            warm_hits[q] = len(host.search(q).results)

        env_nocache = {**env, "MNOTE_KR_LOCATE_CACHE": "0"}
        for argv in ([*base, "--help"], [*base, "status"], [*base, "roots", "list"],
                     [*base, "search", QUERIES[0], "--json"]):
            _run(argv, env)  # untimed: writes the bytecode caches, as an installed package has them
        locate_dir = paths.cache_dir() / "locate"
        times: dict[str, list[float]] = {k: [] for k in (
            "pass", "help", "status", "roots", "warm", "cold", "cold_nocache", "cold_first")}
        for rnd in range(args.rounds):
            for name, argv, e in (("pass", [sys.executable, "-c", "pass"], env),
                                  ("help", [*base, "--help"], env),
                                  ("status", [*base, "status"], env),
                                  ("roots", [*base, "roots", "list"], env)):
                dt, proc = _run(argv, e)
                if proc.returncode != 0:
                    misses += miss(name, proc, f"exit {proc.returncode}")
                times[name].append(dt)
            for i, q in enumerate(QUERIES):
                s = time.perf_counter()
                host.search(q)
                times["warm"].append(time.perf_counter() - s)
                sides = [("cold", env), ("cold_nocache", env_nocache)]
                for label, e in sides if (i + rnd) % 2 == 0 else sides[::-1]:
                    dt, proc = _run([*base, "search", q, "--json"], e)
                    times[label].append(dt)
                    got = len(json.loads(proc.stdout)["results"]) if proc.returncode == 0 else -1
                    if proc.returncode != 0 or (got == 0 and warm_hits[q] > 0):
                        misses += miss(label, proc, f"exit {proc.returncode}, {got} results for {q!r}")
            if rnd == 0:  # the first search after an emptied cache fills it (once per query)
                for q in QUERIES:
                    shutil.rmtree(locate_dir, ignore_errors=True)
                    dt, proc = _run([*base, "search", q, "--json"], env)
                    if proc.returncode != 0:
                        misses += miss("cold_first", proc, f"exit {proc.returncode}")
                    times["cold_first"].append(dt)

        ms = {k: _med(v) for k, v in times.items() if v}
        print(f"\n{len(QUERIES)} queries x {args.rounds} rounds; medians of fresh processes unless noted")
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
        print(f"\nmisses (non-zero exits, or no citation where the warm search had some): {misses}")
    finally:
        stop_engine(paths.state_dir())
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
