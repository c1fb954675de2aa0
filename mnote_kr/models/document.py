"""The document view: what a locator plugin's ``document_model`` hook gives a viewer to show a source.

Part of the contracts in ``mnote_kr.models`` (import them from there).
"""

from __future__ import annotations

from typing import Literal

from mnote_kr.models.base import Frozen

# --------------------------------------------------------------------------- document view


class ModelParagraph(Frozen, frozen=True, kw_only=True):
    """One paragraph of a document as the viewer shows it (``document_model`` hook).

    ``index`` is the locator's ``paragraphIndex``; ``text`` is exactly the text the
    locator's ``highlight`` offsets count in. ``cell`` is ``[table, row, column]`` of the
    outermost table the paragraph sits in (tables numbered from 0 in document order);
    ``textboxes`` are the texts of text boxes anchored in this paragraph.
    """

    index: int
    text: str
    heading_level: int = 0
    in_toc: bool = False
    list_level: int | None = None  # 0-based nesting level of a list item
    list_ordered: bool = False
    cell: list[int] | None = None
    textboxes: list[str] = []
    code: bool = False  # a fenced code block (Markdown): shown as written
    #: the number the file shows before the paragraph and ``text`` (or its ``shown`` part) leaves out (Word's
    #: automatic numbering: a heading's "3.1", a list item's "a)"; a Markdown item's own "2."); None: none, or not known
    label: str | None = None
    #: ``[start, end)`` of ``text`` the viewer shows as the paragraph's words, where ``text`` holds markup around
    #: them: a Markdown heading's ``#`` marks or setext underline, a list item's marker (a numbered one's is
    #: ``label``). ``highlight`` offsets still count in the whole ``text``. None: all of ``text`` is words
    shown: list[int] | None = None


class PageSize(Frozen, frozen=True, kw_only=True):
    """A page's size in points as displayed (crop box, after ``/Rotate``): the locator's frame."""

    width: float
    height: float


class ModelShape(Frozen, frozen=True, kw_only=True):
    """One shape of a slide with text (``slide`` precision): its ``cNvPr`` id and name, its paragraphs
    (``index`` is the locator's ``paragraphIndex`` inside the shape; a table's rows read ``a | b``) and
    its box as fractions ``[x0, y0, x1, y1]`` of the slide's width and height (None: not known)."""

    id: int | None = None
    name: str = ""
    paragraphs: list[ModelParagraph] = []
    box: list[float] | None = None
    title: bool = False


class ModelSlide(Frozen, frozen=True, kw_only=True):
    """One slide: its 1-based ``number``, size in EMU, shapes with text in z-order, speaker notes."""

    number: int
    width: int = 0
    height: int = 0
    shapes: list[ModelShape] = []
    notes: list[ModelParagraph] = []


class ModelCell(Frozen, frozen=True, kw_only=True):
    """One non-empty cell of a sheet: 1-based row and column, and its value as a person reads it."""

    row: int
    column: int
    text: str


class ModelSheet(Frozen, frozen=True, kw_only=True):
    """One sheet (``cell`` precision): its name, its non-empty cells by row then column, and
    ``truncated`` when the model holds only its first cells (the plugin's cap)."""

    name: str
    hidden: bool = False
    cells: list[ModelCell] = []
    truncated: bool = False


class DocumentModel(Frozen, frozen=True, kw_only=True):
    """What a viewer needs to show a source: paragraphs (DOCX, Markdown, text), pages (PDF), slides
    (PPTX) or sheets (XLSX)."""

    kind: Literal["paragraphs", "pages", "slides", "sheets"]
    paragraphs: list[ModelParagraph] = []
    pages: list[PageSize] = []
    slides: list[ModelSlide] = []
    sheets: list[ModelSheet] = []
    plugin: str | None = None
