"""The citation cache: every issued citation, kept so ``open`` works across processes.

One JSON object a line in ``.mnote/index/citations.jsonl``, appended under a file lock and
compacted when it grows; a torn last line (a crash mid-append) is skipped, never trusted.
Reading takes no lock: appends add whole lines and compaction replaces the file by a rename."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import msgspec

from mnote_kr.citations.hostview import HostView as Host
from mnote_kr.core.locks import exclusive
from mnote_kr.models import Citation

#: Issued citations, one JSON object a line, appended by every search (``open`` reads it).
CITATION_CACHE = "citations.jsonl"
#: The whole-file JSON cache of earlier versions; ``open`` still reads it.
LEGACY_CITATION_CACHE = "citations.json"
CITATION_CACHE_MAX = 5000


class _CitationCache(msgspec.Struct, kw_only=True):
    version: int = 1
    citations: dict[str, Citation] = {}


_cache_decoder = msgspec.json.Decoder(_CitationCache)
_citation_decoder = msgspec.json.Decoder(Citation)
_citation_encoder = msgspec.json.Encoder()




def _cache_path(host: Host) -> Path:
    return host.workspace.index_dir / CITATION_CACHE


#: Per cache file: (inode, size) after our last append, and the encoded lines we appended.
_written: dict[str, tuple[tuple[int, int], dict[str, bytes]]] = {}
_written_lock = threading.Lock()


def _read_lines(path: Path) -> dict[str, Citation]:
    """The cache file's citations, later lines winning; bad lines are skipped."""
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


def _load_cache(path: Path) -> _CitationCache:
    """Every remembered citation: the JSON Lines file over the legacy whole-file cache."""
    citations: dict[str, Citation] = {}
    legacy = path.with_name(LEGACY_CITATION_CACHE)
    try:
        citations.update(_cache_decoder.decode(legacy.read_bytes()).citations)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        pass
    citations.update(_read_lines(path))
    return _CitationCache(citations=citations)


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_size


def remember(host: Host, citations: list[Citation]) -> None:
    """Keep issued citations so ``open`` works across processes.

    Appends one line per citation under the file lock (cost grows with the result, not
    with the cache). A citation this process already appended, byte for byte, is not
    written again while nobody else has touched the file. When the file holds about
    twice ``CITATION_CACHE_MAX`` lines it is compacted to the newest
    ``CITATION_CACHE_MAX`` citations (temp file + rename).
    """
    if not citations:
        return
    path = _cache_path(host)
    key = str(path)
    lines = {c.citation_id: _citation_encoder.encode(c) for c in citations}
    with _written_lock:
        known = _written.get(key)
        if known is not None and known[0] == _identity(path):
            lines = {cid: line for cid, line in lines.items() if known[1].get(cid) != line}
            if not lines:
                return
    path.parent.mkdir(parents=True, exist_ok=True)
    with exclusive(key + ".lock", timeout=10):
        before = _identity(path)
        with open(path, "ab") as fh:
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
        if after is not None and after[1] > _compact_threshold(mine, after[1]):
            kept = _read_lines(path)
            keep = list(kept.items())[-CITATION_CACHE_MAX:]
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(b"".join(_citation_encoder.encode(c) + b"\n" for _, c in keep))
            os.replace(tmp, path)
            after = _identity(path)
            mine = {}
        if after is not None:
            with _written_lock:
                _written[key] = (after, mine)


def _compact_threshold(mine: dict[str, bytes], size: int) -> int:
    """File size above which the cache is compacted: about 2x ``CITATION_CACHE_MAX`` average lines."""
    if not mine:
        return 1 << 62
    average = sum(len(line) + 1 for line in mine.values()) / len(mine)
    return int(average * CITATION_CACHE_MAX * 2)
