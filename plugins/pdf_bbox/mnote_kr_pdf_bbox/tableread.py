"""A PDF table's rows read under their headers, as the DOCX, XLSX and PPTX locators read theirs.

``tables`` finds a page's table rows (lines side by side in shared columns) and makes each row a
block; here each table (its rows one under the other, sharing columns) gets its columns and their
headers, and each row the cells under them, so the row reads ``Kentucky: Permit: 264,140;
Handgun: 12,155; ...`` (the host's ``labelled_row``) for matching, meaning and the quote, and a
question naming a row's label and a header can be placed on that one cell (``named_cell``).

- *Columns*: the x-ranges of the table's body rows' lines, merged where they overlap.
- *Header*: the table's first row when it heads the row below it (the host's ``header_row``: text,
  not numbers), else the lines right above the first row that do; with the other lines on its
  band (a heading cell set apart from the row, a header the running-header finder took for a
  page's furniture). Its lines are split into words (their characters' x, read with the page) and
  each word goes to the column it overlaps most: a header line run together ("Handgun Long Gun
  *Other") still names each column.
- *Groups*: lines right above the header, in its font size, not a title across the table, head the
  columns centred under them ("Pre-Pawn" over its Handgun, Long Gun and Other): such a column's
  header is "Pre-Pawn Handgun", and only the plain "Handgun" is the one a question names.
- *Labels*: the first column, when its cells are text, labels each row; so does a text column right
  after a column of numbers, with numbers after it (two tables set side by side print as one row:
  each part reads under its own label).

Conservative: no header found, or no column of numbers under a header, and the rows stay as
written. Prose never reaches here (``tables`` keeps running text out of table rows).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from mnote_kr.plugin_api import header_row, named_header, named_in_chinese

from .lines import reading_box
from .page import Box, PageText

#: A cell holding a number as tables print them: signs, currency, thousands separators, a percent,
#: a bracketed negative; or a dash for none.
_NUMBER = re.compile(r"[(+\-\u2212\u2013]?[$€£¥]?\d[\d,.\s]*%?\)?|[-\u2013\u2014]")
_YEAR = re.compile(r"(?:1[89]|20)\d\d[A-Za-z]{0,2}")  # a year as a header (``2023E``)
HEAD_GAP = 1.5  # a header stands at most this many line heights above the table's first row
GROUP_GAP = 1.0  # a group heading at most this many line heights above the header
GROUP_LEVELS = 2  # group headings over group headings, at most
TITLE_SHARE = 0.6  # a line above the header wider than this share of the table is its title
SAME_SIZE = 0.15  # a group heading's font size is the header's within this share
NUMBER_COLUMNS = 2  # a table read under its headers has at least this many columns of numbers
NUMBER_SHARE = 0.7  # and at least this share of its values are numbers
#: a cell of a column of numbers that says there is none
_NONE = frozenset({"na", "n/a", "n.a.", "nm", "n.m.", "…", "*"})
CELL_WORDS = 6  # and no cell holds more words than this (running text)

Segment = tuple[str, list[int], list[tuple[str, str, list[int]]]]  # label, its lines; (header, text, lines)


def is_numeric(text: str) -> bool:
    """Whether a cell's text is a number as tables print them (``4,100``, ``33.7%``, ``(12)``, ``-``)."""
    return bool(_NUMBER.fullmatch(text.strip()))


def _text(page: PageText, li: int) -> str:
    return " ".join("".join(page.text[c] for c in page.stream[li]).split())


def _cell_text(page: PageText, lines: Sequence[int]) -> str:
    return " ".join(t for li in lines if (t := _text(page, li)))


def _height(b: Box) -> float:
    return max(b[3] - b[1], 1.0)


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> float:
    return min(a[1], b[1]) - max(a[0], b[0])


def read_tables(page: PageText) -> None:
    """Fill ``page.row_cells`` for the table rows of ``page`` that read under a header."""
    page.row_cells = {}
    page.row_table = {}
    if not page.table_rows:
        return
    boxes = [reading_box(page, li) for li in range(len(page.lines))]
    for table in _tables(page, boxes):
        _read_table(page, boxes, table)


