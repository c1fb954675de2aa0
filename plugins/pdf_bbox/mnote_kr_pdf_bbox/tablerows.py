"""A table's title chosen for a value question gives way to the row holding the asked value, and a table row
is boxed across all its cells on its baseline.

A question about a table's figures ("八车道高速公路停车区的用地指标基准值是多少？", "一季度末持股比例最高的股东是谁？")
shares most words with the table's title ("表 7.5 停车区用地指标基准值（公顷/处）"): the title only says what the
table is about, the row answers. The rules, over the page's lines (``page.lines``, text-frame boxes):

- *Title*: a short block (``TITLE_LINES`` lines, ``TITLE_CHARS`` characters) opening with a table's number
  ("表 7.5", "Table 3", "Tab. II") or a heading ending in "表" (a table's title in Chinese reports). Its table
  is the lines under it down to the next title or a note ("注：", "Note:"); a *row* is a band of those lines
  side by side (overlapping vertically by half a line) holding a digit.
- *Condition*: a question (``asks_value``) naming a row's cell: a cell (a whitespace-separated piece of the
  row's lines, full-width forms folded) the query holds and the title does not, CJK without spaces as a
  substring, a number as a whole number, a Latin word as a word. A row without its first cell (a label
  merged across rows, printed on one of them) takes the label of the nearest row holding one, for half a
  cell. The row holding the most, one row alone, is the place.
- *Extreme*: a superlative question (最高/最多/最大, highest/largest/most; 最低/最少, lowest/smallest/least)
  naming a column header of the table (a digit-free line under the title, its text in the query): the
  figures under that header (overlapping its x-range, down to the next line with words across it), all
  percentages or none, at least ``MIN_VALUES``, the extreme one alone (no tie), and its row is the place.
- *English captions* (``CAPTIONS``; a newcomer's round-19 finding: "Table 1: Results on SQA …" and a header
  row were cited exact for a value question): a numbered caption set as a paragraph ("Table 1:", "Table 2.",
  "TABLE IV" alone on its first line; ``CAPTION_LINES``, ``CAPTION_CHARS``) is a title too. Its table is the
  lines next to it under its width, up to a line of prose, another title, a note or a gap (``_walk``): over it
  when more rows of figures stand there (a paper's caption under its table), else under it. A Latin cell is
  named as a word of the query as typed (the folded query has no spaces: no English cell was ever named),
  a number in the title only as a whole number ("2" is not in "[22]"), each cell once; ties go to the row
  whose words the query names all ("TAPASLARGE", not "TAPASLARGE inter"); a label centred in its column
  still labels its row. A block inside such a table (a header row the question's column names chose, a
  column of labels set as one block) gives way to the row too, and a row is boxed without another row's
  lines of its blocks. A caption whose row is not found stays exact when the query asks about a table
  ("which table gives …").
- A title asked for a value where neither finds a row stays, claimed approximate: a title holds no value.
- *Row*: the row's lines are its band's lines and the other lines of their blocks when a block is a cell
  (``CELL_LINES`` lines at most: a name set over three lines). A table row chosen by the locator is boxed
  with the lines on its baseline in the table's body under a header row (``headvalues``), when the row then
  holds a figure (a diagram's labels side by side are no row): the total column beside a row's first cells.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from .headvalues import _body, _char_xs, _header_row, _line, _words
from .page import Box, PageText
from .tableread import is_numeric

TITLE_LINES = 2
TITLE_CHARS = 60
CELL_LINES = 3  # a block of at most this many lines on a row's band is one of its cells
MIN_VALUES = 3  # the figures of a column a superlative compares
#: English captions (False: as before, ``benchmarks/pdf_table_rows.py``'s today rule): a numbered caption
#: set as a paragraph ("Table 1: Results on SQA test set …", five lines) is a title too, its table the lines
#: over it when it stands under its table (a paper's habit); a Latin cell is named by the query's words
#: (the folded query has no spaces between words); a block inside a captioned table (a header, a column
#: of labels) asked for a value gives way to the row as its caption does.
CAPTIONS = True
#: A table's title chosen for a value question that names no row of it (a column named in other words: "桥梁和隧道的
#: 监控通信站" for "桥隧监控通信站") is boxed on the row of its table the passage's ranking by meaning put first behind
#: it, approximate (False: the title kept, approximate, as before; ``nearest`` of ``row_place``).
NEAREST_ROW = True
CAPTION_LINES = 8
CAPTION_CHARS = 700
PROSE_WORDS = 5  # a line of at least this many words, most of them words of letters, is prose, no row
WALK_GAP = 3.0  # a table's lines stand at most this many line heights apart

_NUMBERED = re.compile(r"^\s*(?:(?:表|续表)\s*[\d一二三四五六七八九十]+|(?i:table|tab\.)\s+(?:\d+|[IVXLC]+|[A-Z]\d*))"
                       r"(?:[.\-–]\d+)*(?=[\s:：.、]|$)")
_CAPTION = re.compile(r"^\s*(?i:table|tab\.)\s+(?:\d+|[IVXLC]+)(?:[.\-–]\d+)*\s*(?:[:.]|$)")
_NOTE = re.compile(r"^\s*(注|备注|资料来源|来源|note|notes|source)\s*[:：\d]", re.I)
#: A question word, a superlative, a question mark, or a value named as asked: "value", 值 (基准值, 数值, 平均值; not
#: 值得 "worth doing"): "二级公路停车区用地指标基准值" asks for the figure as "the parking area's value" does.
_ASKS = re.compile(r"多少|几|谁|哪|什么|何|最|值(?!得)|how\s+(?:much|many)|\bwhat\b|\bwhich\b|\bwho\b|\bvalues?\b"
                   r"|[?？]", re.I)
_MOST = re.compile(r"最高|最多|最大|highest|largest|biggest|greatest|\bmost\b", re.I)
_LEAST = re.compile(r"最低|最少|最小|lowest|smallest|fewest|\bleast\b", re.I)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_NUMBER = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?")


@dataclass(frozen=True)
class RowPlace:
    """The lines to box for a chosen block, their words, what the reason adds, and the claim (None: as it was)."""

    lines: list[int]
    text: str
    why: str
    degraded: bool | None


def _fold(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def _box(page: PageText, lines: list[int]) -> Box:
    bs = [page.lines[li] for li in lines]
    return (min(b[0] for b in bs), min(b[1] for b in bs), max(b[2] for b in bs), max(b[3] for b in bs))


def _h(page: PageText, li: int) -> float:
    b = page.lines[li]
    return max(b[3] - b[1], 1.0)


def table_title(page: PageText, bi: int) -> str | None:
    """Block ``bi``'s text when it is a table's title: a numbered "表 7.5 …"/"Table 3 …", or a short heading
    ending in "表"; None otherwise."""
    lines = page.blocks[bi]
    text = " ".join(_line(page, li) for li in lines).strip()
    if len(lines) <= TITLE_LINES and text and len(text) <= TITLE_CHARS and (
            _NUMBERED.match(text) or text.endswith("表")):
        return text
    return text if _caption(page, bi) and len(lines) <= CAPTION_LINES and len(text) <= CAPTION_CHARS else None


def _caption(page: PageText, bi: int) -> bool:
    """Whether block ``bi`` opens with an English table caption: "Table 1:", "Table 2.", "TABLE IV" alone on
    its first line (``CAPTIONS``)."""
    return CAPTIONS and bool(_CAPTION.match(_line(page, page.blocks[bi][0])))


def _prose(page: PageText, li: int) -> bool:
    """Whether line ``li`` is a line of prose: at least ``PROSE_WORDS`` words, most of them of letters alone (a
    column of a two-column page beside a table as wide as the page is prose too)."""
    words = _line(page, li).split()
    alpha = sum(1 for w in words if w.strip(".,;:()\"'“”’-").isalpha())
    return len(words) >= PROSE_WORDS and alpha >= 0.7 * len(words)


def _walk(page: PageText, bi: int, up: bool) -> list[int]:
    """The lines next to caption ``bi`` (above it when ``up``), under its width, nearest first, up to a line
    of prose, another title or a note, or a gap of ``WALK_GAP`` line heights; top to bottom."""
    x0, y0, x1, y1 = _box(page, page.blocks[bi])
    mine = set(page.blocks[bi])
    near = [li for li, b in enumerate(page.lines) if li not in mine and li not in page.furniture
            and li not in page.turned and min(b[2], x1) - max(b[0], x0) > 0
            and (b[3] <= y0 + 1 if up else b[1] >= y1 - 1)]
    near.sort(key=lambda li: -page.lines[li][3] if up else page.lines[li][1])
    out: list[int] = []
    edge = y0 if up else y1
    for li in near:
        b, k = page.lines[li], page.block_of[li]
        if (edge - b[3] if up else b[1] - edge) > WALK_GAP * _h(page, li) or _prose(page, li) or (
                k >= 0 and k != bi and (table_title(page, k) or _NOTE.match(_line(page, page.blocks[k][0])))):
            break
        out.append(li)
        edge = min(edge, b[1]) if up else max(edge, b[3])
    return sorted(out, key=lambda li: page.lines[li][1])


def _digit_bands(page: PageText, lines: list[int]) -> int:
    return sum(any(ch.isdigit() for li in band for ch in _line(page, li)) for band in _bands(page, lines))


def _table_of(page: PageText, bi: int) -> list[int]:
    """Title ``bi``'s table: the lines under it (``_table_lines``); for an English caption the lines next to it
    (``_walk``), over it when more rows of figures stand there than under it, two at least."""
    if _caption(page, bi):
        above, below = _walk(page, bi, True), _walk(page, bi, False)
        n = _digit_bands(page, above)
        return above if n >= 2 and n > _digit_bands(page, below) else below
    return _table_lines(page, bi)


def asks_value(query: str) -> bool:
    """Whether ``query`` asks for a value (a question word, a superlative, a question mark)."""
    return bool(_ASKS.search(query))


def _table_lines(page: PageText, bi: int) -> list[int]:
    """The lines under title ``bi`` down to the next title or note, top to bottom (furniture and turned
    lines aside)."""
    bottom = _box(page, page.blocks[bi])[3]
    end, opened = float("inf"), False  # titles right under it (a numbered sub-title) are its own
    for k in sorted((k for k in range(len(page.blocks)) if k != bi and _box(page, page.blocks[k])[1] >= bottom - 1),
                    key=lambda k: _box(page, page.blocks[k])[1]):
        if table_title(page, k) or _NOTE.match(_line(page, page.blocks[k][0])):
            if opened:
                end = _box(page, page.blocks[k])[1]
                break
        elif page.blocks[k][0] not in page.furniture:
            opened = True
    return sorted((li for li, b in enumerate(page.lines) if b[1] >= bottom - 1 and b[1] < end - 1
                   and li not in page.furniture and li not in page.turned), key=lambda li: page.lines[li][1])


def _bands(page: PageText, lines: list[int]) -> list[list[int]]:
    """``lines`` (top to bottom) grouped side by side: each overlaps its band's first line by half a line."""
    out: list[list[int]] = []
    for li in lines:
        b = page.lines[li]
        for band in out[-3:]:
            a = page.lines[band[0]]
            if min(a[3], b[3]) - max(a[1], b[1]) >= 0.5 * min(_h(page, band[0]), _h(page, li)):
                band.append(li)
                break
        else:
            out.append([li])
    return out


