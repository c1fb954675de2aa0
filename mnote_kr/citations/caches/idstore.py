"""The citation ID store: one record per issued ID, in one SQLite file per workspace.

``mnote_kr.citations.caches.citecache`` decides what a record holds and when an ID must be renamed;
this module only keeps the rows, safely for several processes (CLI, ``serve``, ``mcp``, ``watch``):

* **File:** ``<state_dir>/citations/<workspace id>/ids.sqlite3`` (its ``-wal`` and ``-shm`` files
  beside it), made 0600 while still empty (SQLite gives the WAL files the database's mode), in the 0700
  folder the citation log used. Never opened but through SQLite: closing another descriptor of it would
  release the locks of every connection of the process (``_narrow``).
* **Rows:** ``ids(id TEXT UNIQUE, place INTEGER, record BLOB, batch INTEGER)``. ``place`` is a 64-bit hash
  of the place the ID opens (``citecache.place_of``); ``record`` the compressed citation, or (``batch``
  set) the ID's part of a row of ``batches(n, last, blob)``: the bytes one write's rows share (one
  search's records deflated together, ``idrecord.pack``). :func:`get` and :func:`every` hand a row's
  record back followed by its batch's blob. An upsert (``INSERT OR REPLACE``) deletes the ID's old row
  and appends a new one, so the rowid order is the order of the latest issues: the oldest rowids are
  the least recently issued IDs.
* **Bound:** every write deletes the rows more than ``keep`` issues older than the newest (a rowid range,
  no count; ``[citations] keep``, default :data:`MAX_IDS`), and the batches whose rows are all that old
  (``last``: the newest rowid written with it). An evicted ID leaves ``gone(id, place)`` behind
  (~20 bytes): it is never issued for another place later (an old note's link would open the wrong
  place), and ``open`` can say it expired. ``gone`` is bounded by the IDs there are (36^4 = 1.7M 4-character
  IDs, ~35 MB at the very worst, after some 100,000 searches).
* **Size:** a new store is ``auto_vacuum=INCREMENTAL``: when more than a quarter of the file is free pages
  (a lower ``keep``, the first evictions of an earlier version's larger rows) a write gives them back to
  the file system; a store of an earlier version is rewritten once (``VACUUM``) to get there. The
  write-ahead log is checkpointed every :data:`WAL_PAGES` pages and cut back to that size.
* **Crash safety:** write-ahead log, ``synchronous=NORMAL``: a transaction is all there or not at
  all after a crash (a power cut may lose the last ones, never mix them). Readers never wait for a writer.
* **Concurrency:** a write is one ``BEGIN IMMEDIATE`` transaction (check the IDs' places, rename,
  upsert, evict), so two writers never both take one ID for two places; a writer waits up to
  :data:`BUSY_SECONDS` for another. A read is tried :data:`READ_TRIES` times, each on a fresh connection
  (a write :data:`WRITE_TRIES` times, by its caller);
  an error left after that is told apart (:func:`passing`): busy, or damage SQLite's check does not find,
  passes; a file that is not SQLite or fails the check is damaged.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import ParamSpec, TypeVar

from mnote_kr.core.private import PRIVATE_FILE

#: The store's file name, beside the citation log it replaces.
STORE_FILE = "ids.sqlite3"
#: IDs kept per workspace by default (``[citations] keep``): an ID survives this many later issues of other
#: IDs (at ~15 IDs a search some 6,000 searches; ``benchmarks/citation_ids.py`` has the bytes an ID takes).
MAX_IDS = 100_000
#: Write-ahead log pages between checkpoints (SQLite's default is 1,000: a 4 MB log beside a small store).
WAL_PAGES = 256
#: Free pages (a share of the whole file) past which a write gives them back to the file system...
FREE_SHARE = 0.25
#: ...when they are at least this many (a small store is not rewritten for a few pages).
FREE_PAGES_MIN = 256
#: How long a writer waits for another (SQLite's busy timeout).
BUSY_SECONDS = 10.0
#: The schema's version (``PRAGMA user_version``); a newer one is read as long as the table is there.
#: 3: ``batches`` and ``ids.batch`` (a version 2 store gets them; its rows are read as they are).
SCHEMA_VERSION = 3
#: How often a connection retries setting up a store another process is creating.
_RETRY_S = 0.02
#: Tries of a read, each on a fresh connection: an error another process's write caused passes.
READ_TRIES = 3
#: Tries of a write (the caller's whole transaction, ``citecache.remember``), each on a fresh connection.
WRITE_TRIES = 3

_SCHEMA = """
CREATE TABLE IF NOT EXISTS ids (id TEXT NOT NULL UNIQUE, place INTEGER NOT NULL, record BLOB NOT NULL,
                                batch INTEGER);
