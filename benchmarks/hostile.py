"""Hostile files through ``mnote-kr ingest --wait`` against a real managed LightRAG engine.

Per hostile file, generated in a temp folder (flate bomb PDF, deeply nested XML DOCX, XML bomb
DOCX, a 30 MB DOCX of ordinary text, a 5,000-page PDF, a non-UTF-8 file name, a FIFO, a symlink
pointing out of the root), one fresh ``mnote-kr ingest PATH --wait`` process is run and this
prints its wall time, the peak RSS of that process (GNU ``time``'s ``%M``), the peak and the
kept RSS growth of the ``lightrag-server`` process (sampled every 50 ms), and the outcome (the
CLI's line for the file, or its error line), against the bounds < 10 s, < 500 MB, engine growth
< 100 MB, and as a ratio to the baseline: an ordinary 1-page PDF ingested the same way, in the
same run, against the same engine.

Then the engine's memory per page: a generated PDF of ordinary pages (``--pages``, ~450 words a
page) is ingested and LightRAG's RSS compared before and after (kept, once its pipeline is idle),
which is what docs/budgets.md states for the page limit.

    .venv/bin/python benchmarks/hostile.py [--pages 200] [--skip-pages | --pages-only] [--stop MB]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mnote_kr_testkit.docx_docs import bad_docx, nested_tables_docx, ordinary_text_docx  # noqa: E402
from mnote_kr_testkit.pdfs import PdfBuilder, flate_bomb_pdf, many_pages_pdf  # noqa: E402

BOUND_S, BOUND_MB, BOUND_ENGINE_MB = 10.0, 500.0, 100.0
TIME = shutil.which("time") or "/usr/bin/time"  # GNU time (Debian's ``time`` package)
_WORDS = ("the wind turbine blade ice power output heating test site winter data sensor report load speed "
          "rotor tower yaw pitch control measurement study result operator maintenance inspection loss "
          "temperature humidity fog model forecast energy grid year month day station design safety").split()


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class Sampler:
    """The peak RSS of one process, sampled every 50 ms on a thread."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self._stop = pid, rss_mb(pid), threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            self.peak = max(self.peak, rss_mb(self.pid))

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return max(self.peak, rss_mb(self.pid))


@dataclass
class Run:
    seconds: float
    peak_mb: float
    engine_peak_mb: float
    engine_kept_mb: float
    outcome: str


def run_ingest(ws: Path, env: dict[str, str], target: bytes, server_pid: int, timeout_s: float = 300) -> Run:
    """One fresh ``mnote-kr ingest TARGET --wait`` process, measured."""
    before = rss_mb(server_pid)
    sampler = Sampler(server_pid)
    out, err, maxrss = (ws / ".mnote" / f"bench.{k}" for k in ("out", "err", "rss"))
    # GNU time measures the peak RSS of the exec'd process alone (this process's ru_maxrss of a
    # child counts the pages it shared with this one between fork and exec).
    with open(out, "wb") as fo, open(err, "wb") as fe:
        t0 = time.perf_counter()
        proc = subprocess.Popen([TIME, "-f", "%M", "-o", str(maxrss), sys.executable, "-m", "mnote_kr", "ingest",
                                 target, "--wait", "--timeout", "120"], cwd=ws, env=env, stdout=fo, stderr=fe)
        try:
            proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        seconds = time.perf_counter() - t0
    engine_peak = sampler.stop()
    # The last line is %M ("Command exited with non-zero status N" may come before it).
    peak_kb = int((maxrss.read_text().split() or ["0"])[-1])
    name = os.fsdecode(target).rsplit("/", 1)[-1]
    lines = out.read_text("utf-8", "replace").splitlines() + err.read_text("utf-8", "replace").splitlines()
    lines = [ln for ln in lines if "files (" not in ln]  # progress lines
    mine = [ln for ln in lines if name in ln or ln.startswith("Error") or ln.startswith("skipped")]
    outcome = (mine or lines or ["(no output)"])[0]
    outcome = f"exit {proc.returncode}: " + " ".join(outcome.split())
    return Run(seconds, peak_kb / 1024, engine_peak - before, rss_mb(server_pid) - before, outcome)