def _tables(page: PageText, boxes: Sequence[Box]) -> list[list[int]]:
    """The page's table rows (block indices) as tables: rows of one orientation one under the other,
    close, sharing two columns or more, top to bottom."""
    def top(bi: int) -> float:
        return min(boxes[li][1] for li in page.blocks[bi])

    out: list[list[int]] = []
    for turned in (False, True):
        rows = sorted((bi for bi in page.table_rows if (page.blocks[bi][0] in page.turned) == turned), key=top)
        for bi in rows:
            if out and out[-1][0] in rows and _follows(page, boxes, out[-1][-1], bi):
                out[-1].append(bi)
            else:
                out.append([bi])
    return [t for t in out if len(t) >= 2]


def _follows(page: PageText, boxes: Sequence[Box], above: int, below: int) -> bool:
    a, b = page.blocks[above], page.blocks[below]
    h = max(_height(boxes[li]) for li in a)
    if min(boxes[li][1] for li in b) - max(boxes[li][3] for li in a) > 2.5 * h:
        return False
    shared = sum(any(_overlap((boxes[i][0], boxes[i][2]), (boxes[j][0], boxes[j][2])) > 0 for i in a) for j in b)
    return shared >= 2


def _columns(page: PageText, boxes: Sequence[Box], rows: Sequence[int]) -> list[tuple[float, float]]:
    """The x-ranges of the words of ``rows`` merged where they overlap: the table's columns."""
    spans = sorted(span for bi in rows for li in page.blocks[bi] for _, span in _words(page, li, boxes[li]))
    cols: list[list[float]] = []
    for x0, x1 in spans:
        if cols and x0 < cols[-1][1]:
            cols[-1][1] = max(cols[-1][1], x1)
        else:
            cols.append([x0, x1])
    return [(c[0], c[1]) for c in cols]


def _column_of(span: tuple[float, float], cols: Sequence[tuple[float, float]]) -> int:
    """The column ``span`` overlaps most, else the nearest."""
    def key(k: int) -> tuple[float, float]:
        c = cols[k]
        return (max(_overlap(span, c), 0.0), -abs((span[0] + span[1]) - (c[0] + c[1])))

    return max(range(len(cols)), key=key)


def _words(page: PageText, li: int, box: Box) -> list[tuple[str, tuple[float, float]]]:
    """Line ``li``'s words with their x-ranges (from the characters' spans; the line's own when unknown)."""
    spans = page.char_spans
    out: list[tuple[str, tuple[float, float]]] = []
    word: list[str] = []
    x0 = x1 = 0.0
    for c in [*page.stream[li], -1]:
        ch = page.text[c] if c >= 0 else " "
        if ch.isspace() or ch in "\ufffe\x02":
            if word:
                out.append(("".join(word), (x0, x1)))
            word = []
            continue
        lo, hi = (spans[2 * c], spans[2 * c + 1]) if spans is not None and 2 * c + 1 < len(spans) else (0.0, 0.0)
        if hi <= lo:
            lo, hi = (x0, x1) if word else (box[0], box[0])
        x0, x1 = (min(x0, lo), max(x1, hi)) if word else (lo, hi)
        word.append(ch)
    if spans is None:
        return [(" ".join(w for w, _ in out), (box[0], box[2]))] if out else []
    return out


