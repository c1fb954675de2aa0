"""Cleaned chunks kept on disk: a fresh process reads what an earlier one computed from a cited
chunk's text, as a warm process reads it from its memo.

Cleaning a chunk (``mnote_kr.citations.cleaning``) is mostly work on the chunk's text alone:
markup and LaTeX made plain, CJK forms unified, the locator text and its fold for the term
search (:class:`~mnote_kr.citations.cleaning.ChunkPrep`). Only the rest depends on the query
(its words kept, the evidence window) or on the sidecar block, and is done in every process.

* **Key.** A BLAKE2b hash of the chunk's text and a stamp of the cleaning code (the size and
  mtime of the modules it runs, and ``FORMAT``): a changed cleaner misses every old entry.
  Cleaning reads no file, so the source file's version is not part of the key; a chunk of an
  edited file is a new text, hence a new entry.
* **Never trusted blindly.** An entry is a 16-byte BLAKE2b digest over the key and the body,
  then the body (JSON of the ``ChunkPrep`` fields). A torn or truncated write, another key's
  entry copied into place or any foreign file fails the digest or the typed decode, and is a
  miss that is cleaned and written again. (No secret key as in ``filecache``: a JSON body
  cannot run code, and a planted entry needs write access to the cache, hence to the code.)
* **Safe across processes.** Entries are written to a temp file and renamed into place: a
  reader sees the old entry or the new, never half of one, and takes no lock. Trimming runs
  under ``flock`` of ``.trim.lock`` (``core/locks.py``); a process that finds it held skips.
* **Bounded.** One write in ``_TRIM_EVERY``, chosen at random (``filecache.one_in``), trims the
  folder to ``MAX_BYTES``, least recently used first (a hit refreshes the entry's mtime); between
  two trims it grows by about ``_TRIM_EVERY`` entries (a tenth of the bound at 6 kB an entry).

Entries live under ``<cache>/locate/clean/``, so emptying the locate cache empties them and
``MNOTE_KR_LOCATE_CACHE=0`` turns them off with it. Filled by a process's first search of a
chunk: LightRAG's REST API does not expose chunks at ingest (only ``/query/data`` returns them).
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

import msgspec

from mnote_kr.citations.cleaning import ChunkPrep, prepare_chunk
from mnote_kr.core.atomic import write_atomic

FOLDER = "clean"
#: bump when ChunkPrep's meaning changes without the code stamp seeing it; 2: Wingdings' boxes and the mark of an
#: unknown private-use character in quotes (review r28 finding 5)
FORMAT = b"clean-2"
MAX_BYTES = 64 * 1024 * 1024
_TRIM_EVERY = 1024
_DIGEST = 16

_decoder = msgspec.json.Decoder(ChunkPrep)
_encoder = msgspec.json.Encoder()
_state_lock = threading.Lock()
_stamp: bytes | None = None


def _enabled() -> bool:
    from mnote_kr.citations.caches.filecache import _disk_enabled

    return _disk_enabled()


def folder() -> Path:
    """``<cache>/locate/clean``, resolved on each use (``MNOTE_KR_HOME`` may change in tests)."""
    from mnote_kr.core.paths import cache_dir

    return cache_dir() / "locate" / FOLDER


def _code_modules() -> list[str]:
    """The modules whose code decides a ``ChunkPrep``: the cleaning package, textnorm, ranking."""
    from mnote_kr.citations import cleaning
    from mnote_kr.citations.rank import ranking
    from mnote_kr.citations.text import textnorm

    pkg = os.path.dirname(cleaning.__file__ or "")
    try:
        names = sorted(os.path.join(pkg, n) for n in os.listdir(pkg) if n.endswith(".py"))
    except OSError:
        names = []
    return [*names, textnorm.__file__ or "", ranking.__file__ or ""]


def code_stamp() -> bytes:
    """``FORMAT``, the Python and Unicode versions (NFKC, ``isalnum`` and ``html.unescape`` change
    with them) and each cleaning module's name, size and mtime (computed once per process)."""
    global _stamp
    with _state_lock:
        if _stamp is None:
            import sys
            import unicodedata

            parts = [FORMAT, f"py{sys.version_info[0]}.{sys.version_info[1]}:{unicodedata.unidata_version}".encode()]
            for path in _code_modules():
                try:
                    st = os.stat(path)
                    parts.append(f"{os.path.basename(path)}:{st.st_size}:{st.st_mtime_ns}".encode())
                except OSError:
                    parts.append(os.path.basename(path).encode())
            _stamp = b"\0".join(parts)
        return _stamp


def _key(raw: str) -> bytes:
    h = hashlib.blake2b(code_stamp(), digest_size=20)
    h.update(b"\0")
    h.update(raw.encode("utf-8", "surrogatepass"))
    return h.digest()


def _digest(key: bytes, body: bytes) -> bytes:
    return hashlib.blake2b(key + body, digest_size=_DIGEST).digest()


def get(raw: str) -> ChunkPrep | None:
    """The stored preparation of the chunk ``raw``, or None (missing, torn, foreign, old cleaner)."""
    if not _enabled():
        return None
    key = _key(raw)
    path = folder() / ("c-" + key.hex())
    try:
        blob = path.read_bytes()
    except OSError:
        return None
    body = blob[_DIGEST:]
    if len(blob) <= _DIGEST or blob[:_DIGEST] != _digest(key, body):
        return None
    try:
        prep = _decoder.decode(body)
    except msgspec.DecodeError:
        return None
    try:
        os.utime(path)  # recency, for trimming
    except OSError:
        pass
    return prep


def put(raw: str, prep: ChunkPrep) -> None:
    """Store ``prep`` as the preparation of ``raw`` (best effort: a cache that cannot write is only slower)."""
    if not _enabled():
        return
    key = _key(raw)
    name = "c-" + key.hex()
    where = folder()
    try:
        body = _encoder.encode(prep)
        where.mkdir(parents=True, exist_ok=True)
        write_atomic(where / name, _digest(key, body) + body)
    except (OSError, UnicodeEncodeError, msgspec.EncodeError):  # a lone surrogate: not stored
        return
    from mnote_kr.citations.caches.filecache import one_in

    if one_in(_TRIM_EVERY):
        trim(where)


def prepared(raw: str) -> ChunkPrep:
    """``prepare_chunk(raw)``, read from disk when an earlier process stored it, else computed and stored
    (with the fold a later query's term search needs; with the disk off nothing is stored, so no fold)."""
    if not _enabled():
        return prepare_chunk(raw, fold=False)
    prep = get(raw)
    if prep is None:
        prep = prepare_chunk(raw, fold=True)
        put(raw, prep)
    return prep


def trim(where: Path | None = None, max_bytes: int | None = None) -> None:
    """Keep the folder under ``max_bytes`` (default ``MAX_BYTES``): least recently used entries go
    first, down to 80 % of it; temp files a killed process left are removed after an hour."""
    from mnote_kr.core.locks import exclusive

    where = where if where is not None else folder()
    limit = MAX_BYTES if max_bytes is None else max_bytes
    try:
        with exclusive(str(where / ".trim.lock"), timeout=0):
            _trim(where, limit)
    except Exception:  # noqa: BLE001 - another process is trimming (Timeout) or the folder is gone
        return


def _trim(where: Path, limit: int) -> None:
    from mnote_kr.citations.caches.filecache import trim_lru

    trim_lru(where, limit, tmp_prefix=".c-", entry_prefixes=("c-",))


def clear_stamp() -> None:
    """Forget the code stamp (tests that change the cleaner's code or ``FORMAT``)."""
    global _stamp
    with _state_lock:
        _stamp = None
