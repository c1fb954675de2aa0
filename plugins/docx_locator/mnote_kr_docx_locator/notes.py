"""The DOCX locator's reading of footnotes, endnotes and review comments: each one's text at its reference mark.

A paragraph holding a note's reference (``w:footnoteReference``/``w:endnoteReference``) reads the
note's text at the mark, `` [Footnote 1: And this is the footnote]``, as the managed engine's
LightRAG reads it (both read through ``plugin_api.docxnotes``: the same wording, text and Word's
numbers), so a note's words locate to the paragraph holding its mark and the quote says them. A review
comment reads the same way at its mark, right after the commented words: `` [Comment (Jane Smith): ...]``. The
notes and comments parts and ``w:settings`` come through the main part's relationships (Word's names,
``word/footnotes.xml``, without them), read within the budgets of every part: a broken notes part
costs the notes only, an entity declaration refuses the file as anywhere else.

A heading's reference reads as nothing, as LightRAG's reading leaves it (its headings keep their words):
a heading as LightRAG tells one (:class:`Notes`, its outline levels only), not as the locator does (a
style's name too: Word's Title has no outline level, and LightRAG reads it as body text, note and all).
"""

from __future__ import annotations

import zipfile
from typing import Any

from lxml import etree

from mnote_kr.plugin_api import docxnotes

from .safezip import parse_optional, read_part
from .styles import Sheet, child, lightrag_level

#: The parts a document's notes need, by the last word of their relationship type.
PARTS = docxnotes.NOTE_PARTS


def _targets(zf: zipfile.ZipFile, main: str, path: str) -> dict[str, str]:
    """The main part's notes and settings parts by relationship type (Word's names without a rels part)."""
    folder, _, name = main.rpartition("/")
    rels = f"{folder}/_rels/{name}.rels" if folder else f"_rels/{name}.rels"
    return docxnotes.part_targets(main, _part(zf, rels, path))


def _part(zf: zipfile.ZipFile, name: str, path: str) -> etree._Element | None:
    return parse_optional(read_part(zf, name, path), name, path)  # a broken one costs the notes only


def read_notes(zf: zipfile.ZipFile, main: str, path: str) -> tuple[dict[tuple[str, str], str],
                                                                     dict[str, docxnotes.NoteProps],
                                                                     dict[tuple[str, str], str]]:
    """The texts of the document's notes and comments by ``(kind, id)``, its note properties and its comments'
    authors (all empty when it has no note or comment with text). Raises ``DocumentError`` (over a budget, an
    entity declaration)."""
    parts = _targets(zf, main, path)
    texts: dict[tuple[str, str], str] = {}
    for kind in ("footnotes", "endnotes"):
        root = _part(zf, parts[kind], path)
        if root is not None:
            texts.update(docxnotes.note_texts(root))
    comments = _part(zf, parts["comments"], path)
    authors: dict[tuple[str, str], str] = {}
    if comments is not None:
        said, authors = docxnotes.comment_texts(comments)
        texts.update(said)
    if not texts:
        return {}, {}, {}
    return texts, docxnotes.note_props(_part(zf, parts["settings"], path)), authors


class Notes(docxnotes.InlineNotes):
    """A document's notes as the locator puts them inline, and how LightRAG tells a heading, whose references it
    leaves unread: ``outlines`` (styleId -> outline level, :func:`outline_levels`)."""

    def __init__(self, inline: docxnotes.InlineNotes, outlines: dict[str, int]) -> None:
        super().__init__(inline.texts, inline.marks)
        self.outlines = outlines

    def heading(self, ppr: Any | None) -> bool:
        """Whether LightRAG 1.5.7 reads a body paragraph with properties ``ppr`` as a heading
        (``parse_document.get_heading_level``): by its own outline level when it has one (9 is body text), else
        by its style's; never by the style's name."""
        own = child(ppr, "outlineLvl")
        if own is not None:
            level = lightrag_level(own)
        else:
            style = child(ppr, "pStyle")
            level = self.outlines.get(docxnotes.attr(style, "val") or "") if style is not None else None
        return level is not None and level < 9


def outline_levels(sheet: Sheet) -> dict[str, int]:
    """styleId -> outline level, as LightRAG reads a styles part (``parse_styles_outline_levels``): the style's
    own ``w:outlineLvl``, else the nearest of its ``w:basedOn`` styles'; a style without either is not there."""
    own, base = sheet.outline_own, sheet.outline_base
    out = dict(own)
    for sid in base:
        seen, cur = set(), sid
        while cur not in own and cur in base and cur not in seen:
            seen.add(cur)
            cur = base[cur]
        if cur in own:
            out[sid] = own[cur]
    return out


def notes_for(notes: tuple[dict[tuple[str, str], str], dict[str, docxnotes.NoteProps], dict[tuple[str, str], str]],
              body: Any, styles: Sheet) -> Notes | None:
    """The document's notes and comments (:func:`read_notes`) ready to go inline in ``body``
    (``docxnotes.document_notes``), with the outline levels of its ``styles`` part; None when
    it has no note or comment with text."""
    texts, settings, authors = notes
    inline = docxnotes.document_notes(texts, settings, body, authors)
    return None if inline is None else Notes(inline, outline_levels(styles))
