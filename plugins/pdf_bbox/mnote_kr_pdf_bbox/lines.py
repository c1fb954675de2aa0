"""Characters into text lines, each in the orientation it is written, and the lines' reading order.

A line is a run of characters on one baseline, read from PDFium (or ``cidtext``) in content
order. Text may be written turned on the page (a table set sideways, a label up a figure's
axis): each character's angle (PDFium's ``FPDFText_GetCharAngle``) is rounded to a quarter
turn, and characters are joined into lines in a frame turned so that their text runs left to
right; a turned line keeps that *reading box* (``PageText.turned``), and blocks, table rows and
cells are found on reading boxes, while the line's box on the page stays its true box.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable
from typing import TYPE_CHECKING

from .layout import is_rtl_text

if TYPE_CHECKING:
    from .page import PageGeometry, PageText

Box = tuple[float, float, float, float]
Quad = tuple[float, float, float, float]  # a character's box in user space: left, bottom, right, top


def quarter_turns(angle: float) -> int:
    """PDFium's character angle (radians, clockwise) as quarter turns counter-clockwise (0-3);
    0 for an angle not within 10 degrees of a quarter turn (slanted text is read as it lies)."""
    turns = -angle / (math.pi / 2)
    q = round(turns)
    return q % 4 if abs(turns - q) < 10 / 90 else 0


def turn(b: Quad, q: int) -> Quad:
    """User-space box ``b`` rotated by ``q`` quarter turns clockwise: text written ``q`` quarter
    turns counter-clockwise then runs left to right."""
    x0, y0, x1, y1 = b
    for _ in range(q % 4):
        x0, y0, x1, y1 = y0, -x1, y1, -x0
    return (x0, y0, x1, y1)


def unturn(b: Quad, q: int) -> Quad:
    """The inverse of ``turn``."""
    x0, y0, x1, y1 = b
    for _ in range(q % 4):
        x0, y0, x1, y1 = -y1, x0, -y0, x1
    return (x0, y0, x1, y1)


def reading_box(page: PageText, li: int) -> Box:
    """Line ``li``'s box in the frame where it reads left to right (top-left origin)."""
    return page.turned.get(li, page.lines[li]) if page.turned else page.lines[li]


GUTTER = 9.0  # points: a blank strip at least this wide from top to bottom separates columns
#: ... or at least this share of the region's median line height, when that is narrower: small type
#: (a scanned magazine page set at 8 pt, ``mineru__complex_layout.pdf``) has a narrower gutter, and
#: a y gap as wide would read its two columns row by row
GUTTER_EM = 0.6
#: A box taller than this many median line heights is no line's (``_rows``): a drop cap, a bracket, an image.
TALL_LINES = 1.5


