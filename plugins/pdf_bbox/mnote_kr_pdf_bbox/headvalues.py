"""A table's header cell (or the title right over its header row) chosen as the answer leads to the
values under it, as a DOCX or XLSX header row leads to the asked row.

A question about a table's figures ("What are the costs for U.S. operators?") shares its words with a
column header ("Cost on U.S. operators") more than with the rows that hold the figures, so the block
the words choose is often the header: a place without the answer. When the page's layout shows a
table there, the header's values are the place:

- *Header row*: the chosen block is short text without a digit or a colon (a block holding a figure
  answers itself and is never moved off; "Name: value" is a label with its value), on one band with at
  least ``MIN_HEADERS`` - 1 other such blocks in its font size, side by side (not overlapping in x). A
  title right above such a row (within ``HEAD_GAP`` line heights, inside its span) leads to the header
  holding the most of the query's words, one header alone, else nothing moves.
- *Body*: the lines right under the header row, each starting within ``ROW_GAP`` line heights of the
  line above, overlapping the row's span and ending within a line height of its right edge (a row's
  label may start left of its header, centred over the labels), in the header's font size. Its rows
  (a band of lines with numbers under two headers, with the bands under it holding none: a label's or a
  cell's second line) count while each holds numbers as
  tables print them (``tableread.is_numeric``) right under two headers or more (overlapping their
  x-ranges); at least ``MIN_ROWS`` such rows, and a number under the chosen header in one of them.
- *Values*: those numbers under the chosen header. A row's label is its words left of its first
  figure (leader dots dropped).

Where a word stands needs each character's x, which the document model drops once its layout is
read; the page is read again with PDFium here, only for a header that qualifies, and its text must be
the model's (else nothing moves). A row the query names by its label (the host's ``asked_row``) is the
place; else the column, header and values, one box, quoted ``header: label: value; ...``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mnote_kr.plugin_api import asked_row, iter_tokens

from .page import Box, PageText
from .pdfium import PDFIUM_LOCK, page_chars
from .pdfium import modules as _pdfium
from .tableread import is_numeric

MIN_HEADERS = 3  # a header row has at least this many cells
HEAD_WORDS = 6  # a header cell holds at most this many words
HEAD_LINES = 3  # and at most this many lines
HEAD_GAP = 2.0  # a title stands at most this many line heights above the header row
ROW_GAP = 2.5  # a body line starts at most this many line heights under the line above
MIN_ROWS = 2  # the body's rows of figures under two headers or more, one under the other
SAME_SIZE = 0.15  # body lines' font size is the header's within this share

Word = tuple[str, float, float, int]  # text, x0, x1, line


@dataclass(frozen=True)
class Column:
    """The values a header leads to: the header's block, its text, the boxes (text frame) of the header
    and of each value, and the quote."""

    header: int
    name: str
    boxes: list[Box]
    text: str
    rows: int
    asked: bool  # the query named the row by its label (``asked_row``): its value alone


def _height(b: Box) -> float:
    return max(b[3] - b[1], 1.0)


def _line(page: PageText, li: int) -> str:
    return " ".join("".join(page.text[c] for c in page.stream[li]).split())


def _block_box(page: PageText, bi: int) -> Box:
    bs = [page.lines[li] for li in page.blocks[bi]]
    return (min(b[0] for b in bs), min(b[1] for b in bs), max(b[2] for b in bs), max(b[3] for b in bs))


def _short_text(page: PageText, bi: int) -> str | None:
    """The block's text when it could be a header cell: few lines and words, no digit, upright."""
    lines = page.blocks[bi]
    if len(lines) > HEAD_LINES or any(li in page.turned for li in lines):
        return None
    text = " ".join(_line(page, li) for li in lines)
    if not text or len(text.split()) > HEAD_WORDS or any(ch.isdigit() or ch in ":\uff1a" for ch in text):
        return None  # a figure answers itself; "Name: value" is a label with its value, no header
    return text


def _header_row(page: PageText, bi: int) -> list[int] | None:
    """The blocks of the header row block ``bi`` stands in, left to right; None when it stands in none. Worked out
    once per block of a page in memory (``tablerows._same_row`` asks it of every block of the page at each locate
    of a block on it: a page's blocks squared)."""
    memo = page.__dict__.setdefault("_header_rows", {})  # not a field: never stored with the model
    if bi not in memo:
        memo[bi] = _header_row_of(page, bi)
    row = memo[bi]
    return None if row is None else list(row)


