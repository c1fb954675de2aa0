"""The source registry: which user files are in the knowledge base, and in what state.

Lives at ``<root>/.mnote/index/lightrag-source-registry.msgpack`` so it travels with the
folder (a packed snapshot, see :mod:`mnote_kr.core.registry_format`; ``mnote-kr registry
export`` writes the JSON form, and the JSON file of older versions still loads). Writes are
atomic (temp file, fsync, rename), the previous generation is kept as ``.prev``, and a
cross-process file lock serialises read-modify-write transactions, so two processes never
lose each other's entries.

Entry status machine::

    pending ──ingest──> submitted ──> processing ──> processed
       ^  (busy/down)      │              │      └──> failed | duplicate
       └───── sync retries ┘              │
    any live status ──source deleted/moved/changed──> stale
    processed|failed|stale|duplicate ──delete──> delete_submitted ──> delete_completed
    prune drops: delete_completed, stale, failed, duplicate   (never delete_submitted, nor a user's delete
                 of a file still on disk: that record keeps the file out)

Only entries processed or being indexed (``submitted``, ``processing``) and not ``stale`` are citable
(``registry_tags.is_citable_tag``).
"""

from __future__ import annotations

import contextlib
import gc
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from mnote_kr.core import registry_format as fmt
from mnote_kr.core import registry_packed, registry_tags
from mnote_kr.core.registry_entries import EntryMap, EntrySequence, LiveByName
from mnote_kr.errors import RegistryCorruptError, RegistryError
from mnote_kr.models import REGISTRY_SCHEMA_VERSION, IndexedRoot, RegistrySnapshot, SourceEntry

if TYPE_CHECKING:
    import filelock

REGISTRY_FILE = "lightrag-source-registry.msgpack"
#: Where mnote-kr before the packed format kept the registry (JSON). Read when no packed
#: snapshot exists; the first save moves it to the ``.prev`` generation.
LEGACY_JSON_FILE = "lightrag-source-registry.json"
LOCK_FILE = "lightrag-source-registry.json.lock"  # the name older versions lock too
PRUNABLE = frozenset({"delete_completed", "stale", "failed", "duplicate", "refused"})
NOT_TERMINAL = frozenset({"pending", "submitted", "processing", "delete_submitted"})


_PENDING, _FAILED, _REFUSED = (registry_tags.STATUSES.index(s) for s in ("pending", "failed", "refused"))


def waiting_tag(tag: int) -> bool:
    """Queued for the provider: a pending action, or status ``pending`` (see ``Registry.select``)."""
    return bool(tag & registry_tags.PENDING_ACTION) or tag & registry_tags.STATUS_MASK == _PENDING


def failed_tag(tag: int) -> bool:
    """Failed and not stale."""
    return tag & (registry_tags.STATUS_MASK | registry_tags.STALE) == _FAILED


def refused_tag(tag: int) -> bool:
    """Refused (over a reader's budget, never sent) and not stale."""
    return tag & (registry_tags.STATUS_MASK | registry_tags.STALE) == _REFUSED


def fallback_tag(tag: int) -> bool:
    """Indexed through a provider's fallback (kind ``*_fallback``), and not failed."""
    return bool(tag & registry_tags.FALLBACK) and tag & registry_tags.STATUS_MASK != _FAILED


#: Decoded snapshots of recently read registry files, keyed by path and checked against the
#: file's identity (device, inode, size, mtime); every save writes a new inode (rename).
#: Long-running processes (``serve``, ``watch``, a shell holding the Python API) then decode a
#: registry only when it changed.
#: Entries are frozen structs and packed bytes are read-only, so sharing them between loads is
#: safe; each load gets its own copies of the two maps, which callers may change freely.
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


def decode_snapshot(data: bytes | fmt.HeaderOnly, path: Path) -> Registry:
    """Decode registry bytes (packed v5, v4 or v3, or JSON v2/v1 migrated), or a v4/v5 file's header
    (its entries read later). Raises ``RegistryCorruptError``."""
    gc_was_enabled = gc.isenabled()
    gc.disable()  # decoding allocates many acyclic objects; collections there are pure overhead
    try:
        if isinstance(data, fmt.HeaderOnly):
            return Registry.from_packed(*fmt.decode_header_from(data, path))
        if fmt.is_packed(data):
            header, packed = fmt.decode_packed(data, path)
            return Registry.from_packed(header, packed)
        if data.lstrip()[:1] != b"{":  # neither a packed snapshot nor JSON: not a registry, whatever it is
            raise registry_packed.not_a_registry(path, data)
        return Registry(fmt.decode_json(data, path))
    finally:
        if gc_was_enabled:
            gc.enable()


