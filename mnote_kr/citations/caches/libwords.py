"""Which words are common in this library: each word's document frequency over the workspace's files.

The weak rule (``noresults``) weighs a query's words by how few of the library's files hold them (an IDF over
this library, not over English): "report" held by every file says little of what a query asks, "cricket" held
by one says a lot, and a word no file holds says the library lacks what is asked.

Built from what ingest already reads: the places a locator queues at preparation (``prepare_locate`` ->
``meaning.queue``; :func:`collecting` gathers them per file), read with the ranking's ``terms`` (stemmed Latin
words, CJK bigrams) after ``join_cjk_gaps``, as the weak rule reads passages. A file counts once per word.

Kept in the workspace's index folder: each file's words in a file of its own (``libwords/<hash of its path>``,
read only to update: its old words are taken out of the counts when it changes or leaves), and the counts a search
reads (``libwords.msgpack``: the number of files and each word's), updated by subtracting a file's old words and
adding its new ones. Updating a file writes its own words (O(one file)); the counts are written once per batch
(:class:`Batch`: at its end, and every ``FLUSH_FILES`` files or ``FLUSH_S`` seconds of a long one), each write whole
(``core.atomic``: a killed write leaves the old file). A mark (``libwords.dirty``) is made before a file's words are
written and removed once the counts holding them are: found when an update starts (a process killed between the
two), the counts are made again from every file's words. :func:`note` when ingest prepares files (new or changed),
:func:`forget` when they are deleted or go stale. The counts are loaded once per process (again only when the file
on disk changed), when the weak rule first needs them; a lookup is a dict read per query word.

A file's text its locator queues no place for is read too (``HostPlaces._text_beyond_places``): a PDF's pages read by
OCR (from the recognition kept when the provider read it: the PDF's own locator queues only its text layer), and the
whole text its reader gives when the locator queues nothing (a workbook over ``MEANING_ROWS`` rows, a large deck). A
file no reader gives text for is not counted: the count of files (``files``) says how many are.
"""

from __future__ import annotations

import bisect
import hashlib
import math
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import msgspec

#: The counts' file in the workspace's index folder.
FILE_NAME = "libwords.msgpack"
#: The folder beside it holding each file's words, a file each.
WORDS_DIR = "libwords"
#: Made before a file's words are written or removed, removed once counts holding the change are written.
MARK_NAME = "libwords.dirty"
#: The format; files of another are read as none (counted again as files are prepared again). 3: a file's pages read by
#: OCR and the text of a file whose locator queues no places are counted (2 left them out: nc23c problem 1). 4: a
#: Russian word counted by its stem (``russian.russian_stem``), as the weak rule asks for it.
VERSION = 4
#: A long batch writes the counts after this many files changed, or this many seconds after the last write.
FLUSH_FILES = 500
FLUSH_S = 15.0


class _Counts(msgspec.Struct, array_like=True):
    version: int
    files: int
    df: dict[str, int]


class _Words(msgspec.Struct, array_like=True):
    version: int
    rel: str
    content_hash: str
    words: list[str]  # its distinct terms, sorted


class LibraryWords:
    """A library's document frequencies: ``files`` counted, ``df[term]`` files holding ``term``; ``by_file`` each
    file's (content hash, words) of a library kept in memory (``put``; on disk each file's are apart: ``Batch``)."""

    def __init__(self) -> None:
        self.by_file: dict[str, tuple[str, list[str]]] = {}
        self.df: dict[str, int] = {}
        self.files = 0

    @classmethod
    def counts(cls, files: int, df: dict[str, int]) -> LibraryWords:
        lib = cls()
        lib.files, lib.df = files, df
        return lib

    def add(self, words: Iterable[str]) -> None:
        """One more file, holding ``words`` (distinct)."""
        self.files += 1
        for w in words:
            self.df[w] = self.df.get(w, 0) + 1

    def remove(self, words: Iterable[str]) -> None:
        """A file counted with ``words`` leaves."""
        self.files -= 1
        for w in words:
            left = self.df.get(w, 0) - 1
            if left > 0:
                self.df[w] = left
            else:
                self.df.pop(w, None)

    def put(self, rel: str, content_hash: str, texts: Iterable[str]) -> None:
        """``rel``'s words now (its old ones taken out first)."""
        self.drop(rel)
        words = sorted(file_terms(texts))
        self.by_file[rel] = (content_hash, words)
        self.add(words)

    def drop(self, rel: str) -> bool:
        old = self.by_file.pop(rel, None)
        if old is not None:
            self.remove(old[1])
        return old is not None

    def idf(self, term: str) -> float:
        """How much ``term`` says in this library: ln((files + 1) / (df + 0.5)); a word no file holds weighs
        most, one every file holds about nothing."""
        return math.log((self.files + 1) / (self.df.get(term, 0) + 0.5))

    def held_idf(self, term: str) -> float:
        """:meth:`idf` of a word a passage found holds (or a file name found): some file holds it, whatever the
        counts say (a file whose words they miss), so never the weight of a word no file holds."""
        return math.log((self.files + 1) / (max(self.df.get(term, 0), 1) + 0.5))


