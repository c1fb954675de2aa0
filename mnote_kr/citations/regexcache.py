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
  compiled code word for word). The engine validates every code list it is given (a bad one
  raises, it cannot crash the process), and any failure falls back to ``re.compile``.
* **Per interpreter build.** The file name carries a hash of ``sys.version`` and the engine's
  ``MAGIC`` and code size: another Python never reads this one's programs.
* **Never trusted blindly.** The file is a 16-byte BLAKE2b digest, then JSON; a torn or
  foreign file fails the digest or the decode and counts as empty. Written to a temp file and
  renamed into place at exit, by a process that compiled a pattern the file lacked (readers
  take no lock; two writers lose at most one's additions, compiled again next time).
* **Bounded.** Only the module-level patterns of ``textnorm.lazy_compile`` come here (about a
  sixty in the code base), never a pattern built from a query; ``MAX_ENTRIES`` caps it.

Lives in ``<cache>/regex/``; ``MNOTE_KR_REGEX_CACHE=0`` turns it off.
"""

from __future__ import annotations

import atexit
import hashlib
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
stats = {"hits": 0, "misses": 0}


def _enabled() -> bool:
    return os.environ.get("MNOTE_KR_REGEX_CACHE", "1") != "0"


def _file() -> Path:
    import _sre

    from mnote_kr.core.paths import cache_dir

    stamp = f"{_FORMAT}\n{sys.version}\n{_sre.MAGIC}\n{_sre.CODESIZE}".encode()
    return cache_dir() / "regex" / f"re-{hashlib.blake2b(stamp, digest_size=8).hexdigest()}.json"


def _read(path: Path) -> dict[str, list[Any]]:
    try:
        blob = path.read_bytes()
    except OSError:
        return {}
    body = blob[_DIGEST:]
    if len(blob) < _DIGEST or blob[:_DIGEST] != hashlib.blake2b(body, digest_size=_DIGEST).digest():
        return {}
    try:
        data = json.loads(body)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _loaded() -> dict[str, list[Any]]:
    global _table
    if _table is None:
        try:
            _table = _read(_file())
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
        path = _file()
        table = _read(path)
        table.update(added)
        if len(table) > MAX_ENTRIES:  # only a code base that grew its patterns gets here: start over
            table = added
        body = json.dumps(table, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".tmp-{os.getpid()}-{threading.get_ident()}")
        tmp.write_bytes(hashlib.blake2b(body, digest_size=_DIGEST).digest() + body)
        os.replace(tmp, path)
    except (OSError, ValueError, TypeError):
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
