"""The ``mnote_kr`` entry points, remembered on disk between processes.

Finding entry points reads every installed distribution's metadata (``importlib.metadata``
plus a scan of a few hundred dist-info folders): more than a light command's own work. The
list is kept in the cache dir and trusted only while the installation it came from is
unchanged: the same interpreter and import path, each path directory unchanged (installing,
upgrading or removing a distribution adds or removes a folder there) and each plugin's
``entry_points.txt`` unchanged. Anything else (a torn or foreign file, an unreadable cache
dir) means a fresh scan; the cache only ever costs a scan, never a wrong plugin list.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, NamedTuple

VERSION = 1
NAME = "entry-points"


class EntryPointRow(NamedTuple):
    """One entry point of the group, with its distribution's name and version."""

    name: str
    value: str
    distribution: str | None
    version: str | None


def stat_key(path: str | os.PathLike[str]) -> list[int] | None:
    """``[mtime_ns, size]`` of a path, or None when it is missing."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size]


def install_key() -> dict[str, Any]:
    """What decides which distributions are importable, read with a few ``stat`` calls."""
    here = {"", os.getcwd()}  # the current folder is on the path for -m/-c, and changes all the time
    return {
        "python": sys.version,
        "prefix": sys.prefix,
        "path": [[d, stat_key(d)] for d in sys.path if d not in here],
    }


def _cache_file(key: dict[str, Any]) -> Path:
    """One file per installation key: the console script and ``python -m`` see different
    import paths, and must not keep overwriting each other's list."""
    import hashlib

    from mnote_kr.core import paths

    digest = hashlib.blake2b(json.dumps(key, sort_keys=True).encode("utf-8", "surrogatepass"),
                             digest_size=8).hexdigest()
    return paths.cache_dir() / f"{NAME}.{digest}"


def _scan(group: str) -> tuple[list[EntryPointRow], dict[str, list[int] | None]]:
    from importlib import metadata

    rows: list[EntryPointRow] = []
    files: dict[str, list[int] | None] = {}
    for ep in metadata.entry_points(group=group):
        dist = getattr(ep, "dist", None)
        rows.append(EntryPointRow(ep.name, ep.value, dist.metadata["Name"] if dist else None,
                                  dist.version if dist else None))
        where = getattr(dist, "_path", None)  # the dist-info folder of a path distribution
        if where is not None:
            files[str(Path(where) / "entry_points.txt")] = stat_key(Path(where) / "entry_points.txt")
    return sorted(rows, key=lambda r: r.name), files


def _read(group: str, key: dict[str, Any]) -> list[EntryPointRow] | None:
    try:
        data = json.loads(_cache_file(key).read_text(encoding="utf-8"))
        if data.get("version") != VERSION or data.get("group") != group or data.get("key") != key:
            return None
        if any(stat_key(f) != s for f, s in data["files"].items()):
            return None
        return [EntryPointRow(*row) for row in data["rows"]]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _write(group: str, key: dict[str, Any], rows: list[EntryPointRow], files: dict[str, Any]) -> None:
    from mnote_kr.core.atomic import write_atomic

    try:
        target = _cache_file(key)
        write_atomic(target, json.dumps({"version": VERSION, "group": group, "key": key, "files": files,
                                         "rows": [list(r) for r in rows]}))  # the old list or the new
    except OSError:
        pass  # a read-only cache dir only costs the scan next time


def entry_points(group: str) -> list[EntryPointRow]:
    """The group's entry points sorted by name, from the on-disk list while it is current."""
    key = install_key()
    cached = _read(group, key)
    if cached is not None:
        return cached
    rows, files = _scan(group)
    _write(group, key, rows, files)
    return rows


def load(value: str) -> object:
    """Import what an entry point names (``module`` or ``module:attr.attr``), as ``EntryPoint.load``."""
    import importlib

    module_name, _, attrs = value.split("[", 1)[0].partition(":")  # "[extras]" name no attribute
    obj: object = importlib.import_module(module_name.strip())
    for attr in filter(None, attrs.strip().split(".")):
        obj = getattr(obj, attr)
    return obj
