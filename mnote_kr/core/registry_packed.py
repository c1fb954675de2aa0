"""Reading a packed registry snapshot's entries: lazily, one chunk at a time, and checked.

A loaded snapshot keeps its entries blob where it is (in memory, or in the open file a
:class:`BlobSource` names) and a :class:`PackedEntries` decodes a chunk the first time one
of its entries is read; the columns (tags, names, doc ids, notes) are decoded on first use.
The layout is described in :mod:`mnote_kr.core.registry_format`. What a damaged or foreign
file reports (and how to recover) is here too, since reading is where damage is found.
"""

from __future__ import annotations

import gc
import os
import threading
import weakref
from array import array
from bisect import bisect_right
from collections.abc import Iterable
from itertools import chain, compress
from pathlib import Path

import msgspec

from mnote_kr.core.idruns import IdRun, expand_runs
from mnote_kr.core.registry_tags import CITABLE_TABLE, NOTED_TABLE, Note, entry_tags, from_disk, note_of
from mnote_kr.errors import RegistryCorruptError, RegistryError
from mnote_kr.models import SourceEntry

ARRAY32 = b"\xdd"  # MessagePack array32 marker: the entries blob is one decodable array
_chunk_decoder = msgspec.msgpack.Decoder(list[SourceEntry])
_chunks_decoder = msgspec.msgpack.Decoder(list[list[SourceEntry]])
#: A version-5 chunk: the entries (chunk ids kept as a run left out) and, for each, its run or nil.
_RunChunk = tuple[list[SourceEntry], list[IdRun | None]]
_run_chunk_decoder = msgspec.msgpack.Decoder(_RunChunk)
_run_chunks_decoder = msgspec.msgpack.Decoder(list[_RunChunk])
_column_decoder = msgspec.msgpack.Decoder(list[str | None])
_notes_decoder = msgspec.msgpack.Decoder(list[Note])


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
            raise corrupt_error(self.path, ValueError("the entries are cut short"))
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
        if len(data) != self.length + 5 or data[:5] != bin32(self.length) \
                or bytes(blob[:5]) != ARRAY32 + chunks.to_bytes(4, "big"):
            raise corrupt_error(self.path, ValueError("the entries do not match the index"))
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
        return self.blob[self.ends[c - 1] if c else len(ARRAY32) + 4 : self.ends[c]]

    def chunk_bytes(self, c: int) -> memoryview:
        """The encoded bytes of chunk ``c`` to decode: read alone from the file while the whole
        blob is not needed (a lookup by path reads one chunk, not the 45 MB of 100,000 entries)."""
        if self._blob is None:
            with _blob_lock:  # the whole blob read closes the descriptor: never pread it meanwhile
                if self._blob is None and self._source is not None:
                    return memoryview(self._source.read_range(self.ends[c - 1] if c else len(ARRAY32) + 4,
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
                raise corrupt_error(self.path, exc) from exc
            if self._tags is not None and len(self._tags) >= stop:  # only v5 (with tags) holds refused ones
                from_disk(chunk, self._tags[start:stop])
            if len(chunk) != stop - start:
                raise corrupt_error(self.path, ValueError(f"chunk {c} holds {len(chunk)} entries, not {stop - start}"))
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
                raise corrupt_error(self.path, exc) from exc
            finally:
                if gc_was_enabled:
                    gc.enable()
            if len(flat) != len(self.decoded):
                raise corrupt_error(self.path, ValueError(f"{len(flat)} entries, the index says {len(self.decoded)}"))
            if self._tags is not None and len(self._tags) == len(flat):
                from_disk(flat, self._tags)
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
            raise corrupt_error(self.path, exc) from exc
        if len(column) != len(self.decoded):
            raise corrupt_error(self.path, ValueError(f"the {field} column holds {len(column)} entries"))
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
            raise corrupt_error(self.path, exc) from exc
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
        raise corrupt_error(path, ValueError(f"a chunk holds {len(entries)} entries and {len(runs)} chunk-id runs"))
    if not any(runs):
        return
    set_ids = msgspec.structs.force_setattr
    for e, ids in compress(zip(entries, expand_runs(runs), strict=True), runs):
        if e.chunk_ids:
            raise corrupt_error(path, ValueError(f"{e.source_root_relative_path}: chunk ids both listed and a run"))
        set_ids(e, "chunk_ids", ids)


def _note_index(note: Note) -> int:
    return note.index


def bin32(size: int) -> bytes:
    return b"\xc6" + size.to_bytes(4, "big")

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


def corrupt_error(path: Path, exc: Exception) -> RegistryCorruptError:
    return RegistryCorruptError(f"Registry file is corrupt: {path}: {exc}", path=path, hint=corrupt_hint(path))
