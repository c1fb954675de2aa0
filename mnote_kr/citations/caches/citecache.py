"""The citation log: every issued citation, kept so ``open`` works across processes.

``open ID`` (CLI, HTTP, MCP) looks an ID up here: the citation it names (file, locator, quote)
was issued by an earlier ``search`` or ``ask``, often in another process. The log holds every
query's quotes, so it is kept like the rest of mnote-kr's state, not in the user's folder:

* **Where:** ``<state_dir>/citations/<workspace id>/citations.jsonl`` (``Workspace.workspace_id``:
  one workspace's log apart from another's), mode 0600 in 0700 folders.
* **Bound:** one JSON object a line, appended under a file lock. When the log passes
  :data:`CITATION_LOG_MAX_BYTES` it becomes the previous generation (``citations.jsonl.1``,
  replacing the one before) and a new log starts: at most about twice the cap on disk, and
  ``open`` finds the citations of roughly the last few hundred searches. A torn last line (a
  crash mid-append) is skipped, never trusted. Reading takes no lock: appends add whole lines
  and rotation is a rename.
* **Version:** each line also holds ``sourceHash``, the cited file's content hash in the registry
  when the ID was issued: ``open`` refuses a citation whose file changed since (``issued``).
* **Off:** ``[citations] log = false`` writes nothing; the process still remembers what it
  issued (in memory, bounded), so a running ``serve`` or ``mcp`` opens its own citations.
* **The old place:** an earlier mnote-kr wrote ``.mnote/index/citations.jsonl`` (and before that
  ``citations.json``) inside the workspace. The first time the log is used those are read once,
  their newest citations (up to the cap) become the previous generation here, and the old files
  are deleted, so the quotes no longer sit in the user's folder.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from mnote_kr.citations.hostview import HostView as Host
from mnote_kr.core import paths
from mnote_kr.core.atomic import write_private
from mnote_kr.core.locks import exclusive
from mnote_kr.core.private import PRIVATE_DIR, open_private_append
from mnote_kr.errors import ConfigError
from mnote_kr.models import Citation

if TYPE_CHECKING:
    from mnote_kr.core.registry import Registry

#: Issued citations, one JSON object a line, appended by every search (``open`` reads it).
CITATION_LOG = "citations.jsonl"
CITATION_CACHE = CITATION_LOG  # its earlier name
#: The whole-file JSON cache of earlier versions, read once from the old place.
LEGACY_CITATION_CACHE = "citations.json"
#: Under ``paths.state_dir()``: one folder per workspace.
LOG_DIR = "citations"
#: Size at which the log rotates. A citation line is 1-3 KB (quote, evidence, diagnostics), a
#: search issues up to ``top_k`` of them (10 by default): 4 MiB holds about 150 searches, and
#: the previous generation as many again. The unbounded log had reached 18 MB after 150 searches.
CITATION_LOG_MAX_BYTES = 4 * 1024 * 1024
#: Citations each process keeps in memory per workspace (what ``open`` finds with the log off).
CITATION_CACHE_MAX = 5000


class _CitationCache(msgspec.Struct, kw_only=True):
    version: int = 1
    citations: dict[str, Citation] = {}


class _Issued(Citation, frozen=True, kw_only=True):
    """A log line: the citation, and its file's content hash (``sourceHash``, ``sha256:<hex>``) in the
    registry when it was issued; "" on a line written before the hash was kept. Never on the wire:
    :func:`issued` and :func:`find` give the citation alone."""

    source_hash: str = ""


_cache_decoder = msgspec.json.Decoder(_CitationCache)
_citation_decoder = msgspec.json.Decoder(_Issued)
_citation_encoder = msgspec.json.Encoder()

#: Per log file: (inode, size) after our last append, and the encoded lines we appended.
_written: dict[str, tuple[tuple[int, int], dict[str, bytes]]] = {}
_written_lock = threading.Lock()
#: Per workspace id: the citations this process issued, newest last.
_memory: dict[str, OrderedDict[str, Citation]] = {}


def log_enabled(host: Host) -> bool:
    """``[citations] log`` (default true): whether issued citations are written to the log."""
    config: Any = getattr(host, "config", None) or {}
    section = config.get("citations") if isinstance(config, dict) else None
    value = section.get("log", True) if isinstance(section, dict) else True
    if not isinstance(value, bool):
        raise ConfigError("[citations] log must be true or false",
                          hint="e.g. log = false under [citations] in .mnote/config.toml")
    return value


def log_path(host: Host) -> Path:
    """This workspace's citation log (its folder is created 0700 when missing)."""
    folder = paths.state_dir() / LOG_DIR
    folder.mkdir(exist_ok=True, mode=PRIVATE_DIR)
    folder = folder / host.workspace.workspace_id
    folder.mkdir(exist_ok=True, mode=PRIVATE_DIR)
    return folder / CITATION_LOG


def previous_path(path: Path) -> Path:
    """The previous generation of the log at ``path``."""
    return path.with_name(path.name + ".1")


def _read_lines(path: Path) -> dict[str, Citation]:
    """The log file's citations, later lines winning; bad lines are skipped."""
    out: dict[str, Citation] = {}
    try:
        data = path.read_bytes()
    except OSError:
        return out
    for line in data.splitlines():
        if not line.strip():
            continue
        try:
            citation = _citation_decoder.decode(line)
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue  # a torn last line (crash mid-append) or a line from a newer, odd writer
        out.pop(citation.citation_id, None)
        out[citation.citation_id] = citation
    return out


