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

import hashlib
import json
from pathlib import Path
from typing import NamedTuple

from mnote_kr.core.procs import pid_alive

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