class Registry:
    """An in-memory registry: indexed roots and entries keyed by workspace-relative path.

    ``entries`` is an :class:`~mnote_kr.core.registry_entries.EntryMap`: a ``MutableMapping``
    in insertion order that decodes an entry from the packed file the first time it is read.
    It is not a ``dict``: where one is needed (``msgspec.to_builtins``), use ``dict(reg.entries)``.
    Questions about every entry (:meth:`counts`, :meth:`select`, :meth:`by_provider_name`,
    :meth:`all_entries` ``.columns()``) are answered from the snapshot's columns: they decode
    only the entries they return.
    """

    def __init__(self, snapshot: RegistrySnapshot) -> None:
        self.workspace_id = snapshot.workspace_id
        self.root_uri = snapshot.root_uri
        self.roots: dict[str, IndexedRoot] = {r.root_relative_path: r for r in snapshot.indexed_roots}
        self.entries = EntryMap({e.source_root_relative_path: e for e in snapshot.entries})
        self.updated_at_ms = snapshot.updated_at_ms

    @classmethod
    def from_packed(cls, header: fmt.PackedHeader | fmt._V3Header, packed: registry_packed.PackedEntries) -> Registry:
        """A registry over a packed snapshot; entries are decoded when first read."""
        new = cls.__new__(cls)
        new.workspace_id, new.root_uri, new.updated_at_ms = header.workspace_id, header.root_uri, header.updated_at_ms
        new.roots = {r.root_relative_path: r for r in header.indexed_roots}
        new.entries = EntryMap.from_packed(header.keys, packed)
        return new

    def copy(self) -> Registry:
        """An independent registry with the same (frozen) entries: two shallow map copies."""
        new = Registry.__new__(Registry)
        new.workspace_id, new.root_uri, new.updated_at_ms = self.workspace_id, self.root_uri, self.updated_at_ms
        new.roots, new.entries = dict(self.roots), self.entries.copy()
        return new

    def sorted_roots(self) -> list[IndexedRoot]:
        return sorted(self.roots.values(), key=lambda r: r.root_relative_path)

    def snapshot(self) -> RegistrySnapshot:
        """Every entry as one snapshot struct (the JSON export's shape)."""
        return RegistrySnapshot(
            version=REGISTRY_SCHEMA_VERSION,
            workspace_id=self.workspace_id,
            root_uri=self.root_uri,
            indexed_roots=self.sorted_roots(),
            entries=list(self.entries.values()),
            updated_at_ms=self.updated_at_ms,
        )

    def put(self, entry: SourceEntry) -> None:
        self.entries[entry.source_root_relative_path] = entry

    def update(self, rel_path: str, **changes: Any) -> SourceEntry:
        entry = self.entries[rel_path]
        changes.setdefault("updated_at_ms", now_ms())
        new = msgspec.structs.replace(entry, **changes)
        self.entries[rel_path] = new
        return new

    def by_provider_name(self) -> LiveByName:
        """Citable entries (processed or being indexed, not stale) keyed by the provider's file name;
        a lookup decodes one entry."""
        return self.entries.live_by_name()

    def select(self, pred: Callable[[int], bool]) -> list[SourceEntry]:
        """The entries whose tag (``registry_tags.entry_tag``) satisfies ``pred``, in order."""
        return self.entries.select(pred)

    def notes(self, pred: Callable[[int], bool]) -> list[tuple[str, registry_tags.Note]]:
        """(path, note) of the queued, failed or fallback entries ``pred`` selects; decodes none."""
        return self.entries.notes(pred)

    def all_entries(self) -> EntrySequence:
        """Every entry as a lazily decoded sequence whose ``columns()`` decodes none."""
        return EntrySequence(self.entries)

    def counts(self) -> dict[str, int]:
        """Entries by status (``stale`` for a stale entry of any other status); decodes none."""
        counts: dict[str, int] = {}
        unknown = False
        for tag, n in self.entries.tag_counts().items():
            status = registry_tags.tag_status(tag)
            if status is None:  # a status this version has no code for: read those entries
                unknown = True
                continue
            key = "stale" if tag & registry_tags.STALE and status != "stale" else status
            counts[key] = counts.get(key, 0) + n
        if unknown:
            for entry in self.entries.select(lambda tag: registry_tags.tag_status(tag) is None):
                key = "stale" if entry.stale and entry.status != "stale" else entry.status
                counts[key] = counts.get(key, 0) + 1
        return dict(sorted(counts.items()))

    def citable_count(self) -> int:
        """How many entries a search may cite (``registry_tags.is_citable_tag``, the rule the citation pipeline
        drops the others by); decodes none."""
        return sum(n for tag, n in self.entries.tag_counts().items() if registry_tags.is_citable_tag(tag))

    def stale_count(self) -> int:
        """How many entries are marked stale; decodes none."""
        return sum(n for tag, n in self.entries.tag_counts().items() if tag & registry_tags.STALE)


