"""The registry's on-disk formats: the packed binary snapshot (v5) and the JSON export (v1, v2).

**Packed snapshot (v5)**, ``lightrag-source-registry.msgpack``: one MessagePack array ::

    ["mnote-kr-registry", 5,
     headerLength,  # bin 8: little-endian uint64, the byte offset of the last field (`entries`)
     workspaceId, rootUri, updatedAtMs, indexedRoots,
     keys,      # the entries' workspace-relative paths, in registry order
     starts,    # bin: little-endian uint64 index of each chunk's first entry, then the count
     ends,      # bin: little-endian uint64 end offset of each chunk inside `entries`
     tags,      # bin: one byte per entry: status, stale, pending action, fallback (entry_tag)
     names,     # bin: a MessagePack array, each entry's lightRagFilePath (or nil)
     docIds,    # bin: a MessagePack array, each entry's lightRagDocId (or nil)
     notes,     # bin: a MessagePack array of [index, status, pendingAction, lastError, retryCount,
                #      kind] for the entries status lists (waiting, failed, fallback), by index
     entries]   # bin: itself a MessagePack array of chunks; a chunk is [maps, runs]: at most CHUNK
                #      entries, each a map with the JSON export's camelCase fields (defaults omitted),
                #      and for each entry nil or the run its chunkIds are ([prefix, start, count,
                #      width], mnote_kr/core/idruns.py), which its map then leaves out

Loading reads and decodes the header (up to ``headerLength``) only; an entry's chunk is read
from the same open file when the entry is first read (a save renaming a new file into place
meanwhile changes nothing), the whole entries blob when all are. An :class:`EntryMap` keeps
every entry as an index into those bytes and decodes its chunk on first access (a lookup by
path decodes one chunk; iterating decodes them all in one call). The four columns answer
what ``status`` and ``search`` ask of every entry (counts by status, the failed and waiting
ones with their reasons, the provider's names and ids) without decoding any entry. Saving
copies the bytes of chunks whose entries were all left unchanged instead of encoding them again.

The tag byte and the notes column are defined in :mod:`mnote_kr.core.registry_tags`; reading
the entries lazily (and what a damaged file reports) in :mod:`mnote_kr.core.registry_packed`;
this module writes snapshots and decodes their headers and the JSON export.

Version 4 is version 5 with each chunk only the array of maps (every chunkIds listed);
version 3 is ``[magic, 3, workspaceId, rootUri, updatedAtMs, indexedRoots, keys, starts, ends,
entries]`` with chunks of 256 and no columns (they are then derived from the entries, once).
Both still load, and the next save writes version 5.

**JSON (v2, and the first format, v1)**: ``{"version", "workspaceId", "rootUri", "indexedRoots",
"entries", "updatedAtMs"}`` with camelCase fields, every chunk id listed. It is what
``mnote-kr registry export`` writes and ``registry import`` reads, and what older versions of
mnote-kr stored in ``lightrag-source-registry.json``; both still load (v1 is migrated).
"""

from __future__ import annotations

import os
import sys
from array import array
from itertools import compress
from operator import attrgetter
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

import msgspec

from mnote_kr.core.idruns import run_of
from mnote_kr.core.registry_packed import (
    ARRAY32,
    BlobSource,
    PackedEntries,
    bin32,
    corrupt_error,
    corrupt_hint,
)
from mnote_kr.core.registry_tags import NOTED_TABLE, Note, entry_tags, from_disk, note_of, to_disk
from mnote_kr.core.registry_tags import STALE as STALE  # re-exported: read from here by host and citations
from mnote_kr.core.registry_tags import entry_tag as entry_tag
from mnote_kr.core.registry_tags import is_citable_tag as is_citable_tag
from mnote_kr.core.registry_tags import tag_status as tag_status
from mnote_kr.errors import RegistryCorruptError
from mnote_kr.models import REGISTRY_SCHEMA_VERSION, IndexedRoot, RegistrySnapshot, SourceEntry

MAGIC = "mnote-kr-registry"
PACKED_VERSION = 5
READABLE_VERSIONS = (3, 4, 5)
#: Entries per chunk. A lookup decodes one chunk; a save encodes (or copies) whole chunks, so
#: the per-entry Python work of both is gone while a lookup stays in the tens of microseconds.
#: 64, not 256: ``status`` lists the failed and waiting entries, which are spread over the
#: file; at 100,000 entries 150 of them decode 3.8x less with 64 (a bulk decode costs the same).
CHUNK = 64

