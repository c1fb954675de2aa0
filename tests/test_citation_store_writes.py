"""A write of the citation ID store that fails: tried again as a read is, and a final failure loses nothing.

A read of the store was tried again on a fresh connection (``idstore.READ_TRIES``); a write was not: one
passing "disk I/O error" (another process's work at that moment) left a search's IDs in that process only,
so an ``open`` of them from another process said they were never issued. A write is now tried
``idstore.WRITE_TRIES`` times; after a final failure the search still answers, one stderr line says so,
and the IDs are written with the process's next write that succeeds (``serve``, ``mcp`` and ``watch`` live on).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from mnote_kr.app.host import Host
from mnote_kr.citations.caches import citecache, idstore
from tests.heron import heron_host

KITE = "# Kite\n\nThe red kite circles the ridge.\n"


def _failing_writes(monkeypatch: pytest.MonkeyPatch, times: int) -> list[int]:
    """The store's writes fail (a passing "disk I/O error") while fewer than ``times`` have failed."""
    failed = [0]
    real = idstore.writing

    @contextlib.contextmanager
    def writing(path: Path) -> Iterator[idstore.Writing]:
        if failed[0] < times:
            failed[0] += 1
            exc = sqlite3.OperationalError("disk I/O error")
            exc.sqlite_errorcode = sqlite3.SQLITE_IOERR  # type: ignore[attr-defined]
            raise exc
        with real(path) as tx:
            yield tx

    monkeypatch.setattr(idstore, "writing", writing)
    return failed


def _in_store(host: Host, cid: str) -> bool:
    """Whether another process would open ``cid``: the store on disk, not this process's memory."""
    idstore._close_cached()
    return idstore.get(citecache.store_path(host), cid) is not None


@pytest.fixture
def host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Host:
    host = heron_host(tmp_path, monkeypatch, kite=KITE)
    citecache._memory.clear()
    citecache._held.clear()
    return host


def test_a_write_that_fails_once_is_tried_again(host: Host, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    failed = _failing_writes(monkeypatch, times=idstore.WRITE_TRIES - 1)
    cid = host.search("heron over the marsh").results[0].citation_id
    assert failed[0] == idstore.WRITE_TRIES - 1
    assert _in_store(host, cid)
    assert capsys.readouterr().err == ""


def test_a_write_that_keeps_failing_says_so_once_and_loses_no_id(host: Host, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    host.search("red kite ridge")  # the store holds IDs already
    failed = _failing_writes(monkeypatch, times=idstore.WRITE_TRIES)
    heron = host.search("heron over the marsh").results[0].citation_id
    assert failed[0] == idstore.WRITE_TRIES
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "could not be written" in err[0], err
    assert not _in_store(host, heron)
    assert host.open(heron).resource_root_relative_path == "notes/heron.md"  # this process still opens it

    kite = host.search("red kite ridge").results[0].citation_id  # the store takes writes again
    assert _in_store(host, kite) and _in_store(host, heron)
    citecache._memory.clear()  # another process
    assert host.open(heron).resource_root_relative_path == "notes/heron.md"