def one_page_pdf(title: str) -> bytes:
    pdf = PdfBuilder()
    page = pdf.add_page()
    for i, line in enumerate([title, "Small wind turbines lose output when ice builds up on the blades.",
                              "Blade heating kept the power loss below five percent on every turbine."]):
        pdf.text(page, 72, 720 - 18 * i, line, size=11)
    return pdf.build()


def prose_pdf(pages: int, seed: int = 5) -> bytes:
    """``pages`` ordinary pages: 45 lines of about 10 words each."""
    rng = random.Random(seed)
    pdf = PdfBuilder()
    for _ in range(pages):
        page = pdf.add_page()
        for i in range(45):
            pdf.text(page, 56, 750 - 15.5 * i, " ".join(rng.choices(_WORDS, k=10)).capitalize() + ".", size=10)
    return pdf.build()


def build_cases(ws: Path, outside: Path) -> list[tuple[str, bytes, Callable[[], None]]]:
    """(label, path argument for ingest, builder) per case; each in its own folder of ``ws``."""

    def put(folder: str, name: str, data: bytes) -> Callable[[], None]:
        def make() -> None:
            (ws / folder).mkdir(exist_ok=True)
            (ws / folder / name).write_bytes(data)
        return make

    def fifo() -> None:
        (ws / "fifo").mkdir(exist_ok=True)
        os.mkfifo(ws / "fifo" / "pipe.md")

    def symlink_out() -> None:
        (ws / "linkout").mkdir(exist_ok=True)
        outside.mkdir(exist_ok=True)
        (outside / "secret.md").write_text("# Secret\n\nNot in the knowledge base.\n", encoding="utf-8")
        (ws / "linkout" / "secret.md").symlink_to(outside / "secret.md")

    def bad_name() -> None:
        (ws / "badname").mkdir(exist_ok=True)
        with open(os.path.join(os.fsencode(ws / "badname"), b"bad\xff\xfe name.pdf"), "wb") as fh:
            fh.write(one_page_pdf("Bad name turbine note"))

    def big_docx() -> None:
        (ws / "bigdocx").mkdir(exist_ok=True)
        ordinary_text_docx(ws / "bigdocx" / "annual-report.docx")

    return [
        ("flate bomb PDF (4 GiB inflated)", b"bomb/bomb.pdf", put("bomb", "bomb.pdf", flate_bomb_pdf(4096))),
        ("nested XML DOCX (1,500 tables)", b"nested/nested.docx",
         put("nested", "nested.docx", nested_tables_docx(1500))),
        ("XML bomb DOCX (entities)", b"xmlbomb/lol.docx", put("xmlbomb", "lol.docx", bad_docx("entities"))),
        ("30 MB DOCX of ordinary text", b"bigdocx/annual-report.docx", big_docx),
        ("5,000-page PDF", b"manual/manual.pdf", put("manual", "manual.pdf", many_pages_pdf(5000))),
        ("non-UTF-8 file name (folder)", b"badname", bad_name),
        ("FIFO (folder)", b"fifo", fifo),
        ("symlink out of the root (folder)", b"linkout", symlink_out),
    ]


def wait_idle(url: str, key: str, timeout_s: float = 600) -> None:
    import httpx

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        status = httpx.get(f"{url}/documents/pipeline_status", headers={"X-API-Key": key}, timeout=30).json()
        if not status.get("busy"):
            return
        time.sleep(0.5)