class RegistryStore:
    """The on-disk registry of one workspace: atomic writes, a previous generation, a lock."""

    def __init__(self, index_dir: Path, *, workspace_id: str = "", root_uri: str = "", lock_timeout: float = 30.0):
        self.index_dir = Path(index_dir)
        self.path = self.index_dir / REGISTRY_FILE
        self.prev_path = self.path.with_name(REGISTRY_FILE + ".prev")
        self.legacy_path = self.index_dir / LEGACY_JSON_FILE
        self.lock_path = self.index_dir / LOCK_FILE
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
        """Load the registry; a missing file is an empty registry, a corrupt one an error.

        With no packed snapshot yet, the previous generation (a writer died between two
        renames) or else the JSON file of an older mnote-kr is read.
        """
        for path in (self.path, self.prev_path, self.legacy_path):
            try:
                return self._load_file(path)
            except FileNotFoundError:
                continue
        return Registry(RegistrySnapshot(workspace_id=self.workspace_id, root_uri=self.root_uri))

    def _load_file(self, path: Path) -> Registry:
        try:
            with open(path, "rb") as fh:
                # The identity is taken from the open file: a rename after this cannot pair
                # the old bytes with the new file's key.
                key = _identity(os.fstat(fh.fileno()))
                cached = _cached(path, key)
                if cached is not None:
                    return cached
                prefix = fh.read(fmt.PREFIX_SIZE)
                length = fmt.header_length(prefix)
                data: bytes | fmt.HeaderOnly
                if length is not None and fmt.PREFIX_SIZE <= length <= key[2]:
                    # Version 4: read the header only; the entries are read from this same file
                    # (a descriptor of its own) when the first one is, if ever.
                    data = fmt.HeaderOnly(os.dup(fh.fileno()), prefix + fh.read(length - len(prefix)), key)
                else:
                    data = prefix + fh.read()
        except FileNotFoundError:
            raise
        except OSError as exc:
            raise RegistryError(f"Cannot read registry {path}: {exc.strerror}", path=path) from exc
        try:
            registry = decode_snapshot(data, path)
        except RegistryCorruptError as exc:
            if path != self.path:
                raise
            # Point to 'registry restore' only when there is a readable generation to restore.
            try:
                self.load_previous()
            except RegistryError as prev_exc:
                raise RegistryCorruptError(f"{exc.message}; {prev_exc.message}", path=self.path,
                                           hint=registry_packed.rebuild_hint(self.index_dir)) from exc
            raise
        _remember(path, key, registry)
        return registry

    def load_previous(self) -> Registry:
        """The previous generation (offered when the current file is corrupt)."""
        try:
            data = self.prev_path.read_bytes()
        except FileNotFoundError as exc:
            raise RegistryError(f"No previous registry generation at {self.prev_path}", path=self.prev_path,
                                hint=registry_packed.rebuild_hint(self.index_dir)) from exc
        except OSError as exc:
            raise RegistryError(f"Cannot read registry {self.prev_path}: {exc.strerror}", path=self.prev_path) from exc
        try:
            return decode_snapshot(data, self.prev_path)
        except RegistryCorruptError as exc:
            raise RegistryCorruptError(f"The previous generation is corrupt too: {exc.message}",
                                       path=self.prev_path, hint=registry_packed.rebuild_hint(self.index_dir)) from exc

    # -- writing

    def save(self, registry: Registry) -> None:
        """Write atomically: temp file + fsync + rename, keeping the previous generation.

        Called with the lock held (every caller takes it), so no other writer is mid-save: a
        temp file of another process is one a killed writer left, and is removed."""
        self.index_dir.mkdir(parents=True, exist_ok=True)
        registry.updated_at_ms = now_ms()  # what the file now says
        keys, values, old = registry.entries.raw()
        tmp = self.path.with_name(f"{REGISTRY_FILE}.{os.getpid()}.tmp")
        self._remove_abandoned(tmp)
        try:
            with open(tmp, "w+b") as fh:
                gc_was_enabled = gc.isenabled()
                gc.disable()  # the columns and chunk lists are 100k acyclic objects: collections are pure overhead
                try:
                    written = fmt.write_packed(fh, registry.workspace_id, registry.root_uri, registry.updated_at_ms,
                                               registry.sorted_roots(), keys, values, old)
                finally:
                    if gc_was_enabled:
                        gc.enable()
                fh.flush()
                os.fsync(fh.fileno())
                st = os.fstat(fh.fileno())
                inode = (st.st_dev, st.st_ino)
            if self.path.exists():
                # Keep the previous generation without ever leaving the current name empty.
                prev_tmp = self.prev_path.with_name(self.prev_path.name + ".tmp")
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(prev_tmp)
                os.link(self.path, prev_tmp)
                os.replace(prev_tmp, self.prev_path)
                # A writer killed between its two renames leaves '.prev' a second link to the
                # current file; rename() between two links of one file does nothing (POSIX).
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(prev_tmp)
            elif self.legacy_path.exists():
                # First save after an upgrade: the JSON registry becomes the previous generation
                # (still loadable and restorable), so no stale JSON is left to be mistaken for it.
                os.replace(self.legacy_path, self.prev_path)
            os.replace(tmp, self.path)
            _fsync_dir(self.index_dir)
        except BaseException as exc:  # nothing half-written is left (the entries are encoded as they are written)
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            if isinstance(exc, OSError):
                from mnote_kr.core.diskfull import write_failure

                message, hint = write_failure("registry", self.path, exc,
                                              "nothing was lost: the registry on disk is the last complete one")
                raise RegistryError(message, path=self.path, hint=hint) from exc
            raise
        # Continue from the file just written (the next save copies unchanged entries' bytes), and
        # remember it: it is what the next load would decode. It is opened anew, after the rename
        # (no descriptor is open on the temp file while it is renamed, and the identity is the
        # closed file's); if that fails, the registry keeps its entries in memory and the next
        # load reads the file.
        source = self._reopen(inode, written.blob_offset, written.blob_length)
        if source is not None:
            registry.entries.rebase(keys, written.packed(source, self.path))
            _remember(self.path, source.identity, registry)

    def _reopen(self, inode: tuple[int, int], offset: int, length: int) -> registry_packed.BlobSource | None:
        """The entries of the file just saved, if the registry's name is still that file."""
        try:
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        except OSError:
            return None
        try:
            st = os.fstat(fd)
        except OSError:
            st = None
        if st is None or (st.st_dev, st.st_ino) != inode:
            os.close(fd)
            return None
        return registry_packed.BlobSource(fd, offset, length, _identity(st), self.path)

    def _remove_abandoned(self, mine: Path) -> None:
        """Remove the temp files of writers killed mid-save (``<registry>.<pid>.tmp``, not ours)."""
        with contextlib.suppress(OSError):
            for path in self.index_dir.glob(f"{REGISTRY_FILE}.*.tmp"):
                if path.name[len(REGISTRY_FILE) + 1 : -len(".tmp")].isdigit() and path != mine:
                    with contextlib.suppress(OSError):
                        path.unlink()

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

    # -- JSON export and import (the first format's field names; also what older mnote-kr stored)

    def export_json(self) -> bytes:
        """The whole registry as JSON (version 2, camelCase fields), with the moves ``prune`` kept."""
        from mnote_kr.core import pruned_moves

        snapshot = self.load().snapshot()
        moves = list(pruned_moves.load(self.index_dir).items())
        return fmt.encode_json(msgspec.structs.replace(snapshot, pruned_moves=moves) if moves else snapshot)

    def import_json(self, data: bytes, source: Path) -> Registry:
        """Replace the registry with a JSON export (v1 or v2); the replaced one becomes ``.prev``."""
        try:
            snapshot = fmt.decode_json(data, source)
        except RegistryCorruptError as exc:
            raise RegistryError(f"Cannot import {source}: not a registry export ({exc.message})", path=source,
                                hint="give a JSON file written by 'mnote-kr registry export'") from exc
        from mnote_kr.core import pruned_moves

        moves = dict(snapshot.pruned_moves)
        imported = Registry(msgspec.structs.replace(snapshot, pruned_moves=[]) if moves else snapshot)
        with self._lock:
            if not imported.workspace_id:
                imported.workspace_id = self.workspace_id
            if not imported.root_uri:
                imported.root_uri = self.root_uri
            pruned_moves.keep(self.index_dir, moves)  # added to those kept here (a later move of a path wins)
            self.save(imported)
        return imported


def _fsync_dir(path: Path) -> None:
    if os.name != "posix":
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
