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

Version 4 is version 5 with each chunk only the array of maps (every chunkIds listed);
version 3 is ``[magic, 3, workspaceId, rootUri, updatedAtMs, indexedRoots, keys, starts, ends,
entries]`` with chunks of 256 and no columns (they are then derived from the entries, once).
Both still load, and the next save writes version 5.

**JSON (v2, and the seeds' v1)**: ``{"version", "workspaceId", "rootUri", "indexedRoots",
"entries", "updatedAtMs"}`` with camelCase fields, every chunk id listed. It is what
``mnote-kr registry export`` writes and ``registry import`` reads, and what older versions of
mnote-kr stored in ``lightrag-source-registry.json``; both still load (v1 is migrated).
"""

from __future__ import annotations

import gc
import os
import sys
import threading
import weakref
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable
from itertools import chain, compress
from operator import attrgetter
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple, get_args

import msgspec

from mnote_kr.core.idruns import IdRun, expand_runs, run_of
from mnote_kr.errors import RegistryCorruptError, RegistryError
from mnote_kr.models import REGISTRY_SCHEMA_VERSION, EntryStatus, IndexedRoot, RegistrySnapshot, SourceEntry

MAGIC = "mnote-kr-registry"
PACKED_VERSION = 5
READABLE_VERSIONS = (3, 4, 5)
_ARRAY32 = b"\xdd"  # MessagePack array32 marker: the entries blob is one decodable array
#: Entries per chunk. A lookup decodes one chunk; a save encodes (or copies) whole chunks, so
#: the per-entry Python work of both is gone while a lookup stays in the tens of microseconds.
#: 64, not 256: ``status`` lists the failed and waiting entries, which are spread over the
#: file; at 100,000 entries 150 of them decode 3.8x less with 64 (a bulk decode costs the same).
CHUNK = 64

# ---------------------------------------------------------------------------- entry tags

#: One byte per entry says what aggregates need: bits 0-3 the status (its index in
#: ``EntryStatus``; 15 for a status this version does not know), bit 4 ``stale``, bit 5 a
#: ``pending_action``, bit 6 a provider fallback kind (``*_fallback``).
STATUSES: tuple[str, ...] = get_args(EntryStatus)
_STATUS_CODE = {s: i for i, s in enumerate(STATUSES)}
UNKNOWN_STATUS = 15
STATUS_MASK, STALE, PENDING_ACTION, FALLBACK = 0x0F, 0x10, 0x20, 0x40


def entry_tag(e: SourceEntry) -> int:
    """The entry's tag byte (see ``STATUSES`` and the bit constants)."""
    return _tag_of((e.status, e.stale, e.pending_action, e.kind))


def _tag_of(fields: tuple[str, bool, str | None, str]) -> int:
    status, stale, pending_action, kind = fields
    return (_STATUS_CODE.get(status, UNKNOWN_STATUS) | (STALE if stale else 0)
            | (PENDING_ACTION if pending_action else 0) | (FALLBACK if kind.endswith("_fallback") else 0))


class _TagCache(dict[tuple[str, bool, "str | None", str], int]):
    """(status, stale, pending_action, kind) -> tag: a save tags 100k entries with C-level
    ``map`` calls instead of a Python call per entry (the combinations are few)."""

    def __missing__(self, key: tuple[str, bool, str | None, str]) -> int:
        if len(self) > 4096:  # free-form kinds or actions: never grow without bound
            self.clear()
        tag = self[key] = _tag_of(key)
        return tag


_tags_cache = _TagCache()
_tag_fields = attrgetter("status", "stale", "pending_action", "kind")
_get_name, _get_doc_id = attrgetter("light_rag_file_path"), attrgetter("light_rag_doc_id")
_get_chunk_ids = attrgetter("chunk_ids")


def entry_tags(entries: list[SourceEntry]) -> bytes:
    """:func:`entry_tag` of each entry."""
    return bytes(map(_tags_cache.__getitem__, map(_tag_fields, entries)))


def tag_status(tag: int) -> str | None:
    """The status a tag holds (None: unknown to this version, read the entry)."""
    code = tag & STATUS_MASK
    return STATUSES[code] if code < len(STATUSES) else None


def tag_table(pred: Callable[[int], bool]) -> bytes:
    """A ``bytes.translate`` table: tag -> 1 where ``pred(tag)``, else 0."""
    return bytes(1 if pred(t) else 0 for t in range(256))


def is_live_tag(tag: int) -> bool:
    """Citable: processed and not stale."""
    return tag & (STATUS_MASK | STALE) == _STATUS_CODE["processed"]


