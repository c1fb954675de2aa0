"""The citation ID store read by many threads of one process while other processes write it.

Seen by a newcomer (round 16): ``serve`` answered 500 "database disk image is malformed" for an ID it
opened a moment later, with the advice to move the store aside (every issued ID lost); an integrity check
said ok. The cause: each write narrowed the store's mode through ``os.open``/``os.close`` of the database
file, and closing any descriptor of a file releases every POSIX lock the process holds on it, so the
SHARED locks of the server's other connections were gone. The next CLI process to close its connection
then took itself for the last one, checkpointed and deleted the write-ahead log and its index under the
server's connections: "disk I/O error", "malformed", "file is not a database" and rows missing, until
those connections closed. The last test is the newcomer's case through HTTP (before the fix: 500 "malformed").
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import httpx
import pytest

from mnote_kr.citations.caches import citecache, idstore
from tests.heron import heron_host
from tests.surfaces import api

API = "/api/knowledge-rag"

#: Another process's whole life with the store: write one ID through the store's API, exit (its connection
#: closes; the last connection to close checkpoints and deletes the write-ahead log, so it must not be the
#: last while this process has connections open).
_OTHER = """
import sys
from pathlib import Path
from mnote_kr.citations.caches import idstore
with idstore.writing(Path(sys.argv[1])) as tx:
    tx.upsert([(sys.argv[2], 7, b"o" * 1500)])
"""

ROWS = [(f"[k{i:03d}]", i, bytes([65 + i % 26]) * 1500) for i in range(40)]


def _other_process_writes(path: Path, cid: str) -> None:
    subprocess.run([sys.executable, "-c", _OTHER, str(path), cid], check=True, timeout=60)


def test_a_write_keeps_the_locks_of_the_processes_other_connections(tmp_path: Path) -> None:
    path = tmp_path / "ids.sqlite3"
    with idstore.writing(path) as tx:
        tx.upsert(ROWS)
    read_again = threading.Event()
    seen: list[object] = []

    def server_thread() -> None:  # a reader whose connection stays open, as a serving thread's does
        seen.append(idstore.get(path, "[k001]"))
        read_again.wait(timeout=60)
        try:
            seen.append(idstore.get(path, "[k002]"))
        except sqlite3.Error as exc:
            seen.append(exc)

    reader = threading.Thread(target=server_thread)
    reader.start()
    while not seen and reader.is_alive():
        reader.join(timeout=0.01)
    with idstore.writing(path) as tx:  # another thread of this process issues IDs
        tx.upsert([("[mine]", 999, b"m" * 1500)])

    try:
        _other_process_writes(path, "[theirs]")
        log_kept = Path(str(path) + "-wal").exists()
    finally:
        read_again.set()
        reader.join(timeout=60)

    assert log_kept, "another process deleted the write-ahead log this process still reads"
    assert seen == [(1, ROWS[1][2]), (2, ROWS[2][2])]


def test_threads_read_every_id_while_other_processes_write_and_exit(tmp_path: Path) -> None:
    path = tmp_path / "ids.sqlite3"
    with idstore.writing(path) as tx:
        tx.upsert(ROWS)
    stop = threading.Event()
    errors: list[str] = []
    reads = [0]

    def request() -> None:  # one HTTP request: a thread of its own, its own connection
        for cid, place, record in ROWS[::7]:
            try:
                row = idstore.get(path, cid)
            except sqlite3.Error as exc:
                errors.append(f"{cid}: {exc}")
                continue
            if row != (place, record):
                errors.append(f"{cid}: read {row!r:.40}")
            reads[0] += 1

    def serve() -> None:
        while not stop.is_set():
            thread = threading.Thread(target=request)
            thread.start()
            thread.join()

    def issue() -> None:  # the server's own searches issue IDs too
        n = 0
        while not stop.is_set():
            n += 1
            try:
                with idstore.writing(path) as tx:
                    tx.upsert([(f"[s{n % 10}]", 500 + n % 10, b"s" * 1500)])
            except sqlite3.Error as exc:
                errors.append(f"write: {exc}")
            stop.wait(0.002)

    workers = [threading.Thread(target=serve) for _ in range(3)] + [threading.Thread(target=issue)]
    for w in workers:
        w.start()
    try:
        for n in range(12):  # CLI searches: each a process that writes, then closes its connection
            _other_process_writes(path, f"[cli{n}]")
            if errors:
                break
    finally:
        stop.set()
        for w in workers:
            w.join(timeout=60)
    assert errors == []
    assert reads[0] > 0
    assert idstore.get(path, "[cli0]") == (7, b"o" * 1500)


def test_serve_opens_ids_while_it_and_other_processes_issue_ids(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The newcomer's case through HTTP: open-reference in keep-alive threads, serve's own searches, CLIs."""
    host = heron_host(tmp_path, monkeypatch)
    store = citecache.store_path(host)
    answers: Counter[tuple[int, str]] = Counter()
    stop = threading.Event()
    with api(host) as (server, client):
        cid = client.post(f"{API}/search", json={"query": "heron over the marsh"}).json()["results"][0]["citationId"]
        citecache._memory.clear()  # opened from the store, as any ID issued by another process

        def browse() -> None:
            with httpx.Client(base_url=server.url, headers=dict(client.headers), timeout=30) as own:
                while not stop.is_set():
                    got = own.post(f"{API}/open-reference", json={"citationId": cid})
                    answers[(got.status_code, "" if got.status_code == 200 else got.text)] += 1
                    if sum(answers.values()) % 40 == 0:  # serve issues IDs too
                        own.post(f"{API}/search", json={"query": "heron over the marsh"})
                        citecache._memory.clear()

        browsers = [threading.Thread(target=browse) for _ in range(3)]
        for b in browsers:
            b.start()
        try:
            for n in range(8):
                _other_process_writes(store, f"[cli{n}]")
                if len(answers) > 1:
                    break
        finally:
            stop.set()
            for b in browsers:
                b.join(timeout=60)
    assert list(answers) == [(200, "")], answers.most_common(3)