CREATE TABLE IF NOT EXISTS gone (id TEXT PRIMARY KEY, place INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS batches (n INTEGER PRIMARY KEY, last INTEGER NOT NULL, blob BLOB NOT NULL);
"""
#: A row and its batch's blob (NULL: a record of its own).
_ROW = "SELECT i.place, i.record, b.blob FROM ids i LEFT JOIN batches b ON b.n = i.batch"


def _narrow(path: Path) -> None:
    """The store and its log files 0600 (a wider one, left by an earlier, looser process, is narrowed), by
    path: never through a descriptor of the database file. Closing any descriptor of a file releases every
    POSIX lock this process holds on it, the SHARED locks of its other threads' connections too; another
    process's last connection then checkpoints and deletes the write-ahead log under them ("disk I/O
    error", "database disk image is malformed", rows missing until they close)."""
    for name in (str(path), str(path) + "-wal", str(path) + "-shm"):
        with contextlib.suppress(OSError):
            if os.stat(name).st_mode & 0o077:
                os.chmod(name, PRIVATE_FILE)


class _Open(threading.local):
    """Each thread's open connection (and the file it is to): opening and closing per call would cost a
    checkpoint of the write-ahead log each time (~10 ms), as SQLite does when its last connection closes."""

    key: tuple[str, int, int, int] | None = None
    con: sqlite3.Connection | None = None


_open = _Open()


def _close_cached() -> None:
    if _open.con is not None and _open.key is not None:
        if _open.key[3] == os.getpid():
            with contextlib.suppress(sqlite3.Error):
                _open.con.close()
        else:  # a forked parent's: closed here, it could checkpoint and delete the log under the parent
            _inherited.append(_open.con)
    _open.key, _open.con = None, None


#: Connections a forked child inherited: kept, never closed (nor freed, which closes them).
_inherited: list[sqlite3.Connection] = []


atexit.register(_close_cached)


def _prepare(con: sqlite3.Connection) -> None:
    """Write-ahead log and schema on a new connection. Another process creating the store at the same
    moment makes SQLite refuse the switch to the log at once ("database is locked": its busy timeout
    does not apply there), so that is retried until :data:`BUSY_SECONDS` have passed."""
    deadline = time.monotonic() + BUSY_SECONDS
    while True:
        try:
            if con.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                con.execute("PRAGMA auto_vacuum=INCREMENTAL")  # a new file (no table yet): kept in it
                con.execute("PRAGMA journal_mode=WAL")  # kept in the file: every later connection has it
            con.execute("PRAGMA synchronous=NORMAL")
            con.execute(f"PRAGMA wal_autocheckpoint={WAL_PAGES}")
            con.execute(f"PRAGMA journal_size_limit={WAL_PAGES * 4096}")
            if con.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
                try:
                    _upgrade(con)
                except sqlite3.OperationalError as exc:  # a store only this process may not write: read as it is
                    if getattr(exc, "sqlite_errorcode", 0) & 0xFF != sqlite3.SQLITE_READONLY:
                        raise
            return
        except sqlite3.OperationalError as exc:
            if getattr(exc, "sqlite_errorcode", sqlite3.SQLITE_BUSY) & 0xFF != sqlite3.SQLITE_BUSY \
                    or time.monotonic() >= deadline:
                raise
            time.sleep(_RETRY_S)


def _upgrade(con: sqlite3.Connection) -> None:
    """The schema of this version, in one transaction (two processes never both add the column)."""
    con.execute("BEGIN IMMEDIATE")
    try:
        if con.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    con.execute(statement)
            if "batch" not in {row[1] for row in con.execute("PRAGMA table_info(ids)")}:  # a version 2 store
                con.execute("ALTER TABLE ids ADD COLUMN batch INTEGER")
            con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


def _key(path: Path, st: os.stat_result) -> tuple[str, int, int, int]:
    return (str(path), st.st_ino, st.st_dev, os.getpid())  # never a connection a forked parent opened


@contextlib.contextmanager
def _connection(path: Path, *, create: bool) -> Iterator[sqlite3.Connection | None]:
    """This thread's connection to the store at ``path`` (None when it does not exist and ``create`` is
    false). Kept open for the next call while the file is the same one (not deleted or replaced)."""
    try:
        st: os.stat_result | None = os.stat(path)
    except OSError:
        if not create:
            _close_cached()
            yield None
            return
        st = None
    if create and st is not None:
        _narrow(path)
    if st is None or _open.key != _key(path, st) or _open.con is None:
        _close_cached()
        con = sqlite3.connect(path, timeout=BUSY_SECONDS, isolation_level=None)  # creates a missing file
        try:
            if st is None:
                _narrow(path)  # empty yet: 0600 before the schema and the log are written
            st = os.stat(path)
            _prepare(con)
        except BaseException:
            con.close()
            raise
        _open.key, _open.con = _key(path, st), con
    try:
        yield _open.con
    except sqlite3.DatabaseError:
        _close_cached()  # a damaged or replaced file: the next call opens it afresh
        raise


_P = ParamSpec("_P")
_T = TypeVar("_T")


def _retried(read: Callable[_P, _T]) -> Callable[_P, _T]:
    """``read``, tried :data:`READ_TRIES` times: an error is raised only when every try failed. A failed
    try's connection is closed (``_connection``), so the next one reads the file afresh."""
    @functools.wraps(read)
    def again(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        for _ in range(READ_TRIES - 1):
            with contextlib.suppress(sqlite3.DatabaseError):
                return read(*args, **kwargs)
        return read(*args, **kwargs)
    return again


def _not_a_store_yet(exc: sqlite3.OperationalError) -> bool:
    """"no such table": a file that is not (yet) a store, nothing issued; not "disk I/O error" or "locked"."""
    return getattr(exc, "sqlite_errorcode", sqlite3.SQLITE_ERROR) & 0xFF == sqlite3.SQLITE_ERROR


def passing(path: Path, exc: sqlite3.Error) -> bool:
    """Whether ``exc``, an error reading or writing the store that trying again did not clear, may pass:
    the store busy or locked, or damage SQLite's own check of the file does not find (another process's
    work at that moment). False for a file that is not SQLite or fails the check: damaged."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return True
    return sound(path)


def sound(path: Path) -> bool:
    """Whether SQLite's quick check finds the store at ``path`` sound (read only; a missing file is not)."""
    try:
        con = sqlite3.connect(f"{Path(path).absolute().as_uri()}?mode=ro", uri=True, timeout=BUSY_SECONDS)
    except sqlite3.Error:
        return False
    try:
        row = con.execute("PRAGMA quick_check(1)").fetchone()
        return row is not None and row[0] == "ok"
    except sqlite3.Error:
        return False
    finally:
        con.close()


@_retried
def get(path: Path, citation_id: str) -> tuple[int, bytes] | None:
    """The place and record of ``citation_id`` in the store at ``path`` (its batch's blob after it), or
    None (no such ID, no store)."""
    with _connection(path, create=False) as con:
        if con is None:
            return None
        try:
            try:
                row = con.execute(_ROW + " WHERE i.id = ?", (citation_id,)).fetchone()
            except sqlite3.OperationalError as exc:  # an earlier version's store this process could not upgrade
                if not _not_a_store_yet(exc):  # (busy or locked is no old store: raised, retried)
                    raise
                row = con.execute("SELECT place, record, NULL FROM ids WHERE id = ?", (citation_id,)).fetchone()
        except sqlite3.OperationalError as exc:
            if not _not_a_store_yet(exc):
                raise
            return None
    return (int(row[0]), bytes(row[1]) + bytes(row[2] or b"")) if row is not None else None


@_retried
def expired(path: Path, citation_id: str) -> bool:
    """Whether ``citation_id`` was issued and has been evicted since (not issued again)."""
    with _connection(path, create=False) as con:
        if con is None:
            return False
        try:
            return con.execute("SELECT 1 FROM gone WHERE id = ?", (citation_id,)).fetchone() is not None
        except sqlite3.OperationalError as exc:
            if not _not_a_store_yet(exc):
                raise
            return False


def every(path: Path) -> Iterator[tuple[str, int, bytes]]:
    """Every row of the store as ``(id, place, record)``, least recently issued first, a record followed by its
    batch's blob as :func:`get` hands it back (tests, diagnostics)."""
    with _connection(path, create=False) as con:
        if con is None:
            return
        rows = con.execute("SELECT i.id, i.place, i.record, b.blob FROM ids i LEFT JOIN batches b ON b.n = i.batch "
                           "ORDER BY i.rowid")
        yield from ((str(i), int(p), bytes(r) + bytes(b or b"")) for i, p, r, b in rows)


class Writing:
    """One write transaction on the store (:func:`writing`): look places up, then upsert rows."""

    def __init__(self, con: sqlite3.Connection) -> None:
        self._con = con

    def places(self, ids: Iterable[str]) -> dict[str, int]:
        """The place each of ``ids`` the store holds (or held: evicted) is issued for."""
        wanted = list(dict.fromkeys(ids))
        out: dict[str, int] = {}
        for start in range(0, len(wanted), 500):  # under SQLite's bound-parameter limit
            part = wanted[start:start + 500]
            marks = ",".join("?" * len(part))
            out.update((str(i), int(p)) for i, p in self._con.execute(
                f"SELECT id, place FROM gone WHERE id IN ({marks}) UNION ALL "
                f"SELECT id, place FROM ids WHERE id IN ({marks})", part + part))  # a live row wins
        return out

    def place(self, citation_id: str) -> int | None:
        """The place ``citation_id`` is (or was, evicted) issued for, or None."""
        row = self._con.execute("SELECT place FROM ids WHERE id = ? UNION ALL SELECT place FROM gone WHERE id = ?",
                                (citation_id, citation_id)).fetchone()
        return int(row[0]) if row is not None else None

    def records(self, ids: Iterable[str]) -> dict[str, tuple[int, bytes]]:
        """The place and record of each of ``ids`` the store holds, as :func:`get` hands them back (an evicted
        ID has none)."""
        wanted = list(dict.fromkeys(ids))
        out: dict[str, tuple[int, bytes]] = {}
        for start in range(0, len(wanted), 500):  # under SQLite's bound-parameter limit
            part = wanted[start:start + 500]
            rows = self._con.execute(f"SELECT i.id, i.place, i.record, b.blob FROM ids i LEFT JOIN batches b "
                                     f"ON b.n = i.batch WHERE i.id IN ({','.join('?' * len(part))})", part)
            out.update((str(i), (int(p), bytes(r) + bytes(b or b""))) for i, p, r, b in rows)
        return out

    def upsert(self, rows: Sequence[tuple[str, int, bytes]], shared: bytes | None = None) -> None:
        """``(id, place, record)`` rows, in issue order (the last is the most recent); ``shared``: the bytes
        their records share (a batch: each row's record is handed back followed by them)."""
        self._insert("INSERT OR REPLACE", rows, shared)
        self._con.executemany("DELETE FROM gone WHERE id = ?", [(row[0],) for row in rows])  # live again

    def add_missing(self, rows: Sequence[tuple[str, int, bytes]], shared: bytes | None = None) -> int:
        """Rows whose ID the store does not hold (nor held) yet: a migrated log never overrides a later issue."""
        held = self.places(row[0] for row in rows)
        fresh = [row for row in rows if row[0] not in held]
        if fresh:
            self._insert("INSERT OR IGNORE", fresh, shared)
        return len(fresh)

    def _insert(self, verb: str, rows: Sequence[tuple[str, int, bytes]], shared: bytes | None) -> None:
        batch = None
        if shared is not None:
            batch = self._con.execute("INSERT INTO batches (last, blob) VALUES (0, ?)", (shared,)).lastrowid
        self._con.executemany(f"{verb} INTO ids (id, place, record, batch) VALUES (?, ?, ?, ?)",
                              [(*row, batch) for row in rows])
        if batch is not None:  # the newest rowid its rows have: it goes when that is evicted
            self._con.execute("UPDATE batches SET last = (SELECT max(rowid) FROM ids) WHERE n = ?", (batch,))

    def evict(self, keep: int) -> int:
        """Drop the rows issued more than ``keep`` issues before the newest, and the batches only they used;
        how many rows went."""
        top = self._con.execute("SELECT max(rowid) FROM ids").fetchone()[0]
        if top is None or top <= keep:
            return 0
        self._con.execute("INSERT OR REPLACE INTO gone (id, place) SELECT id, place FROM ids WHERE rowid <= ?",
                          (top - keep,))
        # ``last`` grows with ``n`` (rowids only grow): the oldest batches first, never a scan of them all
        while True:
            gone = [n for n, last in self._con.execute("SELECT n, last FROM batches ORDER BY n LIMIT 64")
                    if last <= top - keep]
            if not gone:
                break
            self._con.executemany("DELETE FROM batches WHERE n = ?", [(n,) for n in gone])
            if len(gone) < 64:
                break
        return self._con.execute("DELETE FROM ids WHERE rowid <= ?", (top - keep,)).rowcount


@contextlib.contextmanager
def writing(path: Path) -> Iterator[Writing]:
    """One ``BEGIN IMMEDIATE`` transaction on the store at ``path`` (created 0600 when missing),
    committed when the block ends, rolled back when it raises."""
    with _connection(path, create=True) as con:
        assert con is not None
        con.execute("BEGIN IMMEDIATE")
        try:
            yield Writing(con)
            give_back = _give_back(con)
        except BaseException:
            con.execute("ROLLBACK")
            raise
        con.execute("COMMIT")
        if give_back:  # after the transaction: VACUUM never runs in one
            try:
                con.executescript(give_back)  # a script: Python's execute runs a pragma one step (one page)
            except sqlite3.OperationalError:
                pass  # busy: the next write tries again
            except sqlite3.DatabaseError:  # the rows are written: never reported as not (the caller would
                _close_cached()  # issue them again in memory, unchecked); the next call opens the file afresh



def _give_back(con: sqlite3.Connection) -> str:
    """What gives free pages back to the file system when they are many (the module's "Size"), or "": an
    incremental vacuum, or for an earlier version's store a rewrite (``VACUUM``) that makes it incremental."""
    free = con.execute("PRAGMA freelist_count").fetchone()[0]
    if free < FREE_PAGES_MIN or free < FREE_SHARE * con.execute("PRAGMA page_count").fetchone()[0]:
        return ""
    if con.execute("PRAGMA auto_vacuum").fetchone()[0] != 2:
        return "PRAGMA auto_vacuum=INCREMENTAL; VACUUM;"
    return "PRAGMA incremental_vacuum;"
