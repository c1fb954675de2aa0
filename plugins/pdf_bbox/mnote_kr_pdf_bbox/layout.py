"""Page layout from text lines: running headers and footers, and paragraph blocks.

Both work on the line boxes of ``pdftext`` (text frame: unrotated, top-left origin).

*Furniture* (running headers, footers, page numbers) is a line in the top or bottom
band of its page whose text, with every digit run folded to ``#``, recurs at about the
same height on other pages (two more, or one close by), a lone page number on the
outermost line of the band, or a transcript's line numbers down the margin
(``linenumbers``). It is never cited and is left out of the compact text, so a passage
that crosses a page break reads straight through.

*Blocks* are paragraphs: consecutive lines of one column in reading order, split where
the vertical gap grows, the font size changes, the column changes, the previous line
ended early (the next line's first word, or first character of CJK, would have fitted), or a first-line indent
starts a paragraph (not after a full line broken mid-sentence: that is an entry's hanging indent).
A small change of size between lines spaced as the document's usual paragraph lines
is not one (``SIZE_JITTER``: an OCR text layer sizes each line from its scanned glyphs). Right-to-left pages
are handled mirrored.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from mnote_kr.plugin_api import lazy_compile, made_of

from .linenumbers import margin_numbers

Box = tuple[float, float, float, float]

BAND = 0.12  # share of the page height at the top and at the bottom where furniture lives
SAME_Y = 0.02  # two furniture lines sit at the same height within this share of the page height
#: A change of font size by at most this share of the smaller size does not start a block when the two
#: lines are spaced as the document's usual lines inside a paragraph: an OCR text layer sets each line's
#: size from its scanned glyphs (14.6 and 16.06 pt in turn down one paragraph). 0: every change of more
#: than 8% starts a block, as before (issue 33, fifteenth round).
SIZE_JITTER = 0.25
_DIGITS = lazy_compile(r"\d+")
# a list item's first line: a bullet, a dash, "3." or "(b)", or a symbol-font glyph with no
# Unicode mapping (PDFium gives a control character for it)
# a list item's marker drawn on its own (apart from its text): a bullet, a dash, "3." or "(b)"
MARKER = lazy_compile(r"\s*(?:[•◦▪▫■□●○‣⁃∙·*–—-]|\(?(?:\d{1,2}|[a-zA-Z]|[ivx]{1,4})[.)])?\s*")
# a note's first line: its number or sign, then the text ("1 http://...", "* Measured at ...")
_NOTE = lazy_compile(r"\s*(?:\d{1,3}|[*†‡§¶])\s+\S")
# a contents entry's end: a dot leader and the page number
_LEADER = lazy_compile(r"(?:\.\s?){4,}\s*\S{1,8}\s*$")
_BULLET = lazy_compile(r"\s*(?:[•◦▪▫■□●○‣⁃∙·*–—-]|\(?(?:\d{1,2}|[a-z]|[ivx]{1,4})[.)]|\S?[\x01-\x08])\s")


def is_rtl_text(text: str) -> bool:
    """True when most strongly directional letters of ``text`` are right-to-left."""
    rtl = ltr = 0
    for ch in text:
        bidi = unicodedata.bidirectional(ch)
        if bidi in ("R", "AL"):
            rtl += 1
        elif bidi == "L":
            ltr += 1
    return rtl > ltr


def furniture_key(text: str) -> str:
    """A line's text with spaces dropped, case folded and every digit run as ``#``."""
    return _DIGITS.sub("#", "".join(text.split()).casefold())


# a lone page number: "7", "- 7 -", "(iv)", "Page 7", "7 / 12", "7 of 12", roman numerals
_PAGE_NUMBER = lazy_compile(
    r"(?:page|seite|p\.)?[-–—(\[]?(?:\d{1,4}|(?=[ivxlcdm])m{0,3}(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3}))"
    r"[-–—)\]]?(?:(?:/|of|von)\d{1,4})?",
    re.IGNORECASE,
)
NEAR_PAGES = 2  # two pages this close (the next page, or the next of one side of a spread) make a run


