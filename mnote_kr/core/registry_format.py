"""The registry's on-disk formats: the packed binary snapshot (v3) and the JSON export (v1, v2).

**Packed snapshot (v3)**, ``lightrag-source-registry.msgpack``: one MessagePack array ::

    ["mnote-kr-registry", 3, workspaceId, rootUri, updatedAtMs, indexedRoots,
     keys,      # the entries' workspace-relative paths, in registry order
     starts,    # bin: little-endian uint64 index of each chunk's first entry, then the count
     ends,      # bin: little-endian uint64 end offset of each chunk inside `entries`
     entries]   # bin: itself a MessagePack array of chunks (arrays of at most 256 entries),
                #      each entry a map with the JSON export's camelCase fields (defaults omitted)

Loading decodes the header and the key list only: an :class:`EntryMap` keeps every entry as
an index into the file's bytes and decodes its chunk on first access (a lookup by path decodes
one chunk; iterating decodes them all in one call). Saving copies the bytes of chunks whose
entries were all left unchanged instead of encoding them again. Most commands touch a handful of
entries, so a 100,000-entry registry loads without building 100,000 objects (and without freeing
them later).

**JSON (v2, and the seeds' v1)**: ``{"version", "workspaceId", "rootUri", "indexedRoots",
"entries", "updatedAtMs"}`` with camelCase fields. It is what ``mnote-kr registry export``
writes and ``registry import`` reads, and what older versions of mnote-kr stored in
``lightrag-source-registry.json``; both still load (v1 is migrated).
"""

from __future__ import annotations

import gc
import sys
from array import array
from bisect import bisect_right
from collections.abc import ItemsView, Iterator, KeysView, MutableMapping, ValuesView
from itertools import chain
from pathlib import Path
from typing import Any, NamedTuple, TypeVar, cast, overload

import msgspec

from mnote_kr.errors import RegistryCorruptError
from mnote_kr.models import REGISTRY_SCHEMA_VERSION, IndexedRoot, RegistrySnapshot, SourceEntry

MAGIC = "mnote-kr-registry"
PACKED_VERSION = 3
_T = TypeVar("_T")
_ARRAY32 = b"\xdd"  # MessagePack array32 marker: the entries blob is one decodable array
#: Entries per chunk. A lookup decodes one chunk; a save encodes (or copies) whole chunks, so
#: the per-entry Python work of both is gone while a lookup stays in the tens of microseconds.
CHUNK = 256


class _HeaderHead(msgspec.Struct, array_like=True):
    """The header without its last field: the entries blob is written after it, uncopied."""

    magic: str
    version: int
    workspace_id: str
    root_uri: str
    updated_at_ms: int
    indexed_roots: list[IndexedRoot]
    keys: list[str]
    starts: bytes
    ends: bytes


class PackedHeader(_HeaderHead, array_like=True):
    """The packed snapshot as MessagePack sees it (see the module docstring)."""

    entries: memoryview  # a view into the file's bytes: no copy at load


_encoder = msgspec.msgpack.Encoder()
_header_decoder = msgspec.msgpack.Decoder(PackedHeader)
_entry_decoder = msgspec.msgpack.Decoder(SourceEntry)
_chunk_decoder = msgspec.msgpack.Decoder(list[SourceEntry])
_chunks_decoder = msgspec.msgpack.Decoder(list[list[SourceEntry]])
_json_decoder = msgspec.json.Decoder(RegistrySnapshot)
_json_probe = msgspec.json.Decoder(dict)
_json_encoder = msgspec.json.Encoder()