def _cell_named(cell: str, query: str, spaced: str = "") -> bool:
    """Whether the query names ``cell``: CJK as a substring of the folded ``query``, a number as a whole
    number, a Latin word as a word (of ``spaced``, the query with its spaces, under ``CAPTIONS``)."""
    if not cell or not any(ch.isalnum() for ch in cell):
        return False
    if _NUMBER.fullmatch(cell) or cell[:1].isdigit():
        return re.search(rf"(?<![\d.,]){re.escape(cell)}(?![\d])", query) is not None
    if _CJK.search(cell):
        return cell in query
    words = spaced if CAPTIONS and spaced else query
    return len(cell) >= 2 and re.search(rf"(?<!\w){re.escape(cell)}(?!\w)", words) is not None


def _cells(page: PageText, band: list[int]) -> list[str]:
    return [_fold(c) for li in sorted(band, key=lambda li: page.lines[li][0]) for c in _line(page, li).split()]


def _condition_row(page: PageText, title: str, bands: list[list[int]], query: str, caption: bool = False
                   ) -> list[int] | None:
    """The band holding the most of the query's cells (a label merged across rows counting half), one alone."""
    q, t = _fold(query), _fold(title)
    spaced = unicodedata.normalize("NFKC", query).casefold()
    rows = [band for band in bands if any(ch.isdigit() for li in band for ch in _line(page, li))]
    if not rows:
        return None
    left = min(page.lines[li][0] for band in rows for li in band)
    # a row starting right of the table's left edge lacks its label; a label centred in its column (an English
    # caption's table) moves it by less than a quarter of the table's width
    slack = 0.25 * (max(page.lines[li][2] for band in rows for li in band) - left) if CAPTIONS and caption else 0.0
    labelled = [k for k, band in enumerate(rows)
                if min(page.lines[li][0] for li in band) <= left + max(_h(page, band[0]), slack)]
    group = {k: k for k in labelled}  # each row's label: its own first cell, else the nearest labelled row's
    for k, band in enumerate(rows):
        if k not in group and labelled:
            group[k] = min(labelled, key=lambda o: abs(page.lines[rows[o][0]][1] - page.lines[band[0]][1]))
    shared = {g for k, g in group.items() if k != g}  # a label merged across rows names them all: half a cell each
    scores: list[tuple[float, int]] = []
    for k, band in enumerate(rows):
        cells = _cells(page, band)
        named = [c for c in cells[k in shared:] if _cell_named(c, q, spaced) and not _in_title(c, t)]
        score = float(len(set(named)) if CAPTIONS else len(named))
        if k in group and group[k] in shared:
            label = _cells(page, rows[group[k]])[0]
            score += 0.5 * (_cell_named(label, q, spaced) and label not in t
                            and not any(ch.isdigit() for ch in label))
        # ties: the row whose words the query names all ("TAPASLARGE", not "TAPASLARGE inter")
        scores.append((score, -sum(1 for c in cells if c.isalpha() and c not in named) if CAPTIONS else 0))
    best = max(scores)
    if best[0] < 1 or scores.count(best) > 1:
        return None
    return rows[scores.index(best)]


