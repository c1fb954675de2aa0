"""The source registry: which user files are in the knowledge base, and in what state.

Lives at ``<root>/.mnote/index/lightrag-source-registry.json`` so it travels with the
folder. Writes are atomic (temp file, fsync, rename), the previous generation is kept
as ``.prev``, and a cross-process file lock serialises read-modify-write transactions,
so two processes never lose each other's entries.

Entry status machine::

    pending ──ingest──> submitted ──> processing ──> processed
       ^  (busy/down)      │              │      └──> failed | duplicate
       └───── sync retries ┘              │
    any live status ──source deleted/moved/changed──> stale
    processed|failed|stale|duplicate ──delete──> delete_submitted ──> delete_completed
    prune drops: delete_completed, stale, failed, duplicate   (never delete_submitted)

Only ``processed`` entries that are not ``stale`` are citable.
"""

from __future__ import annotations

import contextlib
import gc
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from mnote_kr.errors import RegistryCorruptError, RegistryError
from mnote_kr.models import REGISTRY_SCHEMA_VERSION, IndexedRoot, RegistrySnapshot, SourceEntry

if TYPE_CHECKING:
    import filelock

REGISTRY_FILE = "lightrag-source-registry.json"
PRUNABLE = frozenset({"delete_completed", "stale", "failed", "duplicate"})
NOT_TERMINAL = frozenset({"pending", "submitted", "processing", "delete_submitted"})

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(RegistrySnapshot)
_probe = msgspec.json.Decoder(dict)


#: Decoded snapshots of recently read registry files, keyed by path and checked against the
#: file's identity (device, inode, size, mtime); every save writes a new inode (rename).
#: Long-running processes (``serve``, ``watch``, a shell holding the Python API) then decode a
#: registry only when it changed.
#: Entries are frozen structs, so sharing them between loads is safe; each load gets its own
#: copies of the two dicts, which callers may change freely.
_CACHE: OrderedDict[str, tuple[tuple[int, ...], Registry]] = OrderedDict()
_CACHE_SIZE = 8
_cache_lock = threading.Lock()


def _identity(st: os.stat_result) -> tuple[int, ...]:
    # Not ctime: a rename or a new hard link (the .prev generation) changes it, not the bytes.
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _cached(path: Path, key: tuple[int, ...]) -> Registry | None:
    """A private copy of the cached registry for this file identity, or None."""
    with _cache_lock:
        hit = _CACHE.get(str(path))
        if hit is None or hit[0] != key:
            return None
        _CACHE.move_to_end(str(path))
        return hit[1].copy()


def _remember(path: Path, key: tuple[int, ...], registry: Registry) -> None:
    with _cache_lock:
        _CACHE[str(path)] = (key, registry.copy())
        _CACHE.move_to_end(str(path))
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)


def clear_cache() -> None:
    """Forget every cached snapshot (tests, benchmarks measuring a cold load)."""
    with _cache_lock:
        _CACHE.clear()


def now_ms() -> int:
    return int(time.time() * 1000)


def _migrate(raw: dict[str, Any]) -> dict[str, Any]:
    """Bring an older snapshot's builtins up to the current schema.

    v1 (the seeds' shape) called ``mtimeNs`` ``mtime`` (seconds, float) and had no
    ``sourceId``; both are derived here.
    """
    version = raw.get("version", 1)
    if version < 2:
        from mnote_kr.core.workspace import source_id_for

        for entry in raw.get("entries", []):
            if "mtimeNs" not in entry and "mtime" in entry:
                entry["mtimeNs"] = int(float(entry.pop("mtime") or 0) * 1_000_000_000)
            if not entry.get("sourceId"):
                entry["sourceId"] = source_id_for(entry.get("sourceRootRelativePath", ""))
        raw["version"] = REGISTRY_SCHEMA_VERSION
    return raw


def decode_snapshot(data: bytes, path: Path) -> RegistrySnapshot:
    """Decode registry bytes, migrating older versions. Raises ``RegistryCorruptError``."""
    gc_was_enabled = gc.isenabled()
    gc.disable()  # decoding allocates many acyclic objects; collections there are pure overhead
    try:
        return _decode_snapshot(data, path)
    finally:
        if gc_was_enabled:
            gc.enable()