def _phrases(page: PageText, li: int, box: Box,
             cols: Sequence[tuple[float, float]]) -> list[tuple[int, str, tuple[float, float]]]:
    """Line ``li``'s words set closer than half its font size as phrases ("Long Gun"), each with the column
    it stands over and its x-range; a phrase whose words each overlap another column is split among them (headers
    set a space apart)."""
    words = _words(page, li, box)
    gap = 0.5 * (page.size[li] if page.size else _height(box))
    groups: list[list[tuple[str, tuple[float, float]]]] = []
    for w in words:
        if groups and w[1][0] - groups[-1][-1][1][1] < gap:
            groups[-1].append(w)
        else:
            groups.append([w])
    out: list[tuple[int, str, tuple[float, float]]] = []
    for group in groups:
        over = [max(range(len(cols)), key=lambda k: _overlap(span, cols[k])) for _, span in group]
        hits = {k for k, (_, span) in zip(over, group, strict=True) if _overlap(span, cols[k]) > 0}
        if len(hits) > 1:
            last = over[0]
            for k, (w, span) in zip(over, group, strict=True):
                last = k if _overlap(span, cols[k]) > 0 else last
                out.append((last, w, span))
        else:
            span = (group[0][1][0], group[-1][1][1])
            out.append((_column_of(span, cols), " ".join(w for w, _ in group), span))
    return out


def _band(page: PageText, boxes: Sequence[Box], seed: Sequence[int], span: tuple[float, float],
          skip: set[int]) -> list[int]:
    """``seed`` and the page's other lines on its band (overlapping it by half a line) within ``span``."""
    top = min(boxes[li][1] for li in seed)
    bottom = max(boxes[li][3] for li in seed)
    out = list(seed)
    for li, b in enumerate(boxes):
        if li in skip or li in out or (li in page.turned) != (seed[0] in page.turned):
            continue
        if min(b[3], bottom) - max(b[1], top) >= 0.5 * _height(b) and _overlap((b[0], b[2]), span) > 0:
            out.append(li)
    return out


def _above(page: PageText, boxes: Sequence[Box], band: Sequence[int], span: tuple[float, float], skip: set[int],
           gap: float) -> list[int]:
    """Lines right above ``band`` (their bottom within ``gap`` line heights of its top) within ``span``."""
    top = min(boxes[li][1] for li in band)
    h = min(_height(boxes[li]) for li in band)
    return [li for li, b in enumerate(boxes) if li not in skip and li not in band
            and (li in page.turned) == (band[0] in page.turned)
            and top - gap * h <= b[3] <= top + 0.25 * h and b[0] >= span[0] - h and b[2] <= span[1] + h]


def _header(page: PageText, boxes: Sequence[Box], table: list[int],
            skip: set[int]) -> tuple[list[int], list[int]] | None:
    """The header's lines and the table's body rows, or None when no header heads them."""
    def texts(lines: Sequence[int]) -> list[str]:
        return [t for li in sorted(lines, key=lambda li: boxes[li][0]) if (t := _text(page, li))]

    first, second = page.blocks[table[0]], page.blocks[table[1]]
    if header_row([texts(first), texts(second)]) == 0:
        return list(first), table[1:]
    cols = _columns(page, boxes, table)
    lines = _above(page, boxes, first, (cols[0][0], cols[-1][1]), skip, HEAD_GAP)
    if not lines or header_row([texts(lines), texts(first)]) != 0:
        return None
    return lines, table