LIVE_TABLE = tag_table(is_live_tag)
#: What a search may cite: processed, or sent to the provider and not yet recorded as processed
#: (``submitted``, ``processing``). A passage the provider returns for such an entry comes from
#: the very version the entry names (its provider file name is chosen per content), and the
#: pipeline still drops a source changed on disk since; without it, a search after an ``ingest``
#: without ``--wait`` said "still indexing" of documents the provider had already answered from.
_CITABLE_CODES = frozenset(_STATUS_CODE[s] for s in ("processed", "submitted", "processing"))


def is_citable_tag(tag: int) -> bool:
    """Citable: processed or being indexed, and not stale (see ``_CITABLE_CODES``)."""
    return not tag & STALE and tag & STATUS_MASK in _CITABLE_CODES


CITABLE_TABLE = tag_table(is_citable_tag)
_PENDING_CODE, _FAILED_CODE, _REFUSED_CODE = _STATUS_CODE["pending"], _STATUS_CODE["failed"], _STATUS_CODE["refused"]


def is_noted_tag(tag: int) -> bool:
    """Whether the ``notes`` column holds the entry: queued, failed, refused or a fallback."""
    return bool(tag & (PENDING_ACTION | FALLBACK)) or tag & STATUS_MASK in (_PENDING_CODE, _FAILED_CODE,
                                                                           _REFUSED_CODE)


NOTED_TABLE = tag_table(is_noted_tag)

#: A ``refused`` entry is stored as status ``failed`` with this kind (its tag byte still says
#: ``refused``): a reader from before that status decodes it as a failed entry, where the new
#: status would make its decoder call the whole registry corrupt. Readers that know the status
#: turn it back (``_from_disk``); the kind of a file never sent is ``document``.
REFUSED_KIND = "refused"
_REFUSED_TABLE = tag_table(lambda tag: tag & STATUS_MASK == _REFUSED_CODE)


def _to_disk(entries: list[SourceEntry]) -> list[SourceEntry]:
    """``entries`` as stored: each ``refused`` one as ``failed`` with kind ``refused``."""
    if not any(e.status == "refused" for e in entries):
        return entries
    return [msgspec.structs.replace(e, status="failed", kind=REFUSED_KIND) if e.status == "refused" else e
            for e in entries]


def _from_disk(entries: list[SourceEntry], tags: bytes | None) -> None:
    """Turn stored refused entries back, in place (``tags``: theirs, or None to look at every entry)."""
    where = range(len(entries)) if tags is None else compress(range(len(entries)), tags.translate(_REFUSED_TABLE))
    for k in where:
        e = entries[k]
        if e.status == "failed" and e.kind == REFUSED_KIND:
            entries[k] = msgspec.structs.replace(e, status="refused", kind="document")