def is_page_number(text: str) -> bool:
    """True when ``text`` (spaces ignored) is a page number alone: ``7``, ``iv``, ``- 7 -``, ``Page 7 of 12``."""
    return bool(_PAGE_NUMBER.fullmatch("".join(text.split())))


def find_furniture(
    pages: Sequence[tuple[float, list[Box], list[str]]],
    sizes: Sequence[Sequence[float]] | None = None,
) -> list[set[int]]:
    """Running header/footer and page-number line indices per page.

    ``pages`` holds, per page, its height and its lines' boxes and texts. A line in the
    top or bottom band counts when lines with the same ``furniture_key`` (digits folded,
    so "Chapter 4 ... 13" meets "Chapter 4 ... 14") sit at about the same height on a
    fifth of the other pages, or, for an outermost line of words (a chapter's running
    header), on two other pages or one close by. A page number alone on the outermost
    row of the band counts on its own: a chapter's first page has no header to repeat it.
    With ``sizes`` (per page, each line's font size), the outermost row of a band that
    holds words and a page number in type no larger than the page's body text counts
    too, with nothing to repeat it: the running header of a single page ("Optimized
    Table Tokenization ... 9"), where a title would be set larger. A page whose every line would
    count keeps its lines of words: they are the page.
    """
    seen: dict[str, list[tuple[int, float]]] = {}
    cand: list[list[tuple[int, str, float]]] = []
    for pi, (height, boxes, texts) in enumerate(pages):
        mine = []
        for li, (b, t) in enumerate(zip(boxes, texts, strict=True)):
            if b[3] > BAND * height and b[1] < (1 - BAND) * height:
                continue
            key = furniture_key(t)
            if not key or len(key) > 120:
                continue
            rel = (b[1] + b[3]) / 2 / height
            mine.append((li, key, rel))
            seen.setdefault(key, []).append((pi, rel))
        cand.append(mine)
    need = max(1, round(0.2 * (len(pages) - 1)))
    out: list[set[int]] = []
    for pi, mine in enumerate(cand):
        found = set()
        boxes, texts = pages[pi][1], pages[pi][2]
        numbers = []
        for li, key, rel in mine:
            others = {p for p, r in seen[key] if p != pi and abs(r - rel) <= SAME_Y}
            if len(others) >= need:
                found.add(li)  # on a fair share of the document's pages
            elif (
                sum(ch.isalpha() for ch in key) >= 3
                and (len(others) >= 2 or any(abs(p - pi) <= NEAR_PAGES for p in others))
                and _outermost(li, boxes, rel < 0.5)
            ):
                found.add(li)  # a chapter's running header: words, outermost, on a run of pages
            elif is_page_number(texts[li]) and _outermost(li, boxes, rel < 0.5):
                numbers.append(li)
        if sizes is not None:
            found |= _numbered_rows(pages[pi][0], boxes, texts, sizes[pi])
        found |= margin_numbers(boxes, texts)  # a transcript's line numbers down the margin
        for li in numbers:  # alone on its row (or beside other furniture), not a table's last row
            b = boxes[li]
            if all(k == li or k in found or min(o[3], b[3]) <= max(o[1], b[1]) for k, o in enumerate(boxes)):
                found.add(li)
        if found and len(found) == len(boxes):
            # Nothing but lines that repeat on other pages: the page's words are its content (a
            # form's or a test document's pages, "This is a multi page document. Page 4."), not
            # headers around nothing; a page number alone stays furniture.
            found = {li for li in found if is_page_number(texts[li])}
        out.append(found)
    return out