def _header_row_of(page: PageText, bi: int) -> list[int] | None:
    if _short_text(page, bi) is None:
        return None
    box = _block_box(page, bi)
    row = [bi]
    for other in range(len(page.blocks)):
        if other == bi or page.blocks[other][0] in page.furniture or _short_text(page, other) is None:
            continue
        b = _block_box(page, other)
        h = min(_height(page.lines[page.blocks[other][0]]), _height(page.lines[page.blocks[bi][0]]))
        sizes = (page.size[page.blocks[other][0]], page.size[page.blocks[bi][0]]) if page.size else (0.0, 0.0)
        if min(b[3], box[3]) - max(b[1], box[1]) >= 0.5 * h and abs(sizes[0] - sizes[1]) <= SAME_SIZE * max(sizes):
            row.append(other)
    row.sort(key=lambda k: _block_box(page, k)[0])
    spans = [_block_box(page, k) for k in row]
    if len(row) < MIN_HEADERS or any(a[2] > b[0] for a, b in zip(spans, spans[1:], strict=False)):
        return None
    return row


def _row_under(page: PageText, bi: int) -> list[int] | None:
    """The header row right under title block ``bi`` (within its span), or None."""
    if _short_text(page, bi) is None:
        return None
    box = _block_box(page, bi)
    h = _height(page.lines[page.blocks[bi][0]])
    below = sorted((_block_box(page, k)[1], k) for k in range(len(page.blocks))
                   if k != bi and 0 <= _block_box(page, k)[1] - box[3] <= HEAD_GAP * h)
    for _, k in below:
        row = _header_row(page, k)
        if row is not None:
            span = (_block_box(page, row[0])[0], _block_box(page, row[-1])[2])
            return row if span[0] - h <= box[0] and box[2] <= span[1] + h else None
    return None


def _char_xs(path: str, page: PageText, lines: list[int]) -> dict[int, tuple[float, float]] | None:
    """Each character of ``lines``: its left and right x in the text frame, read again with PDFium; None
    when the page reads otherwise than the model (another reader's text, a changed file)."""
    pdfium, raw = _pdfium()
    out: dict[int, tuple[float, float]] = {}
    with PDFIUM_LOCK:
        try:
            doc = pdfium.PdfDocument(str(Path(path)))
        except pdfium.PdfiumError:
            return None
        try:
            pg = doc[page.number - 1]
            tp = pg.get_textpage()
            try:
                text, first = page_chars(tp, raw)
                if text != page.text:
                    return None
                ends = [*first[1:], tp.count_chars()] if first is not None else None
                x0 = page.geometry.crop[0]
                for li in lines:
                    for c in page.stream[li]:
                        units = range(first[c], ends[c]) if first is not None and ends is not None else (c,)
                        boxes = [tp.get_charbox(u, loose=True) for u in units]
                        out[c] = (min(b[0] for b in boxes) - x0, max(b[2] for b in boxes) - x0)
            finally:
                tp.close()
                pg.close()
        finally:
            doc.close()
    return out


def _words(page: PageText, li: int, xs: dict[int, tuple[float, float]]) -> list[Word]:
    out: list[Word] = []
    word: list[int] = []
    for c in [*page.stream[li], -1]:
        if c < 0 or page.text[c].isspace() or page.text[c] in "\ufffe\x02":
            if word:
                out.append(("".join(page.text[k] for k in word), min(xs[k][0] for k in word),
                            max(xs[k][1] for k in word), li))
            word = []
        else:
            word.append(c)
    return out


def _body(page: PageText, row: list[int]) -> list[int]:
    """The lines under header row ``row`` that continue it as a table's body, top to bottom."""
    boxes = [_block_box(page, k) for k in row]
    head = {li for k in row for li in page.blocks[k]}
    size = page.size[page.blocks[row[0]][0]] if page.size else 0.0
    h = min(_height(page.lines[page.blocks[k][0]]) for k in row)
    left, right, bottom = min(b[0] for b in boxes), max(b[2] for b in boxes) + h, max(b[3] for b in boxes)
    # a row's label may start left of its header (centred over the labels): only the right edge bounds the body
    cands = sorted((li for li, b in enumerate(page.lines) if li not in head and li not in page.furniture
                    and li not in page.turned and b[1] >= bottom - 0.25 * h and b[2] > left and b[0] < right),
                   key=lambda li: page.lines[li][1])
    out: list[int] = []
    for li in cands:
        b = page.lines[li]
        if b[1] - bottom > ROW_GAP * h:
            break
        if b[2] > right or (size and abs(page.size[li] - size) > SAME_SIZE * max(page.size[li], size)):
            break  # a line across the column (running text) or in another size ends the table
        out.append(li)
        bottom = max(bottom, b[3])
    return out


def _under(x0: float, x1: float, spans: list[tuple[float, float]]) -> int | None:
    """The header whose x-range the word overlaps most, None when it overlaps none."""
    over = [min(x1, sp[1]) - max(x0, sp[0]) for sp in spans]
    k = max(range(len(spans)), key=lambda j: over[j])
    return k if over[k] > 0 else None