_get_name, _get_doc_id = attrgetter("light_rag_file_path"), attrgetter("light_rag_doc_id")
_get_chunk_ids = attrgetter("chunk_ids")


class _V3Header(msgspec.Struct, array_like=True):
    """A version-3 snapshot (read only)."""

    magic: str
    version: int
    workspace_id: str
    root_uri: str
    updated_at_ms: int
    indexed_roots: list[IndexedRoot]
    keys: list[str]
    starts: bytes
    ends: bytes
    entries: memoryview


class PackedHeader(msgspec.Struct, array_like=True):
    """A version-4 or -5 snapshot without its last field (the entries, read on demand)."""

    magic: str
    version: int
    header_length: bytes  # 8 bytes: a fixed width, so the writer can fill it in afterwards
    workspace_id: str
    root_uri: str
    updated_at_ms: int
    indexed_roots: list[IndexedRoot]
    keys: list[str]
    starts: bytes
    ends: bytes
    tags: bytes
    names: memoryview
    doc_ids: memoryview
    notes: memoryview


#: The bytes before ``headerLength``'s value: array of 15, the magic, the version, bin 8.
_MAGIC_PREFIX = b"\x9f\xb1" + MAGIC.encode()
_HEADED_PREFIXES = tuple(_MAGIC_PREFIX + bytes([v]) + b"\xc4\x08" for v in (4, 5))  # the versions with a header
_V5_PREFIX = _HEADED_PREFIXES[-1]
PREFIX_SIZE = len(_V5_PREFIX) + 8


def header_length(prefix: bytes) -> int | None:
    """The header length a version-4 or -5 file's first ``PREFIX_SIZE`` bytes state (else None)."""
    if len(prefix) < PREFIX_SIZE or not prefix.startswith(_HEADED_PREFIXES):
        return None
    return int.from_bytes(prefix[len(_V5_PREFIX) : PREFIX_SIZE], "little")


_encoder = msgspec.msgpack.Encoder()
_header_decoder = msgspec.msgpack.Decoder(PackedHeader)
_v3_decoder = msgspec.msgpack.Decoder(_V3Header)
_json_decoder = msgspec.json.Decoder(RegistrySnapshot)
_json_probe = msgspec.json.Decoder(dict)
_json_encoder = msgspec.json.Encoder()


def _without_runs(entries: list[SourceEntry]) -> tuple[list[SourceEntry], list[tuple[str, int, int, int] | None]]:
    """The entries to write and their chunk-id runs: an entry whose chunk ids are a run
    (:func:`~mnote_kr.core.idruns.run_of`) is written as a copy without them, the run beside it."""
    runs = list(map(run_of, map(_get_chunk_ids, entries)))
    if not any(runs):
        return entries, runs
    stored = list(entries)
    set_ids = msgspec.structs.force_setattr
    for k in compress(range(len(runs)), runs):
        stored[k] = bare = entries[k].__copy__()  # type: ignore[attr-defined]  # shallow: cheaper than replace
        set_ids(bare, "chunk_ids", [])
    return stored, runs


# ---------------------------------------------------------------------------- packed (v5)


class Written(NamedTuple):
    """What :func:`write_packed` wrote: the index and columns of the entries it laid out."""

    keys: list[str]
    blob_offset: int  # where the entries' bin field starts in the file
    blob_length: int
    starts: array[int]
    ends: array[int]
    decoded: list[SourceEntry | None]
    tags: bytes
    names: list[str | None]
    doc_ids: list[str | None]
    notes: list[Note]

    def packed(self, source: BlobSource, path: Path) -> PackedEntries:
        """The entries as the written file holds them (the decoded ones kept), read from ``source``."""
        return PackedEntries(source, self.starts, self.ends, path, self.keys, decoded=self.decoded, tags=self.tags,
                             names=self.names, doc_ids=self.doc_ids, notes=self.notes)