def reading_order(boxes: list[Box], rtl: bool = False) -> list[int]:
    """Line indices in reading order by XY-cut (an explicit stack, not recursion, so a page's
    depth cannot exhaust Python's stack): a blank strip at least ``GUTTER`` wide from the top to
    the bottom of the region (columns, even when a picture between paragraphs leaves a wider band
    across the page; ``GUTTER_EM`` of the line height in small type) is cut first, otherwise the
    largest whitespace gap.

    Columns come out one after the other even when a producer drew them row by row;
    on a right-to-left page (``rtl``) the right column and the right piece of a row first.
    """
    out: list[int] = []
    stack: list[list[int]] = [list(range(len(boxes)))]
    while stack:
        idx = stack.pop()
        if len(idx) <= 1:
            out.extend(idx)
            continue
        best: tuple[float, int, float] | None = None  # gap, axis (0 = x: columns, 1 = y: bands), cut
        heights = sorted(boxes[i][3] - boxes[i][1] for i in idx)
        gutter = min(GUTTER, GUTTER_EM * heights[len(heights) // 2])
        for axis in (0, 1):
            if axis == 1 and best is not None and best[0] >= gutter:
                break  # a gutter from top to bottom: the columns are read one after the other
            spans = sorted((boxes[i][axis], boxes[i][axis + 2]) for i in idx)
            reach = spans[0][1]
            for lo, hi in spans[1:]:
                if lo - reach > 0.5 and (best is None or lo - reach > best[0]):
                    best = (lo - reach, axis, (lo + reach) / 2)
                reach = max(reach, hi)
        if best is None:
            # a right-to-left page's rows are grouped first (nc27c N1); a left-to-right page keeps its tops' order,
            # which runs a block cut at a superscript on to its sentence's end (tests/test_quote_own_place.py)
            out.extend(_rows(idx, boxes, rtl) if rtl else sorted(idx, key=lambda i: (boxes[i][1], boxes[i][0])))
            continue
        _, axis, cut = best
        first = [i for i in idx if boxes[i][axis] < cut]
        second = [i for i in idx if boxes[i][axis] >= cut]
        if rtl and axis == 0:
            first, second = second, first
        stack.append(second)
        stack.append(first)
    return out


def _rows(idx: list[int], boxes: list[Box], rtl: bool) -> list[int]:
    """``idx`` (no gap between them either way) row by row, each row along its reading direction: the pieces of one
    line whose boxes start a point apart in y (a taller glyph, an embedded "pandas" in an Arabic line) are one row,
    not sorted by their tops, which put the left piece of an Arabic line first (nc27c N1). A box taller than
    ``TALL_LINES`` of the median line (a drop cap, a tall bracket, an inline image) joins a row but never widens
    its band: it joined two lines into one row, their pieces then read by x (review r28)."""
    heights = sorted(boxes[i][3] - boxes[i][1] for i in idx)
    tall = TALL_LINES * heights[len(heights) // 2]
    rows: list[list[int]] = []
    band: tuple[float, float] | None = None  # the row's top and bottom from its boxes of a line's height
    reach = (0.0, 0.0)  # those of the box that began the row (the band while it has none)
    for i in sorted(idx, key=lambda i: (boxes[i][1] + boxes[i][3], boxes[i][1])):
        b = boxes[i]
        top, bottom = band or reach
        h = min(b[3] - b[1], bottom - top) if rows else 0.0
        if rows and min(bottom, b[3]) - max(top, b[1]) > 0.5 * h > 0:
            rows[-1].append(i)
            if b[3] - b[1] <= tall:
                band = (min(top, b[1]), max(bottom, b[3])) if band else (b[1], b[3])
        else:
            rows.append([i])
            reach = (b[1], b[3])
            band = reach if b[3] - b[1] <= tall else None
    return [i for row in rows for i in sorted(row, key=lambda i: -boxes[i][2] if rtl else boxes[i][0])]


def assemble(out: PageText, text: str, box_of: Callable[[int], Quad | None],
             origin_y: Callable[[int], float | None], size_of: Callable[[int], float],
             angle_of: Callable[[int], float] | None = None) -> None:
    """Fill ``out`` (lines, their order, baselines and sizes, turned lines' reading boxes) from a
    page's characters and boxes; ``angle_of`` gives a character's angle (PDFium's)."""
    geom = out.geometry
    n = len(text)
    line_of = [-1] * n
    members: list[list[int]] = []
    lines: list[list[float]] = []  # per line: l, b, r, t in user space turned by the line's quarter turns
    turns: list[int] = []
    spans = array("f", bytes(8 * n))  # each character's left and right in its line's reading frame (0, 0: none)
    cx0 = geom.crop[0]
    cur: list[float] | None = None  # the current line
    last_r = 0.0
    for i in range(n):
        ch = text[i]
        if ch in "\r\n":
            cur = None
            continue
        quad = None if ch.isspace() or ch in "\ufffe\x02" else box_of(i)
        if quad is None:
            if cur is not None:  # no box of its own: belongs to the line it sits in
                line_of[i] = len(lines) - 1
                members[-1].append(i)
            continue
        q = quarter_turns(angle_of(i)) if angle_of is not None else 0
        lft, bot, rgt, top = turn(quad, q) if q else quad
        if cur is not None:
            h = max(cur[3] - cur[1], top - bot, 1.0)
            mid, cmid = (bot + top) / 2, (cur[1] + cur[3]) / 2
            # a new line: another orientation, baseline moved, text ran backwards, or a column-sized gap
            if q != turns[-1] or abs(mid - cmid) > 0.5 * h or lft < last_r - 1.5 * h or lft - last_r > 1.5 * h:
                cur = None
        if cur is None:
            cur = [lft, bot, rgt, top]
            lines.append(cur)
            members.append([])
            turns.append(q)
        else:
            cur[0] = min(cur[0], lft)
            cur[1] = min(cur[1], bot)
            cur[2] = max(cur[2], rgt)
            cur[3] = max(cur[3], top)
        last_r = rgt
        spans[2 * i], spans[2 * i + 1] = (lft, rgt) if q else (lft - cx0, rgt - cx0)
        line_of[i] = len(lines) - 1
        members[-1].append(i)
    out.text = text
    out.line_of = line_of
    out.char_spans = spans
    true = [unturn((b[0], b[1], b[2], b[3]), q) for b, q in zip(lines, turns, strict=True)]
    out.lines = [geom.text_frame(b) for b in true]
    # a turned line's reading box: its turned user-space box with y pointing down
    out.turned = {li: (b[0], -b[3], b[2], -b[1]) for li, (b, q) in enumerate(zip(lines, turns, strict=True)) if q}
    out.base, out.size = _baselines(text, members, true, geom, origin_y, size_of)
    for li, rb in out.turned.items():
        out.base[li] = rb[3] - 0.2 * (rb[3] - rb[1])  # about where the baseline sits in the turned frame
    out.stream = members
    out.rtl = is_rtl_text(text)
    boxes = [reading_box(out, li) for li in range(len(out.lines))]
    order: list[int] = []
    for q in sorted(set(turns)):  # upright text first, then each orientation in its own frame
        group = [li for li in range(len(boxes)) if turns[li] == q]
        order.extend(group[k] for k in reading_order([boxes[li] for li in group], out.rtl))
    out.order = [members[li] for li in order]


def _baselines(
    text: str, members: list[list[int]], lines: list[Quad], geom: PageGeometry,
    origin_y: Callable[[int], float | None], size_of: Callable[[int], float],
) -> tuple[list[float], list[float]]:
    """Per line, the baseline (text frame y) and font size, each the median of three of its
    characters (first, middle, last): a superscript or a subscript does not move them.
    Line spacing is measured baseline to baseline, which a line's mixed fonts (a taller
    box for a typewriter word) do not disturb."""
    top = geom.crop[3]
    bases: list[float] = []
    sizes: list[float] = []
    for li, chars in enumerate(members):
        ink = [i for i in chars if not text[i].isspace()]
        ys: list[float] = []
        fs: list[float] = []
        for i in {ink[0], ink[len(ink) // 2], ink[-1]} if ink else ():
            oy = origin_y(i)
            if oy is not None:
                ys.append(top - oy)
            fs.append(size_of(i))
        b = lines[li]
        ys.sort()
        fs.sort()
        bases.append(ys[len(ys) // 2] if ys else top - b[1])
        sizes.append(fs[len(fs) // 2] if fs and fs[len(fs) // 2] > 0 else b[3] - b[1])
    return bases, sizes