def load(host: Host) -> dict[str, Citation]:
    """Every remembered citation of this workspace: previous generation, log, this process's own."""
    path = log_path(host)
    _move_old_log(host, path)
    citations = _read_lines(previous_path(path))
    citations.update(_read_lines(path))
    citations.update(_memory.get(host.workspace.workspace_id, {}))
    return citations


def find(host: Host, citation_id: str) -> Citation | None:
    """The remembered citation with this (normalised) ID, or None."""
    found = issued(host, citation_id)
    return found[0] if found else None


def issued(host: Host, citation_id: str) -> tuple[Citation, str] | None:
    """The remembered citation with this (normalised) ID and its file's content hash when it was
    issued ("" when its log line predates the hash), or None."""
    own = _memory.get(host.workspace.workspace_id)
    found = own.get(citation_id) if own is not None else None
    if found is None:
        found = load(host).get(citation_id)
    if found is None:
        return None
    if not isinstance(found, _Issued):
        return found, ""
    plain = Citation(**{name: getattr(found, name) for name in Citation.__struct_fields__})
    return plain, found.source_hash


def _stamped(citations: list[Citation], registry: Registry) -> list[_Issued]:
    """The citations with their files' content hashes in ``registry`` (the one they were built from)."""
    out = []
    for c in citations:
        entry = registry.entries.get(c.source_root_relative_path)
        fields = {name: getattr(c, name) for name in Citation.__struct_fields__}
        out.append(_Issued(**fields, source_hash=entry.source_hash if entry is not None else ""))
    return out


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_size


def _keep_in_memory(host: Host, citations: Sequence[Citation]) -> None:
    with _written_lock:
        own = _memory.setdefault(host.workspace.workspace_id, OrderedDict())
        for citation in citations:
            own.pop(citation.citation_id, None)
            own[citation.citation_id] = citation
        while len(own) > CITATION_CACHE_MAX:
            own.popitem(last=False)


def remember(host: Host, citations: list[Citation], registry: Registry | None = None) -> None:
    """Keep issued citations so ``open`` works across processes, each with its file's content hash
    in ``registry`` (the one the citations were built from; by default the host's now).

    Appends one line per citation under the file lock (cost grows with the result, not
    with the log). A citation this process already appended, byte for byte, is not
    written again while nobody else has touched the file. A log past
    :data:`CITATION_LOG_MAX_BYTES` becomes the previous generation. With
    ``[citations] log = false`` only this process remembers them.
    """
    if not citations:
        return
    stamped = _stamped(citations, registry if registry is not None else host.registry())
    _keep_in_memory(host, stamped)
    if not log_enabled(host):
        return
    path = log_path(host)
    key = str(path)
    lines = {c.citation_id: _citation_encoder.encode(c) for c in stamped}
    with _written_lock:
        known = _written.get(key)
        if known is not None and known[0] == _identity(path):
            lines = {cid: line for cid, line in lines.items() if known[1].get(cid) != line}
            if not lines:
                return
    _move_old_log(host, path)
    with exclusive(key + ".lock", timeout=10):
        before = _identity(path)
        with open_private_append(path) as fh:
            if before is not None and before[1] > 0:
                # A previous writer may have died mid-line: start on a fresh line.
                with open(path, "rb") as rh:
                    rh.seek(-1, os.SEEK_END)
                    if rh.read(1) != b"\n":
                        fh.write(b"\n")
            fh.write(b"\n".join(lines.values()) + b"\n")
        after = _identity(path)
        mine = dict(lines)
        with _written_lock:
            known = _written.get(key)
            if known is not None and known[0] == before:
                mine = {**known[1], **lines}
        if after is not None and after[1] > CITATION_LOG_MAX_BYTES:
            os.replace(path, previous_path(path))  # one previous generation; the one before goes
            after, mine = None, {}
        with _written_lock:
            if after is None:
                _written.pop(key, None)
            else:
                _written[key] = (after, mine)


def _move_old_log(host: Host, path: Path) -> None:
    """Once: the log an earlier mnote-kr kept in the workspace becomes the previous generation here."""
    old_dir = host.workspace.index_dir
    old = [old_dir / CITATION_LOG, old_dir / LEGACY_CITATION_CACHE]
    if not any(p.exists() for p in old):
        return
    with exclusive(str(path) + ".lock", timeout=10):
        citations: dict[str, Citation] = {}
        with contextlib.suppress(OSError, msgspec.DecodeError, msgspec.ValidationError):
            citations.update(_cache_decoder.decode(old[1].read_bytes()).citations)
        citations.update(_read_lines(old[0]))
        if not citations and not any(p.exists() for p in old):
            return  # another process moved it meanwhile
        prev = previous_path(path)
        citations.update(_read_lines(prev))  # a previous generation here is newer than the old place
        kept: list[bytes] = []
        size = 0
        for citation in reversed(citations.values()):  # newest first, up to the cap
            line = _citation_encoder.encode(citation) + b"\n"
            if size + len(line) > CITATION_LOG_MAX_BYTES:
                break
            kept.append(line)
            size += len(line)
        if kept:
            write_private(prev, b"".join(reversed(kept)))
        for p in old:
            with contextlib.suppress(OSError):
                p.unlink()