def write_packed(out: BinaryIO, workspace_id: str, root_uri: str, updated_at_ms: int, roots: list[IndexedRoot],
                 keys: list[str], values: list[SourceEntry | int], old: PackedEntries | None) -> Written:
    """Write a packed snapshot of ``keys`` -> ``values`` (an entry, or an index into ``old``) to
    ``out``, an empty file open for writing and seeking.

    Chunks whose entries all are unchanged (consecutive indices of a whole chunk of ``old``) are
    copied as bytes, with their columns. The header, whose columns are known before any entry is
    encoded, is written first with its chunk offsets zero, the entries chunk by chunk through one
    reused buffer (a 100,000-entry snapshot is never built in memory), then the offsets and the
    entries' length are written in their places.
    """
    n = len(values)
    plan: list[int | list[SourceEntry]] = []  # an old chunk to copy, or entries to encode
    starts = array("Q", [0])
    decoded: list[SourceEntry | None] = []
    tags = bytearray()
    names: list[str | None] = []
    doc_ids: list[str | None] = []
    notes: list[Note] = []
    j = 0
    while j < n:
        reused = old.whole_chunk_at(values, j) if old is not None else 0
        if reused:
            assert old is not None
            first = values[j]
            assert type(first) is int
            plan.append(old.chunk_of(first))
            decoded += old.decoded[first : first + reused]
            tags += old.tags()[first : first + reused]
            names += old.names()[first : first + reused]
            doc_ids += old.doc_ids()[first : first + reused]
            shift = j - first
            notes += (msgspec.structs.replace(note, index=note.index + shift) if shift else note
                      for note in old.notes_between(first, first + reused))
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
            entries: list[SourceEntry] = group  # type: ignore[assignment]
            plan.append(entries)
            decoded += entries
            tags_new = entry_tags(entries)
            tags += tags_new
            names += map(_get_name, entries)
            doc_ids += map(_get_doc_id, entries)
            noted = compress(range(len(entries)), tags_new.translate(NOTED_TABLE))
            notes += (note_of(j + k, entries[k]) for k in noted)
            j += len(entries)
        starts.append(j)
    tags_b = bytes(tags)
    columns = (_encoder.encode(names), _encoder.encode(doc_ids), _encoder.encode(notes))
    ends = array("Q", bytes(8 * len(plan)))  # filled in as the chunks are written
    head = bytearray(_encoder.encode(PackedHeader(
        MAGIC, PACKED_VERSION, bytes(8), workspace_id, root_uri, updated_at_ms, roots, keys, _le(starts), _le(ends),
        tags_b, *(memoryview(c) for c in columns))))
    # One more array element after the 14 of the header: the entries, written after it.
    assert head.startswith(b"\x9e" + _V5_PREFIX[1:])
    head[0] = 0x9F
    head[len(_V5_PREFIX) : PREFIX_SIZE] = len(head).to_bytes(8, "little")
    ends_at = len(head) - sum(_bin_size(len(c)) for c in (tags_b, *columns)) - len(ends) * 8  # where `ends`' bytes are
    ends_prefix = _bin_prefix(len(ends) * 8)
    assert head[ends_at - len(ends_prefix) : ends_at] == ends_prefix
    out.write(head)
    out.write(bin32(0))  # the entries' length, known at the end
    out.write(ARRAY32 + len(plan).to_bytes(4, "big"))
    size = len(ARRAY32) + 4
    buffer = bytearray()
    encode_into = _encoder.encode_into
    for c, step in enumerate(plan):
        if type(step) is int:
            assert old is not None
            size += out.write(old.raw_chunk(step))
        else:
            encode_into(_without_runs(to_disk(step)), buffer, 0)  # type: ignore[arg-type]
            size += out.write(buffer)
        ends[c] = size
    out.seek(ends_at)
    out.write(_le(ends))
    out.seek(len(head))
    out.write(bin32(size))
    return Written(keys, len(head), size, starts, ends, decoded, tags_b, names, doc_ids, notes)



def _bin_prefix(size: int) -> bytes:
    """The MessagePack bin header msgspec writes before ``size`` bytes (the smallest that fits)."""
    if size < 1 << 8:
        return b"\xc4" + size.to_bytes(1, "big")
    if size < 1 << 16:
        return b"\xc5" + size.to_bytes(2, "big")
    return bin32(size)


def _bin_size(size: int) -> int:
    """The bytes a bin field of ``size`` bytes takes, header included."""
    return len(_bin_prefix(size)) + size


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


