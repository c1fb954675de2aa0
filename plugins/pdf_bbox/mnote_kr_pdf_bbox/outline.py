"""A PDF's outline (bookmarks) and the section a text block sits under.

``read_outline`` walks the outline once while ``pdftext`` has the document open in PDFium:
each entry keeps its path of titles (its parents' first), its destination page and, when the
destination names them, the left and top of the place on that page, in the page's text frame
(unrotated, top-left origin: a smaller ``y`` is higher). An entry whose destination does not
resolve to a page of the document (a missing page, a named destination that is not there, an
external action) starts no section; its children keep their place under its title. Hidden Word
bookmarks (``_Toc…``, ``OLE_LINK…``) are not headings. Anything PDFium cannot read ends the walk
with the entries read so far: a broken outline never fails a read.

``section`` answers for one block: the path of the entry that is nearest before it in reading order. On
its page, an entry is before a block when the block's first line is not above the entry's top; where the
page is set in columns (the entry's left is a column's left edge), a block in an earlier column is before
the entry and one in a later column after it, whatever their tops (``_before``). Of the entries before a
block, the one on the latest page wins, and on that page the one whose place comes last by the same
reading order: outline order only breaks ties (a chapter and its first section at one line), so an entry
listed out of page order ("Figures" listed last, pointing above a section) does not capture what follows.
Entries without a top count from the page's top, unless their page begins a block with their title
(``settle``; a title of one or two characters only at a block that is nothing but the title).
"""

from __future__ import annotations

import ctypes
import math
import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from .page import PageText


class _Document(Protocol):
    """What ``section`` reads of a ``pdftext.DocumentText`` (which imports this module)."""

    @property
    def pages(self) -> Sequence[PageText]: ...

    @property
    def extras(self) -> dict[str, object]: ...

#: One outline entry: (titles from the top level down, 0-based page, left or None, top or None).
Entry = tuple[tuple[str, ...], int, float | None, float | None]

#: Entries read at most, nesting depth followed at most, and characters kept of a title.
MAX_ENTRIES = 5000
MAX_DEPTH = 16
MAX_TITLE = 300
#: How far (points) a block's left may stand left of an entry's left and still start its column.
COLUMN_SLACK = 20.0
#: Least width of a column, as a share of the page's (three columns on a page are narrower than a third).
MIN_COLUMN = 0.25
#: Word writes its hidden bookmarks into an outline only when asked to; they name no section.
_HIDDEN = re.compile(r"^(?:_Toc|_Hlk|_Ref|_GoBack|OLE_LINK)\w*$")


def clean_title(raw: str) -> str:
    """An outline title as one line of text: control characters dropped, whitespace collapsed,
    cut at ``MAX_TITLE`` characters."""
    kept = "".join(" " if ch.isspace() else ch for ch in raw
                   if ch.isspace() or unicodedata.category(ch) not in ("Cc", "Cs", "Cn"))
    title = " ".join(kept.split())
    return title if len(title) <= MAX_TITLE else title[: MAX_TITLE - 1].rstrip() + "…"


def read_outline(pdf: Any, raw: Any, pages: list[PageText]) -> list[Entry]:
    """The outline of the open ``pdfium.PdfDocument`` ``pdf`` (``raw``: PDFium's bindings) in outline
    order, destinations mapped into the text frames of ``pages``; [] without one."""
    out: list[Entry] = []
    try:
        _walk(pdf, raw, pages, None, (), set(), out)
    except Exception:  # noqa: BLE001, S110 - whatever a damaged outline raises, the entries so far stand
        pass
    return out


def _walk(pdf: Any, raw: Any, pages: list[PageText], parent: Any, path: tuple[str, ...], seen: set[int],
          out: list[Entry]) -> None:
    if len(path) >= MAX_DEPTH:
        return
    mark = raw.FPDFBookmark_GetFirstChild(pdf.raw, parent)
    while mark and len(out) < MAX_ENTRIES:
        address = ctypes.addressof(mark.contents)
        if address in seen:
            return  # a loop in the outline
        seen.add(address)
        title = clean_title(_title(raw, mark))
        hidden = not title or bool(_HIDDEN.match(title))
        here = path if hidden else (*path, title)
        if not hidden:
            place = _place(pdf, raw, mark, pages)
            if place is not None:
                out.append((here, *place))
        _walk(pdf, raw, pages, mark, here, seen, out)
        mark = raw.FPDFBookmark_GetNextSibling(pdf.raw, mark)