def _in_title(cell: str, title: str) -> bool:
    """Whether the (folded) title holds ``cell``: a number as a whole number under ``CAPTIONS`` ("2" is not in
    "[22]"), else as a substring."""
    if CAPTIONS and (_NUMBER.fullmatch(cell) or cell[:1].isdigit()):
        return _cell_named(cell, title)
    return cell in title


def _value(word: str) -> float | None:
    m = _NUMBER.search(word)
    try:
        return float(m.group().replace(",", "")) if m else None
    except ValueError:
        return None


def _extreme_row(path: str, page: PageText, title: str, lines: list[int], query: str) -> tuple[list[int], str] | None:
    """The line holding the extreme figure under the column header the superlative query names, and that
    header; None when the query holds no superlative, names no header, or the figures tie or are too few."""
    most, least = _MOST.search(query), _LEAST.search(query)
    if bool(most) == bool(least):
        return None
    q, t = _fold(query), _fold(title)
    heads = [li for li in lines if not any(ch.isdigit() for ch in _line(page, li))
             and len(f := _fold(_line(page, li))) >= 2 and f in q and f not in t]
    if not heads:
        return None
    head = max(heads, key=lambda li: (len(_line(page, li)), -li))
    x0, _, x1, bottom = page.lines[head]
    below = [li for li in lines if page.lines[li][1] >= bottom - 0.25 * _h(page, head)
             and page.lines[li][2] > x0 and page.lines[li][0] < x1 and li != head]
    xs = _char_xs(path, page, below)
    if xs is None:
        return None
    found: list[tuple[float, int, str]] = []
    for li in below:
        mine = [w for w in _words(page, li, xs) if min(w[2], x1) - max(w[1], x0) > 0]
        if not any(is_numeric(w[0]) for w in mine) or any(ch.isalpha() for w in mine for ch in w[0]):
            if found and mine:
                break  # words across the column, no figure: another table's header or title
            continue
        for w in mine:
            v = _value(w[0])
            if is_numeric(w[0]) and v is not None:
                found.append((v, li, w[0]))
                break
    if len(found) < MIN_VALUES or len({w.endswith("%") for _, _, w in found}) > 1:
        return None
    found.sort(key=lambda f: f[0], reverse=bool(most))
    if found[0][0] == found[1][0]:
        return None
    return [found[0][1]], _line(page, head)


