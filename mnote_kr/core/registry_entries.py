"""Registry entries in memory: a dict-like map over a packed snapshot, and views that answer
aggregate questions (counts by status, the failed or waiting entries, the live ones by provider
name) from the snapshot's columns instead of decoding every entry.

An :class:`EntryMap` value is either a decoded :class:`SourceEntry` (one the caller put) or
the index of an entry still as written in the packed snapshot; reading an entry decodes its
chunk into the shared :class:`~mnote_kr.core.registry_packed.PackedEntries` but leaves the
index in place, so "unchanged since the load" stays known: the columns answer for it, and the
next save copies its bytes.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable, ItemsView, Iterator, KeysView, Mapping, MutableMapping, Sequence, ValuesView
from typing import TypeVar, overload

from mnote_kr.core.registry_packed import PackedEntries
from mnote_kr.core.registry_tags import LIVE_TABLE, Note, entry_tag, is_citable_tag, is_live_tag, note_of, tag_table
from mnote_kr.models import EntryColumns, SourceEntry

_T = TypeVar("_T")


class EntryMap(MutableMapping[str, SourceEntry]):
    """Registry entries keyed by workspace-relative path, decoded lazily from a packed snapshot.

    Behaves like ``dict[str, SourceEntry]`` (insertion order, ``copy``). ``_loose`` holds the
    keys whose value is an entry object; ``_dropped`` the packed indices no key refers to any
    more (replaced or deleted): the columns of every other packed index still hold.
    """

    __slots__ = ("_data", "_packed", "_loose", "_dropped", "_shared")

    def __init__(self, entries: Mapping[str, SourceEntry] | None = None) -> None:
        self._data: dict[str, SourceEntry | int] = dict(entries) if entries else {}
        self._packed: PackedEntries | None = None
        self._loose: set[str] = set(self._data)
        self._dropped: set[int] = set()
        self._shared = False  # True while ``_data`` is the snapshot's own index: copied before a change

    @classmethod
    def from_packed(cls, keys: list[str], packed: PackedEntries) -> EntryMap:
        new = cls()
        new.rebase(keys, packed)
        return new

    def rebase(self, keys: list[str], packed: PackedEntries) -> None:
        """Point at a freshly written snapshot holding exactly these entries (after a save)."""
        # The key -> index dict is the snapshot's, shared with every map over it (a warm load
        # copies nothing) and copied only before a change; it is built at the first lookup
        # (``__getattr__``): hashing 100k keys costs as much as decoding the header, and
        # ``status`` only needs the columns.
        with contextlib.suppress(AttributeError):
            del self._data
        self._packed = packed
        self._loose = set()
        self._dropped = set()
        self._shared = True

    def __getattr__(self, name: str) -> dict[str, SourceEntry | int]:
        if name != "_data" or self._packed is None:
            raise AttributeError(name)
        self._data = self._packed.key_index()  # type: ignore[assignment]
        return self._data

    def _own(self) -> dict[str, SourceEntry | int]:
        """``_data``, copied first if it is the snapshot's shared index."""
        if self._shared:
            self._data = dict(self._data)
            self._shared = False
        return self._data

    def _indexed(self) -> bool:
        """Whether the key dict exists (else the map is exactly the packed keys, in order)."""
        try:
            object.__getattribute__(self, "_data")
        except AttributeError:
            return False
        return True

    def _untouched(self) -> PackedEntries | None:
        """The packed entries when every value still is its packed index, in order."""
        return self._packed if self._packed is not None and not self._loose and not self._dropped else None

    # -- the Mapping protocol, with dict speed where it matters

    def __getitem__(self, key: str) -> SourceEntry:
        value = self._data[key]
        return self._packed.entry(value) if type(value) is int else value  # type: ignore[union-attr,return-value]

    @overload
    def get(self, key: str, /) -> SourceEntry | None: ...
    @overload
    def get(self, key: str, /, default: SourceEntry | _T) -> SourceEntry | _T: ...

    def get(self, key: str, /, default: object = None) -> object:
        """As ``dict.get``; decodes the entry if it is still packed."""
        value = self._data.get(key)
        if value is None:
            return default
        return self._packed.entry(value) if type(value) is int else value  # type: ignore[union-attr]

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __setitem__(self, key: str, value: SourceEntry) -> None:
        data = self._own()
        old = data.get(key)
        if type(old) is int:
            self._dropped.add(old)
        data[key] = value
        self._loose.add(key)

    def __delitem__(self, key: str) -> None:
        old = self._own().pop(key)
        if type(old) is int:
            self._dropped.add(old)
        else:
            self._loose.discard(key)

    def __iter__(self) -> Iterator[str]:
        if not self._indexed():
            return iter(self._packed.keys)  # type: ignore[union-attr]
        return iter(self._data)

    def __len__(self) -> int:
        if not self._indexed():
            return len(self._packed)  # type: ignore[arg-type]
        return len(self._data)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (EntryMap, dict)):
            return dict(self.items()) == dict(other.items())
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"EntryMap({len(self)} entries)"

    def keys(self) -> KeysView[str]:
        return self._data.keys()

    def values(self) -> ValuesView[SourceEntry]:
        return _Values(self)

    def items(self) -> ItemsView[str, SourceEntry]:
        return _Items(self)

    def clear(self) -> None:
        self._data = {}
        self._shared = False
        self._packed = None
        self._loose.clear()
        self._dropped.clear()

    def copy(self) -> EntryMap:
        """An independent map over the same (shared, read-only) packed bytes."""
        new = EntryMap()
        new._packed = self._packed
        new._shared = self._shared
        if not self._indexed():
            del new._data  # a copy of an unread map stays unindexed
        else:
            new._data = self._data if self._shared else dict(self._data)
        new._loose = set(self._loose)
        new._dropped = set(self._dropped)
        return new

    def raw(self) -> tuple[list[str], list[SourceEntry | int], PackedEntries | None]:
        """Keys, values (entries or packed indices) and the packed entries (for a save)."""
        if not self._indexed():
            return list(self._packed.keys), list(range(len(self._packed))), self._packed  # type: ignore[union-attr,arg-type]
        return list(self._data), list(self._data.values()), self._packed

    # -- iteration: every entry decoded in one call when many are still packed

    def _decoder(self) -> Callable[[int], SourceEntry] | None:
        packed = self._packed
        if packed is None:
            return None
        if (len(self) - len(self._loose)) * 8 > len(packed):  # many: one bulk decode
            return packed.decode_all().__getitem__
        return packed.entry

    def _iter_values(self) -> Iterator[SourceEntry]:
        decode = self._decoder()
        if decode is None:
            return iter(self._data.values())  # type: ignore[arg-type]
        untouched = self._untouched()
        if untouched is not None and len(self) * 8 > len(untouched):
            return iter(untouched.decode_all())
        return (decode(v) if type(v) is int else v for v in self._data.values())  # type: ignore[misc]

    def _iter_items(self) -> Iterator[tuple[str, SourceEntry]]:
        untouched = self._untouched()
        if untouched is not None and len(self) * 8 > len(untouched):
            return zip(untouched.keys, untouched.decode_all(), strict=True)
        decode = self._decoder()
        if decode is None:
            return iter(self._data.items())  # type: ignore[arg-type]
        return ((k, decode(v) if type(v) is int else v) for k, v in self._data.items())  # type: ignore[misc]

    # -- aggregates from the columns: packed entries are not decoded

    def tag_counts(self) -> Counter[int]:
        """How many entries carry each tag (:func:`~mnote_kr.core.registry_tags.entry_tag`)."""
        counts: Counter[int] = Counter()
        packed = self._packed
        if packed is not None and len(self) > len(self._loose):
            tags = packed.tags()
            counts.update(tags)
            counts.subtract(tags[i] for i in self._dropped)
        counts.update(entry_tag(self._data[k]) for k in self._loose)  # type: ignore[arg-type]
        return +counts  # drops the zeros

    def select(self, pred: Callable[[int], bool]) -> list[SourceEntry]:
        """The entries whose tag satisfies ``pred``, in registry order; only those are decoded."""
        packed = self._packed
        hits: list[int] = []
        if packed is not None and len(self) > len(self._loose):
            dropped = self._dropped
            hits = [i for i in packed.select(tag_table(pred)) if i not in dropped]
        loose = {k for k in self._loose if pred(entry_tag(self._data[k]))}  # type: ignore[arg-type]
        if not loose:
            return [packed.entry(i) for i in hits]  # type: ignore[union-attr]
        wanted = {packed.keys[i] for i in hits} | loose if packed is not None else loose
        return [self[k] for k in self._data if k in wanted]

    def notes(self, pred: Callable[[int], bool]) -> list[tuple[str, Note]]:
        """(path, note) of the entries whose tag satisfies ``pred``, in registry order, from the
        ``notes`` column: no entry decoded. ``pred`` must imply ``is_noted_tag`` (queued,
        failed or fallback entries: the only ones the column holds)."""
        packed = self._packed
        found: list[tuple[str, Note]] = []
        if packed is not None and len(self) > len(self._loose):
            tags, dropped, keys = packed.tags(), self._dropped, packed.keys
            found = [(keys[n.index], n) for n in packed.notes() if pred(tags[n.index]) and n.index not in dropped]
        loose = [(k, note_of(-1, e)) for k in self._loose if pred(entry_tag(e := self._data[k]))]  # type: ignore[arg-type]
        if not loose:
            return found
        wanted = dict(found) | dict(loose)
        return [(k, wanted[k]) for k in self._data if k in wanted]

    def columns(self) -> EntryColumns:
        """Every entry's path, provider doc id and name, and liveness, without decoding entries."""
        packed = self._untouched()
        if packed is not None:
            return EntryColumns(packed.keys, packed.doc_ids(), packed.names(), packed.tags().translate(LIVE_TABLE))
        packed = self._packed
        ids, names, live = [], [], bytearray()
        p_ids, p_names, p_tags = (packed.doc_ids(), packed.names(), packed.tags()) if packed else ([], [], b"")
        for v in self._data.values():
            if type(v) is int:
                ids.append(p_ids[v])
                names.append(p_names[v])
                live.append(LIVE_TABLE[p_tags[v]])
            else:
                ids.append(v.light_rag_doc_id)  # type: ignore[union-attr]
                names.append(v.light_rag_file_path)  # type: ignore[union-attr]
                live.append(is_live_tag(entry_tag(v)))  # type: ignore[arg-type]
        return EntryColumns(list(self._data), ids, names, bytes(live))

    def live_by_name(self) -> LiveByName:
        """The citable entries (processed or being indexed, not stale) keyed by the provider's file name."""
        return LiveByName(self)


