"""Parsed documents for locator plugins: an in-process LRU plus an optional on-disk cache.

In process, items are keyed by (real path, size, mtime): repeated citations into one
document must not re-parse it; a changed file is parsed again and its old version
dropped. Thread-safe; bounded by count and by an optional per-item weight.

On disk (``persist=``): a fresh ``mnote-kr search`` process must not re-parse every cited
PDF and DOCX either, so a plugin may ask for its parsed model to be kept under the host's
cache dir (``<cache>/locate/<name>/``, see ``mnote_kr.core.paths``). The cache does not care
what the model holds: the plugin names a format ``version`` and either supplies
``encode``/``decode`` or lets the host pickle the model. Rules:

* Keyed by content hash, invalidated by file version: a small pointer per real path
  records (size, mtime, sha256); while the file's stat matches, the entry named by that
  sha256 is used without reading the file; when it changed, the file is hashed and an
  entry with the same content (a touched or copied file) still serves.
* Never trusted blindly: every entry carries a keyed BLAKE2b MAC over header and payload
  (the key lives in the cache dir, mode 0600), so a torn write, a truncated file or a
  foreign file is a miss that is rebuilt, never decoded. A model whose format version or
  shape (dataclass fields) changed is a miss too.
* Safe across processes: entries and pointers are written to a temp file and renamed into
  place, so a reader sees the old or the new file, never half of one.
* Bounded: after a write the folder is trimmed to ``max_bytes``, oldest first.

``warm(path)`` parses a file ahead of time (ingest calls it through the ``prepare_locate``
hook) so that even the first search finds it on disk.
"""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import hmac
import json
import os
import pickle
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from mnote_kr.core.atomic import open_temp, write_atomic
from mnote_kr.errors import DocumentError

T = TypeVar("T")
Key = tuple[str, int, int]

_MAGIC = b"MKRLC1\n"
_MAC_BYTES = 32
DEFAULT_MAX_BYTES = 512 * 1024 * 1024
_STALE_TMP_S = 3600.0
#: A KeyedStore write trims the folder with a chance of this share of ``max_entries`` to one:
#: the scan costs about this many directory entries per write, and the folder overshoots its
#: bound by about ``max_entries / _TRIM_SHARE`` between two trims.
_TRIM_SHARE = 8
_key_lock = threading.Lock()
_keys: dict[Path, bytes] = {}


@dataclass(frozen=True)
class Persist(Generic[T]):
    """How a plugin's parsed model is kept on disk.

    ``name`` is the cache folder ("docx", "pdf"); ``version`` the plugin's format version
    (bump it when the model's meaning changes without its fields changing). ``encode`` /
    ``decode`` default to pickle; ``model`` (the top-level type) lets the host notice a
    changed shape by itself: the fields of every dataclass in the model's modules are part
    of the entry's format. ``max_bytes`` bounds the folder.
    """

    name: str
    version: str
    model: type | None = None
    encode: Callable[[T], bytes] | None = None
    decode: Callable[[bytes], T] | None = None
    max_bytes: int = DEFAULT_MAX_BYTES


def _fingerprint(model: type | None) -> str:
    """Field names and annotations of every dataclass in the modules ``model`` builds on."""
    if model is None:
        return ""
    classes: dict[str, type] = {}
    for cls in model.__mro__:
        if dataclasses.is_dataclass(cls):
            classes[f"{cls.__module__}.{cls.__qualname__}"] = cls
        mod = sys.modules.get(cls.__module__) if cls is not object else None
        for obj in vars(mod).values() if mod is not None else ():
            if isinstance(obj, type) and dataclasses.is_dataclass(obj) and obj.__module__ == cls.__module__:
                classes[f"{obj.__module__}.{obj.__qualname__}"] = obj
    parts = [f"{name}({','.join(f'{f.name}:{f.type}' for f in dataclasses.fields(cls))})"
             for name, cls in sorted(classes.items())]
    return hashlib.blake2b("\n".join(parts).encode(), digest_size=8).hexdigest()