def _row_lines(page: PageText, seed: list[int], allowed: set[int], own_bands: bool = False) -> list[int]:
    """The seed lines, the ``allowed`` lines on their band, and the other lines of a cell (a block of at most
    ``CELL_LINES`` lines) among them; with ``own_bands`` (an English caption's table, whose PDF sets a column's
    cells of several rows as one block) not a line on a band with lines of its own: another row's."""
    def on(a: int, b: int) -> bool:
        return min(page.lines[a][3], page.lines[b][3]) - max(page.lines[a][1], page.lines[b][1]) \
            >= 0.5 * min(_h(page, a), _h(page, b))

    out = set(seed)
    for li in allowed:
        if any(on(s, li) for s in seed):
            out.add(li)
    row = set(out)
    for li in list(row):
        block = page.blocks[page.block_of[li]] if page.block_of[li] >= 0 else [li]
        if len(block) <= CELL_LINES:  # a cell of a few lines (a name set over three) belongs to the row
            out.update(o for o in block if not own_bands or o in row or not any(
                on(o, a) and a not in block for a in allowed))
    return sorted(out)


def row_text(page: PageText, lines: list[int]) -> str:
    """A row's words left to right, a cell's lines top to bottom."""
    band = {li: k for k, b in enumerate(_bands(page, sorted(lines, key=lambda li: page.lines[li][1]))) for li in b}

    def key(li: int) -> tuple[float, int, float]:
        bi = page.block_of[li]
        return (_box(page, page.blocks[bi])[0] if bi >= 0 else page.lines[li][0], band[li], page.lines[li][0])

    return " ".join(_line(page, li) for li in sorted(lines, key=key))


