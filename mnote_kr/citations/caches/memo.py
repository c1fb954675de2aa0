"""A bounded LRU of answers kept per plugin set (``pipeline``'s locator and cleaning memos)."""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from mnote_kr.plugins import Plugins

V = TypeVar("V")


class Memo(Generic[V]):
    """A bounded LRU of answers, one per plugin set (another configuration answers anew)."""

    def __init__(self, max_items: int) -> None:
        self._by_plugins: weakref.WeakKeyDictionary[Plugins, OrderedDict[Any, V]] = weakref.WeakKeyDictionary()
        self._max = max_items
        self._lock = threading.Lock()

    def get(self, plugins: Plugins, key: Any) -> V | None:
        with self._lock:
            memo = self._by_plugins.get(plugins)
            hit = memo.get(key) if memo is not None else None
            if hit is not None and memo is not None:
                memo.move_to_end(key)
            return hit

    def put(self, plugins: Plugins, key: Any, value: V) -> None:
        with self._lock:
            memo = self._by_plugins.setdefault(plugins, OrderedDict())
            memo[key] = value
            while len(memo) > self._max:
                memo.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._by_plugins.clear()