class Note(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """What ``status`` prints of a queued, failed or fallback entry (``index`` in the snapshot)."""

    index: int
    status: str
    pending_action: str | None
    last_error: str | None
    retry_count: int
    kind: str


def note_of(i: int, e: SourceEntry) -> Note:
    return Note(i, e.status, e.pending_action, e.last_error, e.retry_count, e.kind)


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
_chunk_decoder = msgspec.msgpack.Decoder(list[SourceEntry])
_chunks_decoder = msgspec.msgpack.Decoder(list[list[SourceEntry]])
#: A version-5 chunk: the entries (chunk ids kept as a run left out) and, for each, its run or nil.
_RunChunk = tuple[list[SourceEntry], list[IdRun | None]]
_run_chunk_decoder = msgspec.msgpack.Decoder(_RunChunk)
_run_chunks_decoder = msgspec.msgpack.Decoder(list[_RunChunk])
_column_decoder = msgspec.msgpack.Decoder(list[str | None])
_notes_decoder = msgspec.msgpack.Decoder(list[Note])
_json_decoder = msgspec.json.Decoder(RegistrySnapshot)
_json_probe = msgspec.json.Decoder(dict)
_json_encoder = msgspec.json.Encoder()


class BlobSource:
    """Where a loaded snapshot's entries are: an open file (its own descriptor, closed once read
    whole or when the snapshot is dropped), the offset and length, and the identity it had at load."""

    def __init__(self, fd: int, offset: int, length: int, identity: tuple[int, ...], path: Path) -> None:
        self.offset, self.length, self.identity, self.path = offset, length, identity, path
        self.fd = fd
        self._close = weakref.finalize(self, os.close, fd)

    def read_range(self, start: int, stop: int) -> bytes:
        """Bytes ``start:stop`` of the entries blob (one chunk), checked as :meth:`read` checks."""
        try:
            st = os.fstat(self.fd)
            data = os.pread(self.fd, stop - start, self.offset + 5 + start)
        except OSError as exc:
            raise RegistryError(f"Cannot read registry {self.path}: {exc.strerror}", path=self.path) from exc
        self._check(st)
        if len(data) != stop - start:
            raise _corrupt(self.path, ValueError("the entries are cut short"))
        return data

    def _check(self, st: os.stat_result) -> None:
        if (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns) != self.identity:
            raise RegistryError(f"The registry file was changed in place while in use: {self.path}", path=self.path,
                                hint="run the command again; replace a registry only with 'mnote-kr registry "
                                     "import' or 'registry restore', never by copying over the file")

    def read(self, chunks: int) -> memoryview:
        """The entries blob; checks that the file was not rewritten in place since the load."""
        try:
            st = os.fstat(self.fd)
            data = os.pread(self.fd, self.length + 5, self.offset)
        except OSError as exc:
            raise RegistryError(f"Cannot read registry {self.path}: {exc.strerror}", path=self.path) from exc
        finally:
            self._close()
        self._check(st)
        blob = memoryview(data)[5:]
        if len(data) != self.length + 5 or data[:5] != _bin32(self.length) \
                or bytes(blob[:5]) != _ARRAY32 + chunks.to_bytes(4, "big"):
            raise _corrupt(self.path, ValueError("the entries do not match the index"))
        return blob


_blob_lock = threading.Lock()


class PackedEntries:
    """The entries of one packed snapshot: read-only bytes in chunks, decoded at most once each.

    Shared by every :class:`~mnote_kr.core.registry_entries.EntryMap` made from the same load
    (the process cache hands out copies); the entries are frozen structs and the columns are
    never changed in place, so sharing them is safe.
    """

    __slots__ = ("_blob", "_source", "starts", "ends", "decoded", "path", "keys", "runs", "_tags", "_names",
                 "_doc_ids", "_notes", "_live_names", "_key_index", "__weakref__")

    def __init__(self, blob: memoryview | BlobSource, starts: array[int], ends: array[int], path: Path,
                 keys: list[str], *, runs: bool = True,
                 decoded: list[SourceEntry | None] | None = None, tags: bytes | None = None,
                 names: memoryview | list[str | None] | None = None,
                 doc_ids: memoryview | list[str | None] | None = None,
                 notes: memoryview | list[Note] | None = None) -> None:
        self._blob: memoryview | None = None if isinstance(blob, BlobSource) else blob
        self._source: BlobSource | None = blob if isinstance(blob, BlobSource) else None
        self.starts = starts  # index of each chunk's first entry, then the entry count
        self.ends = ends  # byte offset in ``blob`` where each chunk ends
        self.path = path
        self.keys = keys
        self.runs = runs  # version 5: each chunk is [entries, their chunk-id runs]; older: the entries
        self.decoded: list[SourceEntry | None] = decoded if decoded is not None else [None] * starts[-1]
        self._tags = tags
        self._names = names  # encoded until first asked for
        self._doc_ids = doc_ids
        self._notes = notes
        self._live_names: dict[str, int] | None = None
        self._key_index: dict[str, int] | None = None

    def __len__(self) -> int:
        return len(self.decoded)

    @property
    def blob(self) -> memoryview:
        """The entries' bytes, read from the loaded file on first use."""
        blob = self._blob
        if blob is None:
            with _blob_lock:  # threads of 'serve' may ask at once: read (and close the file) once
                if self._blob is None:
                    assert self._source is not None
                    self._blob = self._source.read(len(self.ends))
                    self._source = None
                blob = self._blob
        return blob

    def chunk_of(self, i: int) -> int:
        return bisect_right(self.starts, i) - 1

    def raw_chunk(self, c: int) -> memoryview:
        """The encoded bytes of chunk ``c``, from the whole blob (read now if it was not yet)."""
        return self.blob[self.ends[c - 1] if c else len(_ARRAY32) + 4 : self.ends[c]]

    def chunk_bytes(self, c: int) -> memoryview:
        """The encoded bytes of chunk ``c`` to decode: read alone from the file while the whole
        blob is not needed (a lookup by path reads one chunk, not the 45 MB of 100,000 entries)."""
        if self._blob is None:
            with _blob_lock:  # the whole blob read closes the descriptor: never pread it meanwhile
                if self._blob is None and self._source is not None:
                    return memoryview(self._source.read_range(self.ends[c - 1] if c else len(_ARRAY32) + 4,
                                                              self.ends[c]))
        return self.raw_chunk(c)

    def whole_chunk_at(self, values: list[SourceEntry | int], j: int) -> int:
        """The length of the chunk that ``values[j:]`` repeats unchanged from its start, else 0
        (always 0 for a snapshot of an older version: its chunks are laid out differently)."""
        first = values[j]
        if type(first) is not int or not self.runs:
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
                if self.runs:
                    chunk, ids = _run_chunk_decoder.decode(self.chunk_bytes(c))
                    _expand_runs(chunk, ids, self.path)
                else:
                    chunk = _chunk_decoder.decode(self.chunk_bytes(c))
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                raise _corrupt(self.path, exc) from exc
            if self._tags is not None and len(self._tags) >= stop:  # only v5 (with tags) holds refused ones
                _from_disk(chunk, self._tags[start:stop])
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
                if self.runs:
                    flat = []
                    for chunk, ids in _run_chunks_decoder.decode(self.blob):
                        _expand_runs(chunk, ids, self.path)
                        flat += chunk
                else:
                    flat = list(chain.from_iterable(_chunks_decoder.decode(self.blob)))
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                raise _corrupt(self.path, exc) from exc
            finally:
                if gc_was_enabled:
                    gc.enable()
            if len(flat) != len(self.decoded):
                raise _corrupt(self.path, ValueError(f"{len(flat)} entries, the index says {len(self.decoded)}"))
            if self._tags is not None and len(self._tags) == len(flat):
                _from_disk(flat, self._tags)
            self.decoded = flat  # type: ignore[assignment]
        return self.decoded  # type: ignore[return-value]

    # -- the columns (a v3 snapshot has none: they are derived from its entries, once)

    def tags(self) -> bytes:
        """One tag byte per entry (:func:`entry_tag`)."""
        if self._tags is None:
            self._tags = entry_tags(self.decode_all())
        return self._tags

    def names(self) -> list[str | None]:
        """Each entry's ``light_rag_file_path``."""
        self._names = self._column(self._names, "light_rag_file_path")
        return self._names

    def doc_ids(self) -> list[str | None]:
        """Each entry's ``light_rag_doc_id``."""
        self._doc_ids = self._column(self._doc_ids, "light_rag_doc_id")
        return self._doc_ids

    def _column(self, raw: memoryview | list[str | None] | None, field: str) -> list[str | None]:
        if isinstance(raw, list):
            return raw
        if raw is None:
            return [getattr(e, field) for e in self.decode_all()]
        try:
            column = _column_decoder.decode(raw)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise _corrupt(self.path, exc) from exc
        if len(column) != len(self.decoded):
            raise _corrupt(self.path, ValueError(f"the {field} column holds {len(column)} entries"))
        return column

    def notes(self) -> list[Note]:
        """The notes (see :class:`Note`) of the entries :func:`is_noted_tag` marks, by index."""
        raw = self._notes
        if isinstance(raw, list):
            return raw
        if raw is None:
            entries = self.decode_all()
            self._notes = [note_of(i, entries[i]) for i in self.select(NOTED_TABLE)]
            return self._notes
        try:
            self._notes = _notes_decoder.decode(raw)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise _corrupt(self.path, exc) from exc
        return self._notes

    def notes_between(self, start: int, stop: int) -> list[Note]:
        """The notes of entries ``start`` to ``stop - 1``."""
        notes = self.notes()
        lo = bisect_right(notes, start - 1, key=_note_index)
        return notes[lo : bisect_right(notes, stop - 1, key=_note_index)]

    def key_index(self) -> dict[str, int]:
        """Path -> entry index, built once per snapshot and shared (read-only) by every map over it."""
        if self._key_index is None:
            self._key_index = dict(zip(self.keys, range(len(self.keys)), strict=True))
        return self._key_index

    def live_names(self) -> dict[str, int]:
        """Provider name -> entry index of the citable entries (:func:`is_citable_tag`); built once."""
        if self._live_names is None:
            live = self.tags().translate(CITABLE_TABLE)
            found = dict(zip(compress(self.names(), live), compress(range(len(self.decoded)), live), strict=True))
            found.pop(None, None)
            found.pop("", None)
            self._live_names = found  # type: ignore[assignment]
        return self._live_names  # type: ignore[return-value]

    def select(self, table: bytes) -> Iterable[int]:
        """Indices of the entries whose tag ``table`` (see :func:`tag_table`) marks, in order."""
        return compress(range(len(self.decoded)), self.tags().translate(table))


def _expand_runs(entries: list[SourceEntry], runs: list[IdRun | None], path: Path) -> None:
    """Give the entries of a version-5 chunk the chunk ids stored as runs beside them."""
    if len(runs) != len(entries):
        raise _corrupt(path, ValueError(f"a chunk holds {len(entries)} entries and {len(runs)} chunk-id runs"))
    if not any(runs):
        return
    set_ids = msgspec.structs.force_setattr
    for e, ids in compress(zip(entries, expand_runs(runs), strict=True), runs):
        if e.chunk_ids:
            raise _corrupt(path, ValueError(f"{e.source_root_relative_path}: chunk ids both listed and a run"))
        set_ids(e, "chunk_ids", ids)


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
    out.write(_bin32(0))  # the entries' length, known at the end
    out.write(_ARRAY32 + len(plan).to_bytes(4, "big"))
    size = len(_ARRAY32) + 4
    buffer = bytearray()
    encode_into = _encoder.encode_into
    for c, step in enumerate(plan):
        if type(step) is int:
            assert old is not None
            size += out.write(old.raw_chunk(step))
        else:
            encode_into(_without_runs(_to_disk(step)), buffer, 0)  # type: ignore[arg-type]
            size += out.write(buffer)
        ends[c] = size
    out.seek(ends_at)
    out.write(_le(ends))
    out.seek(len(head))
    out.write(_bin32(size))
    return Written(keys, len(head), size, starts, ends, decoded, tags_b, names, doc_ids, notes)


def _note_index(note: Note) -> int:
    return note.index


def _bin32(size: int) -> bytes:
    return b"\xc6" + size.to_bytes(4, "big")


def _bin_prefix(size: int) -> bytes:
    """The MessagePack bin header msgspec writes before ``size`` bytes (the smallest that fits)."""
    if size < 1 << 8:
        return b"\xc4" + size.to_bytes(1, "big")
    if size < 1 << 16:
        return b"\xc5" + size.to_bytes(2, "big")
    return _bin32(size)


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
            raise _corrupt(path, exc) from exc
        _check_magic(v3.magic, v3.version if v3.version == 3 else -1, path)
        return v3, _packed(v3, v3.entries, path)
    if len(data) < length + 5 or data[length : length + 5] != _bin32(len(data) - length - 5):
        raise _corrupt(path, ValueError("the entries are cut short"))
    header = decode_header(data[:length], path)
    return header, _packed(header, memoryview(data)[length + 5 :], path)


def decode_header(head: bytes, path: Path) -> PackedHeader:
    """Decode the first ``headerLength`` bytes of a version-4 or -5 snapshot."""
    data = bytearray(head)
    data[0] = 0x9E  # the header's 14 fields, without the entries that follow them in the file
    try:
        header = _header_decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise _corrupt(path, exc) from exc
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
        blob_length = ends[-1] if ends else len(_ARRAY32) + 4
        if size != len(head) + 5 + blob_length:
            raise _corrupt(path, ValueError(f"{size} bytes, the index says {len(head) + 5 + blob_length}"))
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
        or not _rising(starts) or (ends and (ends[0] < len(_ARRAY32) + 4 or not _rising(ends)))
    if isinstance(blob, memoryview):
        bad = bad or (ends and ends[-1] != len(blob)) or bytes(blob[:5]) != _ARRAY32 + len(ends).to_bytes(4, "big")
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
            _from_disk(snap.entries, None)
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
    """The JSON export (v2, camelCase, the seeds' field names; refused entries as stored, ``_to_disk``)."""
    if any(e.status == "refused" for e in snapshot.entries):
        snapshot = msgspec.structs.replace(snapshot, entries=_to_disk(snapshot.entries))
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


def not_a_registry(path: Path, data: bytes) -> RegistryCorruptError:
    """A file that is neither a packed snapshot nor a JSON export (random bytes, another program's file)."""
    start = data[:8].hex(" ") or "nothing: it is empty"
    return RegistryCorruptError(f"Registry file is corrupt or not an mnote-kr registry: {path}: it is neither the "
                                f"packed (MessagePack) format nor a JSON export; it begins with {start}",
                                path=path, hint=corrupt_hint(path))


def _corrupt(path: Path, exc: Exception) -> RegistryCorruptError:
    return RegistryCorruptError(f"Registry file is corrupt: {path}: {exc}", path=path, hint=corrupt_hint(path))