def decode_packed(data: bytes, path: Path) -> tuple[PackedHeader | _V3Header, PackedEntries]:
    """Decode a whole packed snapshot's header; entries and columns stay packed until read."""
    length = header_length(data[:PREFIX_SIZE])
    if length is None:
        try:
            v3 = _v3_decoder.decode(data)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise corrupt_error(path, exc) from exc
        _check_magic(v3.magic, v3.version if v3.version == 3 else -1, path)
        return v3, _packed(v3, v3.entries, path)
    if len(data) < length + 5 or data[length : length + 5] != bin32(len(data) - length - 5):
        raise corrupt_error(path, ValueError("the entries are cut short"))
    header = decode_header(data[:length], path)
    return header, _packed(header, memoryview(data)[length + 5 :], path)


def decode_header(head: bytes, path: Path) -> PackedHeader:
    """Decode the first ``headerLength`` bytes of a version-4 or -5 snapshot."""
    data = bytearray(head)
    data[0] = 0x9E  # the header's 14 fields, without the entries that follow them in the file
    try:
        header = _header_decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise corrupt_error(path, exc) from exc
    _check_magic(header.magic, header.version, path)
    return header


class HeaderOnly(NamedTuple):
    """A version-4 or -5 file's header bytes and an open descriptor (owned) to read its entries from."""

    fd: int
    head: bytes
    identity: tuple[int, ...]  # (device, inode, size, mtime) at load


def decode_header_from(loaded: HeaderOnly, path: Path) -> tuple[PackedHeader, PackedEntries]:
    """A version-4 or -5 snapshot from its header; its entries are read from the descriptor when first needed."""
    fd, head, identity = loaded
    size = identity[2]
    try:
        header = decode_header(head, path)
        ends = _from_le(header.ends)
        blob_length = ends[-1] if ends else len(ARRAY32) + 4
        if size != len(head) + 5 + blob_length:
            raise corrupt_error(path, ValueError(f"{size} bytes, the index says {len(head) + 5 + blob_length}"))
    except BaseException:
        os.close(fd)
        raise
    return header, _packed(header, BlobSource(fd, len(head), blob_length, identity, path), path)


def _check_magic(magic: str, version: int, path: Path) -> None:
    if magic != MAGIC or version not in READABLE_VERSIONS:
        raise RegistryCorruptError(
            f"Registry file is not a version-{PACKED_VERSION} mnote-kr registry: {path}", path=path,
            hint="it was written by another program or a newer mnote-kr; " + corrupt_hint(path))


def _rising(values: array[int]) -> bool:
    """Never decreasing: the chunk offsets a damaged header could send a read (pread) anywhere with."""
    return all(a <= b for a, b in zip(values, values[1:]))  # noqa: B905 - one shorter by design


def _packed(header: PackedHeader | _V3Header, blob: memoryview | BlobSource, path: Path) -> PackedEntries:
    starts, ends = _from_le(header.starts), _from_le(header.ends)
    n = len(header.keys)
    bad = len(starts) != len(ends) + 1 or starts[0] != 0 or starts[-1] != n \
        or (isinstance(header, PackedHeader) and len(header.tags) != n) \
        or not _rising(starts) or (ends and (ends[0] < len(ARRAY32) + 4 or not _rising(ends)))
    if isinstance(blob, memoryview):
        bad = bad or (ends and ends[-1] != len(blob)) or bytes(blob[:5]) != ARRAY32 + len(ends).to_bytes(4, "big")
    if bad:
        raise RegistryCorruptError(f"Registry file is corrupt: {path}: the entry index does not match",
                                   path=path, hint=corrupt_hint(path))
    if isinstance(header, PackedHeader):
        return PackedEntries(blob, starts, ends, path, header.keys, runs=header.version >= 5, tags=header.tags,
                             names=header.names, doc_ids=header.doc_ids, notes=header.notes)
    return PackedEntries(blob, starts, ends, path, header.keys, runs=False)


# ---------------------------------------------------------------------------- JSON (v1, v2)


def migrate(raw: dict[str, Any]) -> dict[str, Any]:
    """Bring an older JSON snapshot's builtins up to the current schema.

    v1 (the first format) called ``mtimeNs`` ``mtime`` (seconds, float) and had no
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
            from_disk(snap.entries, None)
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
        raise corrupt_error(path, exc) from exc


def encode_json(snapshot: RegistrySnapshot) -> bytes:
    """The JSON export (v2, camelCase, v1's field names; refused entries as stored, ``to_disk``)."""
    if any(e.status == "refused" for e in snapshot.entries):
        snapshot = msgspec.structs.replace(snapshot, entries=to_disk(snapshot.entries))
    return _json_encoder.encode(snapshot)