class PackedEntries:
    """The entries of one packed snapshot: read-only bytes in chunks, decoded at most once each.

    Shared by every :class:`EntryMap` made from the same load (the process cache hands out
    copies); the entries are frozen structs, so sharing the decoded ones is safe.
    """

    __slots__ = ("blob", "starts", "ends", "decoded", "path")

    def __init__(self, blob: memoryview, starts: array[int], ends: array[int], path: Path,
                 decoded: list[SourceEntry | None] | None = None) -> None:
        self.blob = blob
        self.starts = starts  # index of each chunk's first entry, then the entry count
        self.ends = ends  # byte offset in ``blob`` where each chunk ends
        self.path = path
        self.decoded: list[SourceEntry | None] = decoded if decoded is not None else [None] * starts[-1]

    def chunk_of(self, i: int) -> int:
        return bisect_right(self.starts, i) - 1

    def raw_chunk(self, c: int) -> memoryview:
        """The encoded bytes of chunk ``c`` (a MessagePack array of entries)."""
        return self.blob[self.ends[c - 1] if c else len(_ARRAY32) + 4 : self.ends[c]]

    def whole_chunk_at(self, values: list[SourceEntry | int], j: int) -> int:
        """The length of the chunk that ``values[j:]`` repeats unchanged from its start, else 0."""
        first = values[j]
        if type(first) is not int:
            return 0
        c = self.chunk_of(first)
        start, stop = self.starts[c], self.starts[c + 1]
        if first != start or values[j : j + stop - start] != list(range(start, stop)):
            return 0
        return stop - start

    def entry(self, i: int) -> SourceEntry:
        """Entry ``i``, its chunk decoded now if it was not yet."""
        entry = self.decoded[i]
        if entry is None:
            c = self.chunk_of(i)
            start, stop = self.starts[c], self.starts[c + 1]
            try:
                chunk = _chunk_decoder.decode(self.raw_chunk(c))
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                raise _corrupt(self.path, exc) from exc
            if len(chunk) != stop - start:
                raise _corrupt(self.path, ValueError(f"chunk {c} holds {len(chunk)} entries, not {stop - start}"))
            self.decoded[start:stop] = chunk
            entry = self.decoded[i]
        return entry  # type: ignore[return-value]

    def decode_all(self) -> list[SourceEntry]:
        """Every entry, in one decoder call (what iterating a whole registry needs)."""
        if None in self.decoded:
            gc_was_enabled = gc.isenabled()
            gc.disable()  # 100k acyclic objects: collections during the decode are pure overhead
            try:
                flat = list(chain.from_iterable(_chunks_decoder.decode(self.blob)))
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                raise _corrupt(self.path, exc) from exc
            finally:
                if gc_was_enabled:
                    gc.enable()
            if len(flat) != len(self.decoded):
                raise _corrupt(self.path, ValueError(f"{len(flat)} entries, the index says {len(self.decoded)}"))
            self.decoded = flat  # type: ignore[assignment]
        return self.decoded  # type: ignore[return-value]


