"""Parsed DOCX documents, cached in memory and on disk by real path + size + mtime.

A fresh ``mnote-kr search`` reads each cited document from the disk cache that ingest
filled: it imports this module and ``document``, never ``reader`` (lxml and zipfile), which
loads only when a document is parsed.
"""

from __future__ import annotations

import os

from mnote_kr.plugin_api import FileCache, Persist

from .document import DocxDocument

CACHE_SIZE = 64
CACHE_MAX_PARAGRAPHS = 400_000  # bounds memory: a paragraph with its token set is ~1-2 KB


def _parse(real: str, st: os.stat_result) -> DocxDocument:
    from .reader import parse_file  # lxml and zipfile: only to parse

    return parse_file(real, st)


_cache: FileCache[DocxDocument] = FileCache(
    _parse, what="DOCX", max_items=CACHE_SIZE, weight=lambda d: len(d.paragraphs), max_weight=CACHE_MAX_PARAGRAPHS,
    # new process, no re-parse (2: outline 9; 3: table cells' grid and vertical merges; 4: notes at their marks;
    # 5: a note read in a paragraph LightRAG reads as body text, a Title's say; 6: an equation's c^2 and a_0;
    # 7: headings: never a table cell; numbered titles typed in capitals or bold, appendix lines;
    # 8: review comments at their marks; 9: the numbers Word shows before numbered headings and list items,
    # from numbering.xml; 10: a text box's breaks, tabs and non-breaking hyphens read as in a paragraph's own text;
    # 11: the paragraphs' normalised text folds lookalikes, "△H" as "ΔH", "−" as "-", textnorm's ``normalize``;
    # 12: a title typed as the styled headings of a level begin takes that level, "CHAPTER 7 – ...";
    # 13: a contents line with its page run on, "A. PURPOSE1-1", is a contents line, not a typed title;
    # 14: ... only on a line of capitals or after a contents line: "…工艺流程详见图3-4" is body text;
    # 15: a table of contents' title heads the contents only, not the body after them, ``contents``;
    # 16: ... an unnamed heading only over Word's own contents lines, not over typed "Weight<tab>5" lines;
    # 17: a w:sym character (a form's Wingdings ☐/☑) read as the character it draws, ``sym_char``)
    persist=Persist(name="docx", version="17", model=DocxDocument),
)
stats = _cache.stats


def load_docx(path: str | os.PathLike[str]) -> DocxDocument:
    """Parse a DOCX file, cached by real path + size + mtime. Raises ``DocumentError``."""
    return _cache.get(path)


def warm_docx(path: str | os.PathLike[str]) -> bool:
    """Fill the on-disk cache for ``path``; True when it was parsed now. Raises ``DocumentError``."""
    return _cache.warm(path)


def clear_cache() -> None:
    """Forget every cached document (tests, memory pressure)."""
    _cache.clear()