def file_terms(texts: Iterable[str]) -> set[str]:
    """A file's distinct terms as the weak rule reads passages (``noresults._passage``: spaced CJK joined)."""
    from mnote_kr.citations.cleaning.copyable import join_cjk_gaps
    from mnote_kr.citations.rank.ranking import terms

    return {t for text in texts for t in terms(join_cjk_gaps(text))}


# ----------------------------------------------------------------------------- on disk, once per process

_memo: dict[Path, tuple[tuple[int, int], LibraryWords]] = {}
_lock = threading.Lock()


def path_in(index_dir: Path) -> Path:
    return Path(index_dir) / FILE_NAME


def load(index_dir: Path) -> LibraryWords | None:
    """The library's words kept in ``index_dir``, or None when none are (never prepared, unreadable)."""
    return load_file(path_in(index_dir))


#: The share of the library's indexed files the counts must hold for a search to read them: a workspace indexed before
#: they were kept (or with many files no locator reads) has counts of a few files, in which the others' words would
#: look lacking.
COUNTED_SHARE = 0.8


def outdated(index_dir: Path) -> bool:
    """The counts in ``index_dir`` are of another ``VERSION`` (or unreadable): kept by an older mnote-kr, read as none,
    so a search gets no library rules until every file is counted again (``HostPlaces.recount_words``). False when
    there are none (nothing prepared yet: ingest counts each file as it prepares it)."""
    try:
        raw = msgspec.msgpack.decode(path_in(index_dir).read_bytes())
    except FileNotFoundError:
        return False
    except (OSError, msgspec.DecodeError):
        return True
    return not (isinstance(raw, list) and raw and raw[0] == VERSION)


def for_search(index_dir: Path, indexed: int) -> LibraryWords | None:
    """The counts a search reads (:func:`load`), when they hold ``COUNTED_SHARE`` of the ``indexed`` files or more."""
    lib = load(index_dir)
    return lib if lib is not None and lib.files >= COUNTED_SHARE * indexed else None


def load_file(path: Path) -> LibraryWords | None:
    """:func:`load` of the file at ``path`` (a copy: ``benchmarks/libwords_offline.py --out``)."""
    path = Path(path)
    try:
        st = path.stat()
    except OSError:
        return None
    stamp = (st.st_mtime_ns, st.st_size)
    with _lock:
        got = _memo.get(path)
        if got is not None and got[0] == stamp:
            return got[1]
    stored = _read_counts(path)
    if stored is None:
        return None
    lib = LibraryWords.counts(stored.files, stored.df)
    with _lock:
        _memo[path] = (stamp, lib)
    return lib


T = TypeVar("T", _Counts, _Words)


def _read(path: Path, kind: type[T]) -> T | None:
    """``path`` decoded as ``kind`` in this ``VERSION``; None when missing, unreadable or of another format."""
    try:
        got = msgspec.msgpack.decode(path.read_bytes(), type=kind)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None
    return got if got.version == VERSION else None


def _read_counts(path: Path) -> _Counts | None:
    return _read(path, _Counts)


def note(index_dir: Path, prepared: dict[str, tuple[str, Sequence[str]]]) -> None:
    """Record the files just prepared (rel path -> (content hash, the places' texts)); the counts written once."""
    with Batch(index_dir) as batch:
        for rel, (content_hash, texts) in prepared.items():
            batch.put(rel, content_hash, texts)