def _mac_key(folder: Path) -> bytes:
    """The cache's secret MAC key, created once (0600) and shared by all processes."""
    root = folder.parent
    with _key_lock:
        key = _keys.get(root)
        if key is not None:
            return key
        path = root / "mac.key"
        try:
            key = path.read_bytes()
        except FileNotFoundError:
            key = b""
        if len(key) != 32:
            root.mkdir(parents=True, exist_ok=True)
            fd, tmp = open_temp(root, ".tmp-key-")
            try:
                os.write(fd, os.urandom(32))
                os.fsync(fd)
            finally:
                os.close(fd)
            try:
                os.link(tmp, path)  # first writer wins; everyone then reads the same key
            except FileExistsError:
                pass
            finally:
                os.unlink(tmp)
            key = path.read_bytes()
        _keys[root] = key
        return key


def _atomic_write(folder: Path, name: str, data: bytes) -> None:
    # ".tmp-": the temporary files the trimming recognises (and removes when a killed writer left one)
    write_atomic(folder / name, data, private=True, tmp_prefix=".tmp-")


def one_in(n: int) -> bool:
    """True about once in ``n`` calls, at random (always for ``n <= 1``).

    A cache folder is trimmed after one write in many, not at a process's first write: every
    ``mnote-kr search`` is a new process that writes a few entries, and a trim scans the whole
    folder (tens of milliseconds at tens of thousands of entries). Chosen at random, the writes
    of many short processes still trim the folder about once per ``n`` of them."""
    return n <= 1 or int.from_bytes(os.urandom(4), "little") % n == 0


