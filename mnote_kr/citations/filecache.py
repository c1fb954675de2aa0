"""A small LRU of parsed documents keyed by (real path, size, mtime), for locator plugins.

Repeated citations into one document must not re-parse it; a changed file (new size or
mtime) is parsed again and its old version dropped. Thread-safe; bounded by count and
by an optional per-item weight (paragraphs, bytes).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

from mnote_kr.errors import DocumentError

T = TypeVar("T")
Key = tuple[str, int, int]


class FileCache(Generic[T]):
    """``get(path)`` returns ``load(real_path, stat)`` for the file's current version.

    ``what`` names the format in errors ("DOCX", "PDF", "text file"); ``weight`` measures
    an item against ``max_weight`` (e.g. its paragraph count). ``stats`` counts parses and hits.
    """

    def __init__(self, load: Callable[[str, os.stat_result], T], *, what: str, max_items: int = 64,
                 weight: Callable[[T], int] | None = None, max_weight: int | None = None) -> None:
        self._load = load
        self._what = what
        self._max_items = max_items
        self._weight = weight
        self._max_weight = max_weight
        self._items: OrderedDict[Key, T] = OrderedDict()
        self._weights: dict[Key, int] = {}
        self._total = 0
        self._lock = threading.Lock()
        self.stats = {"parses": 0, "hits": 0}

    def get(self, path: str | os.PathLike[str]) -> T:
        spath = str(path)
        try:
            real = os.path.realpath(spath)
            st = os.stat(real)
        except OSError as exc:
            raise DocumentError(f"cannot read {self._what}: {exc.strerror or exc}: {Path(spath).name}",
                                path=spath) from exc
        key = (real, st.st_size, st.st_mtime_ns)
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
                self.stats["hits"] += 1
                return hit
        item = self._load(real, st)  # parse outside the lock: other documents stay available
        with self._lock:
            self.stats["parses"] += 1
            if key not in self._items:
                self._items[key] = item
                self._weights[key] = self._weight(item) if self._weight is not None else 0
                self._total += self._weights[key]
            for old in [k for k in self._items if k[0] == real and k != key]:
                self._drop(old)  # the file changed: its old version is dead weight
            while len(self._items) > 1 and self._over():
                self._drop(next(iter(self._items)))
        return item

    def _drop(self, key: Key) -> None:
        del self._items[key]
        self._total -= self._weights.pop(key)

    def _over(self) -> bool:
        if len(self._items) > self._max_items:
            return True
        return self._max_weight is not None and self._total > self._max_weight

    def clear(self) -> None:
        """Forget every cached document (tests, memory pressure)."""
        with self._lock:
            self._items.clear()
            self._weights.clear()
            self._total = 0
            self.stats["parses"] = 0
            self.stats["hits"] = 0