def forget(index_dir: Path, rels: Iterable[str]) -> None:
    """Take the words of these files (deleted, changed, gone stale) out; no write when none was counted."""
    with Batch(index_dir) as batch:
        batch.drop(rels)


@dataclass
class _Updating:
    """The counts a process updates, as it last read or wrote them (``stamp``: the counts file's then)."""

    lib: LibraryWords
    stamp: tuple[int, int, int] | None
    unsaved: int  # files changed since the counts were written
    since: float  # when they were last written (or read)


_updating: dict[Path, _Updating] = {}
_writing = threading.RLock()


class Batch:
    """Files prepared or dropped in one pass: :meth:`put` and :meth:`drop` write each file's own words (or remove
    them) at once and update the counts in memory; the counts are written when the batch ends (``with``), and
    meanwhile every ``FLUSH_FILES`` files or ``FLUSH_S`` seconds."""

    def __init__(self, index_dir: Path, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.index_dir = Path(index_dir)
        self.clock = clock

    def __enter__(self) -> Batch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.flush()

    def put(self, rel: str, content_hash: str, texts: Iterable[str]) -> None:
        """``rel``'s words now: its old ones (read from its own file) leave the counts, its new ones come."""
        words = sorted(file_terms(texts))
        from mnote_kr.core import atomic

        with _writing:
            state = self._state()
            path = _words_path(self.index_dir, rel)
            old = self._old(state, path, rel)
            if old is not None and old.words == words:
                return
            self._mark()
            atomic.write_atomic(path, msgspec.msgpack.encode(_Words(VERSION, rel, content_hash, words)), private=True)
            if old is not None:
                state.lib.remove(old.words)
            state.lib.add(words)
            state.unsaved += 1
            due = state.unsaved >= FLUSH_FILES or self.clock() - state.since >= FLUSH_S
        if due:
            self.flush()

    def drop(self, rels: Iterable[str]) -> None:
        """These files' words leave the counts (and their own files go)."""
        if not (self.index_dir / WORDS_DIR).is_dir():
            return
        with _writing:
            state = self._state()
            for rel in rels:
                path = _words_path(self.index_dir, rel)
                old = self._old(state, path, rel)
                if old is None:
                    continue
                self._mark()
                path.unlink()
                state.lib.remove(old.words)
                state.unsaved += 1

    def flush(self) -> None:
        """Write the counts when they changed since last written; then the mark goes."""
        from mnote_kr.core import atomic

        with _writing:
            state = _updating.get(self.index_dir)
            if state is None or not state.unsaved:
                return
            path = path_in(self.index_dir)
            lib = state.lib
            atomic.write_atomic(path, msgspec.msgpack.encode(_Counts(VERSION, lib.files, lib.df)), private=True)
            state.stamp, state.unsaved, state.since = _stamp(path), 0, self.clock()
            st = path.stat()
            with _lock:  # a search in this process reads a copy, not the counts being updated
                _memo[path] = ((st.st_mtime_ns, st.st_size), LibraryWords.counts(lib.files, dict(lib.df)))
            (self.index_dir / MARK_NAME).unlink(missing_ok=True)

    def _state(self) -> _Updating:
        """The counts to update: this process's, unless another wrote the file since; read again then (or first),
        or made again from every file's words when an update was left unfinished (the mark) or none are readable."""
        path = path_in(self.index_dir)
        stamp = _stamp(path)
        state = _updating.get(self.index_dir)
        marked = (self.index_dir / MARK_NAME).exists()
        if state is not None and state.stamp == stamp and (state.unsaved or not marked):
            return state
        stored = None if marked or (state is not None and state.unsaved) else _read_counts(path)
        if stored is not None:
            state = _Updating(LibraryWords.counts(stored.files, stored.df), stamp, 0, self.clock())
        else:  # written at the batch's end, unless there were none to read
            state = _Updating(_rebuilt(self.index_dir), stamp, int(marked or stamp is not None), self.clock())
        _updating[self.index_dir] = state
        return state

    def _old(self, state: _Updating, path: Path, rel: str) -> _Words | None:
        """The words ``rel`` is counted with (None: not counted). A file of them unreadable here is removed and the
        counts made again from the others'."""
        if not path.exists():
            return None
        old = _read_words(path)
        if old is None or old.rel != rel:
            path.unlink(missing_ok=True)
            state.lib, state.unsaved = _rebuilt(self.index_dir), state.unsaved + 1
        return old if old is not None and old.rel == rel else None

    def _mark(self) -> None:
        mark = self.index_dir / MARK_NAME
        if not mark.exists():
            mark.parent.mkdir(parents=True, exist_ok=True)
            mark.touch()
        (self.index_dir / WORDS_DIR).mkdir(exist_ok=True)


def holding(index_dir: Path, wanted: Iterable[str]) -> list[tuple[str, str, int]]:
    """The files whose words (kept in ``index_dir``) hold every one of ``wanted`` (terms as :func:`file_terms` reads
    them): (rel path, content hash, how many distinct words the file holds) each, in no set order; [] for no term.

    Each file's own words are looked for in its bytes first (every term as msgpack writes it: a file lacking one
    lacks the term) and decoded only when all are there, so a search that asks reads the library's words files
    without decoding most of them: about 7 ms a search over the retrieval benchmark's 46 files (55,000 words, 520 KB)
    on a loaded machine (``benchmarks/held_words.py``)."""
    asked = sorted(set(wanted))
    if not asked:
        return []
    keys = [msgspec.msgpack.encode(t) for t in asked]
    try:
        names = os.listdir(Path(index_dir) / WORDS_DIR)
    except OSError:
        return []
    out = []
    for name in names:
        if not name.endswith(".msgpack"):
            continue  # a temporary file of a write killed
        try:
            raw = (Path(index_dir) / WORDS_DIR / name).read_bytes()
        except OSError:
            continue
        if not all(k in raw for k in keys):
            continue
        try:
            got = msgspec.msgpack.decode(raw, type=_Words)
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
        if got.version == VERSION and all(_holds(got.words, t) for t in asked):
            out.append((got.rel, got.content_hash, len(got.words)))
    return out


def counted(index_dir: Path, rels: Iterable[str]) -> bool:
    """Every one of ``rels`` has its words kept in ``index_dir`` (what :func:`holding` reads covers them all)."""
    return all(_words_path(Path(index_dir), rel).is_file() for rel in rels)


def _holds(words: Sequence[str], term: str) -> bool:
    """``term`` is among ``words`` (sorted, as a file's are kept)."""
    at = bisect.bisect_left(words, term)
    return at < len(words) and words[at] == term


def _words_path(index_dir: Path, rel: str) -> Path:
    name = hashlib.blake2b(rel.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    return index_dir / WORDS_DIR / f"{name}.msgpack"


def _read_words(path: Path) -> _Words | None:
    return _read(path, _Words)


def _rebuilt(index_dir: Path) -> LibraryWords:
    """The counts made from every file's words kept in ``index_dir`` (a file of them unreadable is removed)."""
    lib = LibraryWords()
    try:
        names = os.listdir(index_dir / WORDS_DIR)
    except OSError:
        return lib
    for name in names:
        if not name.endswith(".msgpack"):
            continue  # a temporary file of a write killed
        got = _read_words(index_dir / WORDS_DIR / name)
        if got is None:
            (index_dir / WORDS_DIR / name).unlink(missing_ok=True)
        else:
            lib.add(got.words)
    return lib


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


# ----------------------------------------------------------------------------- gathering at preparation

_gathered = threading.local()


@contextmanager
def collecting(*, only: bool = False) -> Iterator[list[str]]:
    """The places' texts the locators queue in this thread while it is open (``meaning.queue`` calls
    :func:`heard`), gathered into the list it yields; ``only``: they are not queued for embedding either (``mnote-kr
    locate`` reading a file's places, which embeds nothing)."""
    got: list[str] = []
    before = getattr(_gathered, "texts", None), getattr(_gathered, "only", False)
    _gathered.texts, _gathered.only = got, only
    try:
        yield got
    finally:
        _gathered.texts, _gathered.only = before


def heard(texts: Sequence[str]) -> bool:
    """A locator queued these texts: kept when a :func:`collecting` is open in this thread; whether that one keeps
    them from being embedded (``only``)."""
    got = getattr(_gathered, "texts", None)
    if got is not None:
        got.extend(texts)
    return got is not None and bool(getattr(_gathered, "only", False))
