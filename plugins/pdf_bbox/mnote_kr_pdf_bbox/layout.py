"""Page layout from text lines: running headers and footers, and paragraph blocks.

Both work on the line boxes of ``pdftext`` (text frame: unrotated, top-left origin).

*Furniture* (running headers, footers, page numbers) is a line in the top or bottom
band of its page whose text, with every digit run folded to ``#``, recurs at about the
same height on other pages. It is never cited and is left out of the compact text, so a
passage that crosses a page break reads straight through.

*Blocks* are paragraphs: consecutive lines of one column in reading order, split where
the vertical gap grows, the font size changes, the column changes, the previous line
ended early (the next line's first word would have fitted), or a first-line indent
starts a paragraph. Right-to-left pages are handled mirrored.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from mnote_kr.citations.textnorm import made_of

Box = tuple[float, float, float, float]

BAND = 0.12  # share of the page height at the top and at the bottom where furniture lives
SAME_Y = 0.02  # two furniture lines sit at the same height within this share of the page height
_DIGITS = re.compile(r"\d+")
# a list item's first line: a bullet, a dash, "3." or "(b)", or a symbol-font glyph with no
# Unicode mapping (PDFium gives a control character for it)
_BULLET = re.compile(r"\s*(?:[•◦▪▫■□●○‣⁃∙·*–—-]|\(?(?:\d{1,2}|[a-z]|[ivx]{1,4})[.)]|\S?[\x01-\x08])\s")


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


def find_furniture(
    pages: Sequence[tuple[float, list[Box], list[str]]],
) -> list[set[int]]:
    """Running header/footer line indices per page.

    ``pages`` holds, per page, its height and its lines' boxes and texts. A line counts
    when it sits in the top or bottom band and lines with the same ``furniture_key``
    sit at about the same height on enough other pages (at least one, and a fifth of
    the others): a heading that happens to open two pages is not enough on a long
    document.
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
        for li, key, rel in mine:
            others = {p for p, r in seen[key] if p != pi and abs(r - rel) <= SAME_Y}
            if len(others) >= need:
                found.add(li)
        out.append(found)
    return out


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


def _first_word_len(text: str) -> int:
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


def split_blocks(
    order: Sequence[int], boxes: Sequence[Box], texts: Sequence[str], page_width: float, rtl: bool
) -> list[list[int]]:
    """Group line indices (given in reading order) into paragraph blocks.

    Every rule compares neighbours only, so the work is linear in the number of lines.
    The paragraph gap is measured against the page's usual leading (the median gap
    between consecutive lines of one column), so double-spaced text stays together.
    """

    def box(i: int) -> Box:
        b = boxes[i]
        return (page_width - b[2], b[1], page_width - b[0], b[3]) if rtl else b

    lead = _leading([box(i) for i in order])
    blocks: list[list[int]] = []
    cur: list[int] = []
    right = left = 0.0  # the current block's edges (mirrored on RTL pages)
    row: Box = (0.0, 0.0, 0.0, 0.0)  # the current row: the last line and the pieces beside it
    for k, i in enumerate(order):
        c = box(i)
        if not cur:
            cur, right, left, row = [i], c[2], c[0], c
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
            if gap < -0.3 * h or gap > lead + 0.5 * h or x_overlap < 0.3 * min(p[2] - p[0], c[2] - c[0]):
                new = True  # up the page, a paragraph gap, or another column
            elif max(hp, hc) > 1.45 * h:
                new = True  # the font size changed: a heading and its body
            else:
                width = c[2] - c[0]
                n = max(len(texts[i]), 1)
                word = (_first_word_len(texts[i]) + 1) * width / n
                edge = max(right, c[2])
                if edge - p[2] > word + h:
                    new = True  # the previous line ended early: the next word would have fitted
                elif _BULLET.match(texts[i]) or (_BULLET.match(texts[cur[0]]) and c[0] <= box(cur[0])[0] + 0.5 * h):
                    new = True  # a list item starts, or the text after a list item resumes
                elif c[0] > left + 0.8 * h and c[0] > p[0] + 0.8 * h and not _BULLET.match(texts[cur[0]]):
                    nxt = order[k + 1] if k + 1 < len(order) else None
                    if nxt is not None and box(nxt)[0] < c[0] - 0.8 * h:
                        new = True  # a first-line indent (the line after it returns left)
        if new:
            blocks.append(cur)
            cur, right, left = [i], c[2], c[0]
        else:
            cur.append(i)
            right, left = max(right, c[2]), min(left, c[0])
        row = c
    if cur:
        blocks.append(cur)
    return blocks