def _label(page: PageText, words: list[Word], h: float) -> str:
    """A row's label: the words of its lines without a figure, and of a line with one that starts where the row
    does, its words before a leader of dots or its first figure (a cell's second line, "Up to $6,715.", is none)."""
    left = min(page.lines[w[3]][0] for w in words)
    out: list[str] = []
    for li in dict.fromkeys(w[3] for w in sorted(words, key=lambda w: (page.lines[w[3]][1], w[1]))):
        mine = sorted((w for w in words if w[3] == li), key=lambda w: w[1])
        if any(ch.isdigit() for w in mine for ch in w[0]):
            if page.lines[li][0] > left + h:
                continue
            cut = next(k for k, w in enumerate(mine) if any(ch.isdigit() for ch in w[0])
                       or not any(ch.isalnum() for ch in w[0]) and "." in w[0])
            mine = mine[:cut]
        out += [w[0] for w in mine if any(ch.isalnum() for ch in w[0])]
    return " ".join(out)


def column_values(doc_path: str, page: PageText, bi: int, query: str) -> Column | None:
    """The values under block ``bi`` of ``page`` when it is a table's header cell (or the title right
    over its header row, leading to the header the query names most words of); None otherwise."""
    row = _header_row(page, bi)
    header = bi
    if row is None:
        row = _row_under(page, bi)
        if row is None:
            return None
        header = _named(page, row, query)
        if header is None:
            return None
    body = _body(page, row)
    if not body:
        return None
    xs = _char_xs(doc_path, page, body)
    if xs is None:
        return None
    spans = [(_block_box(page, k)[0], _block_box(page, k)[2]) for k in row]
    h = min(_height(page.lines[li]) for li in body)
    col = row.index(header)
    # bands: the body's lines side by side (overlapping vertically by half a line), top to bottom
    bands: list[list[int]] = []
    for li in sorted(body, key=lambda li: (page.lines[li][1], page.lines[li][0])):
        b = page.lines[li]
        if bands and min(page.lines[bands[-1][0]][3], b[3]) - max(page.lines[bands[-1][0]][1], b[1]) >= 0.5 * h:
            bands[-1].append(li)
        else:
            bands.append([li])
    # rows: a band with numbers under two headers starts one; a band without (a label's or a cell's second
    # line, "Up to $6,715.") goes on the row above; one without a figure set apart under the table ends it
    rows: list[list[Word]] = []
    for band in bands:
        ws = [w for li in band for w in _words(page, li, xs)]
        figure = any(any(ch.isdigit() for ch in w) for w, *_ in ws)
        above = max((page.lines[w[3]][3] for w in rows[-1]), default=0.0) if rows else 0.0
        if rows and not figure and page.lines[band[0]][1] - above > 0.6 * h:
            break
        across = {k for w in ws if is_numeric(w[0]) and (k := _under(w[1], w[2], spans)) is not None}
        if rows and len(across) < 2:
            rows[-1].extend(ws)
        else:
            rows.append(ws)
    found: list[tuple[str, list[Word]]] = []
    table = 0  # the body's rows with figures under two headers or more, from the top
    for ws in rows:
        ws.sort(key=lambda w: (page.lines[w[3]][1] // h, w[1]))
        first = next((k for k, w in enumerate(ws) if any(ch.isdigit() for ch in w[0])), len(ws))
        label = _label(page, ws, h)
        under = [(k, w) for w in ws[first:] if is_numeric(w[0]) and (k := _under(w[1], w[2], spans)) is not None]
        if len({k for k, _ in under}) < 2:
            break  # no row of this table: the table ended (or never began)
        table += 1
        mine = [w for k, w in under if k == col]
        if mine:
            found.append((label, mine))
    if table < MIN_ROWS or not found:
        return None
    name = _short_text(page, header) or ""
    asked = asked_row(query, [name], [[label, " ".join(w for w, *_ in vals)] for label, vals in found])
    if asked is not None:
        found = [found[asked[0]]]
    boxes = [_block_box(page, header)] + [(w[1], page.lines[w[3]][1], w[2], page.lines[w[3]][3])
                                          for _, vals in found for w in vals]
    said = "; ".join(f"{label}: " * bool(label) + " ".join(w for w, *_ in vals) for label, vals in found)
    return Column(header, name, boxes, f"{name}: {said}", len(found), asked is not None)


def _named(page: PageText, row: list[int], query: str) -> int | None:
    """The header of ``row`` holding the most of the query's content words, one alone; else None."""
    from .blocks import content_terms, fold, stem

    terms = set(content_terms(query))
    held = [(len(terms & {stem(t) for t, _, _ in iter_tokens(fold(_short_text(page, k) or ""))}), k) for k in row]
    held.sort(reverse=True)
    if not held[0][0] or (len(held) > 1 and held[1][0] == held[0][0]):
        return None
    return held[0][1]
