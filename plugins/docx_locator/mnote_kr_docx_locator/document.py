"""A parsed DOCX as the locator keeps it: its paragraphs in ``paragraphIndex`` order.

Apart from ``reader`` (the zip and XML parsing) so that a process answering from the
on-disk cache (``cache``) never imports lxml or zipfile.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mnote_kr.plugin_api import TextDocument, TextParagraph


@dataclass(slots=True)
class Paragraph(TextParagraph):
    """One indexed ``w:p`` (``mnote_kr.citations.locate.textmatch.TextParagraph`` plus table/equation flags).

    ``index`` is its ``paragraphIndex``; ``para_id`` its upper-cased ``w14:paraId``.
    """

    in_table: bool = False
    has_equation: bool = False
    # For the viewer (``document_model``); the locator does not use them.
    list_level: int | None = None  # 0-based level of a numbered or bulleted list item
    list_ordered: bool = False
    cell: tuple[int, int, int] | None = None  # (table, row, column) of the outermost table
    # The outermost table's grid, for reading the cell's row (``rows``): the cell's first grid column
    # and how many it spans, and for a cell continuing a vertical merge (its own paragraph empty), the
    # index of the merge's first paragraph, whose cell's text it shows.
    grid: tuple[int, int] | None = None
    merged_from: int | None = None
    textboxes: tuple[str, ...] = ()  # text boxes anchored here (their w:p are not indexed)
    # ``text`` is the paragraph's own text, then its text boxes' lines (what the locator
    # matches: evidence from a box lands on its anchor); ``own_chars`` ends the own text.
    own_chars: int | None = None
    # The number Word shows before the paragraph and draws from numbering.xml ("3.1", "第1章", "a)"; not in
    # ``text``, which is what the provider reads), and the one before each of ``heading_path``'s headings
    # with its separator ("3 ", "" for one unnumbered); () when none of them is numbered (``numbering``).
    label: str | None = None
    heading_numbers: tuple[str, ...] = ()

    @property
    def shown_headings(self) -> tuple[str, ...]:
        """``heading_path`` as the reader sees it: each heading after its number ("3 术语和定义")."""
        if not self.heading_numbers:
            return self.heading_path
        return tuple(n + h for n, h in zip(self.heading_numbers, self.heading_path, strict=False))


@dataclass(slots=True)
class DocxDocument(TextDocument[Paragraph]):
    """A parsed DOCX: paragraphs in ``paragraphIndex`` order plus term statistics."""

    path: str = "<bytes>"
    by_para_id: dict[str, int] = field(default_factory=dict)
