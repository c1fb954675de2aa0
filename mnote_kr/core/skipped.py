"""Files passed over for their type: found in a folder, of a type no provider indexes, or empty (0 bytes:
nothing to index, ``empty_files``) (``.mnote/index/skipped.json``).

A folder's ``ingest``, ``sync`` and ``watch`` pass such a file over (``unindexable``) and give it no
registry entry: a folder of archives would otherwise fill the registry with failures. This list keeps
it from being silently missing: ``status`` names each with its reason (``skipped``), and every search
over its folder names it in ``notIndexed`` (``mnote_kr.citations.map.notindexed``).

Ingest and sync write it (:func:`record_skipped`: each file they looked at, passed over now or not);
``status`` and search read it (:func:`still_skipped`). It is a derived cache: absent or unreadable
means empty. A file is named only while it is on disk, has no registry entry (a file the user names is
sent, and its failure is recorded there), its root's exclude patterns do not leave it out and the
provider still cannot index its type (asked again on read: a suffix check, no file read).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Protocol

import msgspec

from mnote_kr.core.atomic import write_atomic
from mnote_kr.core.locks import exclusive
from mnote_kr.core.registry import Registry, RegistryStore, now_ms
from mnote_kr.core.workspace import excluded_reason, under

SKIPPED_FILE = "skipped.json"
SKIPPED_VERSION = 1
#: How many passed-over files ``status`` and each search name (all are counted).
SKIPPED_SHOWN = 50
#: What a search's ``notIndexed`` adds to a passed-over file's reason, as for one the query names.
PASSED_OVER = "a folder ingest passes it over"


class HasRootAndStore(Protocol):
    @property
    def root(self) -> Path: ...

    @property
    def store(self) -> RegistryStore: ...


class SkippedFile(msgspec.Struct, kw_only=True, rename="camel"):
    """One file passed over for its type, and why (the provider's words)."""

    source_path: str
    reason: str
    seen_at_ms: int = 0


class SkippedFiles(msgspec.Struct, kw_only=True, rename="camel"):
    """``.mnote/index/skipped.json``: files passed over for their type."""

    version: int = SKIPPED_VERSION
    updated_at_ms: int = 0
    files: list[SkippedFile] = []


_decoder = msgspec.json.Decoder(SkippedFiles)
_encoder = msgspec.json.Encoder()


def skipped_path(host: HasRootAndStore) -> Path:
    """Where the list lives: beside the registry, in ``.mnote/index/``."""
    return host.store.index_dir / SKIPPED_FILE


def load_skipped(host: HasRootAndStore) -> SkippedFiles:
    """The list (empty when absent or unreadable: it is a derived cache)."""
    try:
        return _decoder.decode(skipped_path(host).read_bytes())
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return SkippedFiles()


#: Why an empty file is passed over (``empty_files``): no provider has anything of it to index (LightRAG failed a 0-byte
#: DOCX, and every later ingest of its folder sent it again and exited 1: nc28c surprise 6).
EMPTY_REASON = "empty file (0 bytes): nothing to index; sync and ingest take it once it has content"


def empty_files(ws_root: Path, rel_paths: Iterable[str]) -> dict[str, str]:
    """The files of ``rel_paths`` (relative to ``ws_root``) that are empty on disk (0 bytes), with
    ``EMPTY_REASON``: passed over as a type no provider indexes is. A stat each, nothing read; a file that
    cannot be stat'ed is left to the caller (ingest says it cannot be read)."""
    out: dict[str, str] = {}
    for rel in rel_paths:
        try:
            if os.stat(ws_root / rel).st_size == 0:
                out[rel] = EMPTY_REASON
        except (OSError, ValueError):
            continue
    return out


def _on_disk(host: HasRootAndStore, rel: str) -> bool:
    try:
        return os.path.isfile(host.root / rel)
    except (OSError, ValueError):
        return False


def record_skipped(host: HasRootAndStore, skipped: Mapping[str, str], looked_at: Iterable[str] = ()) -> None:
    """Record ``skipped`` (path -> reason) and forget the files of ``looked_at`` it does not hold (taken
    this time, excluded, or gone), under the list's own lock. Files no longer on disk leave too. The file
    is written only when its list changes (an unchanged folder writes nothing, nor creates it)."""
    path = skipped_path(host)
    if not skipped and not path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with exclusive(str(path) + ".lock", timeout=30):
        current = load_skipped(host)
        looked = set(looked_at)
        now = now_ms()
        files = {f.source_path: f for f in current.files if f.source_path not in looked or f.source_path in skipped}
        for rel, why in skipped.items():
            before = files.get(rel)
            files[rel] = SkippedFile(source_path=rel, reason=why, seen_at_ms=before.seen_at_ms if before else now)
        kept = [f for rel, f in sorted(files.items()) if rel in skipped or _on_disk(host, rel)]
        if kept == current.files:
            return
        write_atomic(path, _encoder.encode(SkippedFiles(updated_at_ms=now, files=kept)))


def still_skipped(host: HasRootAndStore, reg: Registry, scopes: Sequence[str] = (),
                  unindexable: Callable[[list[str]], Mapping[str, str]] | None = None) -> Iterator[SkippedFile]:
    """The recorded files still passed over: on disk, without a registry entry, not left out by their
    root's exclude patterns, and under one of ``scopes`` (files or folders; none: anywhere).

    With ``unindexable`` (the provider's hook: a suffix check, no file read), also only those the provider
    still cannot index, with its reason as of now: one it now takes is a new file, waiting for an ingest or
    a sync, not a skipped one (the list itself changes at the next ingest or sync)."""
    if not skipped_path(host).exists():
        return
    found: list[SkippedFile] = []
    for f in load_skipped(host).files:
        rel = f.source_path
        if scopes and not any(under(rel, s) for s in scopes):
            continue
        if rel in reg.entries or excluded_reason(rel, reg.roots) or not _on_disk(host, rel):
            continue
        found.append(f)
    if unindexable is None or not found:
        yield from found
        return
    now = unindexable([f.source_path for f in found])
    for f in found:
        if f.source_path in now:
            yield SkippedFile(source_path=f.source_path, reason=now[f.source_path], seen_at_ms=f.seen_at_ms)


def skipped_status(host: HasRootAndStore, reg: Registry, shown: int = SKIPPED_SHOWN,
                   unindexable: Callable[[list[str]], Mapping[str, str]] | None = None) -> dict[str, object]:
    """``status``'s ``skipped``: how many files are passed over for their type, and the first ``shown``."""
    files: list[dict[str, str]] = []
    count = 0
    for f in still_skipped(host, reg, unindexable=unindexable):
        count += 1
        if len(files) < shown:
            files.append({"sourcePath": f.source_path, "reason": f.reason})
    return {"count": count, "files": files}
