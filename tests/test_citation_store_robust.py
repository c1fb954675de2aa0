"""The citation ID store under a second first-time creator and a damaged file (``idstore``, ``citecache``).

Found in review (round 15): two processes creating a workspace's store at once made one fail at once
with "database is locked" (switching a new file to its write-ahead log never waits for the other), and
a store file that is not a database made every ``search`` fail with "unexpected DatabaseError".
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

import pytest

from mnote_kr.citations.caches import citecache, idstore
from mnote_kr.errors import MnoteKrError
from tests.heron import heron_host


def test_a_store_being_created_by_another_process_is_waited_for_not_refused(tmp_path: Path) -> None:
    path = tmp_path / "ids.sqlite3"
    path.touch(mode=0o600)  # another process has just created it and holds it for its first write
    other = sqlite3.connect(path, isolation_level=None, timeout=0)
    other.execute("BEGIN IMMEDIATE")
    errors: list[BaseException] = []

    def write_one() -> None:
        try:
            with idstore.writing(path) as tx:
                tx.upsert([("[mine]", 1, b"x")])
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    writer = threading.Thread(target=write_one)
    writer.start()
    writer.join(timeout=0.5)  # while the other holds the file, the writer waits (BUSY_SECONDS)
    other.execute("COMMIT")
    other.close()
    writer.join(timeout=idstore.BUSY_SECONDS + 5)
    assert not writer.is_alive() and errors == []
    assert [cid for cid, _, _ in idstore.every(path)] == ["[mine]"]


def test_a_damaged_store_file_never_fails_a_search_and_open_says_so_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host = heron_host(tmp_path, monkeypatch)
    ws = host.root
    store = citecache.store_path(host)
    store.write_bytes(b"not a database " * 400)  # a disk error, a stray copy: not SQLite

    found = host.search("heron over the marsh").results  # the search itself is not the store's

    assert [c.source_root_relative_path for c in found] == ["notes/heron.md"]
    citecache._memory.clear()  # another process: only the store on disk
    with pytest.raises(MnoteKrError) as refused:
        host.open(found[0].citation_id)
    assert str(store) in str(refused.value)  # which file is damaged, not "unexpected DatabaseError"
    assert os.path.exists(ws / "notes" / "heron.md")
