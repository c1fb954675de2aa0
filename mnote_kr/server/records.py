"""Who serves which workspace: ``server.json`` and the token file of each ``mnote-kr serve``.

The first server of the machine writes ``server-token`` and ``server.json`` in the state dir
(docs/http-api.md). One workspace has at most one server: a second ``serve`` of a workspace
whose server is alive stops with one error line naming it. A server of another workspace
started while that one runs takes its own pair, ``servers/<tag>/`` in the state dir, so
nobody's files are overwritten; and a server deletes a pair only while it still names that
server's own process and token.

A record is alive when its process is: same PID, and (where ``/proc`` tells) the same process
start time, so a PID reused by an unrelated process after a ``kill -9`` is not taken for the server.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import NamedTuple

from mnote_kr.core.atomic import write_private
from mnote_kr.core.locks import exclusive
from mnote_kr.core.procs import pid_alive
from mnote_kr.errors import UsageError

TOKEN_FILE = "server-token"
INFO_FILE = "server.json"
LOCK_FILE = "server.lock"
OWN_DIR = "servers"


class ServerRecord(NamedTuple):
    """What a ``server.json`` says, and whether its process still runs."""

    pid: int
    alive: bool
    url: str
    workspace: str
    token_file: str
    info_file: Path


def process_start(pid: int) -> str | None:
    """The start time of process ``pid`` (clock ticks after boot, from ``/proc``), or None where unknown."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _running(pid: int, started: object) -> bool:
    if not pid_alive(pid):
        return False
    now = process_start(pid)
    return started is None or now is None or now == started


def read_record(info_file: Path) -> ServerRecord | None:
    """The server recorded in ``info_file``, or None when there is no readable record."""
    try:
        info = json.loads(info_file.read_text(encoding="utf-8"))
        pid = int(info.get("pid"))
    except (OSError, ValueError, TypeError, AttributeError):
        return None
    return ServerRecord(pid, _running(pid, info.get("pidStart")), str(info.get("url") or ""),
                        str(info.get("workspace") or ""), str(info.get("tokenFile") or ""), info_file)


def own_pair(state: Path, root: Path) -> tuple[Path, Path]:
    """The token and info files a server of ``root`` takes while another workspace's server holds the default pair."""
    tag = hashlib.sha256(str(root.resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:12]
    folder = state / OWN_DIR / tag
    return folder / TOKEN_FILE, folder / INFO_FILE


def records_for(state: Path, root: Path) -> list[ServerRecord]:
    """The records that may name ``root``'s server: the default pair's, then ``root``'s own pair's."""
    found = (read_record(state / INFO_FILE), read_record(own_pair(state, root)[1]))
    return [r for r in found if r is not None]


def same_workspace(record: ServerRecord, root: Path) -> bool:
    try:
        return bool(record.workspace) and Path(record.workspace).resolve() == root.resolve()
    except OSError:
        return False


def live_record(state: Path, root: Path) -> ServerRecord | None:
    """The record of a live ``mnote-kr serve`` of ``root`` (its process runs), or None."""
    return next((r for r in records_for(state, root) if r.alive and same_workspace(r, root)), None)


class Claimed(NamedTuple):
    """The pair a starting server writes, the lock over the state dir's records, and the
    ``(pid, alive)`` of the server whose files these replace (None: there were none)."""

    token_file: Path
    info_file: Path
    lock_file: Path
    previous: tuple[int, bool] | None


def claim(state: Path, root: Path, url: str, token: str) -> Claimed:
    """Write the token and ``server.json``, unless this workspace already has a live server.

    Under the state dir's lock: the default pair when it is free (absent, or left by a
    server that is gone), else this workspace's own pair (another workspace's server holds
    the default one). A live server of this workspace in another process stops this one.
    """
    lock_file = state / LOCK_FILE
    with exclusive(str(lock_file), timeout=10):
        found = records_for(state, root)
        for rec in found:
            if rec.alive and rec.pid != os.getpid() and same_workspace(rec, root):
                raise UsageError(
                    f"this workspace ({root}) is already served at {rec.url or '?'} (pid {rec.pid}); "
                    f"its token is in {rec.token_file}",
                    hint="use that server, or stop it (Ctrl-C in its terminal, or kill "
                         f"{rec.pid}) before starting another")
        default = read_record(state / INFO_FILE)
        if default is None or not default.alive or default.pid == os.getpid():
            token_file, info_file = state / TOKEN_FILE, state / INFO_FILE
            previous = (default.pid, default.alive) if default is not None else None
        else:  # another workspace's server holds the default pair: take this workspace's own
            token_file, info_file = own_pair(state, root)
            token_file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            mine = read_record(info_file)
            previous = (mine.pid, mine.alive) if mine is not None else None
        write_private(token_file, token + "\n")
        info = {"url": url, "pid": os.getpid(), "pidStart": process_start(os.getpid()),
                "tokenFile": str(token_file), "workspace": str(root)}
        write_private(info_file, json.dumps(info, indent=2) + "\n")
    return Claimed(token_file, info_file, lock_file, previous)


def release(token_file: Path, info_file: Path, lock_file: Path, token: str) -> None:
    """Delete the token file and ``server.json`` while they are still this process's own with
    this token: a later server's files are never touched."""
    with contextlib.suppress(OSError), exclusive(str(lock_file), timeout=10):
        rec = read_record(info_file)
        if (rec is not None and rec.pid == os.getpid() and rec.token_file == str(token_file)
                and token_file.read_text(encoding="utf-8").strip() == token):
            token_file.unlink()
            info_file.unlink()