def _decode_snapshot(data: bytes, path: Path) -> RegistrySnapshot:
    try:
        snap = _decoder.decode(data)
        if snap.version == REGISTRY_SCHEMA_VERSION:
            return snap
        return msgspec.convert(_migrate(msgspec.to_builtins(snap)), RegistrySnapshot)
    except msgspec.ValidationError:
        try:
            raw = _probe.decode(data)
            return msgspec.convert(_migrate(raw), RegistrySnapshot)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise RegistryCorruptError(f"Registry file is unreadable: {path}: {exc}", path=path,
                                       hint=_corrupt_hint(path)) from exc
    except msgspec.DecodeError as exc:
        raise RegistryCorruptError(f"Registry file is corrupt: {path}: {exc}", path=path,
                                   hint=_corrupt_hint(path)) from exc


def _rebuild_hint(index_dir: Path) -> str:
    return (f"no older generation is kept: move {index_dir} aside, then 'mnote-kr roots add' your folders "
            "and 'mnote-kr ingest' them again (your files are not touched)")


def _corrupt_hint(path: Path) -> str:
    """What to do about a corrupt file: restore from ``.prev``, unless this *is* the ``.prev``."""
    if path.name.endswith(".prev"):
        return _rebuild_hint(path.parent)
    return f"the previous generation is {path}.prev; 'mnote-kr registry restore' puts it back"


class Registry:
    """An in-memory registry: indexed roots and entries keyed by workspace-relative path."""

    def __init__(self, snapshot: RegistrySnapshot) -> None:
        self.workspace_id = snapshot.workspace_id
        self.root_uri = snapshot.root_uri
        self.roots: dict[str, IndexedRoot] = {r.root_relative_path: r for r in snapshot.indexed_roots}
        self.entries: dict[str, SourceEntry] = {e.source_root_relative_path: e for e in snapshot.entries}
        self.updated_at_ms = snapshot.updated_at_ms

    def copy(self) -> Registry:
        """An independent registry with the same (frozen) entries: two shallow dict copies."""
        new = Registry.__new__(Registry)
        new.workspace_id, new.root_uri, new.updated_at_ms = self.workspace_id, self.root_uri, self.updated_at_ms
        new.roots, new.entries = dict(self.roots), dict(self.entries)
        return new

    def snapshot(self) -> RegistrySnapshot:
        return RegistrySnapshot(
            version=REGISTRY_SCHEMA_VERSION,
            workspace_id=self.workspace_id,
            root_uri=self.root_uri,
            indexed_roots=sorted(self.roots.values(), key=lambda r: r.root_relative_path),
            entries=list(self.entries.values()),
            updated_at_ms=now_ms(),
        )

    def put(self, entry: SourceEntry) -> None:
        self.entries[entry.source_root_relative_path] = entry

    def update(self, rel_path: str, **changes: Any) -> SourceEntry:
        entry = self.entries[rel_path]
        changes.setdefault("updated_at_ms", now_ms())
        new = msgspec.structs.replace(entry, **changes)
        self.entries[rel_path] = new
        return new

    def by_provider_name(self) -> dict[str, SourceEntry]:
        """Live (citable) entries keyed by the provider's file name."""
        return {
            e.light_rag_file_path: e
            for e in self.entries.values()
            if e.light_rag_file_path and e.status == "processed" and not e.stale
        }

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for entry in self.entries.values():
            key = "stale" if entry.stale and entry.status != "stale" else entry.status
            counts[key] = counts.get(key, 0) + 1
        return dict(sorted(counts.items()))


