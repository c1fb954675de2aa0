"""A parsed DOCX as the locator keeps it, and its cache (memory, then disk).

Separate from ``reader`` (the zip and XML parsing) so that a process answering from the
on-disk cache, as a fresh ``mnote-kr search`` does for every ingested document, never
imports lxml or zipfile: ``reader`` loads only when a document is parsed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from mnote_kr.citations.filecache import FileCache, Persist
from mnote_kr.citations.textmatch import TextDocument, TextParagraph

CACHE_SIZE = 64
CACHE_MAX_PARAGRAPHS = 400_000  # bounds memory: a paragraph with its token set is ~1-2 KB


@dataclass(slots=True)
class Paragraph(TextParagraph):
    """One indexed ``w:p`` (``mnote_kr.citations.textmatch.TextParagraph`` plus table/equation flags).

    ``index`` is its ``paragraphIndex``; ``para_id`` its upper-cased ``w14:paraId``.
    """

    in_table: bool = False
    has_equation: bool = False
    # For the viewer (``document_model``); the locator does not use them.
    list_level: int | None = None  # 0-based level of a numbered or bulleted list item
    list_ordered: bool = False
    cell: tuple[int, int, int] | None = None  # (table, row, column) of the outermost table
    textboxes: tuple[str, ...] = ()  # text boxes anchored here (their w:p are not indexed)
    # ``text`` is the paragraph's own text, then its text boxes' lines (what the locator
    # matches: evidence from a box lands on its anchor); ``own_chars`` ends the own text.
    own_chars: int | None = None


@dataclass(slots=True)
class DocxDocument(TextDocument[Paragraph]):
    """A parsed DOCX: paragraphs in ``paragraphIndex`` order plus term statistics."""

    path: str = "<bytes>"
    by_para_id: dict[str, int] = field(default_factory=dict)


def _parse(real: str, st: os.stat_result) -> DocxDocument:
    from .reader import parse_file  # lxml and zipfile: only to parse

    return parse_file(real, st)


_cache: FileCache[DocxDocument] = FileCache(
    _parse, what="DOCX", max_items=CACHE_SIZE, weight=lambda d: len(d.paragraphs), max_weight=CACHE_MAX_PARAGRAPHS,
    persist=Persist(name="docx", version="1", model=DocxDocument),  # new process, no re-parse
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
