"""A slide's table as rows of text, each value standing under its own header.

PowerPoint keeps a table as a grid: one ``a:tc`` per grid column in every row, a merged cell being
its first cell (``gridSpan``/``rowSpan``) with the cells it covers marked ``hMerge``/``vMerge`` (their
own text hidden). A merged cell's text stands in every grid cell it covers, so a label merged down
labels each of its rows, and no covered cell reads as a blank column.

The header is the host's ``header_row`` (the first row of two texts or more that heads the row below
it, as a workbook's table). When a cell of it spans columns and the row below is blank (or merged
down) under its other cells, that row names the columns of each group and is a header row too
(docling's sample: ``Class1`` over ``A``, ``B``, ``C``, a blank corner over the labels). A column's
header is its header rows' texts, outermost first (``Class1 / C``). A row below is written as the host's
``labelled_row``, the XLSX locator's reading: its first column's text as its label, then each other
value as ``header: value`` (blank cells left out; a value merged across columns once, under its first
and last column's headers: ``Mon–Tue: closed``; a label that is a number under its own header, ``Berth: 7``)::

    Route | Mon | Tue | Wed
    Saltmarsh crossing: Mon: 8; Wed: 9

A table without a header row is written plain, its cells `` | ``-joined with a blank cell kept as an
empty place (``South | | 60``) so every value stays in its column; trailing blanks are dropped. A
header row, and a title row above it, is its texts once each.
"""

from __future__ import annotations

from typing import Any

from mnote_kr.plugin_api import header_row, labelled_row

#: Cells read from one table; a table past it is read to there.
MAX_CELLS = 20_000


def _grid(table: Any) -> tuple[list[list[str]], list[list[tuple[int, int]]], list[list[int]]]:
    """``(texts, owners, spans)``: per row and grid column, the text shown there, the ``(row, column)`` of
    the cell it belongs to (a merged cell's first cell), and the merged cell's width in columns."""
    rows = list(table.rows)
    width = max((len(row.cells) for row in rows), default=0)
    if width and len(rows) * width > MAX_CELLS:
        rows = rows[:max(1, MAX_CELLS // width)]
    owners = [[(r, c) for c in range(width)] for r in range(len(rows))]
    spans = [[1] * width for _ in rows]
    cells = [list(row.cells) for row in rows]
    for r, row in enumerate(cells):
        for c, cell in enumerate(row):
            if not cell.is_merge_origin:
                continue
            spans[r][c] = cell.span_width
            for dr in range(cell.span_height):
                for dc in range(cell.span_width):
                    if r + dr < len(rows) and c + dc < width:
                        owners[r + dr][c + dc] = (r, c)
    texts = [[" ".join(cells[r0][c0].text.split()) if c0 < len(cells[r0]) else "" for r0, c0 in row]
             for row in owners]
    return texts, owners, spans


def _distinct(texts: list[str], owners: list[tuple[int, int]]) -> list[str]:
    """A row's non-blank texts, a merged cell's once."""
    seen: set[tuple[int, int]] = set()
    out = []
    for text, owner in zip(texts, owners, strict=True):
        if text and owner not in seen:
            out.append(text)
        seen.add(owner)
    return out


def _names_groups(h: int, texts: list[list[str]], owners: list[list[tuple[int, int]]], spans: list[list[int]]) -> bool:
    """Whether the row below header row ``h`` names the columns under its cells that span columns: ``h``
    has such a cell, a row follows it, and under every cell of ``h`` spanning one column it is blank or
    that same cell merged down (a body row has its label there)."""
    if h + 2 >= len(texts) or not any(s > 1 for s in spans[h]):
        return False
    owner = owners[h]
    single = [c for c in range(len(owner)) if spans[owner[c][0]][owner[c][1]] == 1]
    return all(not texts[h + 1][c] or owners[h + 1][c] == owner[c] for c in single)


def table_rows(table: Any) -> list[str]:
    """The table's rows as text (see the module), one per row, blank rows as ""."""
    texts, owners, spans = _grid(table)
    if not texts:
        return []
    distinct = [_distinct(t, o) for t, o in zip(texts, owners, strict=True)]
    at = header_row(distinct)
    if at is None:
        return [_plain(row) for row in texts]
    heads = [at]
    while _names_groups(heads[-1], texts, owners, spans) and header_row(distinct[heads[-1] + 1:heads[-1] + 3]) == 0:
        heads.append(heads[-1] + 1)
    width = len(texts[0])
    labels = [" / ".join(dict.fromkeys(texts[h][c] for h in heads if texts[h][c])) for c in range(width)]
    out = [" | ".join(row) for row in distinct[:heads[-1] + 1]]
    for r in range(heads[-1] + 1, len(texts)):
        out.append(_labelled(texts[r], owners[r], labels))
    return out


def _plain(texts: list[str]) -> str:
    """A row of a table without a header: every cell in its place, trailing blanks dropped."""
    while texts and not texts[-1]:
        texts = texts[:-1]
    return " | ".join(texts)


def _labelled(texts: list[str], owners: list[tuple[int, int]], labels: list[str]) -> str:
    """A row below the header: its first column's text as its label, each other value under its header (a label
    that is a number under its own header too, as a workbook's: ``Berth: 7; Arrivals: 150``)."""
    label = texts[0] or None
    parts: list[tuple[str, str]] = []
    c = 0
    while c < len(texts):
        last = c
        while last + 1 < len(texts) and owners[last + 1] == owners[c]:
            last += 1
        if texts[c] and (c or not label):
            parts.append(("–".join(dict.fromkeys(h for h in (labels[c], labels[last]) if h)), texts[c]))
        c = last + 1
    if not parts:
        return label or ""
    return labelled_row(label, parts, labels[0] if label else "")