class RegistryStore:
    """The on-disk registry of one workspace: atomic writes, a previous generation, a lock."""

    def __init__(self, index_dir: Path, *, workspace_id: str = "", root_uri: str = "", lock_timeout: float = 30.0):
        self.index_dir = Path(index_dir)
        self.path = self.index_dir / REGISTRY_FILE
        self.prev_path = self.path.with_name(REGISTRY_FILE + ".prev")
        self.lock_path = self.path.with_name(REGISTRY_FILE + ".lock")
        self.workspace_id = workspace_id
        self.root_uri = root_uri
        self._lock_timeout = lock_timeout
        self._file_lock: filelock.FileLock | None = None

    @property
    def _lock(self) -> filelock.FileLock:
        # Built at the first write: reading commands (roots list, status, search) never lock,
        # and filelock's import (with logging and secrets) costs as much as click's.
        with _cache_lock:
            if self._file_lock is None:
                import filelock

                self._file_lock = filelock.FileLock(str(self.lock_path), timeout=self._lock_timeout)
            return self._file_lock

    # -- reading

    def load(self) -> Registry:
        """Load the registry; a missing file is an empty registry, a corrupt one an error."""
        try:
            with open(self.path, "rb") as fh:
                # The identity is taken from the open file: a rename after this cannot pair
                # the old bytes with the new file's key.
                key = _identity(os.fstat(fh.fileno()))
                cached = _cached(self.path, key)
                if cached is not None:
                    return cached
                data = fh.read()
        except FileNotFoundError:
            if self.prev_path.exists():
                # Only possible if a writer died between two renames; prev is the last commit.
                return Registry(decode_snapshot(self.prev_path.read_bytes(), self.prev_path))
            return Registry(RegistrySnapshot(workspace_id=self.workspace_id, root_uri=self.root_uri))
        except OSError as exc:
            raise RegistryError(f"Cannot read registry {self.path}: {exc.strerror}", path=self.path) from exc
        try:
            registry = Registry(decode_snapshot(data, self.path))
        except RegistryCorruptError as exc:
            # Point to 'registry restore' only when there is a readable generation to restore.
            try:
                self.load_previous()
            except RegistryError as prev_exc:
                raise RegistryCorruptError(f"{exc.message}; {prev_exc.message}", path=self.path,
                                           hint=_rebuild_hint(self.index_dir)) from exc
            raise
        _remember(self.path, key, registry)
        return registry

    def load_previous(self) -> Registry:
        """The previous generation (offered when the current file is corrupt)."""
        try:
            data = self.prev_path.read_bytes()
        except FileNotFoundError as exc:
            raise RegistryError(f"No previous registry generation at {self.prev_path}", path=self.prev_path,
                                hint=_rebuild_hint(self.index_dir)) from exc
        except OSError as exc:
            raise RegistryError(f"Cannot read registry {self.prev_path}: {exc.strerror}", path=self.prev_path) from exc
        try:
            return Registry(decode_snapshot(data, self.prev_path))
        except RegistryCorruptError as exc:
            raise RegistryCorruptError(f"The previous generation is corrupt too: {exc.message}",
                                       path=self.prev_path, hint=_rebuild_hint(self.index_dir)) from exc

    # -- writing

    def save(self, registry: Registry) -> None:
        """Write atomically: temp file + fsync + rename, keeping the previous generation."""
        self.index_dir.mkdir(parents=True, exist_ok=True)
        snap = registry.snapshot()
        registry.updated_at_ms = snap.updated_at_ms  # what the file now says
        data = _encoder.encode(snap)
        tmp = self.path.with_name(f"{REGISTRY_FILE}.{os.getpid()}.tmp")
        try:
            with open(tmp, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
                key = _identity(os.fstat(fh.fileno()))  # the same inode after the rename
            if self.path.exists():
                # Keep the previous generation without ever leaving the current name empty.
                prev_tmp = self.prev_path.with_name(self.prev_path.name + ".tmp")
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(prev_tmp)
                os.link(self.path, prev_tmp)
                os.replace(prev_tmp, self.prev_path)
            os.replace(tmp, self.path)
            _fsync_dir(self.index_dir)
            # What we just wrote is what the next load would decode: remember it instead.
            _remember(self.path, key, registry)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise RegistryError(f"Cannot write registry {self.path}: {exc.strerror}", path=self.path) from exc

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Registry]:
        """Lock, load the latest state, let the caller change it, save. Nothing is saved on error."""
        import filelock

        self.index_dir.mkdir(parents=True, exist_ok=True)
        try:
            self._lock.acquire()
        except filelock.Timeout as exc:
            raise RegistryError(
                f"Registry is locked by another process: {self.lock_path}",
                path=self.lock_path,
                hint="wait for the other mnote-kr command to finish",
            ) from exc
        try:
            registry = self.load()
            if not registry.workspace_id:
                registry.workspace_id = self.workspace_id
            if not registry.root_uri:
                registry.root_uri = self.root_uri
            yield registry
            self.save(registry)
        finally:
            self._lock.release()

    def restore_previous(self) -> None:
        """Replace a corrupt current file with the previous generation (kept as ``.corrupt``)."""
        with self._lock:
            previous = self.load_previous()
            if self.path.exists():
                os.replace(self.path, self.path.with_name(REGISTRY_FILE + ".corrupt"))
            self.save(previous)


def _fsync_dir(path: Path) -> None:
    if os.name != "posix":
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
