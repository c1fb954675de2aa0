"""Compiled regex programs kept on disk, so a fresh process does not compile them again.

Python's ``re`` compiles a pattern in Python code and keeps the result only in the process.
A class of CJK ranges costs several milliseconds (``re`` walks every code point of its BMP
ranges, then packs a 64K-entry bitmap), and a fresh ``mnote-kr search`` compiled 70-85
patterns, about 50 ms at load 1: a sixth of the process. What ``re`` hands to its C engine
(``_sre.compile``) is a list of integers plus the group names; this module keeps that per
pattern, per interpreter build, and gives ``_sre.compile`` the stored list next time, as
``.pyc`` files keep compiled bytecode.

* **Same program or none.** An entry is stored only when the pattern built from it equals the
  one ``re.compile`` returns (``re.Pattern`` equality compares the pattern, the flags and the
  compiled code word for word). Any failure falls back to ``re.compile``. The engine does NOT
  validate a code list fully: a crafted one can crash the interpreter on its first match, so a
  stored program is only ever read back under the cache's secret key (next point).
* **Per interpreter build.** The file name carries a hash of ``sys.version`` and the engine's
  ``MAGIC`` and code size: another Python never reads this one's programs.
* **Never trusted blindly.** The file is a 16-byte BLAKE2b MAC keyed with the locate cache's
  secret key (``filecache``: 0600, made once per cache dir), then JSON; a torn, foreign or
  crafted file fails the MAC or the decode and counts as empty. Written to a new 0600 temp file
  and renamed into place at exit (``filecache._atomic_write``: removed again on failure), by a
  process that compiled a pattern the file lacked (readers take no lock; two writers lose at
  most one's additions, compiled again next time).
* **Bounded.** Only the module-level patterns of ``textnorm.lazy_compile`` come here (about a
  sixty in the code base), never a pattern built from a query; ``MAX_ENTRIES`` caps it.

Lives in ``<cache>/regex/``; ``MNOTE_KR_REGEX_CACHE=0`` turns it off.
"""

from __future__ import annotations

import atexit
import hashlib
import hmac
import json
import os
import re
import sys
import threading
from pathlib import Path
from typing import Any

__all__ = ["compile_pattern", "stats"]

MAX_ENTRIES = 1024
_DIGEST = 16
_FORMAT = 1

_lock = threading.Lock()
_table: dict[str, list[Any]] | None = None  # "flags:pattern" -> [flags, code, groups, groupindex, indexgroup]
_added: dict[str, list[Any]] = {}
_exit_registered = False
_path: Path | None = None
stats = {"hits": 0, "misses": 0}


def _enabled() -> bool:
    return os.environ.get("MNOTE_KR_REGEX_CACHE", "1") != "0"


def _file() -> Path:
    import _sre

    from mnote_kr.core.paths import cache_dir

    stamp = f"{_FORMAT}\n{sys.version}\n{_sre.MAGIC}\n{_sre.CODESIZE}".encode()
    return cache_dir() / "regex" / f"re-{hashlib.blake2b(stamp, digest_size=8).hexdigest()}.json"


def _mac(body: bytes, path: Path) -> bytes:
    """The MAC of the table in ``path`` (``<cache>/regex/re-*.json``): BLAKE2b keyed with that
    cache dir's locate secret (raises OSError when the key cannot be read or made, e.g. a
    read-only cache dir: then nothing is stored)."""
    from mnote_kr.citations.caches import filecache

    key = filecache._mac_key(path.parent.parent / "locate" / "regex")
    return hashlib.blake2b(body, key=key, digest_size=_DIGEST).digest()


def _read(path: Path) -> dict[str, list[Any]]:
    try:
        blob = path.read_bytes()
        body = blob[_DIGEST:]
        if len(blob) < _DIGEST or not hmac.compare_digest(blob[:_DIGEST], _mac(body, path)):
            return {}
        data = json.loads(body)
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _loaded() -> dict[str, list[Any]]:
    global _table, _path
    if _table is None:
        try:
            _path = _file()  # fixed at first use: the exit saves where this process read
            _table = _read(_path)
        except OSError:
            _table = {}
    return _table


def _program(pattern: str, flags: int) -> list[Any]:
    """What ``re._compiler.compile`` gives the engine for ``pattern``, as JSON-able values."""
    from re import _compiler, _parser  # type: ignore[attr-defined]

    parsed = _parser.parse(pattern, flags)
    code = _compiler._code(parsed, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, i in groupindex.items():
        indexgroup[i] = name
    return [flags | parsed.state.flags, list(code), parsed.state.groups - 1, groupindex, indexgroup]


def _build(pattern: str, entry: list[Any]) -> re.Pattern[str]:
    import _sre

    flags, code, groups, groupindex, indexgroup = entry
    compiled: re.Pattern[str] = _sre.compile(pattern, flags, code, groups, groupindex, tuple(indexgroup))
    return compiled


def _save() -> None:
    with _lock:
        added = dict(_added)
        _added.clear()
    if not added:
        return
    try:
        path = _path or _file()
        table = _read(path)
        table.update(added)
        if len(table) > MAX_ENTRIES:  # only a code base that grew its patterns gets here: start over
            table = added
        body = json.dumps(table, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
        path.parent.mkdir(parents=True, exist_ok=True)
        from mnote_kr.citations.caches import filecache

        filecache._atomic_write(path.parent, path.name, _mac(body, path) + body)
    except (OSError, ValueError, TypeError, RecursionError):
        pass  # a cache: a failed write costs the next process its compiles, nothing else


def compile_pattern(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, from the stored program when this interpreter stored it."""
    global _exit_registered
    if not _enabled() or not isinstance(pattern, str):
        return re.compile(pattern, flags)
    key = f"{int(flags)}:{pattern}"
    with _lock:
        entry = _loaded().get(key)
    if entry is not None:
        try:
            compiled = _build(pattern, entry)
            stats["hits"] += 1
            return compiled
        except Exception:  # noqa: BLE001 - a stored program the engine refuses: compile afresh
            pass
    stats["misses"] += 1
    compiled = re.compile(pattern, flags)
    try:
        program = _program(pattern, flags)
        same = _build(pattern, program) == compiled
    except Exception:  # noqa: BLE001 - internals differ in this Python: keep re's own result
        same = False
    if same:
        with _lock:
            _loaded()[key] = _added[key] = program
            if not _exit_registered:
                _exit_registered = True
                atexit.register(_save)
    return compiled