def _same_row(page: PageText, bi: int, lines: list[int]) -> list[int] | None:
    """``lines`` with the lines on their baseline in the body of the table under a header row above them;
    None when they stand in no such body or nothing is added."""
    top = _box(page, lines)[1]
    for k in sorted(range(len(page.blocks)), key=lambda k: -_box(page, page.blocks[k])[1]):
        if _box(page, page.blocks[k])[3] > top or (row := _header_row(page, k)) is None:
            continue
        body = set(_body(page, row))
        if not set(lines) <= body:
            return None
        out = _row_lines(page, lines, body)
        figures = any(ch.isdigit() for li in out for ch in _line(page, li))  # a diagram's labels are no row
        return out if len(out) > len(set(lines)) and figures else None
    return None


def _asked_row(path: str, page: PageText, title: str, table: list[int], query: str) -> tuple[list[int], str] | None:
    """The row of ``table`` (under ``title``) holding the query's condition, else the named column's extreme,
    and what the reason adds; None: neither."""
    row = _condition_row(page, title, _bands(page, table), query, bool(_CAPTION.match(title)))
    if row is not None:
        return row, "holding the value the query names"
    extreme = _extreme_row(path, page, title, table, query)
    if extreme is None:
        return None
    return extreme[0], f"holding the {'highest' if _MOST.search(query) else 'lowest'} figure under its header " \
                       f"{extreme[1]!r}"