def _sha256_file(real: str) -> str:
    h = hashlib.sha256()
    with open(real, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class DiskStore(Generic[T]):
    """The on-disk half of ``FileCache``; every failure here is a miss, never an error."""

    def __init__(self, persist: Persist[T], folder: Path | None = None) -> None:
        self.persist = persist
        self._folder = folder
        self._format = f"{persist.version}/{_fingerprint(persist.model)}"
        self.stats = {"hits": 0, "misses": 0, "rejected": 0, "writes": 0}

    @property
    def folder(self) -> Path:
        """``<cache>/locate/<name>``, resolved on each use (``MNOTE_KR_HOME`` may change in tests)."""
        folder = self._folder
        if folder is None:
            from mnote_kr.core.paths import cache_dir

            folder = cache_dir() / "locate" / self.persist.name
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    @staticmethod
    def _pointer_name(real: str) -> str:
        return "p-" + hashlib.blake2b(real.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()

    def _read_pointer(self, real: str) -> dict[str, Any] | None:
        try:
            data = json.loads((self.folder / self._pointer_name(real)).read_bytes())
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def _read_entry(self, sha: str) -> T | None:
        folder = self.folder
        path = folder / f"e-{sha}"
        try:
            blob = path.read_bytes()
        except OSError:
            return None
        key = _mac_key(folder)
        head_end = blob.find(b"\n", len(_MAGIC))
        if not blob.startswith(_MAGIC) or head_end < 0 or len(blob) < head_end + 1 + _MAC_BYTES:
            self.stats["rejected"] += 1
            return None
        mac = blob[head_end + 1: head_end + 1 + _MAC_BYTES]
        # Views, not slices: a model is megabytes, and each copy of it costs about as much as its MAC.
        view = memoryview(blob)
        payload = view[head_end + 1 + _MAC_BYTES:]
        h = hashlib.blake2b(view[: head_end + 1], key=key, digest_size=_MAC_BYTES)
        h.update(payload)
        if not hmac.compare_digest(mac, h.digest()):
            self.stats["rejected"] += 1  # torn, truncated or not ours: rebuild
            return None
        try:
            head = json.loads(blob[len(_MAGIC): head_end])
        except ValueError:
            self.stats["rejected"] += 1
            return None
        if head.get("format") != self._format or head.get("sha256") != sha:
            return None
        collecting = gc.isenabled()
        gc.disable()  # a model is 10^5 fresh objects: collections while they are made only cost time
        try:
            decode = self.persist.decode
            item: T = decode(bytes(payload)) if decode is not None else pickle.loads(payload)  # noqa: S301 - MAC-verified
        except Exception:  # noqa: BLE001 - a model that no longer unpickles is a miss
            self.stats["rejected"] += 1
            return None
        finally:
            if collecting:
                gc.enable()
        try:
            os.utime(path)  # recency for trimming
        except OSError:
            pass
        return item

    def get(self, real: str, st: os.stat_result) -> T | None:
        """The stored model of ``real`` at its current version, or None."""
        try:
            pointer = self._read_pointer(real)
            if pointer and pointer.get("size") == st.st_size and pointer.get("mtime_ns") == st.st_mtime_ns:
                sha = str(pointer.get("sha256"))
            else:
                sha = _sha256_file(real)
                if self._entry_exists(sha):
                    self._write_pointer(real, st, sha)
            item = self._read_entry(sha)
        except OSError:
            item = None
        self.stats["hits" if item is not None else "misses"] += 1
        return item

    def _entry_exists(self, sha: str) -> bool:
        return (self.folder / f"e-{sha}").exists()

    def _write_pointer(self, real: str, st: os.stat_result, sha: str) -> None:
        data = json.dumps({"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": sha}).encode()
        _atomic_write(self.folder, self._pointer_name(real), data)

    def put(self, real: str, st: os.stat_result, item: T) -> None:
        """Store ``item`` as the model of ``real`` at version ``st``; errors are ignored."""
        try:
            sha = _sha256_file(real)
            after = os.stat(real)
            if (after.st_size, after.st_mtime_ns) != (st.st_size, st.st_mtime_ns):
                return  # the file changed while it was parsed: the model may not match the hash
            encode = self.persist.encode
            payload = encode(item) if encode is not None else pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL)
            folder = self.folder
            head = _MAGIC + json.dumps({"format": self._format, "sha256": sha}).encode() + b"\n"
            mac = hashlib.blake2b(head + payload, key=_mac_key(folder), digest_size=_MAC_BYTES).digest()
            _atomic_write(folder, f"e-{sha}", head + mac + payload)
            self._write_pointer(real, st, sha)
            self.stats["writes"] += 1
            self.trim()
        except (OSError, pickle.PicklingError, TypeError, ValueError):
            pass  # a cache that cannot write is only slower

    def trim(self) -> None:
        """Keep the folder under ``max_bytes``: drop the least recently used entries."""
        # Pointers count too: many files mean many pointers; a pointer to a dropped entry is
        # a miss, then a rebuild.
        trim_lru(self.folder, self.persist.max_bytes, tmp_prefix=".tmp-", entry_prefixes=("e-", "p-"))

    def clear(self) -> None:
        """Remove every stored entry and pointer of this cache."""
        folder = self.folder
        for path in folder.iterdir():
            if path.name.startswith(("e-", "p-", ".tmp-")):
                _unlink(path)


class KeyedStore:
    """Small derived values kept on disk by key, beside the parsed models (``<cache>/locate/<name>/``).

    For what a plugin derives from a document and something else, e.g. where a chunk's text
    aligns in a PDF: the key must name everything the value depends on (the document's content,
    the other input); ``version`` names the code (a change is a miss). Entries have
    ``DiskStore``'s format (keyed MAC over header and payload: torn, truncated or foreign
    entries are misses, never decoded), are written to a temp file and renamed into place,
    and the folder is trimmed to ``max_entries``, oldest written first, under a lock file
    (``mnote_kr.core.locks``) after one write in ``max_entries / _TRIM_SHARE`` (at random,
    ``one_in``). Every failure is a miss. ``reads``: older versions whose entries hold the same
    values (a version bumped for something that did not change them), read as this one's.
    """

    def __init__(self, name: str, version: str, max_entries: int = 50000, reads: tuple[str, ...] = ()) -> None:
        self.name = name
        self.version = version
        self.readable = (version, *reads)
        self.max_entries = max_entries
        self.stats = {"hits": 0, "misses": 0, "rejected": 0, "writes": 0}

    @property
    def folder(self) -> Path:
        """``<cache>/locate/<name>``, resolved on each use (``MNOTE_KR_HOME`` may change in tests)."""
        from mnote_kr.core.paths import cache_dir

        return cache_dir() / "locate" / self.name

    @staticmethod
    def _entry_name(key: str) -> str:
        return "k-" + hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=20).hexdigest()

    def get(self, key: str) -> bytes | None:
        """The value stored under ``key`` by this code version, or None."""
        if not _disk_enabled():
            return None
        folder = self.folder
        try:
            blob = (folder / self._entry_name(key)).read_bytes()
        except OSError:
            self.stats["misses"] += 1
            return None
        head_end = blob.find(b"\n", len(_MAGIC))
        ok = blob.startswith(_MAGIC) and head_end >= 0 and len(blob) >= head_end + 1 + _MAC_BYTES
        if ok:
            mac = blob[head_end + 1: head_end + 1 + _MAC_BYTES]
            body = blob[: head_end + 1] + blob[head_end + 1 + _MAC_BYTES:]
            try:
                want = hashlib.blake2b(body, key=_mac_key(folder), digest_size=_MAC_BYTES).digest()
                ok = hmac.compare_digest(mac, want)
            except OSError:
                ok = False
        head: Any = None
        if ok:
            try:
                head = json.loads(blob[len(_MAGIC): head_end])
            except ValueError:
                ok = False
        if not ok:
            self.stats["rejected"] += 1  # torn, truncated or not ours: recomputed by the caller
            return None
        if not isinstance(head, dict) or head.get("format") not in self.readable or head.get("key") != key:
            self.stats["misses"] += 1
            return None
        self.stats["hits"] += 1
        return blob[head_end + 1 + _MAC_BYTES:]

    def holds(self, key: str) -> bool:
        """Whether an entry of a readable version is stored under ``key``, by its header alone (no MAC
        check, no payload read: for counts such as ``status``; :meth:`get` still rejects a torn entry)."""
        if not _disk_enabled():
            return False
        try:
            with open(self.folder / self._entry_name(key), "rb") as f:
                start = f.read(4096)
        except OSError:
            return False
        head_end = start.find(b"\n", len(_MAGIC))
        if not start.startswith(_MAGIC) or head_end < 0:
            return False
        try:
            head = json.loads(start[len(_MAGIC): head_end])
        except ValueError:
            return False
        return isinstance(head, dict) and head.get("format") in self.readable and head.get("key") == key

    def put(self, key: str, value: bytes) -> None:
        """Store ``value`` under ``key`` (best effort: a cache that cannot write is only slower)."""
        if not _disk_enabled():
            return
        try:
            folder = self.folder
            folder.mkdir(parents=True, exist_ok=True)
            head = _MAGIC + json.dumps({"format": self.version, "key": key}).encode() + b"\n"
            mac = hashlib.blake2b(head + value, key=_mac_key(folder), digest_size=_MAC_BYTES).digest()
            _atomic_write(folder, self._entry_name(key), head + mac + value)
            self.stats["writes"] += 1
        except (OSError, ValueError):
            return
        if one_in(self.max_entries // _TRIM_SHARE):
            self.trim()

    def trim(self) -> None:
        """Keep at most ``max_entries`` entries, dropping the oldest written; one process at a time."""
        from mnote_kr.core.locks import exclusive

        folder = self.folder
        try:
            with exclusive(str(folder / ".trim.lock"), timeout=0.0):
                now = time.time()
                entries: list[tuple[float, str]] = []
                with os.scandir(folder) as it:
                    for de in it:
                        try:
                            mtime = de.stat().st_mtime
                        except OSError:
                            continue
                        if de.name.startswith("k-"):
                            entries.append((mtime, de.path))
                        elif de.name.startswith(".tmp-") and now - mtime > _STALE_TMP_S:
                            _unlink(Path(de.path))  # left by a killed process
                if len(entries) <= self.max_entries:
                    return
                entries.sort()
                for _, path in entries[: len(entries) - int(self.max_entries * 0.8)]:
                    _unlink(Path(path))
        except Exception:  # noqa: BLE001 - another process trims (lock timeout) or the folder is gone
            return


def trim_lru(folder: Path, limit: int, *, tmp_prefix: str, entry_prefixes: tuple[str, ...]) -> None:
    """Keep the entries of ``folder`` (names starting with ``entry_prefixes``) under ``limit``
    bytes: least recently used first, down to 80 % of it. Temp files (``tmp_prefix``) a killed
    process left are removed after an hour. Shared by the on-disk caches under ``<cache>/locate``."""
    now = time.time()
    entries: list[tuple[float, int, Path]] = []
    total = 0
    with os.scandir(folder) as it:
        for de in it:
            try:
                st = de.stat()
            except OSError:
                continue
            if de.name.startswith(tmp_prefix):
                if now - st.st_mtime > _STALE_TMP_S:  # left by a killed process
                    _unlink(Path(de.path))
                continue
            if de.name.startswith(entry_prefixes):
                total += st.st_size
                entries.append((st.st_mtime, st.st_size, Path(de.path)))
    if total <= limit:
        return
    entries.sort()
    for _, size, path in entries:
        if total <= limit * 0.8:
            break
        _unlink(path)
        total -= size


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


class FileCache(Generic[T]):
    """``get(path)`` returns ``load(real_path, stat)`` for the file's current version.

    ``what`` names the format in errors ("DOCX", "PDF", "text file"); ``weight`` measures
    an item against ``max_weight`` (e.g. its paragraph count). ``persist`` adds the
    on-disk cache (see the module docstring). ``stats`` counts parses and hits.
    """

    def __init__(self, load: Callable[[str, os.stat_result], T], *, what: str, max_items: int = 64,
                 weight: Callable[[T], int] | None = None, max_weight: int | None = None,
                 persist: Persist[T] | None = None) -> None:
        self._load = load
        self._what = what
        self._max_items = max_items
        self._weight = weight
        self._max_weight = max_weight
        self._items: OrderedDict[Key, T] = OrderedDict()
        self._weights: dict[Key, int] = {}
        self._total = 0
        self._lock = threading.Lock()
        self._disk: DiskStore[T] | None = DiskStore(persist) if persist is not None else None
        self.stats = {"parses": 0, "hits": 0}  # in-process; the disk store counts its own

    @property
    def disk(self) -> DiskStore[T] | None:
        """The on-disk store, or None when the plugin asked for none or it is turned off."""
        return self._disk if self._disk is not None and _disk_enabled() else None

    def _stat(self, path: str | os.PathLike[str]) -> tuple[str, os.stat_result]:
        spath = str(path)
        try:
            real = os.path.realpath(spath)
            return real, os.stat(real)
        except OSError as exc:
            raise DocumentError(f"cannot read {self._what}: {exc.strerror or exc}: {Path(spath).name}",
                                path=spath) from exc

    def get(self, path: str | os.PathLike[str]) -> T:
        real, st = self._stat(path)
        key = (real, st.st_size, st.st_mtime_ns)
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
                self.stats["hits"] += 1
                return hit
        # Parse (or read from disk) outside the lock: other documents stay available.
        disk = self.disk
        item = disk.get(real, st) if disk is not None else None
        if item is None:
            item = self._load(real, st)
            self.stats["parses"] += 1
            if disk is not None:
                disk.put(real, st, item)
        with self._lock:
            if key not in self._items:
                self._items[key] = item
                self._weights[key] = self._weight(item) if self._weight is not None else 0
                self._total += self._weights[key]
            for old in [k for k in self._items if k[0] == real and k != key]:
                self._drop(old)  # the file changed: its old version is dead weight
            while len(self._items) > 1 and self._over():
                self._drop(next(iter(self._items)))
        return item

    def warm(self, path: str | os.PathLike[str]) -> bool:
        """Make sure the on-disk cache holds ``path``'s current version; True when it was parsed now.

        Unlike ``get`` this keeps nothing in memory (ingest warms many files once each).
        Raises ``DocumentError`` like ``get``.
        """
        real, st = self._stat(path)
        disk = self.disk
        if disk is None or disk.get(real, st) is not None:
            return False
        item = self._load(real, st)
        self.stats["parses"] += 1
        disk.put(real, st, item)
        return True

    def _drop(self, key: Key) -> None:
        del self._items[key]
        self._total -= self._weights.pop(key)

    def _over(self) -> bool:
        if len(self._items) > self._max_items:
            return True
        return self._max_weight is not None and self._total > self._max_weight

    def clear(self) -> None:
        """Forget every document cached in memory (tests, memory pressure); the disk keeps its copies."""
        with self._lock:
            self._items.clear()
            self._weights.clear()
            self._total = 0
            for k in self.stats:
                self.stats[k] = 0


def _disk_enabled() -> bool:
    # MNOTE_KR_LOCATE_CACHE=0 turns the on-disk cache off (benchmarks of the parser itself).
    return os.environ.get("MNOTE_KR_LOCATE_CACHE", "1") not in ("0", "off", "false", "no")
