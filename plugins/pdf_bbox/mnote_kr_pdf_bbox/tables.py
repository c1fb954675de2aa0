"""Table rows: lines set side by side in aligned columns are one block per row.

A paragraph splitter reads a table column by column and stacks one column's cells into a
block, which no reader would draw. Here a *cellular row* is a set of lines on one height
(their boxes overlap vertically by half a line, their baselines within a fifth of it, their font
sizes within ``SAME_SIZE`` of each other: text of another size beside a line is another column's,
a list of references in small print beside the body text) with at least three pieces, or two of
which the narrower is under ``NARROW`` of the row's span (two columns of body text are two wide
pieces, not a table row; nor is a row whose every piece starts where the page's columns of
running text start, ``COLUMN_LINES``: a three-column page with a heading beside a paragraph's
last line). Two or more cellular rows one under
the other whose pieces share columns (their x-ranges overlap) make a table; a line under a
cell, in its column, before the next row, continues that cell (a cell of several lines). Each
row, with its cells' continuation lines, becomes one block; which cell answers is ``answer``'s
narrowing.

Boxes are text-frame boxes (``pdftext``): unrotated, top-left origin.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Sequence

from .layout import MARKER

Box = tuple[float, float, float, float]
Run = tuple[Box, int]  # a row's piece of text and its word count

NARROW = 0.3  # a two-piece row is a table row when its narrower piece is under this share of the row
ROW_GAP = 2.5  # rows of one table lie at most this many line heights apart
CELL_GAP = 1.5  # pieces of a row closer than this many line heights are one run of text
SAME_SIZE = 0.15  # lines of one row differ in font size by at most this share of the larger
#: A row of running text: every piece but the last holds this many words and is this wide a share
#: of the row's span (a column of a page set in columns), and so does the last but for a short line.
RUNNING_WORDS = 4
RUNNING_SHARE = 0.25
#: A row whose every piece starts where at least this many lines of running text (not in a cellular
#: row, ``RUNNING_WORDS`` words or more) start on the page is a row across the page's text columns:
#: a three-column page with a short heading in one column is not a table.
COLUMN_LINES = 5
#: A line just over a table row, reaching down into its height where the row has no cell, with a line under the
#: row in its column reaching up into it, is that cell's first line (``_opens_cell``; False: it ended the table,
#: read as a block of its own, before round 20). When the row goes on with the table above (``ROW_GAP``, its
#: columns), the line must lie in one of that table's columns (``_in_columns``), else it ends that table and
#: must lie in a column of the rows from the row down: text of the page's other column beside a table is no cell.
OPENING_LINES = True
#: How much of its own height such a line stands out over the row and reaches into it (and its last line, up).
OPENING_OVERLAP = 0.2
#: A line under a row's cell, set as far under the line above it as the table's rows stand apart (this share of
#: their pitch at least, the rows spaced ``ROW_PITCH`` line heights or more), is a row of its own: a label whose
#: row holds no figure, not the cell's second line (False: it continued the cell, as before round 28; nc28a F5,
#: "其中：营业收入" read with the empty row "利息收入" under it as one label, quoted and boxed across both).
OWN_ROWS = True
PITCH_SHARE = 0.85
ROW_PITCH = 1.5
#: Such a line is still the line above it wrapped when that line fills its column: the first word of the line under it
#: (a CJK character) would not have fitted after it before the column's right edge, the rightmost end of the page's
#: lines starting in that column short of the row's next cell (``_wraps``; False: a row of its own whatever the line
#: above, round 28). "支付其他与经营活动有关的现 | 金" ends at the column's edge; "经营活动产生的现金流量净额" (over the
#: section row "二、投资活动产生的现金流量：") ends two characters short of it.
WRAPS = True
#: What a line wrapped onto the next one at least: a Latin word (with its punctuation), else one character, after any
#: opening brackets and quotes (they never end a line: "Layerwise Reranker | (基于LLM分层)" moved "(基" down).
_OPENING = "(\\[{（【「『《“‘"
_WIDE = "\\u2e80-\\u9fff\\uac00-\\ud7af\\uf900-\\ufaff\\uff00-\\uffef"  # CJK letters and full-width forms
_FIRST = re.compile(f"[{_OPENING}]*(?:[^\\s{_OPENING}{_WIDE}]+|\\S)")


def _height(b: Box) -> float:
    return max(b[3] - b[1], 1.0)


def _rows(order: Sequence[int], boxes: Sequence[Box], base: Sequence[float],
          size: Sequence[float] | None = None) -> list[list[int]]:
    """The page's lines grouped by height: each group's lines overlap the group's first vertically,
    stand on its baseline and have its font size (columns of running text beside each other drift
    apart; a column in smaller print beside the body text is not a cell of its lines)."""
    rows: list[list[int]] = []
    for i in sorted(order, key=lambda i: (boxes[i][1], boxes[i][0])):
        b = boxes[i]
        for row in rows[-3:]:
            a = boxes[row[0]]
            h = min(_height(a), _height(b))
            if size is not None and abs(size[row[0]] - size[i]) > SAME_SIZE * max(size[row[0]], size[i]):
                continue
            if min(a[3], b[3]) - max(a[1], b[1]) >= 0.5 * h and abs(base[row[0]] - base[i]) <= 0.2 * h:
                row.append(i)
                break
        else:
            rows.append([i])
    for row in rows:
        row.sort(key=lambda i: boxes[i][0])
    return rows


def _pieces(row: list[int], boxes: Sequence[Box], texts: Sequence[str]) -> list[Run]:
    """The row's runs of text, left to right, each with its word count: lines closer than
    ``CELL_GAP`` merged (words drawn apart, a fraction set in another font), a list marker alone
    left out (a list is not a table)."""
    out: list[list[float]] = []
    for i in row:
        b = boxes[i]
        words = len(texts[i].split())
        if out and b[0] - out[-1][2] < CELL_GAP * min(_height(b), out[-1][3] - out[-1][1]):
            last = out[-1]
            last[1], last[2], last[3] = min(last[1], b[1]), max(last[2], b[2]), max(last[3], b[3])
            last[4] += words
        else:
            out.append([b[0], b[1], b[2], b[3], words])
    marks = {k for k, i in enumerate(row) if MARKER.fullmatch(texts[i])}
    if marks and len(out) == len(row):
        out = [p for k, p in enumerate(out) if k not in marks]
    return [((p[0], p[1], p[2], p[3]), int(p[4])) for p in out]


def _cellular(runs: list[Run]) -> bool:
    pieces = [b for b, _ in runs]
    if sum(words >= RUNNING_WORDS for _, words in runs) >= len(runs) - 1 >= 1 and \
            all(b[2] - b[0] >= RUNNING_SHARE * (pieces[-1][2] - pieces[0][0]) for b in pieces[:-1]):
        return False  # columns of running text side by side (a three-column page), not cells
    if len(pieces) >= 3:
        return True
    if len(pieces) != 2:
        return False
    span = pieces[-1][2] - pieces[0][0]
    return min(p[2] - p[0] for p in pieces) < NARROW * span


def _not_across_columns(cellular: list[bool], rows: list[list[int]], pieces: list[list[Run]],
                        boxes: Sequence[Box], texts: Sequence[str]) -> list[bool]:
    """``cellular`` without the rows that run across the page's text columns: each of their pieces
    starts where ``COLUMN_LINES`` lines of running text start (within a line height and a fifth)."""
    starts = sorted(boxes[i][0] for r, row in enumerate(rows) if not cellular[r] for i in row
                    if len(texts[i].split()) >= RUNNING_WORDS)
    if len(starts) < COLUMN_LINES:
        return cellular

    def column_start(b: Box) -> bool:
        reach = 1.2 * _height(b)
        return bisect.bisect_right(starts, b[0] + reach) - bisect.bisect_left(starts, b[0] - reach) >= COLUMN_LINES

    return [c and not all(column_start(b) for b, _ in runs) for c, runs in zip(cellular, pieces, strict=True)]


def _shares_columns(a: list[Run], b: list[Run]) -> bool:
    """True when at least two pieces of row ``b`` sit under pieces of row ``a``."""
    hits = sum(any(min(p[2], q[2]) > max(p[0], q[0]) for p, _ in a) for q, _ in b)
    return hits >= 2


def table_rows(order: Sequence[int], boxes: Sequence[Box], texts: Sequence[str],
               base: Sequence[float], size: Sequence[float] | None = None) -> list[list[int]]:
    """Line indices of each table row found among ``order`` (lines in reading order, ``texts``
    their texts, ``base`` their baselines, ``size`` their font sizes), with the lines that
    continue its cells; rows top to bottom."""
    rows = _rows(order, boxes, base, size)
    pieces = [_pieces(row, boxes, texts) for row in rows]
    cellular = _not_across_columns([_cellular(p) for p in pieces], rows, pieces, boxes, texts)
    out: list[list[int]] = []
    run: list[int] = []  # indices into rows of the current table's cellular rows

    lifted: set[int] = set()  # rows of lines that open a cell of the row under them (``_opens_cell``)
    alone: set[int] = set()  # rows of a label alone, spaced as the table's rows (``_own_row``): no cell's line

    def close() -> None:
        if len(run) >= 2:
            for k, r in enumerate(run):
                members = list(rows[r])
                end = run[k + 1] if k + 1 < len(run) else r + 1
                # lines between this row and the next that sit under one of its cells
                tail = [rows[t] for t in range(r + 1, end) if t not in lifted and t not in alone] \
                    if k + 1 < len(run) else [x for x in _trailing(rows, pieces, r, boxes, _pitch(rows, run, k, boxes),
                                                                   texts, order)
                                              if not any(x is rows[t] for t in lifted)]
                for extra in tail:
                    members.extend(extra)
                if r - 1 in lifted:
                    members.extend(rows[r - 1])
                out.append(members)
        run.clear()

    below: list[int] = []  # lines continuing the current row's cells
    for r, row in enumerate(rows):
        if not cellular[r]:
            if OPENING_LINES and run and r + 2 < len(rows) and cellular[r + 1] \
                    and _opens_cell(row, rows[r + 1], rows[r + 2], boxes):
                table = [i for t in range(run[0] - 1, r) if t in lifted or t >= run[0] for i in rows[t]]
                joins = _continues(rows, pieces, run[-1], r + 1, boxes)
                # in a column the table above lacks, while the row goes on with it: the next table's (its header
                # has a column more), when the rows from the row down have that column; else beside it, no cell
                starts = joins and not _in_columns(row, table, boxes) \
                    and _in_columns(row, _table_below(rows, pieces, cellular, r + 1, boxes), boxes)
                if not joins or starts or _in_columns(row, table, boxes):
                    lifted.add(r)
                    if starts:
                        close()  # the table above ends here: the row under it starts the next
                    continue  # a cell's first line, set over its row's baseline: goes with the row under it
            # the row's cells, with a cell's first line set over its baseline (a label's second line under it)
            cells = rows[run[-1]] + (rows[run[-1] - 1] if run[-1] - 1 in lifted else []) if run else []
            if cells and _under_cells(row, cells, boxes, below):
                if _own_row(row, [*cells, *below], boxes, _pitch(rows, run, len(run) - 1, boxes), texts, order):
                    alone.add(r)  # a label whose row holds no figure: a block of its own, the table goes on
                    below += row  # (under it, as under a cell's line, a line may still stand)
                    continue
                below += row
                continue  # a cell's second line: stays with its row (added in close)
            close()
            continue
        if run and not _continues(rows, pieces, run[-1], r, boxes):
            close()
        below = []
        run.append(r)
    close()
    return out


def _continues(rows: list[list[int]], pieces: list[list[Run]], prev: int, r: int, boxes: Sequence[Box]) -> bool:
    """True when cellular row ``r`` goes on with the table whose last row is ``prev``: close under it
    (``ROW_GAP``), sharing its columns."""
    gap = boxes[rows[r][0]][1] - max(boxes[i][3] for i in rows[prev])
    return gap <= ROW_GAP * _height(boxes[rows[prev][0]]) and _shares_columns(pieces[prev], pieces[r])


def _in_columns(row: list[int], table: list[int], boxes: Sequence[Box]) -> bool:
    """True when every line of ``row`` lies over or under a line of the ``table`` (its rows, their cells'
    first lines and continuation lines): in one of its columns. Text of the page's other column beside a
    table is no cell of it."""
    return all(any(min(boxes[j][2], boxes[i][2]) > max(boxes[j][0], boxes[i][0]) for i in table) for j in row)


def _table_below(rows: list[list[int]], pieces: list[list[Run]], cellular: list[bool], r: int,
                 boxes: Sequence[Box]) -> list[int]:
    """The lines of cellular row ``r`` and of the cellular rows after it that go on with it."""
    out, last = list(rows[r]), r
    for k in range(r + 1, len(rows)):
        if cellular[k]:
            if not _continues(rows, pieces, last, k, boxes):
                break
            out += rows[k]
            last = k
    return out


def _opens_cell(row: list[int], nxt: list[int], after: list[int], boxes: Sequence[Box]) -> bool:
    """True when every line of ``row`` is the first line of a cell of the row ``nxt`` under it: a cell of
    several lines centred on a row of one-line cells straddles the row's baseline ("上期的搬迁新址装修费用、
    发行新" over "管理费用 7,764,789.98 15,753,158.14 -50.71%", "H 股聘任中介费用，本期未发生" under it). Such a line
    stands out over the row and reaches down into its height (``OPENING_OVERLAP`` of its own height each), where
    the row has no cell, and a line of ``after`` (the lines right under the row) in its column reaches up into
    the row's height from below: the cell's last line."""
    top, bottom = min(boxes[i][1] for i in nxt), max(boxes[i][3] for i in nxt)
    for j in row:
        b = boxes[j]
        h = _height(b)
        if top - b[1] < OPENING_OVERLAP * h or b[3] - top < OPENING_OVERLAP * h:
            return False
        if any(min(b[2], boxes[i][2]) > max(b[0], boxes[i][0]) for i in nxt):
            return False  # over one of the row's cells: a line of its own
        if not any(min(b[2], boxes[k][2]) > max(b[0], boxes[k][0]) and bottom - boxes[k][1] >= OPENING_OVERLAP * h
                   and boxes[k][3] > bottom for k in after):
            return False
    return True


def _under_cells(row: list[int], cells: list[int], boxes: Sequence[Box], below: Sequence[int] = ()) -> bool:
    """True when every line of ``row`` lies close under one of ``cells`` (or under the lines
    ``below`` them that continue them), inside its column (from the cell's left edge to the
    next cell's)."""
    bottom = max(boxes[i][3] for i in [*cells, *below])
    h = _height(boxes[cells[0]])
    lefts = sorted({boxes[i][0] for i in cells})
    for j in row:
        b = boxes[j]
        if b[1] - bottom > 1.2 * h:
            return False
        col = [x for x in lefts if x <= b[0] + 0.5 * h]
        if not col:
            return False
        nxt = [x for x in lefts if x > col[-1]]
        if nxt and b[2] > nxt[0] - 0.5 * h:
            return False  # runs into the next column: not this cell's line
    return True


def _pitch(rows: list[list[int]], run: list[int], k: int, boxes: Sequence[Box]) -> float | None:
    """How far the top of the table's ``k``-th row (of ``run``) stands under the top of the row before it (None
    for the first)."""
    if k < 1:
        return None
    return min(boxes[i][1] for i in rows[run[k]]) - min(boxes[i][1] for i in rows[run[k - 1]])


def _own_row(row: list[int], above: list[int], boxes: Sequence[Box], pitch: float | None,
             texts: Sequence[str] = (), lines: Sequence[int] = ()) -> bool:
    """True when every line of ``row`` (under a cell of the row ``above``, or under that cell's lines) stands as
    far under the nearest line above it in its column as the table's rows stand apart (``pitch``, ``OWN_ROWS``),
    that line not wrapped onto it (``_wraps``, judged among the page's ``lines``, ``texts`` theirs): a row of its own
    whose label is all it holds. Rows set as closely as a cell's lines tell nothing (None)."""
    if not OWN_ROWS or pitch is None:
        return False
    for j in row:
        b = boxes[j]
        over = [i for i in above if boxes[i][1] < b[1] and min(b[2], boxes[i][2]) > max(b[0], boxes[i][0])]
        if not over or pitch < ROW_PITCH * _height(b):
            return False
        a = max(over, key=lambda i: boxes[i][1])
        if b[1] - boxes[a][1] < PITCH_SHARE * pitch or (texts and _wraps(a, j, above, boxes, texts, lines)):
            return False
    return True


def _weight(text: str) -> int:
    """``text``'s width in half-width characters (a CJK character counts two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _wraps(a: int, j: int, cells: Sequence[int], boxes: Sequence[Box], texts: Sequence[str],
           lines: Sequence[int]) -> bool:
    """True when line ``j`` is line ``a`` wrapped (``WRAPS``): ``j``'s first word (a CJK character; its width read
    from ``j``'s box and text) would not have fitted after ``a`` before the right edge of ``a``'s column, the
    rightmost end of the ``lines`` starting within two line heights of the column's left short of the next of
    ``cells`` to the right of ``a``. A label ending short of its column's edge with a line one row pitch under it
    heads a row of its own (an empty row); one filling its column ran on. When no other line of the column ends
    within that word of ``a``'s end, nothing on the page sets the edge there: the next cell is the edge (none: ``a``
    fills nothing). Else the widest label of a column always filled it (review30 finding 7: "Net cash provided by
    operating activities" took the section row "Investing activities:" under it as its second line)."""
    if not WRAPS:
        return False
    ta, tj = texts[a].rstrip(), texts[j].strip()
    first = _FIRST.match(tj)
    if not ta or first is None:
        return False
    ba, bj = boxes[a], boxes[j]
    h = _height(ba)
    nxt = min((boxes[i][0] for i in cells if boxes[i][0] > ba[2] - 0.5 * h), default=float("inf"))
    left, start = min(ba[0], bj[0]) - 2 * h, max(ba[0], bj[0]) + 2 * h
    width = (bj[2] - bj[0]) * _weight(first.group()) / max(_weight(tj), 1)
    space = 0.0 if _weight(ta[-1]) == 2 or _weight(tj[0]) == 2 else 0.25 * h  # Latin words part at a space
    room = 1.1 * (width + space)
    edge = max((boxes[i][2] for i in lines if i != a and left <= boxes[i][0] <= start and boxes[i][2] < nxt),
               default=float("-inf"))
    if edge < ba[2] - room:  # the column's widest line, far past the others: only the next cell bounds it
        edge = nxt
    return edge - ba[2] < room


def _trailing(rows: list[list[int]], pieces: list[list[Run]], r: int, boxes: Sequence[Box],
              pitch: float | None = None, texts: Sequence[str] = (), lines: Sequence[int] = ()) -> list[list[int]]:
    """The rows right under the table's last row that continue its cells (up to a row of its own, ``_own_row``)."""
    out = []
    below: list[int] = []
    for k, row in enumerate(rows[r + 1 :], r + 1):
        if _cellular(pieces[k]) or not _under_cells(row, rows[r], boxes, below) \
                or _own_row(row, [*rows[r], *below], boxes, pitch, texts, lines):
            break
        out.append(row)
        below += row
    return out


def regroup(blocks: list[list[int]], rows: list[list[int]], order: Sequence[int]) -> list[list[int]]:
    """``blocks`` with every table row's lines taken out and each row made one block, all in
    reading order (by the first line of each block in ``order``)."""
    if not rows:
        return blocks
    taken = {li for row in rows for li in row}
    rank = {li: k for k, li in enumerate(order)}
    kept = [[li for li in blk if li not in taken] for blk in blocks]
    out = [blk for blk in kept if blk] + [sorted(row, key=lambda li: rank.get(li, 0)) for row in rows]
    out.sort(key=lambda blk: min(rank.get(li, 0) for li in blk))
    return out