class EntryMap(MutableMapping[str, SourceEntry]):
    """Registry entries keyed by workspace-relative path, decoded lazily from a packed snapshot.

    Behaves like ``dict[str, SourceEntry]`` (insertion order, ``copy``); a value is either a
    decoded entry or, until first read, the index of its bytes in :class:`PackedEntries`.
    """

    __slots__ = ("_data", "_packed")

    def __init__(self, entries: dict[str, SourceEntry] | None = None) -> None:
        self._data: dict[str, SourceEntry | int] = dict(entries) if entries else {}
        self._packed: PackedEntries | None = None

    @classmethod
    def from_packed(cls, keys: list[str], packed: PackedEntries) -> EntryMap:
        new = cls()
        new._data = dict(zip(keys, range(len(keys)), strict=True))
        new._packed = packed
        return new

    def _resolve(self, key: str, value: SourceEntry | int) -> SourceEntry:
        if type(value) is int:
            assert self._packed is not None
            entry = self._packed.entry(value)
            self._data[key] = entry  # replacing a value never changes the dict's size
            return entry
        return value  # type: ignore[return-value]

    def _materialize(self) -> None:
        """Decode every still-packed entry at once (before iterating values)."""
        packed = self._packed
        if packed is None:
            return
        pending = [(k, v) for k, v in self._data.items() if type(v) is int]
        if not pending:
            return
        if len(pending) * 8 > len(packed.decoded):  # many: one bulk decode beats chunk by chunk
            decoded = packed.decode_all()
            if len(pending) == len(decoded) == len(self._data):  # untouched since the load
                self._data = dict(zip(self._data, decoded, strict=True))
                return
            for k, i in pending:
                self._data[k] = decoded[i]
        else:
            for k, i in pending:
                self._data[k] = packed.entry(i)

    # -- the Mapping protocol, with dict speed where it matters

    def __getitem__(self, key: str) -> SourceEntry:
        return self._resolve(key, self._data[key])

    @overload
    def get(self, key: str, /) -> SourceEntry | None: ...
    @overload
    def get(self, key: str, /, default: SourceEntry | _T) -> SourceEntry | _T: ...

    def get(self, key: str, /, default: object = None) -> object:
        """As ``dict.get``; decodes the entry if it is still packed."""
        value = self._data.get(key)
        return default if value is None else self._resolve(key, value)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __setitem__(self, key: str, value: SourceEntry) -> None:
        self._data[key] = value

    def __delitem__(self, key: str) -> None:
        del self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EntryMap):
            self._materialize()
            other._materialize()
            return self._data == other._data
        if isinstance(other, dict):
            self._materialize()
            return self._data == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"EntryMap({len(self._data)} entries)"

    def keys(self) -> KeysView[str]:
        return self._data.keys()

    def values(self) -> ValuesView[SourceEntry]:
        self._materialize()
        return self._data.values()  # type: ignore[return-value]

    def items(self) -> ItemsView[str, SourceEntry]:
        self._materialize()
        return self._data.items()  # type: ignore[return-value]

    def clear(self) -> None:
        self._data.clear()

    def copy(self) -> EntryMap:
        """An independent map over the same (shared, read-only) packed bytes."""
        new = EntryMap()
        new._data = dict(self._data)
        new._packed = self._packed
        return new

    def rebase(self, keys: list[str], packed: PackedEntries) -> None:
        """Point at a freshly written snapshot holding exactly these entries (after a save)."""
        self._data = dict(zip(keys, range(len(keys)), strict=True))
        self._packed = packed


# ---------------------------------------------------------------------------- packed (v3)


class Encoded(NamedTuple):
    """A packed snapshot ready to write: ``parts`` concatenated are the file's bytes."""

    parts: tuple[bytes, bytes, bytearray]
    keys: list[str]
    packed: PackedEntries  # the entries as read back from these bytes (decoded ones kept)


def encode_packed(workspace_id: str, root_uri: str, updated_at_ms: int, roots: list[IndexedRoot],
                  entries: EntryMap, path: Path) -> Encoded:
    """Encode a packed snapshot. Chunks whose entries all are unchanged are copied as bytes."""
    keys = list(entries._data)
    values = list(entries._data.values())
    n = len(values)
    blob = bytearray(len(_ARRAY32) + 4)  # the chunk count is known at the end
    starts, ends = array("Q", [0]), array("Q")
    decoded: list[SourceEntry | None] = []
    old = entries._packed
    encode_into = _encoder.encode_into
    j = 0
    while j < n:
        reused = old.whole_chunk_at(values, j) if old is not None else 0
        if reused:
            assert old is not None
            first = cast(int, values[j])
            blob += old.raw_chunk(old.chunk_of(first))
            decoded += old.decoded[first : first + reused]
            j += reused
        else:
            group = values[j : j + CHUNK]
            if old is not None:
                # Stop before the next whole old chunk (copied as is); decode packed stragglers.
                for k in range(1, len(group)):
                    if old.whole_chunk_at(values, j + k):
                        group = group[:k]
                        break
                group = [old.entry(v) if type(v) is int else v for v in group]
            encode_into(group, blob, -1)
            decoded += cast(list[SourceEntry], group)
            j += len(group)
        ends.append(len(blob))
        starts.append(j)
    blob[: len(_ARRAY32) + 4] = _ARRAY32 + len(ends).to_bytes(4, "big")
    head = bytearray(_encoder.encode(_HeaderHead(MAGIC, PACKED_VERSION, workspace_id, root_uri, updated_at_ms,
                                                 roots, keys, _le(starts), _le(ends))))
    # One more array element: the entries blob as bin 32 (0x9a = fixarray of 10, was 9).
    assert head[0] == 0x99
    head[0] = 0x9A
    bin32 = b"\xc6" + len(blob).to_bytes(4, "big")
    return Encoded((bytes(head), bin32, blob), keys,
                   PackedEntries(memoryview(blob), starts, ends, path, decoded))


