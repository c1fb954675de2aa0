"""The PDF document model a locate works on: read once, kept in memory and on disk with
what every locate derives from it (k-gram indexes, running headers, term statistics).

``pdftext`` reads a PDF's text layer; ``align``, ``answer`` and ``layout`` compute over it;
this module puts them together and caches the result, so none of them imports another
in a circle.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import threading
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import overload

from mnote_kr.plugin_api import DocumentError, FileCache, Persist

from .align import text_key
from .blocks import keep_written, places, term_stats
from .layout import furniture_key
from .pdftext import CACHE_SIZE, DocumentText, PageText, line_text, read_document

MAX_OMIT = 24  # furniture lines reported per locate (a few pages' headers and footers)


def derive(doc: DocumentText) -> None:
    """Compute and keep with ``doc`` what every locate in it needs whatever the evidence and
    query: both k-gram indexes, the running-header keys, the blocks' term statistics, the key of
    their vectors (``blocks.places``) and the text's hash that keys its stored alignments (the
    on-disk cache stores them; see ``_encode``)."""
    for view in doc.views:
        view.index  # noqa: B018 - built and kept on the view
    furniture_keys(doc)
    term_stats(doc)
    places(doc)
    text_key(doc)  # after furniture_keys: the key covers them


def furniture_keys(doc: DocumentText) -> list[str]:
    """The ``furniture_key`` of every running header, footer and page number, longest first
    (computed once per document)."""
    cached = doc.extras.get("furniture_keys")
    if isinstance(cached, list):
        return cached
    keys = {furniture_key(line_text(pg, li)) for pg in doc.pages for li in pg.furniture}
    out = sorted((k for k in keys if k), key=lambda k: (-len(k), k))
    doc.extras["furniture_keys"] = out
    return out


def furniture_near(doc: DocumentText, first: int, last: int) -> list[str]:
    """The running headers, footers and page numbers of pages ``first``..``last`` (0-based)
    and of the page on either side, as the text layer writes them, each once.

    The chunk a quote comes from reaches past the matched evidence, so the neighbouring
    pages' furniture is reported too; the host drops only whole chunk lines made of these.
    """
    out: list[str] = []
    for pi in range(max(0, first - 1), min(len(doc.pages), last + 2)):
        page = doc.pages[pi]
        for li in sorted(page.furniture):
            text = " ".join(line_text(page, li).split())
            if text and text not in out:
                out.append(text)
            if len(out) >= MAX_OMIT:
                return out
    return out


def _read(real: str, st: os.stat_result) -> DocumentText:
    doc = read_document(real)
    for page in doc.pages:  # read whole: its blocks' words are remembered (``blocks.keep_written``)
        keep_written(page)
    return doc


#: ``DocumentText.extras`` keys that hold plain data and are kept on disk; the others (objects
#: that point back at the document) are rebuilt in each process from these.
PERSISTED_EXTRAS = ("furniture_keys", "term_stats", "text_key", "places", "outline", "acronyms")


class StoredPages(Sequence[PageText]):
    """The pages of a model read from disk, each unpickled at its first use.

    A locate reads the few pages its passage lies on (and the furniture of their
    neighbours); unpickling every page of a long document was most of the time a fresh
    process spent reading its model. Pickled as one byte string per page; equal to any
    sequence of the same pages.
    """

    __slots__ = ("_blobs", "_pages", "_lock")

    def __init__(self, blobs: list[bytes]) -> None:
        self._blobs = blobs
        self._pages: list[PageText | None] = [None] * len(blobs)
        self._lock = threading.Lock()

    @classmethod
    def of(cls, pages: Sequence[PageText]) -> StoredPages:
        """Pack ``pages``; per-character and per-line maps as arrays (one byte string each to
        unpickle, not an object per character)."""
        import pickle

        return cls([pickle.dumps(dataclasses.replace(pg, line_of=array("i", pg.line_of),
                                                     block_of=array("i", pg.block_of)),
                                 protocol=pickle.HIGHEST_PROTOCOL) for pg in pages])

    def __getstate__(self) -> list[bytes]:
        return self._blobs

    def __setstate__(self, state: list[bytes]) -> None:
        self.__init__(list(state))  # type: ignore[misc]

    def __len__(self) -> int:
        return len(self._blobs)

    @overload
    def __getitem__(self, i: int) -> PageText: ...

    @overload
    def __getitem__(self, i: slice) -> list[PageText]: ...

    def __getitem__(self, i: int | slice) -> PageText | list[PageText]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self._blobs)))]
        page = self._pages[i]
        if page is None:
            import pickle

            with self._lock:
                page = self._pages[i]
                if page is None:
                    # part of a MAC-verified entry (``filecache.DiskStore``)
                    page = self._pages[i] = keep_written(pickle.loads(self._blobs[i]))  # noqa: S301
        return page

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]


def _encode(doc: DocumentText) -> bytes:
    """Pickle with everything a locate needs that does not depend on the query: both k-gram
    indexes, the running-header keys and the blocks' term statistics. Building them was
    most of a cold locate's time; ``warm_document`` (ingest) pays it once per file instead.
    The pages are packed one by one (``StoredPages``): a locate unpickles only those it reads."""
    import pickle

    derive(doc)
    kept = {k: v for k, v in doc.extras.items() if k in PERSISTED_EXTRAS}
    stored = dataclasses.replace(doc, pages=StoredPages.of(doc.pages), extras=kept)
    return pickle.dumps(stored, protocol=pickle.HIGHEST_PROTOCOL)


def _code_stamp() -> str:
    """Name, size and mtime of the modules whose code shapes a stored model (reading the text
    layer, running headers, term statistics, the host's tokenizer): changed code never reads an
    old model, whose block statistics would no longer match the new block terms."""
    import hashlib

    from mnote_kr.plugin_api import defined_in, textmatch, textnorm

    from . import (
        acronymterms,
        align,
        answer,
        cidtext,
        layout,
        linenumbers,
        lines,
        outline,
        page,
        pdfium,
        pdftext,
        tableread,
        tables,
    )

    h = hashlib.blake2b(digest_size=8)
    for module in (__file__, pdftext.__file__, pdfium.__file__, cidtext.__file__, layout.__file__, answer.__file__,
                   acronymterms.__file__, sys.modules[defined_in.__module__].__file__,  # the acronyms it keeps
                   align.__file__, textmatch.__file__, textnorm.__file__, tables.__file__, tableread.__file__,
                   lines.__file__, page.__file__, outline.__file__, linenumbers.__file__):
        try:
            st = os.stat(module)
            h.update(f"{os.path.basename(module)}:{st.st_size}:{st.st_mtime_ns}".encode())
        except (OSError, TypeError):
            h.update(os.urandom(8))  # unreadable: a version no entry has
    return h.hexdigest()


_cache: FileCache[DocumentText] = FileCache(
    _read, what="PDF", max_items=CACHE_SIZE,
    persist=Persist(name="pdf", version="18-" + _code_stamp(), model=DocumentText, encode=lambda doc: _encode(doc)),
)  # on disk too: a new process neither re-reads the text layer nor rebuilds what a locate derives from it


def load_document(path: str | Path) -> DocumentText:
    """``read_document`` through a small LRU keyed on (real path, size, mtime)."""
    if not os.path.exists(path):
        raise DocumentError(f"PDF not found: {path}", path=str(path))
    return _cache.get(path)


def warm_document(path: str | Path) -> bool:
    """Fill the on-disk cache for ``path``; True when it was read now. Raises ``DocumentError``."""
    return _cache.warm(path)


def clear_cache() -> None:
    """Forget every cached document."""
    _cache.clear()