def _names_table(query: str) -> bool:
    """Whether ``query`` asks about a table itself ("what does Table 1 show", "which table gives …")."""
    return re.search(r"(?i)\b(?:tables?|tab\.)(?!\w)", query) is not None


def _in_captioned(path: str, page: PageText, bi: int, lines: list[int], query: str) -> RowPlace | None:
    """A block inside an English caption's table (a header, a column of labels, several rows) asked for a
    value: the row of that table the query asks about (``CAPTIONS``); None: none, or the block is that row."""
    if not CAPTIONS or not asks_value(query):
        return None
    for k in range(len(page.blocks)):
        if k == bi or not _caption(page, k) or (title := table_title(page, k)) is None:
            continue
        table = _table_of(page, k)
        if not set(lines) <= set(table) or (found := _asked_row(path, page, title, table, query)) is None:
            continue
        full = _row_lines(page, found[0], set(table), True)
        if set(full) == set(lines):
            return None
        return RowPlace(full, row_text(page, full), f"; a table's header or labels hold no value: boxed on the row "
                        f"of its table {found[1]}", False)
    return None


def _nearest_row(page: PageText, table: list[int], nearest: Sequence[int]) -> list[int] | None:
    """The lines of the first of ``nearest`` (block indices, best first) inside ``table`` holding a figure: a row
    of the table the ranking by meaning put behind its title (``NEAREST_ROW``); None: none."""
    if not NEAREST_ROW:
        return None
    inside = set(table)
    for k in nearest:
        mine = page.blocks[k]
        if mine and set(mine) <= inside and any(ch.isdigit() for li in mine for ch in _line(page, li)):
            return _row_lines(page, list(mine), inside, True)
    return None


def row_place(path: str, page: PageText, bi: int, lines: list[int], query: str,
              nearest: Sequence[int] = ()) -> RowPlace | None:
    """Where to box chosen block ``bi`` (its ``lines``) instead: the row a table title's value question asks
    about, else the row of its table nearest the query by meaning (``nearest``: the page's blocks behind
    ``bi``, best first; ``NEAREST_ROW``), claimed approximate, a title kept but claimed approximate, or a
    row's cells on its baseline; None: as it is."""
    title = table_title(page, bi)
    if title is None:
        inside = _in_captioned(path, page, bi, lines, query)
        if inside is not None:
            return inside
        full = _same_row(page, bi, lines)
        if full is None:
            return None
        return RowPlace(full, row_text(page, full), "; the row boxed across its cells on its baseline", None)
    if not asks_value(query) or _fold(query) in _fold(title):
        return None
    table = _table_of(page, bi)
    found = _asked_row(path, page, title, table, query)
    if found is None:
        if _caption(page, bi) and _names_table(query):
            return None  # "which table gives …", no row named: the caption answers
        near = _nearest_row(page, table, nearest)
        if near is not None:  # a title holds no value; the passage's row nearest the query may
            return RowPlace(near, row_text(page, near), "; a table's title holds no value and no row of its table "
                            "holds the one the query names: boxed on its row nearest the query by meaning, an "
                            "approximate place", True)
        return RowPlace(lines, row_text(page, lines), "; a table's title holds no value and no row of its table "
                        "holds the one the query names: an approximate place", True)
    full = _row_lines(page, found[0], set(table), _caption(page, bi))
    return RowPlace(full, row_text(page, full), f"; a table's title holds no value: boxed on the row {found[1]}", False)