class _Values(ValuesView[SourceEntry]):
    _mapping: EntryMap

    def __iter__(self) -> Iterator[SourceEntry]:
        return self._mapping._iter_values()


class _Items(ItemsView[str, SourceEntry]):
    _mapping: EntryMap

    def __iter__(self) -> Iterator[tuple[str, SourceEntry]]:
        return self._mapping._iter_items()


class LiveByName(Mapping[str, SourceEntry]):
    """Citable entries (``registry_tags.is_citable_tag``: processed or being indexed, not stale)
    keyed by ``light_rag_file_path``; a lookup decodes one chunk.

    The packed part's name index is built once per snapshot (and shared by the copies a
    long-running process loads from its cache); entries put since the load override it.
    """

    def __init__(self, entries: EntryMap) -> None:
        self._packed = entries._packed
        self._dropped = entries._dropped
        self._base = self._packed.live_names() if self._packed is not None and len(entries) > len(entries._loose) \
            else {}
        self._extra: dict[str, SourceEntry] = {}
        for k in entries._loose:
            e: SourceEntry = entries._data[k]  # type: ignore[assignment]
            if e.light_rag_file_path and is_citable_tag(entry_tag(e)):
                self._extra[e.light_rag_file_path] = e

    def __getitem__(self, name: str) -> SourceEntry:
        e = self._extra.get(name)
        if e is not None:
            return e
        i = self._base[name]
        if i in self._dropped:
            raise KeyError(name)
        return self._packed.entry(i)  # type: ignore[union-attr]

    def __iter__(self) -> Iterator[str]:
        yield from self._extra
        for name, i in self._base.items():
            if name not in self._extra and i not in self._dropped:
                yield name

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, name: object) -> bool:
        try:
            self[name]  # type: ignore[index]
        except KeyError:
            return False
        return True


class EntrySequence(Sequence[SourceEntry]):
    """All entries as a read-only sequence decoded on first use, with :meth:`columns` for the
    callers (a provider's status) that only need paths, ids, names and liveness."""

    def __init__(self, entries: EntryMap) -> None:
        self._entries = entries
        self._list: list[SourceEntry] | None = None

    def _all(self) -> list[SourceEntry]:
        if self._list is None:
            self._list = list(self._entries.values())
        return self._list

    def columns(self) -> EntryColumns:
        """See :meth:`EntryMap.columns`."""
        return self._entries.columns()

    @overload
    def __getitem__(self, i: int) -> SourceEntry: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[SourceEntry]: ...

    def __getitem__(self, i: int | slice) -> SourceEntry | Sequence[SourceEntry]:
        return self._all()[i]

    def __iter__(self) -> Iterator[SourceEntry]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._entries)