def pages_cost(ws: Path, env: dict[str, str], engine: Any, pages: int) -> None:
    """LightRAG's kept RSS growth per page of an ordinary generated PDF."""
    pid = engine.pids["server"]
    (ws / "pages").mkdir()
    (ws / "pages" / f"manual-{pages}.pdf").write_bytes(prose_pdf(pages))
    wait_idle(engine.url, engine.api_key)
    before = rss_mb(pid)
    run = run_ingest(ws, env, f"pages/manual-{pages}.pdf".encode(), pid, timeout_s=1800)
    wait_idle(engine.url, engine.api_key)
    kept = rss_mb(pid) - before
    print(f"\nengine memory per page: a {pages}-page PDF of ordinary text (~450 words a page)")
    print(f"  ingest --wait {run.seconds:.1f} s, mnote-kr peak {run.peak_mb:.0f} MB; {run.outcome}")
    print(f"  lightrag-server RSS: peak +{run.engine_peak_mb:.0f} MB, kept +{kept:.0f} MB "
          f"= {1024 * kept / pages:.0f} KB per page (kept), {1024 * run.engine_peak_mb / pages:.0f} KB per page (peak)")


def stop_cost(tmp: Path, text_mb: int, variant: str) -> None:
    """Stop an engine while a ``text_mb`` MB Markdown file (handed to LightRAG directly, as mnote-kr
    did with the 30 MB DOCX before budgets) is half indexed: the previous stop (SIGTERM to the
    server, then the model service, each killed after 15 s) against ``stop_engine`` (model
    service first when the pipeline is busy, the server killed after a short grace). Prints the
    stop's wall time, what LightRAG's log says it set out to embed at shutdown, and how many
    embedding requests the model service answered during the stop."""
    import httpx
    from mnote_kr_testkit.engine import seed_tiktoken

    from mnote_kr_lightrag.engine import managed as eng
    from mnote_kr_lightrag.engine import procs as engine_procs

    base = tmp / f"stop-{variant}"
    state = base / "state"
    seed_tiktoken(base / "cache")
    info = eng.start_engine(data_dir=base / "data", state_dir=state, cache_dir=base / "cache", wait_s=180)
    headers = {"X-API-Key": info.api_key}
    rng = random.Random(3)
    big = Path(info.input_dir) / "huge-notes.md"
    with open(big, "w", encoding="utf-8") as fh:
        while fh.tell() < text_mb << 20:
            fh.write(" ".join(rng.choices(_WORDS, k=120)) + ".\n\n")
    httpx.post(f"{info.url}/documents/scan", headers=headers, timeout=30)
    pid = info.pids["server"]
    before, t0 = rss_mb(pid), time.monotonic()
    while rss_mb(pid) - before < 300 and time.monotonic() - t0 < 180:  # well into the document
        time.sleep(0.5)
    grown = rss_mb(pid) - before
    logs = [Path(p) for p in (info.lightrag_log, info.server_log) if p]
    marks = {log: log.stat().st_size if log.exists() else 0 for log in logs}
    def embeddings() -> int:
        auth = {"X-API-Key": info.api_key, "Authorization": f"Bearer {info.api_key}"}
        stats = httpx.get(f"{info.models_url.rsplit('/v1', 1)[0]}/stats", headers=auth, timeout=10).json()
        return int(stats.get("requests", {}).get("embeddings", 0))

    asked = embeddings()
    during = "none (the model service is stopped first)"
    t1 = time.perf_counter()
    if variant == "previous":
        engine_procs.terminate(info.pids["server"], "server", 15.0)
        during = f"{embeddings() - asked} embedding requests"
        engine_procs.terminate(info.pids["models"], "models", 15.0)
        (state / eng.STATE_FILE).unlink(missing_ok=True)
    else:
        eng.stop_engine(state)
    took = time.perf_counter() - t1
    tail = "".join(log.read_bytes()[mark:].decode("utf-8", "replace") for log, mark in marks.items() if log.exists())
    flushes = [ln.split("flush: ", 1)[1] for ln in tail.splitlines() if "flush: embedding" in ln]
    killed = "the server killed at its deadline" if took > 15 or variant != "previous" and took > 2 else "exited"
    print(f"  {variant:<9} stop: {took:6.1f} s ({killed}); server had grown {grown:.0f} MB in "
          f"{time.monotonic() - t0:.0f} s; at shutdown LightRAG set out to embed: "
          f"{'; '.join(dict.fromkeys(flushes)) or 'nothing'}; the model service answered {during}")
    shutil.rmtree(base, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=200, help="pages of the per-page memory measurement")
    parser.add_argument("--skip-pages", action="store_true", help="only the hostile files")
    parser.add_argument("--pages-only", action="store_true", help="only the memory per page")
    parser.add_argument("--stop", type=int, default=0, metavar="MB",
                        help="only the stop measurement, with a half-indexed Markdown file of MB megabytes")
    args = parser.parse_args()
    if args.stop:
        tmp = Path(tempfile.mkdtemp(prefix="mnote-bench-stop-"))
        os.environ["MNOTE_KR_HOME"] = str(tmp / "home")
        print(f"engine stop with a {args.stop} MB Markdown file half indexed (fresh engine per variant):")
        for variant in ("previous", "stop_engine"):
            stop_cost(tmp, args.stop, variant)
        shutil.rmtree(tmp, ignore_errors=True)
        return 0

    tmp = Path(tempfile.mkdtemp(prefix="mnote-bench-hostile-"))
    home = tmp / "home"
    os.environ["MNOTE_KR_HOME"] = str(home)
    from mnote_kr_testkit.engine import seed_tiktoken

    from mnote_kr_lightrag.engine.managed import start_engine, stop_engine
    from tests.cli_helpers import cli_env

    state = tmp / "engine" / "state"
    seed_tiktoken(tmp / "engine" / "cache")
    t0 = time.perf_counter()
    engine = start_engine(data_dir=tmp / "engine" / "data", state_dir=state, cache_dir=tmp / "engine" / "cache",
                          wait_s=180)
    try:
        print(f"engine: LightRAG at {engine.url} started in {time.perf_counter() - t0:.1f} s")
        ws = tmp / "kb"
        (ws / ".mnote").mkdir(parents=True)
        (ws / ".mnote" / "config.toml").write_text(
            f'[providers.lightrag]\nurl = "{engine.url}"\ninput_dir = "{engine.input_dir}"\n', encoding="utf-8")
        env = cli_env(home, engine.api_key)
        pid = engine.pids["server"]

        if args.pages_only:
            pages_cost(ws, env, engine, args.pages)
            return 0
        (ws / "base").mkdir()
        (ws / "base" / "one-page.pdf").write_bytes(one_page_pdf("Baseline turbine icing note"))
        base = run_ingest(ws, env, b"base/one-page.pdf", pid)
        wait_idle(engine.url, engine.api_key)
        print(f"baseline (an ordinary 1-page PDF): {base.seconds:.2f} s, mnote-kr peak {base.peak_mb:.0f} MB, "
              f"engine peak +{base.engine_peak_mb:.0f} MB, kept +{base.engine_kept_mb:.0f} MB; {base.outcome}")
        print(f"\nbounds: < {BOUND_S:g} s, mnote-kr < {BOUND_MB:g} MB, engine growth < {BOUND_ENGINE_MB:g} MB; "
              "ratios: time and mnote-kr peak over the baseline's")
        header = (f"{'case':<34} {'time s':>7} {'x base':>7} {'peak MB':>8} {'x base':>7} {'engine+MB':>10} "
                  f"{'kept+MB':>8} {'bounds':>7}  outcome")
        print(header)
        print("-" * len(header))
        failures = 0
        cases = build_cases(ws, tmp / "outside")
        for label, target, make in cases:
            make()
            run = run_ingest(ws, env, target, pid)
            ok = run.seconds < BOUND_S and run.peak_mb < BOUND_MB and run.engine_peak_mb < BOUND_ENGINE_MB
            failures += not ok
            print(f"{label:<34} {run.seconds:>7.2f} {run.seconds / base.seconds:>7.2f} {run.peak_mb:>8.0f} "
                  f"{run.peak_mb / base.peak_mb:>7.2f} {run.engine_peak_mb:>+10.0f} {run.engine_kept_mb:>+8.0f} "
                  f"{'ok' if ok else 'OVER':>7}  {run.outcome[:150]}")
            wait_idle(engine.url, engine.api_key)
        print(f"\n{len(cases) - failures} of {len(cases)} hostile files within every bound")
        if not args.skip_pages:
            pages_cost(ws, env, engine, args.pages)
    finally:
        stop_engine(state)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