def _title(raw: Any, mark: Any) -> str:
    n = raw.FPDFBookmark_GetTitle(mark, None, 0)
    if n <= 2:
        return ""
    buf = ctypes.create_string_buffer(n)
    raw.FPDFBookmark_GetTitle(mark, buf, n)
    return buf.raw[: n - 2].decode("utf-16-le", errors="replace")


def _place(pdf: Any, raw: Any, mark: Any, pages: list[PageText]) -> tuple[int, float | None, float | None] | None:
    """(page, left, top) of the entry's destination in that page's text frame; None when it has no
    page of this document."""
    dest = raw.FPDFBookmark_GetDest(pdf.raw, mark)  # PDFium follows a GoTo action too
    if not dest:
        return None
    index = raw.FPDFDest_GetDestPageIndex(pdf.raw, dest)
    if not 0 <= index < len(pages):
        return None
    left: float | None = None
    top: float | None = None
    n = ctypes.c_ulong()
    pos = (ctypes.c_float * 4)()
    mode = raw.FPDFDest_GetView(dest, ctypes.byref(n), pos)
    if mode == raw.PDFDEST_VIEW_XYZ:
        has = [ctypes.c_int() for _ in range(3)]
        val = [ctypes.c_float() for _ in range(3)]
        if raw.FPDFDest_GetLocationInPage(dest, *(ctypes.byref(v) for v in has), *(ctypes.byref(v) for v in val)):
            left = val[0].value if has[0].value else None
            top = val[1].value if has[1].value else None
    elif mode in (raw.PDFDEST_VIEW_FITH, raw.PDFDEST_VIEW_FITBH) and n.value >= 1:
        top = pos[0] or None  # a null top reads as 0: the page's top
    elif mode in (raw.PDFDEST_VIEW_FITV, raw.PDFDEST_VIEW_FITBV) and n.value >= 1:
        left = pos[0]
    elif mode == raw.PDFDEST_VIEW_FITR and n.value >= 4:
        left, top = pos[0], max(pos[1], pos[3])
    crop = pages[index].geometry.crop
    x = left - crop[0] if left is not None and left > crop[0] else None  # at or past the page's edge: no column
    y = crop[3] - top if top is not None else None
    return index, x, y