def _numbered_rows(height: float, boxes: Sequence[Box], texts: Sequence[str], sizes: Sequence[float]) -> set[int]:
    """The lines of the page's outermost top and bottom rows that are a running header or footer:
    the row's middle near the edge (a band a quarter wider than ``BAND``: a header's descenders
    may reach past it), one page number of at most three digits at either end of the row and
    words beside it, every line of the row in type no larger than the page's body (the median
    size), and the row not the page's only text."""
    if not sizes or len(sizes) != len(boxes):
        return set()
    body = sorted(sizes)[len(sizes) // 2]
    found: set[int] = set()
    for top in (True, False):
        edge = [k for k in range(len(boxes)) if _outermost(k, boxes, top)]
        if not edge:
            continue
        b = boxes[edge[0]]
        row = [k for k, o in enumerate(boxes) if min(o[3], b[3]) > max(o[1], b[1])]
        middle = (b[1] + b[3]) / 2 / height
        if (middle > 1.25 * BAND if top else middle < 1 - 1.25 * BAND) or len(row) == len(boxes):
            continue
        numbers = [k for k in row if is_page_number(texts[k]) and sum(ch.isdigit() for ch in texts[k]) <= 3]
        ends = {min(row, key=lambda k: boxes[k][0]), max(row, key=lambda k: boxes[k][2])}
        words = sum(sum(ch.isalpha() for ch in texts[k]) for k in row if k not in numbers)
        # one number, at either end of the row (a table's row of figures or a year is not a page number)
        if len(numbers) == 1 and numbers[0] in ends and words >= 3 and all(sizes[k] <= body * 1.02 for k in row):
            found.update(row)
    return found


def _outermost(li: int, boxes: Sequence[Box], top: bool) -> bool:
    """True when no line of the page lies wholly above (``top``) or below line ``li``."""
    b = boxes[li]
    if top:
        return not any(o[3] <= b[1] for o in boxes)
    return not any(o[1] >= b[3] for o in boxes)


def drop_furniture_lines(text: str, keys: Sequence[str]) -> str:
    """``text`` without its lines made only of running headers, footers or page numbers
    (``keys``: the document's ``furniture_key`` values, longest first). The text layer's
    compact text leaves furniture out, so evidence that still holds it (a chunk crossing a
    page break) would otherwise carry an insertion too long for the alignment to follow."""
    if not keys or "\n" not in text:
        return text
    lines = text.splitlines()
    # A bare number stays: in a table it is a cell, and a page number alone is a short
    # insertion the alignment absorbs anyway.
    kept = [ln for ln in lines
            if not ((k := furniture_key(ln)) and any(c.isalpha() for c in k) and made_of(k, list(keys)))]
    return "\n".join(kept) if len(kept) != len(lines) and any(x.strip() for x in kept) else text


_CJK_START = lazy_compile(r"\s*[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")


def _first_word_len(text: str) -> int:
    """Characters of the line's first word: one for a line starting with a CJK character (CJK text
    breaks after any character, so one character would have fitted at the end of the line before)."""
    if _CJK_START.match(text):
        return 1
    parts = text.split()
    return len(parts[0]) if parts else 0


def _leading(boxes: list[Box]) -> float:
    """The median vertical gap between consecutive lines that share a column."""
    gaps = []
    for a, b in zip(boxes, boxes[1:], strict=False):
        gap = b[1] - a[3]
        if 0 <= gap < 3 * max(a[3] - a[1], 1.0) and min(a[2], b[2]) > max(a[0], b[0]):
            gaps.append(gap)
    if not gaps:
        return 2.0
    gaps.sort()
    return max(gaps[len(gaps) // 2], 0.0)


_SOFT_HYPHENS = ("\x02", "\ufffe", "\u00ad")  # PDFium's marks of a word hyphenated at a line end
# a line ending on a word (or a comma after it): its sentence goes on. Not CJK, whose headings end on a
# character as its sentences' lines do ("4　系统运行和校核" over an indented first line)
_MID_SENTENCE = lazy_compile(r"[^\W\d_\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef],?\s*$")
# the head of a definition-list or option-list item: "len: ...", "-k, --keep ...", "--help"
_ITEM_HEAD = lazy_compile(r"\s*(?:--?[\w?#]|[\w.*\[\]<>/-]{1,40}:\s)")


@dataclass(frozen=True)
class Spacing:
    """The usual spacing of lines inside a paragraph, for one font size: ``pitch``
    (baseline to baseline) and ``gap`` (line box to line box)."""

    pitch: float
    gap: float


def _bucket(size: float) -> int:
    return round(size * 2)


def _low(values: list[float]) -> float:
    """The fifth-lowest share of ``values``: the usual spacing inside a paragraph even where
    most neighbouring lines are one-line paragraphs apart (a list of options)."""
    values.sort()
    return values[len(values) // 5]


def line_spacing(
    pages: Sequence[tuple[Sequence[int], Sequence[Box], Sequence[float], Sequence[float]]],
) -> dict[int, Spacing]:
    """The document's usual in-paragraph spacing per font size.

    ``pages`` holds, per page, its line indices in reading order (furniture left out) and
    its lines' boxes, baselines and font sizes. Pairs of consecutive lines of one size and
    one column are measured; a size needs a few pairs to count.
    """
    pitches: dict[int, list[float]] = {}
    gaps: dict[int, list[float]] = {}
    for order, boxes, base, size in pages:
        for i, j in zip(order, order[1:], strict=False):
            if _bucket(size[i]) != _bucket(size[j]):
                continue
            a, b = boxes[i], boxes[j]
            pitch = base[j] - base[i]
            if 0 < pitch < 2.5 * size[i] and min(a[2], b[2]) - max(a[0], b[0]) > 0:
                pitches.setdefault(_bucket(size[i]), []).append(pitch)
                gaps.setdefault(_bucket(size[i]), []).append(b[1] - a[3])
    return {k: Spacing(_low(v), _low(gaps[k])) for k, v in pitches.items() if len(v) >= 4}


def split_blocks(
    order: Sequence[int],
    boxes: Sequence[Box],
    texts: Sequence[str],
    page_width: float,
    rtl: bool,
    base: Sequence[float] | None = None,
    size: Sequence[float] | None = None,
    spacing: dict[int, Spacing] | None = None,
) -> list[list[int]]:
    """Group line indices (given in reading order) into paragraph blocks.

    Every rule compares neighbours only, so the work is linear in the number of lines.
    With baselines and font sizes (``base``, ``size``) and the document's usual spacing
    per font size (``line_spacing``), a paragraph gap is a baseline step clearly longer
    than the usual one whose line boxes moved apart as much (a tall formula inside a line
    moves its baseline, not the gap), and a font size change starts a block. Without
    them the gap is measured against the page's median leading, so double-spaced text
    stays together.
    """

    def box(i: int) -> Box:
        b = boxes[i]
        return (page_width - b[2], b[1], page_width - b[0], b[3]) if rtl else b

    lead = _leading([box(i) for i in order])
    blocks: list[list[int]] = []
    cur: list[int] = []
    right = left = 0.0  # the current block's edges (mirrored on RTL pages)
    body_x = 0.0  # the leftmost start of the current block's lines after its first
    row: Box = (0.0, 0.0, 0.0, 0.0)  # the current row: the last line and the pieces beside it
    last = -1  # the last line of the current row that started a line (for baselines)
    for k, i in enumerate(order):
        c = box(i)
        if not cur:
            cur, right, left, row, last, body_x = [i], c[2], c[0], c, i, math.inf
            continue
        p = row
        hp, hc = max(p[3] - p[1], 1.0), max(c[3] - c[1], 1.0)
        h = min(hp, hc)
        v_overlap = min(p[3], c[3]) - max(p[1], c[1])
        new = False
        if v_overlap > 0 and c[0] >= p[2] - h:
            # a piece further along the row (a raised comma, a word drawn apart); far off
            # to the right it is the next column
            new = c[0] - p[2] > 3 * max(hp, hc)
            if not new:
                cur.append(i)
                row = (min(p[0], c[0]), min(p[1], c[1]), max(p[2], c[2]), max(p[3], c[3]))
                right, left = max(right, c[2]), min(left, c[0])
                continue
        else:
            gap = c[1] - p[3]
            x_overlap = min(p[2], c[2]) - max(p[0], c[0])
            first_x = box(cur[0])[0]
            beside = x_overlap < 0.3 * min(p[2] - p[0], c[2] - c[0]) and abs(c[0] - left) > 2.5 * h
            if gap < -0.3 * h or gap > lead + 0.5 * h or beside:
                new = True  # up the page, a paragraph gap, or another column (a short last line
                # under an indented first line is neither: it starts near the block's left edge)
            elif max(hp, hc) > 1.45 * h:
                new = True  # the font size changed: a heading and its body
            elif base is not None and size is not None and _spaced_apart(last, i, gap, base, size, spacing):
                new = True  # a paragraph gap by the document's own line spacing, or a size change
            elif _NOTE.match(texts[i]) and _NOTE.match(texts[cur[0]]) and abs(c[0] - first_x) <= 0.5 * h:
                new = True  # the next note of a list of footnotes, each under the other
            elif c[0] < first_x - 0.8 * h and _BULLET.match(texts[cur[0]]):
                new = True  # back left of a list item's marker: the item has ended
            elif _LEADER.search(texts[order[k - 1]]):
                new = True  # the previous line was a contents entry: its page number ends it
            elif _ITEM_HEAD.match(texts[i]) and _ITEM_HEAD.match(texts[cur[0]]) and abs(c[0] - first_x) <= 0.5 * h:
                new = True  # the next item of a tight definition or option list
            elif body_x < math.inf and body_x > first_x + 0.8 * h and c[0] < body_x - 0.8 * h:
                new = True  # back out of a hanging indent: the next item starts
            elif body_x < math.inf and first_x > body_x + 0.8 * h and c[0] > body_x + 0.8 * h \
                    and abs(c[0] - first_x) <= 0.8 * h:
                new = True  # paragraphs set with a first-line indent: a line indented so starts the next
            elif texts[order[k - 1]].rstrip(" ").endswith(_SOFT_HYPHENS):
                new = False  # the previous line broke a word (PDFium marks the hyphen): it goes on
            else:
                width = c[2] - c[0]
                n = max(len(texts[i]), 1)
                word = (_first_word_len(texts[i]) + 1) * width / n
                edge = max(right, c[2])
                if edge - p[2] > word + h:
                    new = True  # the previous line ended early: the next word would have fitted
                elif _BULLET.match(texts[i]):
                    new = True  # a list item starts
                # (text resuming after a list item at the marker's edge shows by the item's
                # last line ending early or by spacing; a line that was full continues the
                # item, as a numbered heading wrapped onto a second line does)
                elif c[0] > left + 0.8 * h and c[0] > p[0] + 0.8 * h and not _BULLET.match(texts[cur[0]]):
                    nxt = order[k + 1] if k + 1 < len(order) else None
                    # a first-line indent: the line after it returns to the block's left edge
                    # (returning only part of the way, it is a wrapped line's hanging indent); not when
                    # a full line broken mid-sentence goes on in a short indented one ("... Deputy Attorney
                    # General, Los" over "Angeles, Cal.; on behalf of the Petitioner.": an entry's hanging
                    # indent; a paragraph's indented first line runs on to the block's right edge, and a
                    # line centred under a title is set apart as it is)
                    hanging = _MID_SENTENCE.search(texts[order[k - 1]]) is not None and c[2] < right - 2 * h \
                        and abs((c[0] - p[0]) - (p[2] - c[2])) > h
                    if nxt is not None and box(nxt)[0] < c[0] - 0.8 * h and abs(box(nxt)[0] - left) <= 0.8 * h \
                            and not hanging:
                        new = True
        if new:
            blocks.append(cur)
            cur, right, left, body_x = [i], c[2], c[0], math.inf
        else:
            cur.append(i)
            right, left, body_x = max(right, c[2]), min(left, c[0]), min(body_x, c[0])
        row = c
        last = i
    if cur:
        blocks.append(cur)
    return blocks


def split_at_markers(blocks: list[list[int]], boxes: Sequence[Box], texts: Sequence[str]) -> list[list[int]]:
    """Blocks where a list marker drawn apart from its text (a bullet as its own line) starts
    its item: the marker joins the block of the text on its row, which starts there.

    ``blocks`` are in reading order; so is the result (a block keeps its place, a split-off
    item follows the block it came from)."""
    markers = [i for blk in blocks for i in blk if MARKER.fullmatch(texts[i]) and texts[i].strip()]
    if not markers:
        return blocks
    starts: dict[int, int] = {}  # the item's first line -> its marker
    for m in markers:
        b = boxes[m]
        h = max(b[3] - b[1], 1.0)
        row = [j for blk in blocks for j in blk if j != m and boxes[j][0] >= b[2] - 0.5
               and boxes[j][0] - b[2] < 4 * max(h, boxes[j][3] - boxes[j][1])
               and min(b[3], boxes[j][3]) - max(b[1], boxes[j][1]) > 0.3 * min(h, boxes[j][3] - boxes[j][1])]
        if row:
            starts[min(row, key=lambda j: boxes[j][0])] = m
    if not starts:
        return blocks
    moved = set(starts.values())
    out: list[list[int]] = []
    for blk in blocks:
        cur: list[int] = []
        for i in blk:
            if i in moved:
                continue
            if i in starts:
                if cur:
                    out.append(cur)
                cur = [starts[i]]
            cur.append(i)
        if cur:
            out.append(cur)
    return out


_SENTENCE_END = tuple(".!?:;。！？：；")


def continuations(blocks: list[list[int]], boxes: Sequence[Box], texts: Sequence[str],
                  size: Sequence[float]) -> dict[int, int]:
    """Block ``a`` -> the next block ``b`` that carries on its paragraph past a picture or a
    column break: ``b`` comes right after ``a`` in reading order, in another column or further
    down past a gap; ``a``'s last line is full (``b``'s first word would not have fitted on it)
    and ends mid-sentence; ``b``'s first
    line starts at its left edge (no indent) with a lower-case letter, in the same type."""
    out: dict[int, int] = {}
    for k in range(len(blocks) - 1):
        a, b = blocks[k], blocks[k + 1]
        last, first = a[-1], b[0]
        la, fb = boxes[last], boxes[first]
        h = max(la[3] - la[1], 1.0)
        if len(a) < 2 or abs(size[last] - size[first]) > 0.08 * min(size[last], size[first]):
            continue
        right = max(boxes[i][2] for i in a)
        head = texts[first].lstrip()[:1]
        word = (_first_word_len(texts[first]) + 1) * (fb[2] - fb[0]) / max(len(texts[first]), 1)
        if right - la[2] > word + h or texts[last].rstrip().endswith(_SENTENCE_END) or not head.islower():
            continue
        if abs(fb[0] - min(boxes[i][0] for i in b)) > 0.8 * h:
            continue  # indented: a new paragraph
        moved = fb[0] > la[2] or fb[2] < la[0] or fb[1] - la[3] > 3 * h
        if moved:
            out[k] = k + 1
    return out


def _spaced_apart(
    a: int, b: int, gap: float, base: Sequence[float], size: Sequence[float], spacing: dict[int, Spacing] | None
) -> bool:
    """True when line ``b`` under line ``a`` starts a new block by its spacing or font size."""
    sa, sb = size[a], size[b]
    if abs(sa - sb) > 0.08 * min(sa, sb):
        # another font size: a heading, a signature, a caption; unless spaced as a paragraph's lines are
        return not _size_jitter(a, b, gap, base, size, spacing)
    usual = (spacing or {}).get(_bucket(sa))
    if usual is None and spacing:
        # a size with too few lines to measure (a legend, a few notes): the nearest measured
        # size's spacing, scaled to this size (leading grows with the type)
        near = min(spacing, key=lambda k: (abs(k - _bucket(sa)), k))
        scale = sa / (near / 2)
        usual = Spacing(spacing[near].pitch * scale, spacing[near].gap * scale)
    if usual is None:
        return False
    extra = base[b] - base[a] - usual.pitch
    return extra > max(0.12 * usual.pitch + 0.5, 0.2 * sa) and gap - usual.gap > 0.5 * extra


def _size_jitter(
    a: int, b: int, gap: float, base: Sequence[float], size: Sequence[float], spacing: dict[int, Spacing] | None
) -> bool:
    """Lines ``a`` and ``b`` of two font sizes at most ``SIZE_JITTER`` apart, spaced as the document's usual
    lines of either size (baseline step and box gap within the tolerance of a paragraph gap): one paragraph
    whose text layer sized each line apart, not a heading (a heading's spacing sets it apart)."""
    lo, hi = min(size[a], size[b]), max(size[a], size[b])
    if not spacing or hi - lo > SIZE_JITTER * lo:
        return False
    usual = spacing.get(_bucket(lo)) or spacing.get(_bucket(hi))
    if usual is None:
        return False
    tol = max(0.12 * usual.pitch + 0.5, 0.2 * lo)
    return abs(base[b] - base[a] - usual.pitch) <= tol and abs(gap - usual.gap) <= tol
