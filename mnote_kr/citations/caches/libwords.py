"""Which words are common in this library: each word's document frequency over the workspace's files.

The weak rule (``noresults``) weighs a query's words by how few of the library's files hold them (an IDF over
this library, not over English): "report" held by every file says little of what a query asks, "cricket" held
by one says a lot, and a word no file holds says the library lacks what is asked.

Built from what ingest already reads: the places a locator queues at preparation (``prepare_locate`` ->
``meaning.queue``; :func:`collecting` gathers them per file), read with the ranking's ``terms`` (stemmed Latin
words, CJK bigrams) after ``join_cjk_gaps``, as the weak rule reads passages. A file counts once per word.

Kept beside the registry in two files, each written whole (``core.atomic``: a killed write leaves the old file):
the counts a search reads (``libwords.msgpack``: the number of files and each word's), and each file's words, read
only to update them (``libwords-files.msgpack``; the counts are made again from it at each update, so counts left
behind by a write killed between the two are mended by the next). Updated per file: :func:`note` when ingest
prepares a file (new or changed: its old words are taken out first), :func:`forget` when it is deleted or goes
stale. The counts are loaded once per process (again only when the file on disk changed), when the weak rule first
needs them; a lookup is a dict read per query word.

A file whose locator queues no places (a workbook over ``MEANING_ROWS`` rows, a PDF without a text layer) is not
counted: its words are unknown here, and the count of files (``files``) says how many are.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import msgspec

#: The file's name in the workspace's index folder.
FILE_NAME = "libwords.msgpack"
#: Each file's words, beside it.
FILES_NAME = "libwords-files.msgpack"
#: The format; a file of another is read as empty (rebuilt as files are prepared again).
VERSION = 1


class _Counts(msgspec.Struct, array_like=True):
    version: int
    files: int
    df: dict[str, int]


class _Files(msgspec.Struct, array_like=True):
    version: int
    files: dict[str, tuple[str, list[str]]]  # rel path -> (content hash, its distinct terms, sorted)


class LibraryWords:
    """A library's document frequencies: ``files`` counted, ``df[term]`` files holding ``term``; ``by_file`` each
    file's (content hash, words), when read for an update (a search reads only the counts: ``counts``)."""

    def __init__(self, files: dict[str, tuple[str, list[str]]] | None = None) -> None:
        self.by_file: dict[str, tuple[str, list[str]]] = dict(files or {})
        self.df: dict[str, int] = {}
        self._files = 0
        for _, words in self.by_file.values():
            for w in words:
                self.df[w] = self.df.get(w, 0) + 1

    @classmethod
    def counts(cls, files: int, df: dict[str, int]) -> LibraryWords:
        lib = cls()
        lib._files, lib.df = files, df
        return lib

    @property
    def files(self) -> int:
        return len(self.by_file) or self._files

    def put(self, rel: str, content_hash: str, texts: Iterable[str]) -> None:
        """``rel``'s words now (its old ones taken out first)."""
        self.drop(rel)
        words = sorted(file_terms(texts))
        self.by_file[rel] = (content_hash, words)
        for w in words:
            self.df[w] = self.df.get(w, 0) + 1

    def drop(self, rel: str) -> bool:
        old = self.by_file.pop(rel, None)
        if old is None:
            return False
        for w in old[1]:
            left = self.df[w] - 1
            if left:
                self.df[w] = left
            else:
                del self.df[w]
        return True

    def idf(self, term: str) -> float:
        """How much ``term`` says in this library: ln((files + 1) / (df + 0.5)); a word no file holds weighs
        most, one every file holds about nothing."""
        return math.log((self.files + 1) / (self.df.get(term, 0) + 0.5))


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


def _files_path(index_dir: Path) -> Path:
    return Path(index_dir) / FILES_NAME


def load(index_dir: Path) -> LibraryWords | None:
    """The library's words kept in ``index_dir``, or None when none are (never prepared, unreadable)."""
    return load_file(path_in(index_dir))


#: The share of the library's indexed files the counts must hold for a search to read them: a workspace indexed before
#: they were kept (or with many files no locator reads) has counts of a few files, in which the others' words would
#: look lacking.
COUNTED_SHARE = 0.8


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
    try:
        stored = msgspec.msgpack.decode(path.read_bytes(), type=_Counts)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None
    if stored.version != VERSION:
        return None
    lib = LibraryWords.counts(stored.files, stored.df)
    with _lock:
        _memo[path] = (stamp, lib)
    return lib


def _save(index_dir: Path, lib: LibraryWords) -> None:
    from mnote_kr.core.atomic import write_atomic

    write_atomic(_files_path(index_dir), msgspec.msgpack.encode(_Files(VERSION, lib.by_file)), private=True)
    path = path_in(index_dir)
    write_atomic(path, msgspec.msgpack.encode(_Counts(VERSION, lib.files, lib.df)), private=True)
    st = path.stat()
    with _lock:
        _memo[path] = ((st.st_mtime_ns, st.st_size), lib)


def note(index_dir: Path, prepared: dict[str, tuple[str, Sequence[str]]]) -> None:
    """Record the files just prepared (rel path -> (content hash, the places' texts)); one write."""
    if not prepared:
        return
    with _writing:
        lib = _fresh(index_dir)
        for rel, (content_hash, texts) in prepared.items():
            lib.put(rel, content_hash, texts)
        _save(index_dir, lib)


def forget(index_dir: Path, rels: Iterable[str]) -> None:
    """Take the words of these files (deleted, changed, gone stale) out; no write when none was counted."""
    with _writing:
        if not _files_path(index_dir).exists():
            return
        lib = _fresh(index_dir)
        if any([lib.drop(rel) for rel in rels]):
            _save(index_dir, lib)


_writing = threading.Lock()


def _fresh(index_dir: Path) -> LibraryWords:
    """Every file's words as kept (none when unreadable: the library is counted again as files are prepared), the
    counts made from them."""
    try:
        stored = msgspec.msgpack.decode(_files_path(index_dir).read_bytes(), type=_Files)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return LibraryWords()
    return LibraryWords(stored.files if stored.version == VERSION else {})


# ----------------------------------------------------------------------------- gathering at preparation

_gathered = threading.local()


@contextmanager
def collecting() -> Iterator[list[str]]:
    """The places' texts the locators queue in this thread while it is open (``meaning.queue`` calls
    :func:`heard`), gathered into the list it yields."""
    got: list[str] = []
    before = getattr(_gathered, "texts", None)
    _gathered.texts = got
    try:
        yield got
    finally:
        _gathered.texts = before


def heard(texts: Sequence[str]) -> None:
    """A locator queued these texts: kept when a :func:`collecting` is open in this thread."""
    got = getattr(_gathered, "texts", None)
    if got is not None:
        got.extend(texts)