def _groups(page: PageText, boxes: Sequence[Box], band: list[int], cols: list[tuple[float, float]],
            centres: Sequence[float], skip: set[int]) -> list[list[str]]:
    """Each column's group headings, top down (``GROUP_LEVELS`` at most): a heading heads the columns
    nearer its centre than another heading's, as far on its left as on its right (``centres``)."""
    out: list[list[str]] = [[] for _ in cols]
    width = cols[-1][1] - cols[0][0]
    size = sorted(page.size[li] for li in band)[len(band) // 2] if page.size else 0.0
    for _ in range(GROUP_LEVELS):
        found = [li for li in _above(page, boxes, band, (cols[0][0], cols[-1][1]), skip, GROUP_GAP)
                 if boxes[li][2] - boxes[li][0] < TITLE_SHARE * width and _text(page, li)
                 and not is_numeric(_text(page, li))
                 and (not size or abs(page.size[li] - size) <= SAME_SIZE * max(page.size[li], size))]
        if not found:
            break
        mids = [(boxes[li][0] + boxes[li][2]) / 2 for li in found]
        for g, li in enumerate(found):
            mine = [k for k, x in enumerate(centres) if min(range(len(mids)), key=lambda j: abs(mids[j] - x)) == g]
            left = [mids[g] - centres[k] for k in mine if centres[k] < mids[g]]
            right = [centres[k] - mids[g] for k in mine if centres[k] >= mids[g]]
            reach = min(max(left, default=0.0), max(right, default=0.0))
            # a heading heads the columns centred under it (it may stand over one column only)
            for k in mine:
                if abs(centres[k] - mids[g]) <= reach + 1.0 or _overlap((boxes[li][0], boxes[li][2]), cols[k]) > 0:
                    out[k].insert(0, _text(page, li))
        band = found
    return out


def _read_table(page: PageText, boxes: Sequence[Box], table: list[int]) -> None:
    table_lines = {li for bi in table for li in page.blocks[bi]}
    skip = set(table_lines)
    found = _header(page, boxes, table, skip - set(page.blocks[table[0]]))
    if found is None:
        return
    head, body = found
    if len(body) < 1:
        return
    cols = _columns(page, boxes, body)
    if len(cols) < 2:
        return
    band = _band(page, boxes, head, (cols[0][0], cols[-1][1]), skip - set(head))
    words: list[list[tuple[float, float, str, tuple[float, float]]]] = [[] for _ in cols]
    for li in band:
        for k, phrase, span in _phrases(page, li, boxes[li], cols):
            words[k].append((boxes[li][1], span[0], phrase, span))
    # a column's centre is its header's (numbers set flush right sit off the centre of a heading over them)
    centres = [sum(a + b for *_, (a, b) in ws) / (2 * len(ws)) if ws else (c[0] + c[1]) / 2
               for ws, c in zip(words, cols, strict=True)]
    groups = _groups(page, boxes, band, cols, centres, skip | set(band))
    heads = [" ".join([*g, *(w for _, _, w, _ in sorted(ws))]) for g, ws in zip(groups, words, strict=True)]
    cells = [_cells(page, boxes, bi, cols) for bi in body]
    numeric = [_share_numeric([c[k][0] for c in cells if k in c]) for k in range(len(cols))]
    first = next((k for k, n in enumerate(numeric) if (n or 0.0) >= 0.5), None)
    if first is None:
        return
    if first:  # the label: a row's words before the first column of numbers (a long label spans columns)
        cells = [_merge_label(row, first) for row in cells]
        heads[0] = " ".join(h for h in heads[:first] if h)
        numeric[0] = 0.0
    labels = [k for k in range(len(cols)) if k == 0 and first > 0 or k > first and numeric[k] is not None
              and numeric[k] < 0.5 and (numeric[k - 1] or 0.0) >= 0.5
              and any((numeric[j] or 0.0) >= 0.5 for j in range(k + 1, len(cols)))]
    starts = labels if labels and labels[0] == 0 else [first, *labels]
    ends = [*starts[1:], len(cols)]
    parts_of = [[k for k in range(a, b) if k not in labels] for a, b in zip(starts, ends, strict=True)]
    if not _a_table_of_numbers(cells, numeric, labels, heads) or _doubtful(cells, words, parts_of) \
            or any(_text(page, li).endswith(("-", "\u00ad", "\ufffe")) for li in band):  # a word broken in a header
        return  # left as written
    for bi, row in zip(body, cells, strict=True):
        segments: list[Segment] = []
        for start, part in zip(starts, parts_of, strict=True):
            label = row.get(start, ("", [])) if start in labels else ("", [])
            values = [k for k in part if k in row]
            plain = _repeats_header(row, words, values)  # a header inside the table
            parts = [("" if plain else heads[k], *row[k]) for k in values]
            if label[0] or parts:
                segments.append((*label, parts))
        if segments:
            page.row_cells[bi] = segments
            page.row_table[bi] = table[0]


def _merge_label(row: dict[int, tuple[str, list[int]]], first: int) -> dict[int, tuple[str, list[int]]]:
    """``row`` with its cells before column ``first`` joined into its label (column 0)."""
    lead = [row[k] for k in range(first) if k in row]
    out = {k: v for k, v in row.items() if k >= first}
    if lead:
        out[0] = (" ".join(t for t, _ in lead), list(dict.fromkeys(li for _, ls in lead for li in ls)))
    return out


def _doubtful(cells: Sequence[dict[int, tuple[str, list[int]]]],
              words: Sequence[Sequence[tuple[float, float, str, tuple[float, float]]]],
              parts_of: Sequence[Sequence[int]]) -> bool:
    """Whether the reading under the headers is in doubt (a wrong pairing of header and value is worse
    than none): a column of values headed by no phrase or by more than one (a header run over columns,
    a wrapped header's fragments); a value that is no number, in a part of a row other than the header repeated
    (a header's second line read as a row, a text column mid-table)."""
    if any(len(words[k]) != 1 for part in parts_of for k in part):
        return True
    return not all(_repeats_header(row, words, part) or all(_a_value(row[k][0]) for k in part if k in row)
                   for row in cells for part in parts_of)


def _repeats_header(row: dict[int, tuple[str, list[int]]],
                    words: Sequence[Sequence[tuple[float, float, str, tuple[float, float]]]],
                    values: Sequence[int]) -> bool:
    """Whether ``row``'s values are their columns' headers (a table below printed under the same header)."""
    shown = [k for k in values if k in row]
    return bool(shown) and all(" ".join(row[k][0].split()).casefold() == words[k][0][2].casefold() for k in shown)


def _a_value(text: str) -> bool:
    return is_numeric(text) or text.strip().lower() in _NONE


def _a_table_of_numbers(cells: Sequence[dict[int, tuple[str, list[int]]]], numeric: Sequence[float | None],
                        labels: Sequence[int], heads: Sequence[str]) -> bool:
    """Whether the body reads as a table of numbers under headers: ``NUMBER_COLUMNS`` columns of numbers
    or more, each under a header and filled in half the rows; most of its values numbers; no cell of
    running text (words of prose set apart by justification land in columns too)."""
    full = [k for k, n in enumerate(numeric) if (n or 0.0) >= 0.5 and heads[k]
            and 2 * sum(k in row for row in cells) >= len(cells)]
    values = [row[k][0] for row in cells for k in row if k not in labels]
    if len(full) < NUMBER_COLUMNS or sum(map(is_numeric, values)) < NUMBER_SHARE * len(values):
        return False
    if any(is_numeric(h) and not _YEAR.fullmatch(h) for h in heads):
        return False  # a header of numbers other than years is a row of the body: no header found
    return all(len(text.split()) <= CELL_WORDS for row in cells for text, _ in row.values())


def _cells(page: PageText, boxes: Sequence[Box], bi: int,
           cols: Sequence[tuple[float, float]]) -> dict[int, tuple[str, list[int]]]:
    """Row ``bi``'s cells by column: their words' text and their lines (a line run over two columns
    gives each its words)."""
    words: dict[int, list[tuple[float, float, str, int]]] = {}
    for li in page.blocks[bi]:
        for w, span in _words(page, li, boxes[li]):
            words.setdefault(_column_of(span, cols), []).append((boxes[li][1], span[0], w, li))
    out = {}
    for k, ws in words.items():
        ws.sort()
        out[k] = (" ".join(w for _, _, w, _ in ws), list(dict.fromkeys(li for _, _, _, li in ws)))
    return out


def _share_numeric(texts: Sequence[str]) -> float | None:
    return sum(is_numeric(t) for t in texts) / len(texts) if texts else None


def row_chars(page: PageText, lines: Sequence[int]) -> tuple[list[str], list[int]] | None:
    """The characters of a table row's ``lines`` read under their headers (a row whole: ``label: header:
    value; ...``; one cell: ``label, header: value``) and each one's line; None for lines that are not a
    read table row's (a page kept before rows were read has none)."""
    cells = getattr(page, "row_cells", None)
    if not cells or not lines:
        return None
    bi = page.block_of[lines[0]]
    segments = cells.get(bi)
    want = set(lines)
    if segments is None or not want <= set(page.blocks[bi]):
        return None
    whole = want == set(page.blocks[bi])
    chars: list[str] = []
    line_at: list[int] = []

    def put(text: str, li: int) -> None:
        chars.extend(text)
        line_at.extend([li] * len(text))

    for name, label, parts in segments:
        shown = [p for p in parts if whole or want & set(p[2])]
        if not shown and not (want & set(label)):
            continue
        if chars:
            put("; ", line_at[-1])
        if name:
            put(name, label[0])
            put(", " if len(shown) == 1 else ": " if shown else "", label[0])
        for k, (h, text, ls) in enumerate(shown):
            if k:
                put("; ", ls[0])
            put(f"{h}: {text}" if h else text, ls[0])
    return chars, line_at


def named_cell(page: PageText, bi: int, query: str, *, label_named: bool = False,
               loose: bool = False) -> list[int] | None:
    """The lines of row ``bi``'s cell under the header ``query`` names (the host's ``named_header``), in
    the part of the row whose label the query names (the only part, unless ``label_named``; ``loose``: as
    ``_names`` reads it); None when no header is named, two tie, or the row is not read under headers."""
    segments = page.row_cells.get(bi)
    if not segments:
        return None
    named = [s for s in segments if _names(query, s[0], loose=loose)]
    if not named and (label_named or len(segments) > 1):
        return None
    for _, _, parts in named or segments:
        cell = named_header(query, [(h, tuple(ls)) for h, _, ls in parts if h], inflected=True)
        if cell is None and _cjk(query):
            cell = _named_in_chinese(query, [(h, tuple(ls)) for h, _, ls in parts if h])
        if cell is not None:
            return list(cell)
    return None


def _cjk(text: str) -> bool:
    return any("\u3400" <= ch <= "\u9fff" for ch in text)


def _named_in_chinese(query: str, cells: Sequence[tuple[str, tuple[int, ...]]]) -> tuple[int, ...] | None:
    """The cell whose Latin header the Chinese words of ``query`` name by the dictionary (许可证 for "Permit":
    ``named_in_chinese``), the one named first; None when none is, or two are named at one place (枪 names
    "Gun" and "Long Gun" alike)."""
    found = sorted((at, -len(h), h, cell) for h, cell in cells
                   if h.isascii() and (at := named_in_chinese(query, h)) is not None)
    if not found or len(found) > 1 and found[1][0] == found[0][0] and found[1][2] != found[0][2]:
        return None
    return found[0][3]


def label_named(page: PageText, bi: int, query: str) -> bool:
    """Whether ``query`` names the label of a part of read table row ``bi``."""
    return any(_names(query, label) for label, _, _ in page.row_cells.get(bi, ()))


def _names(query: str, label: str, *, loose: bool = False) -> bool:
    """Whether ``query`` names ``label`` as a phrase (a Latin label in Chinese words by the dictionary too), a
    label of one letter or of no letters aside. ``loose``: a Chinese label saying "total" (总) is named too by
    its words without it (营业总收入 by 营业收入: a report's income statement heads its first row so, the
    question says revenue); the caller asks so only when no label is named as written (营业收入 and 营业总收入
    are two rows of a full income statement)."""
    if sum(ch.isalnum() for ch in label) < 2:
        return False
    if named_header(query, [(label, True)]) is True:
        return True
    bare = label.replace("总", "", 1) if loose and _cjk(label) else label
    if bare != label and sum(_cjk(ch) for ch in bare) >= 2 and named_header(query, [(bare, True)]) is True:
        return True
    # 伊利诺伊州 names "Illinois": a Chinese question over an English table names its rows in Chinese
    return label.isascii() and _cjk(query) and named_in_chinese(query, label) is not None


def cell_answer(pages: Sequence[PageText], passage: Sequence[tuple[int, int]],
                query: str) -> tuple[tuple[int, int], list[int]] | None:
    """The first table row of ``passage`` whose label the query names, with the lines of its cell under
    the header the query names (``named_cell``): the question asks for that cell ("Kentucky", "handgun":
    Kentucky's Handgun cell); None when no row's label and header are both named."""
    for loose in (False, True):  # a label named as written first; then one named without its 总 (``_names``)
        for b in passage:
            page = pages[b[0]]
            if b[1] in page.row_cells:
                cell = named_cell(page, b[1], query, label_named=True, loose=loose)
                if cell is not None:
                    return b, cell
    return None


#: A superlative a which-question asks of a table ("which state had the most ..."): the highest, or the lowest.
_MOST = re.compile(r"最高|最多|最大|\b(?:highest|largest|biggest|greatest|most)\b", re.I)
_LEAST = re.compile(r"最低|最少|最小|\b(?:lowest|smallest|fewest|least)\b", re.I)
_WHICH = re.compile(r"\b(?:which|what)\b|哪", re.I)
#: A column or a row summing the others: the table's measure when the question names no column ("the most
#: checks" of a table of checks by kind); a row so labelled is no row to rank.
_TOTAL = re.compile(r"^\s*(?:grand\s+)?totals?\s*$|^\s*(?:合计|总计|总数)\s*$", re.I)
MIN_RANKED = 3  # the rows a superlative compares, at least


def superlative(query: str) -> bool | None:
    """True: ``query`` asks the highest (most, largest, 最多 ...), False the lowest; None: neither, or both."""
    most, least = _MOST.search(query) is not None, _LEAST.search(query) is not None
    return most if most != least else None


def table_rows_of(pages: Sequence[PageText], passage: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The read rows of the tables ``passage`` holds a read row of, the passage's own aside, in the page's block
    order: the rows a question naming another row of that table asks about (a chunk holding the NICS
    table's last rows, Wyoming and Totals, asked for Texas's Handgun checks)."""
    tables = {(pi, pages[pi].row_table[bi]) for pi, bi in passage if bi in pages[pi].row_table}
    own = set(passage)
    return [(pi, bi) for pi, first in sorted(tables) for bi in sorted(pages[pi].row_cells)
            if pages[pi].row_table.get(bi) == first and (pi, bi) not in own]


def extreme_answer(pages: Sequence[PageText], rows: Sequence[tuple[int, int]],
                   query: str) -> tuple[tuple[int, int], list[int], str, str] | None:
    """The read table row among ``rows`` holding the extreme a superlative which-question asks ("Which state had
    the most firearm background checks"): under the header the query names (the host's ``named_header``), else
    under the table's Total(s) column (the question names the table's topic, not a kind of it). Its block, lines
    (the whole row: the label asked and the value), the header and the value; None when the query asks no such
    thing, the column holds a cell that is no number, fewer than ``MIN_RANKED`` rows, or two rows tie. Rows
    labelled Total(s) are not ranked, nor rows read in several parts (two tables side by side)."""
    high = superlative(query)
    if high is None or not _WHICH.search(query):
        return None
    ranked: list[tuple[float, tuple[int, int], str]] = []
    header: str | None = None
    for b in rows:
        segments = pages[b[0]].row_cells.get(b[1])
        if not segments or len(segments) != 1 or _TOTAL.match(segments[0][0]) or not segments[0][0].strip():
            continue
        parts = [(h, text) for h, text, _ in segments[0][2] if h]
        if header is None:
            header = named_header(query, [(h, h) for h, _ in parts], inflected=True) \
                or next((h for h, _ in parts if _TOTAL.match(h)), None)
            if header is None:
                return None
        text = next((t for h, t in parts if h == header), None)
        if text is None or not is_numeric(text):
            return None
        if not any(ch.isdigit() for ch in text):
            continue  # a dash: none
        value = float(re.sub(r"[^\d.]", "", text) or "0")
        ranked.append((-value if text.strip()[:1] in "(-\u2212\u2013" else value, b, text))
    if header is None or len(ranked) < MIN_RANKED:
        return None
    ranked.sort(key=lambda r: -r[0] if high else r[0])
    if ranked[0][0] == ranked[1][0]:
        return None
    b = ranked[0][1]
    return b, list(pages[b[0]].blocks[b[1]]), header, ranked[0][2]