def _le(numbers: array[int]) -> bytes:
    """Little-endian bytes of an array of uint64."""
    if sys.byteorder == "little":
        return numbers.tobytes()
    swapped = array("Q", numbers)
    swapped.byteswap()
    return swapped.tobytes()


def _from_le(data: bytes) -> array[int]:
    numbers = array("Q")
    numbers.frombytes(data)
    if sys.byteorder != "little":
        numbers.byteswap()
    return numbers


def is_packed(data: bytes) -> bool:
    """Packed snapshots start with a MessagePack array; JSON with ``{`` or whitespace."""
    return bool(data) and 0x90 <= data[0] <= 0x9F


def decode_packed(data: bytes, path: Path) -> tuple[PackedHeader, PackedEntries]:
    """Decode a packed snapshot's header and key list; entries stay packed until read."""
    try:
        header = _header_decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise _corrupt(path, exc) from exc
    if header.magic != MAGIC or header.version != PACKED_VERSION:
        raise RegistryCorruptError(
            f"Registry file is not a version-{PACKED_VERSION} mnote-kr registry: {path}", path=path,
            hint="it was written by another program or a newer mnote-kr; " + corrupt_hint(path))
    starts, ends, blob = _from_le(header.starts), _from_le(header.ends), header.entries
    if len(starts) != len(ends) + 1 or starts[0] != 0 or starts[-1] != len(header.keys) \
            or (ends and ends[-1] != len(blob)) or bytes(blob[:5]) != _ARRAY32 + len(ends).to_bytes(4, "big"):
        raise RegistryCorruptError(f"Registry file is corrupt: {path}: the entry index does not match",
                                   path=path, hint=corrupt_hint(path))
    return header, PackedEntries(blob, starts, ends, path)


# ---------------------------------------------------------------------------- JSON (v1, v2)


def migrate(raw: dict[str, Any]) -> dict[str, Any]:
    """Bring an older JSON snapshot's builtins up to the current schema.

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


def decode_json(data: bytes, path: Path) -> RegistrySnapshot:
    """Decode a JSON snapshot (v2, or v1 migrated). Raises ``RegistryCorruptError``."""
    try:
        snap = _json_decoder.decode(data)
        if snap.version == REGISTRY_SCHEMA_VERSION:
            return snap
        return msgspec.convert(migrate(msgspec.to_builtins(snap)), RegistrySnapshot)
    except msgspec.ValidationError:
        try:
            raw = _json_probe.decode(data)
            return msgspec.convert(migrate(raw), RegistrySnapshot)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise RegistryCorruptError(f"Registry file is unreadable: {path}: {exc}", path=path,
                                       hint=corrupt_hint(path)) from exc
    except msgspec.DecodeError as exc:
        raise _corrupt(path, exc) from exc


def encode_json(snapshot: RegistrySnapshot) -> bytes:
    """The JSON export (v2, camelCase, the seeds' field names)."""
    return _json_encoder.encode(snapshot)


# ---------------------------------------------------------------------------- errors


def rebuild_hint(index_dir: Path) -> str:
    return (f"no older generation is kept: move {index_dir} aside, then 'mnote-kr roots add' your folders "
            "and 'mnote-kr ingest' them again (your files are not touched)")


def corrupt_hint(path: Path) -> str:
    """What to do about a corrupt file: restore from ``.prev``, unless this *is* the ``.prev``."""
    if path.name.endswith(".prev"):
        return rebuild_hint(path.parent)
    return f"the previous generation is {path}.prev; 'mnote-kr registry restore' puts it back"


def _corrupt(path: Path, exc: Exception) -> RegistryCorruptError:
    return RegistryCorruptError(f"Registry file is corrupt: {path}: {exc}", path=path, hint=corrupt_hint(path))
