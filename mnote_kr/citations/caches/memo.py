"""Bounded LRUs of answers: kept per plugin set (``pipeline``'s locator and cleaning memos, :class:`Memo`), or
per object they were worked out from (a document's counts the locators read on every place, :class:`HolderMemo`)."""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
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


class HolderMemo(Generic[V]):
    """A bounded LRU of answers about an object (the ``holder``: a document), each remembered with its holder and
    given back only while the holder asked is that one (``is``): the memo holds the holder, so a key built from its
    ``id`` is not reused while remembered. The answer is worked out outside the lock (two threads may both work it
    out; the last one's is kept)."""

    def __init__(self, max_items: int) -> None:
        self._memo: OrderedDict[Hashable, tuple[object, V]] = OrderedDict()
        self._max = max_items
        self._lock = threading.Lock()

    def get(self, key: Hashable, holder: object, make: Callable[[], V]) -> V:
        """The answer remembered for ``key`` with ``holder``, else ``make()``'s, remembered."""
        with self._lock:
            hit = self._memo.get(key)
            if hit is not None and hit[0] is holder:
                self._memo.move_to_end(key)
                return hit[1]
        value = make()
        with self._lock:
            self._memo[key] = (holder, value)
            self._memo.move_to_end(key)
            while len(self._memo) > self._max:
                self._memo.popitem(last=False)
        return value
