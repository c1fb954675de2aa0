"""How long a search waits while the managed engine ingests a big document (nc21b problem 4).

A fresh real managed engine (e5xlang, the default) indexes two small files; then the 872-page
handbook DOCX (``tests/data/corpus``: 483 LightRAG chunks) is copied in and ingested in a thread,
and once LightRAG's pipeline is busy with it, probes run one after the other until the ingest ends
(at most ``--probes``):

* ``embed``: one short query text straight to the model service's ``/v1/embeddings`` (what LightRAG
  sends for a query's vector);
* ``search``: ``Host.search`` end to end (or its one-line error);
* ``query``: LightRAG's ``POST /query/data`` alone (what the plugin asks first), waited on up to 120 s.

Then ``--held`` rounds (counted once the raw query takes over 5 s: LightRAG is storing the handbook's chunks;
quicker rounds are repeated each second): the same search sent at the same moment
from two hosts, ``search_wait_s = 0`` (a search failing after ``timeout_s``, as before ``searchwait``)
and the default (it waits for the file to be stored, then asks once more), with the raw query beside
them; each one's seconds, its error line and the waiting host's progress lines.

Printed: each probe's seconds, and the same probes before the ingest (idle baseline). Run it under
``flock /tmp/mnote-engine.lock`` on a shared machine.

    .venv/bin/python benchmarks/search_during_ingest.py [--probes 4]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

QUERY = "What should a visitor do before using a credit card abroad?"
#: A raw query slower than this counts as held by LightRAG's store (idle: 0.2 s).
HELD_S = 5.0


def probe(info: object, host: object) -> dict[str, object]:
    from mnote_kr_lightrag.engine import modelservice as ms

    out: dict[str, object] = {}
    t = time.monotonic()
    r = httpx.post(f"{info.models_url}/embeddings", json={"input": [QUERY], "encoding_format": "base64"},
                   headers=ms.auth_headers(info.models_key), trust_env=False, timeout=120)
    out["embed"] = round(time.monotonic() - t, 2) if r.status_code == 200 else f"HTTP {r.status_code}"
    t = time.monotonic()
    try:
        host.search(QUERY)
        out["search"] = round(time.monotonic() - t, 2)
    except Exception as exc:  # the one-line error a user sees
        out["search"] = f"{time.monotonic() - t:.1f} s: {str(exc).splitlines()[0][:160]}"
    t = time.monotonic()
    try:
        r = httpx.post(f"{info.url}/query/data", json={"query": QUERY, "mode": "mix", "top_k": 20},
                       headers={"X-API-Key": info.api_key}, trust_env=False, timeout=120)
        out["query"] = round(time.monotonic() - t, 2) if r.status_code == 200 else f"HTTP {r.status_code}"
    except httpx.TimeoutException:
        out["query"] = "timeout 120 s"
    return out


def timed(run: object) -> object:
    t = time.monotonic()
    try:
        run()
        return round(time.monotonic() - t, 2)
    except Exception as exc:  # the one-line error a user sees
        return f"{time.monotonic() - t:.1f} s: {str(exc).splitlines()[0][:400]}"


def held(info: object, hosts: dict[str, object]) -> dict[str, object]:
    """The same search from each host and the raw query, sent at one moment, each in its thread."""
    out: dict[str, object] = {}

    def raw() -> None:
        r = httpx.post(f"{info.url}/query/data", json={"query": QUERY, "mode": "mix", "top_k": 20},
                       headers={"X-API-Key": info.api_key}, trust_env=False, timeout=600)
        r.raise_for_status()

    jobs = {"query": raw, **{name: (lambda h=h: h.search(QUERY)) for name, h in hosts.items()}}
    threads = [threading.Thread(target=lambda k=k, f=f: out.__setitem__(k, timed(f))) for k, f in jobs.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--probes", type=int, default=4)
    parser.add_argument("--held", type=int, default=0, help="rounds of the side-by-side search (see above)")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "testkit"))
    from mnote_kr_testkit.data import CORPUS
    from mnote_kr_testkit.engine import seed_tiktoken

    from mnote_kr.app.host import Host
    from mnote_kr_lightrag.engine import managed

    tmp = Path(tempfile.mkdtemp(prefix="mnote-busyq-"))
    os.environ["MNOTE_KR_HOME"] = str(tmp / "home")
    dirs = managed.default_engine_dirs()
    seed_tiktoken(dirs["cache_dir"])
    ws = tmp / "kb"
    (ws / "docs").mkdir(parents=True)
    for name in ("khoj__bangalore.docx", "docling__word_sample.docx"):
        if (CORPUS / "docx" / name).exists():
            shutil.copyfile(CORPUS / "docx" / name, ws / "docs" / name)
    managed.start_engine(**dirs, wait_s=300)
    try:
        host = Host(ws)
        host.roots_add("docs")
        host.ingest(["docs"], wait=True, wait_s=900)
        (state,) = managed.workspace_state_dirs(dirs["state_dir"])
        info = managed.engine_status(state)
        idle = [probe(info, host) for _ in range(2)]
        print("idle:", *idle, sep="\n  ", flush=True)
        shutil.copyfile(CORPUS / "docx" / "unstructured__handbook-872p.docx", ws / "docs" / "handbook.docx")
        started = time.monotonic()
        done = threading.Event()
        result: list[object] = []

        def ingest() -> None:
            try:
                result.append(host.ingest(["docs"], wait=True, wait_s=1800))
            finally:
                done.set()

        threading.Thread(target=ingest, daemon=True).start()
        busy = []
        while not done.is_set() and not httpx.get(f"{info.url}/documents/pipeline_status", trust_env=False,
                                                   headers={"X-API-Key": info.api_key}).json().get("busy"):
            done.wait(0.5)  # mnote-kr reads the DOCX before LightRAG gets it: probe once LightRAG works on it
        print(f"LightRAG busy after {time.monotonic() - started:.1f} s", flush=True)
        while not done.is_set() and len(busy) < args.probes:
            row = probe(info, host)
            row["at"] = round(time.monotonic() - started, 1)
            busy.append(row)
            print("busy:", row, flush=True)
        lines: list[str] = []
        section = dict((host.config.get("providers") or {}).get("lightrag") or {})
        hosts = {"search (search_wait_s 0, as before)": Host(ws, config={"providers": {"lightrag": {
                     **section, "search_wait_s": 0}}}),
                 "search (default wait)": Host(ws, progress=lambda line: lines.append(
                     f"{time.monotonic() - started:.0f} s: {line}"))}
        counted = quick = 0
        while counted < args.held and not done.is_set():
            at = round(time.monotonic() - started, 1)
            row = held(info, hosts)
            if isinstance(row.get("query"), float) and row["query"] < HELD_S:  # LightRAG is not storing yet
                quick += 1
                done.wait(1.0)
                continue
            counted += 1
            print(f"held (after {quick} quick rounds):", {"at": at, **row}, flush=True)
        for line in lines:
            print("  progress:", line[:400], flush=True)
        done.wait()
        print(f"ingest took {time.monotonic() - started:.0f} s:",
              [i.status for i in result[0].items] if result and hasattr(result[0], "items") else result)
        for kind in ("embed", "query", "search") if busy else ():
            nums = [r[kind] for r in busy if isinstance(r[kind], float)]
            calm = statistics.median(r[kind] for r in idle if isinstance(r[kind], float))
            print(f"{kind}: idle median {calm:.2f} s; "
                  f"during ingest {nums} ({len(busy) - len(nums)} failed)")
    finally:
        managed.stop_engine(dirs["state_dir"])
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
