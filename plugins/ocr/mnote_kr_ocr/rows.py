"""Table rows on a recognised page: the cells of one row become one line (``scan.lay_out``).

RapidOCR reads a table one cell at a time, each cell its own line, so a lab table came out as
``Glucose, Fasting`` / ``118 mg/dL`` / ``70-100 mg/dL`` / ``HIGH`` / ``HbA1c`` / ``6.8%`` / …: the
indexed text read one cell per line and a question about HbA1c could not be cited on the row that
holds its value. Here the lines that sit on one baseline (their boxes share most of their height and
do not overlap side by side: a *band*) are a row when the page shows a table: at least
``MIN_ROWS`` bands in a run, one under the next, whose cells start (or end) at the same columns.
The row's cells, left to right, become one line (``" | "`` between them, as the DOCX, PPTX and XLSX
locators quote a row), boxed on their union.

Conservative on purpose: a line that shares its baseline with no other stays as it is; so do bands
that line up in fewer than ``MIN_ROWS`` rows (a page header ``Chapter 1 ... 17``), and two columns of
prose (lines that fill their column: ``PROSE_FILL``; or long cells: ``PROSE_WORDS``), which line up
as well as a table does but are read down each column.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import median
from typing import Protocol

from .spaces import cjk


class _Boxed(Protocol):
    text: str
    box: list[float]


#: Fewest rows (bands in a run, lined up) that make a table.
MIN_ROWS = 3
#: Cells of one column start (or end, or centre) within this share of the page's median line height: a
#: table's columns are ruled, recognition's boxes stray a point or two; side-by-side blocks of a form or a
#: signature stray further.
ALIGN = 0.5
#: A cell that fills this share of its column (from its start to the next cell's) and holds
#: ``PROSE_LINE_WORDS`` words or more is a line of prose: a column's lines run up to its gutter, a table's
#: cells seldom do. A run with such a line in half its bands or more is columns of prose (or prose beside a
#: listing), not a table.
PROSE_FILL = 0.8
PROSE_LINE_WORDS = 4
#: A run whose cells hold this many words at the median (a CJK character is half a word) is prose.
PROSE_WORDS = 6


def _height(box: Sequence[float]) -> float:
    return box[3] - box[1]


def _one_baseline(a: Sequence[float], b: Sequence[float]) -> bool:
    """Whether two boxes sit on one baseline: they share at least half the lower one's height."""
    shared = min(a[3], b[3]) - max(a[1], b[1])
    return shared >= 0.5 * min(_height(a), _height(b))


def bands(lines: Sequence[_Boxed]) -> list[list[int]]:
    """The lines that sit on one baseline with another, as bands (line indexes, left to right), top to
    bottom; a band whose lines overlap side by side (lines stacked in one column) is none."""
    order = sorted(range(len(lines)), key=lambda i: (lines[i].box[1] + lines[i].box[3]) / 2)
    out: list[list[int]] = []
    taken: set[int] = set()
    for i in order:
        if i in taken:
            continue
        band = [i]
        for j in order:
            if j not in taken and j not in band and all(_one_baseline(lines[k].box, lines[j].box) for k in band):
                band.append(j)
        taken.update(band)
        band.sort(key=lambda k: lines[k].box[0])
        side_by_side = all(lines[a].box[2] <= lines[b].box[0] for a, b in zip(band, band[1:], strict=False))
        if len(band) >= 2 and side_by_side:
            out.append(band)
    return out


def _same_column(a: Sequence[float], b: Sequence[float], tol: float) -> bool:
    """Whether two cells start, end or centre at the same place (left-, right- or centre-aligned)."""
    return abs(a[0] - b[0]) <= tol or abs(a[2] - b[2]) <= tol or abs(a[0] + a[2] - b[0] - b[2]) <= 2 * tol


def _lined_up(a: list[Sequence[float]], b: list[Sequence[float]], tol: float) -> bool:
    """Whether two bands' cells stand in the same columns: each cell of the shorter band starts, ends or
    centres where a cell of the longer one does, in order, and at least two do."""
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    at = 0
    for cell in short:
        while at < len(long_) and not _same_column(long_[at], cell, tol):
            at += 1
        if at == len(long_):
            return False
        at += 1
    return len(short) >= 2


def _words(text: str) -> float:
    han = sum(1 for ch in text if cjk(ch))
    return len("".join(ch if not cjk(ch) else " " for ch in text).split()) + han / 2


def _prose_line(a: _Boxed, b: _Boxed) -> bool:
    """Whether cell ``a`` (the next cell of its band: ``b``) reads as a line of prose (``PROSE_FILL``)."""
    fill = (a.box[2] - a.box[0]) / max(b.box[0] - a.box[0], 1e-6)
    return fill >= PROSE_FILL and _words(a.text) >= PROSE_LINE_WORDS


def _prose(lines: Sequence[_Boxed], run: list[list[int]]) -> bool:
    """Whether lined-up bands are columns of prose (see ``PROSE_FILL``, ``PROSE_WORDS``)."""
    full = sum(1 for band in run if any(_prose_line(lines[a], lines[b]) for a, b in zip(band, band[1:], strict=False)))
    words = [_words(lines[i].text) for band in run for i in band]
    return 2 * full >= len(run) or median(words) >= PROSE_WORDS


def table_rows(lines: Sequence[_Boxed]) -> list[list[int]]:
    """The rows of the page's tables (line indexes, left to right), top to bottom: runs of at least
    ``MIN_ROWS`` bands, each lined up with the one above (columns within ``ALIGN`` of a line height) and below it
    within two line heights, no other line between them, and not prose (``_prose``)."""
    found = bands(lines)
    if len(found) < MIN_ROWS:
        return []
    banded = {i for band in found for i in band}
    heights = [_height(ln.box) for ln in lines]
    tall = median(heights)

    def joins(upper: list[int], lower: list[int]) -> bool:
        top = max(lines[i].box[3] for i in upper)
        bottom = min(lines[i].box[1] for i in lower)
        if bottom - top > 2 * tall:
            return False
        left = min(lines[i].box[0] for i in upper + lower)
        right = max(lines[i].box[2] for i in upper + lower)
        between = any(i not in banded and top < (ln.box[1] + ln.box[3]) / 2 < bottom
                      and ln.box[0] < right and ln.box[2] > left for i, ln in enumerate(lines))
        return not between and _lined_up([lines[i].box for i in upper], [lines[i].box for i in lower], ALIGN * tall)

    runs: list[list[list[int]]] = [[found[0]]]
    for band in found[1:]:
        if joins(runs[-1][-1], band):
            runs[-1].append(band)
        else:
            runs.append([band])
    return [band for run in runs if len(run) >= MIN_ROWS and not _prose(lines, run) for band in run]