def _compact(text: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKC", text).casefold() if ch.isalnum())


#: Numbering printed before a heading's title, as ``_compact`` leaves it ("1.2", "第一章", "제1장", "IV").
_NUMBERING = re.compile(r"(?:第?[\d一二三四五六七八九十百零〇]+[章节節部篇]?|제?\d+[장절편부]?|[ivx]{1,5})?")
#: Titles shorter than this (``_compact``-ed) must be a block's whole text, and the only such block on the page.
SHORT_TITLE = 3


def _heading(title: str, head: str) -> bool:
    """True when the ``_compact``-ed start of a block, ``head``, prints the ``_compact``-ed ``title``.

    A title of ``SHORT_TITLE`` characters or more may follow numbering and run on into the block's first
    lines; a shorter one ("引言", "서론") must be the block's whole text after numbering (a line of
    running text that starts with it is no heading)."""
    if len(title) >= SHORT_TITLE:
        return title in head[: len(title) + 8]
    # the title itself, or numbering before it ("一般" is a title, not the numbering "一" and "般")
    return head.endswith(title) and _NUMBERING.fullmatch(head[: len(head) - len(title)]) is not None


def settle(entries: list[Entry], pages: list[PageText], text: Callable[[PageText, int], str]) -> list[Entry]:
    """``entries`` with each one that names only its page (no top, or a top above all the page's text:
    a whole-page destination) placed at its heading, when a block of that page begins with the entry's
    title (``text``: a line's characters; numbering before the title is allowed; ``_heading``): a page
    often holds the end of the section before. A title of one or two characters places its entry only at
    the one block of the page that is nothing but the title. Without such a block the entry stays at the
    page's top."""
    out = []
    for path, pi, x, y in entries:
        page = pages[pi]
        title = _compact(path[-1])
        short = len(title) < SHORT_TITLE
        whole_page = y is None or bool(page.lines) and y <= min(b[1] for b in page.lines) + 1
        if title and not (short and title.isdigit()) and page.lines and whole_page:
            found = [block for block in page.blocks
                     if _heading(title, _compact(" ".join(text(page, li) for li in block[:3])))]
            if found and (not short or len(found) == 1):
                left, _, _ = _extent(page, found[0])
                x, y = left, min(page.lines[li][1] for li in found[0])
        out.append((path, pi, x, y))
    return out


Extent = tuple[float, float, float]


def _extent(page: PageText, block: list[int]) -> Extent:
    """A block's left, right and the bottom of its top line, in the text frame."""
    boxes = [page.lines[li] for li in block]
    head = min(boxes, key=lambda b: b[1])
    return min(b[0] for b in boxes), max(b[2] for b in boxes), head[3]


def columns(extents: list[Extent], width: float) -> list[tuple[float, float]]:
    """The page's columns as (left, right), left to right: a left edge where two blocks or more start
    (within ``COLUMN_SLACK``), reaching where most of them end (the upper quartile: a block run across
    the gutter or a short label does not move it), at least ``MIN_COLUMN`` of the page's width; not
    a column's indented lines."""
    out: list[tuple[float, float]] = []
    last = -math.inf
    for left in sorted(e[0] for e in extents):
        if left - last <= COLUMN_SLACK:
            continue
        last = left
        rights = sorted(e[1] for e in extents if 0 <= e[0] - left <= COLUMN_SLACK)
        if len(rights) < 2 or (end := rights[-(-3 * (len(rights) - 1) // 4)]) - left < MIN_COLUMN * width:
            continue
        # one starting in the left half of a column and ending with it is that column's indented lines
        if not any(o[0] < left < (o[0] + o[1]) / 2 and end <= o[1] + COLUMN_SLACK for o in out):
            out.append((left, end))
    return out


def _before(cols: list[tuple[float, float]], x: float | None, y: float | None, block: Extent) -> bool:
    """True when the place ``(x, y)`` comes before a block with extent ``block`` on a page set in ``cols``.

    When the page has a column beside the one ``x`` stands in (set in columns), a block wholly left of
    it, where another column starts, is before the place and one starting where a column on the right
    starts after it, whatever their tops. Otherwise the block's first line decides: not above ``y``."""
    left, right, head_bottom = block
    if x is not None:
        inside = [c for c in cols if c[0] - COLUMN_SLACK <= x < c[1]]
        if inside:
            start, end = max(inside)
            if right <= start and any(c[0] < start for c in cols):
                return False  # an earlier column
            if left >= end - COLUMN_SLACK and any(c[0] >= end - COLUMN_SLACK and c[0] <= left + COLUMN_SLACK
                                                  for c in cols):
                return True  # a later column
    return y is None or head_bottom >= y


def _spot(cols: list[tuple[float, float]], x: float | None, y: float | None) -> Extent:
    """An entry's place as ``_before`` reads a block: the column ``x`` stands in (its left and right), or
    no column; its top (the page's top without one)."""
    inside = [c for c in cols if x is not None and c[0] - COLUMN_SLACK <= x < c[1]]
    left, right = max(inside) if inside else (-math.inf, math.inf)  # in no column: by its top only
    return left, right, -math.inf if y is None else y


def section(doc: _Document, page_index: int, block_index: int) -> list[str] | None:
    """The outline path of the section block ``block_index`` of page ``page_index`` sits under (its own
    entry for a heading); [] before the first entry; None when the PDF has no outline."""
    entries = doc.extras.get("outline")
    if not entries or not isinstance(entries, list):
        return None
    page = doc.pages[page_index]
    extents = [_extent(page, b) for b in page.blocks]
    cols = columns(extents, page.geometry.crop[2] - page.geometry.crop[0])
    before = [e for e in entries
              if e[1] < page_index or e[1] == page_index and _before(cols, e[2], e[3], extents[block_index])]
    if not before:
        return []
    last = max(e[1] for e in before)
    if last != page_index:
        other = doc.pages[last]
        cols = columns([_extent(other, b) for b in other.blocks], other.geometry.crop[2] - other.geometry.crop[0])
    on_last = [e for e in before if e[1] == last]
    best = on_last[0]
    for entry in on_last[1:]:  # the latest place on that page; at one place, the last in outline order
        if _before(cols, best[2], best[3], _spot(cols, entry[2], entry[3])):
            best = entry
    return list(best[0])
