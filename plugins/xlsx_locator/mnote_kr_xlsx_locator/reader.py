"""A workbook read as the locator keeps it: one paragraph per row of each table region, in sheet order.

A sheet's tables are its regions of touching non-empty cells (as docling finds them); a paragraph is
one row of one region, its values as LightRAG indexes them (``str`` of each value, formulas by the
value cached in the file, ``data_only=True``, else by their text, ``=SUM(B2:B3)``: a workbook saved by a
script caches none; ``formulas``) joined by `` | ``. A region whose first row of two
cells or more is all text, with rows below it, is a table with that header. A row's label is its
first text cell when more cells follow; in a table, its cell under the header's first column.
Hidden sheets and rows are kept apart (``hidden``). A cell comment is a paragraph of its own
(``comments``: a line naming its sheet and cell, in a region of its own) right after the row holding
its cell, as the ``markdown`` text says it.

Budgets, before openpyxl loads a sheet into memory: the host's zip check (a sheet part expands
to at most 48 MB) and each sheet's rows holding a value, counted in its XML (its ``<dimension>``, else
its ``<row>`` tags, is only an upper bound: a sheet formatted far down says more): more than
``MAX_ROWS`` refuses the workbook with one ``DocumentError`` line, and so do more than ``MAX_XML_CELLS``
``<c>`` elements in its sheets' XML (styled empty cells too: openpyxl builds each). Only the cells the
XML holds are read, never the whole extent the sheet spans. Formulas are read in a second, read-only
(streamed) pass, only for the sheets holding a cell with no value, and only across those cells' span
(at most ``MAX_FORMULA_SPAN`` slots a sheet; past it, the sheet keeps its formulas out).
``check_workbook`` is these budgets alone (``OverBudgetError``), what the ``check_budget`` hook asks
before the workbook is sent to the index.
"""

from __future__ import annotations

import dataclasses
import datetime
import os
import re
import warnings
import zipfile
import zlib
from dataclasses import dataclass, field
from typing import Any
from xml.etree import ElementTree as ET

from mnote_kr.plugin_api import (
    DocumentError,
    FileCache,
    OverBudgetError,
    TextDocument,
    TextParagraph,
    check_zip,
    count_tags,
    header_row,
)

from .comments import MAX_COMMENTS, line, sheet_comments, threads

MAX_ROWS = 100_000
MAX_CELLS = 2_000_000  # the cache's weight limit (rows kept)
#: The cells the workbook's XML holds, styled empty ones too: openpyxl builds each one (about 420 bytes
#: and 0.2 ms a styled cell: 1.8 million took 760 MB and 353 s), so past this the workbook is refused
#: before it loads. 100,000 rows (``MAX_ROWS``) of ten columns.
MAX_XML_CELLS = 1_000_000
MAX_PART_BYTES = 48 * 1024 * 1024
#: Cells a sheet's formula pass may walk (the rows times the columns spanned by its cells with no value:
#: openpyxl's read-only rows are filled across that span).
MAX_FORMULA_SPAN = 4 * MAX_XML_CELLS
CACHE_SIZE = 16
_HINT = "a workbook this large is cited as a whole file; split it or save the table on its own sheet"


@dataclass(slots=True)
class RowParagraph(TextParagraph):
    """One non-empty row: its sheet, 1-based row number, cells and table context."""

    sheet: str = ""
    row: int = 0
    cells: tuple[tuple[int, str], ...] = ()  # (1-based column, value text) of the non-empty cells
    shown: tuple[str, ...] = ()  # the same values as a person reads them (4,100; 2023-05-01)
    header_row: int | None = None
    headers: dict[int, str] = field(default_factory=dict)  # column -> header text
    label_column: int | None = None
    hidden: bool = False
    is_header: bool = False  # the header row of a table below it
    region: int = 0  # which table region of the workbook the row belongs to
    #: the first column whose values tell apart the rows of its table sharing this row's label (Widget C's Date),
    #: None when the label is the row's own: a cited cell's quote names it (``cells.reading``)
    key_column: int | None = None
    #: a cell comment's line (``comments.line``), not a row: on the cell of ``cells[0]``'s column in ``row``,
    #: under that cell's table header (``headers``); ``words`` is the comment's own, ``author`` who wrote it
    comment: bool = False
    author: str = ""
    words: str = ""
    reply: bool = False


@dataclass(slots=True)
class XlsxDocument(TextDocument[RowParagraph]):
    """A parsed workbook; ``visible`` is the same rows without hidden sheets and rows."""

    visible: TextDocument[RowParagraph] | None = None
    #: every sheet's name in tab order (empty and chart sheets too): "the second sheet" is counted here
    sheets: list[str] = field(default_factory=list)

    def markdown(self) -> str:
        """The workbook as text: a ``#`` line per sheet, then its paragraphs. Hidden sheets and rows too, as
        LightRAG's own reading holds them: this text stands in for it (``extract_text``)."""
        out: list[str] = []
        sheet = None
        for para in self.paragraphs:
            if para.sheet != sheet:
                sheet = para.sheet
                out.append(f"# {sheet}")
            out.append(para.text)
        return "\n\n".join(out)


def column_letter(col: int) -> str:
    letters = ""
    while col:
        col, rem = divmod(col - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


def _text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return " ".join(str(value).split())


def _shown(value: Any, number_format: str) -> str:
    """The value as the sheet shows it, roughly: thousands separators and dates."""
    if isinstance(value, bool):
        return str(value).upper()
    if isinstance(value, int | float) and "," in number_format:
        decimals = number_format.split(".", 1)[1].count("0") if "." in number_format else 0
        return f"{value:,.{decimals}f}"
    if isinstance(value, datetime.datetime) and value.time() == datetime.time():
        return value.date().isoformat()
    return _text(value)


_DIMENSION = re.compile(rb'<(?:\w+:)?dimension\s+ref="[A-Z]*(\d*)(?::[A-Z]*(\d+))?"')
_ROW = re.compile(rb"<(?:\w+:)?row[\s>/]")
_CELL = re.compile(rb"<(?:\w+:)?c[\s>/]")


def _sheet_size(fh: Any, stop: int) -> int:
    """A sheet part's rows: its ``<dimension>``, else its ``<row`` tags counted while streaming (stops
    past ``stop``)."""
    head = fh.read(1 << 16)
    found = _DIMENSION.search(head)
    rows = int(found.group(2) or found.group(1) or 0) if found else 0
    chunk = head
    while not found and rows <= stop and chunk:
        rows += len(_ROW.findall(chunk))
        chunk = fh.read(1 << 20)
    return rows


def _sheet_cells(fh: Any, stop: int) -> int:
    """A sheet part's ``<c>`` elements (cells its XML holds, valued, styled or empty), counted while
    streaming; stops past ``stop``."""
    return count_tags(fh, _CELL, stop)


def _worksheets(zf: zipfile.ZipFile) -> list[str]:
    return [n for n in zf.namelist() if n.startswith("xl/worksheets/") and n.endswith(".xml")]


def _check_dimensions(real: str) -> None:
    """Refuse a sheet with more than ``MAX_ROWS`` rows holding a value, read from the sheet's XML without
    building it: its ``<dimension>`` (or ``<row>`` tags, ``_sheet_size``), and past ``MAX_ROWS`` its rows
    holding a value (``_valued_rows``; a small sheet formatted far down is read, as ``count_rows`` counts).
    Refuse a workbook whose sheets' XML holds more than ``MAX_XML_CELLS`` cells (``_sheet_cells``)."""
    with zipfile.ZipFile(real) as zf:
        cells = 0
        for name in _worksheets(zf):
            with zf.open(name) as fh:  # first: a regex, faster than _valued_rows' parse
                cells += _sheet_cells(fh, MAX_XML_CELLS - cells)
            if cells > MAX_XML_CELLS:
                raise OverBudgetError(f"XLSX over budget: {name} of {real} brings the workbook past {MAX_XML_CELLS} "
                                      f"cells, styled empty ones too (limit {MAX_XML_CELLS})", path=real,
                                      limit=f"sheet XML cells {MAX_XML_CELLS:,}", hint=_HINT)
            with zf.open(name) as fh:
                rows = _sheet_size(fh, MAX_ROWS)
            if rows > MAX_ROWS:
                with zf.open(name) as fh:
                    rows = _valued_rows(fh, MAX_ROWS, rows)
            if rows > MAX_ROWS:
                raise OverBudgetError(f"XLSX over budget: {name} of {real} has more than {MAX_ROWS} rows "
                                      f"(limit {MAX_ROWS})", path=real, limit=f"sheet rows {MAX_ROWS:,}", hint=_HINT)


def check_workbook(real: str) -> None:
    """The workbook's budgets, read from its zip directory and its sheets' XML, never loading it (the zip
    check, then ``_check_dimensions``). Raises ``OverBudgetError`` over a budget, ``DocumentError`` when it
    is no readable zip or a part is damaged."""
    check_zip(real, "XLSX", max_part_bytes=MAX_PART_BYTES)
    try:
        _check_dimensions(real)
    except (OSError, zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, ValueError, NotImplementedError) as exc:
        # RuntimeError: an encrypted part; NotImplementedError: a compression zipfile does not know
        raise DocumentError(f"Cannot read XLSX {real}: {type(exc).__name__}: {exc}",
                            hint="check the file opens in Excel or LibreOffice") from exc


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]


def _valued_rows(fh: Any, stop: int, bound: int) -> int:
    """A sheet part's rows holding a value (a ``<c>`` with ``<v>`` or an inline string ``<is>``), by a
    streaming parse that keeps no row it has passed; stops past ``stop``. ``bound`` (the sheet's size by
    ``_sheet_size``) when the part is malformed or expands past ``MAX_PART_BYTES``."""
    parser = ET.XMLPullParser(events=("start", "end"))
    rows = read = 0
    data = None
    try:
        while rows <= stop and (chunk := fh.read(1 << 16)):
            read += len(chunk)
            if read > MAX_PART_BYTES:
                return bound
            parser.feed(chunk)
            for event, elem in parser.read_events():
                name = _local(elem.tag)
                if event == "start":
                    data = elem if name == "sheetData" else data
                elif name == "row":
                    rows += any(_local(v.tag) in ("v", "is") for c in elem for v in c)
                    elem.clear()
                    if data is not None:
                        data.clear()  # the rows passed
    except ET.ParseError:
        return bound
    return rows


def count_rows(path: str | os.PathLike[str], stop: int) -> int | None:
    """The workbook's rows, every sheet's, hidden ones too (an upper bound of its paragraphs), read from
    the sheets' XML; counting ends once past ``stop``. A sheet's ``<dimension>`` (or its ``<row>`` tags)
    is only an upper bound (a sheet formatted down to row 9000 says 9000): past ``stop``, its rows holding
    a value are counted (``_valued_rows``). None when the file is no readable zip (parsing it says why)."""
    try:
        with zipfile.ZipFile(path) as zf:
            total = 0
            for name in _worksheets(zf):
                with zf.open(name) as fh:
                    rows = _sheet_size(fh, stop - total)
                if total + rows > stop:
                    with zf.open(name) as fh:
                        rows = _valued_rows(fh, stop - total, rows)
                total += rows
                if total > stop:
                    break
            return total
    except (OSError, zipfile.BadZipFile, RuntimeError, EOFError):  # RuntimeError: an encrypted part
        return None


def regions(cells: dict[tuple[int, int], Any]) -> list[list[tuple[int, int]]]:
    """The sheet's tables as docling finds them: groups of non-empty cells touching each other (sides or
    corners), each sorted by row then column, in order of their top-left cell."""
    parent = {key: key for key in cells}

    def root(key: tuple[int, int]) -> tuple[int, int]:
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    for r, c in cells:
        for dr, dc in ((0, 1), (1, -1), (1, 0), (1, 1)):
            other = (r + dr, c + dc)
            if other in cells:
                parent[root(other)] = root((r, c))
    groups: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for key in cells:
        groups.setdefault(root(key), []).append(key)
    return sorted((sorted(g) for g in groups.values()), key=lambda g: (g[0][0], min(c for _, c in g)))


def _wordy(text: str) -> bool:
    """Whether a cell's text holds a letter: a label, never a separator (":", "-") or a number."""
    return any(ch.isalpha() for ch in text)


def marks_only(text: str) -> bool:
    """Whether a cell holds marks only (":", "-", "#"): between a label and its value, never a label."""
    return not any(ch.isalnum() for ch in text)


def labels_beside(groups: list[list[tuple[int, int]]], text: Any) -> list[list[tuple[int, int]]]:
    """``groups`` (``regions``) with a column of labels joined to the cells right of it on the same rows,
    across one or two empty columns: a data sheet's "Rated system frequency |  | Hz | : | 134" is one row,
    as docling's gap tolerance reads it, not a label apart from its value. ``text``: a cell's text."""
    out = [g for g in groups]
    for left in list(out):
        cols = {c for _, c in left}
        if len(cols) != 1 or not all(_wordy(text(k)) for k in left):
            continue
        col, rows = next(iter(cols)), {r for r, _ in left}
        right = next((g for g in out if g is not left and {r for r, _ in g} == rows
                      and 2 <= min(c for _, c in g) - col <= 3), None)
        if right is not None:
            out.remove(right)
            out[next(i for i, g in enumerate(out) if g is left)] = sorted(left + right)
    return sorted(out, key=lambda g: (g[0][0], min(c for _, c in g)))


def _own_cells(ws: Any) -> list[Any]:
    """The cells the sheet's XML holds, by row then column. ``iter_rows`` would walk (and create) every
    cell of the sheet's extent: 5.2 million for one cell formatted at Z200000 (a gigabyte). openpyxl keeps
    a loaded sheet's cells in ``_cells``, its private dict; without it, the public walk."""
    own = getattr(ws, "_cells", None)
    if not isinstance(own, dict):
        return [c for row in ws.iter_rows() for c in row]
    return [own[key] for key in sorted(own)]


def formulas(fws: Any, blank: set[tuple[int, int]]) -> dict[tuple[int, int], str]:
    """The formula text (``=SUM(B2:B3)``) of each ``blank`` cell (row, column: no cached value) of the
    read-only, formula-reading sheet ``fws`` that holds one, as LightRAG reads a formula with no cached
    value. Only the rows and columns ``blank`` spans are walked; none past ``MAX_FORMULA_SPAN`` slots."""
    if not blank:
        return {}
    lo, hi = min(r for r, _ in blank), max(r for r, _ in blank)
    left, right = min(c for _, c in blank), max(c for _, c in blank)
    if (hi - lo + 1) * (right - left + 1) > MAX_FORMULA_SPAN:
        return {}
    out: dict[tuple[int, int], str] = {}
    for r, values in enumerate(fws.iter_rows(min_row=lo, max_row=hi, min_col=left, max_col=right,
                                             values_only=True), start=lo):
        for c, value in enumerate(values, start=left):
            text = getattr(value, "text", value)  # an array formula's text
            if (r, c) in blank and isinstance(text, str) and text.startswith("=") and _text(text):
                out[(r, c)] = text
    return out


def _blank(ws: Any) -> set[tuple[int, int]]:
    """The cells the sheet's XML holds with no value (styled empty ones, formulas with no cached value)."""
    return {(c.row, c.column) for c in _own_cells(ws) if c.value is None}


def _sheet_rows(ws: Any, sheet_hidden: bool, first_region: int,
                formula: dict[tuple[int, int], str] | None = None) -> list[RowParagraph]:
    """The sheet's rows (``RowParagraph``), each cell its value, else its ``formula`` text."""
    formula = formula or {}

    def value(c: Any) -> Any:
        return c.value if c.value is not None else formula.get((c.row, c.column))

    cells: dict[tuple[int, int], Any] = {}
    for c in _own_cells(ws):
        if value(c) is not None and _text(value(c)):
            cells[(c.row, c.column)] = c
    out: list[RowParagraph] = []
    for number, region in enumerate(labels_beside(regions(cells), lambda k: _text(value(cells[k]))),
                                    start=first_region):
        rows: list[RowParagraph] = []
        by_row: dict[int, list[Any]] = {}
        for r, c in region:
            by_row.setdefault(r, []).append(cells[(r, c)])
        for r, found in by_row.items():
            hidden = sheet_hidden or (r in ws.row_dimensions and bool(ws.row_dimensions[r].hidden))
            texts = tuple((c.column, _text(value(c))) for c in found)
            label = next((c.column for c in found if isinstance(c.value, str) and not marks_only(c.value)), None)
            rows.append(RowParagraph(index=0, text=" | ".join(t for _, t in texts), heading_path=(ws.title,),
                                     sheet=ws.title, row=r, cells=texts,
                                     shown=tuple(_shown(value(c), c.number_format) for c in found),
                                     label_column=label if label is not None and len(found) > 1 else None,
                                     hidden=hidden, region=number))
        _table(rows)
        out.extend(rows)
    return out


def _table(rows: list[RowParagraph]) -> None:
    """A region whose first row of two cells or more heads the row below it is a table with that header
    (``header_row``; single cells above it are its title): the rows below get the header's texts and are
    labelled by their cell under the header's first column."""
    at = header_row([[t for _, t in row.cells] for row in rows])
    if at is None:
        return
    head = rows[at]
    head.is_header = True
    headers = dict(head.cells)
    first = head.cells[0][0]
    for row in rows[at + 1:]:
        row.header_row, row.headers = head.row, headers
        if len(row.cells) > 1 and row.cells[0][0] == first and not marks_only(row.cells[0][1]):
            row.label_column = first
    _keys(rows[at + 1:], [col for col, _ in head.cells])


def _keys(rows: list[RowParagraph], columns: list[int]) -> None:
    """Each row whose label other rows of the table share gets the first of ``columns`` (the header's) whose
    values, all present, differ across them as its ``key_column`` (nc24d: "Widget C, Revenue: 15000" and
    "Widget C, Revenue: 5000" told nothing apart; their Date column does)."""
    same: dict[str, list[RowParagraph]] = {}
    for row in rows:
        if row.label_column is not None:
            same.setdefault(dict(row.cells)[row.label_column], []).append(row)
    for group in same.values():
        if len(group) < 2:
            continue
        for col in columns:
            values = [dict(r.cells).get(col) for r in group]
            if col != group[0].label_column and None not in values and len(set(values)) == len(values):
                for row in group:
                    row.key_column = col
                break


def _with_comments(ws: Any, rows: list[RowParagraph], found: dict[str, list[tuple[str, str]]], hidden: bool,
                   first_region: int, room: int) -> list[RowParagraph]:
    """The sheet's ``rows`` with its cell comments (at most ``room``), a paragraph each in its own region,
    right after the row holding the commented cell (under that cell's header, if any), else after the
    sheet's rows (a comment on an empty cell): each stays beside the values it speaks of."""
    at = {(r.row, col): r for r in rows for col, _ in r.cells}
    after: dict[int, list[RowParagraph]] = {}
    for number, said in enumerate(sheet_comments(_own_cells(ws), found, room), start=first_region):
        cell = f"{column_letter(said.column)}{said.row}"
        holder = at.get((said.row, said.column))
        header = holder.headers.get(said.column) if holder is not None else None
        after.setdefault(id(holder), []).append(RowParagraph(
            index=0, text=line(ws.title, cell, said), heading_path=(ws.title,), sheet=ws.title, row=said.row,
            cells=((said.column, said.words),), shown=(said.words,), region=number,
            header_row=holder.header_row if header and holder is not None else None,
            headers={said.column: header} if header else {},
            hidden=hidden or (said.row in ws.row_dimensions and bool(ws.row_dimensions[said.row].hidden)),
            comment=True, author=said.author, words=said.words, reply=said.reply))
    if not after:
        return rows
    out: list[RowParagraph] = []
    for row in rows:
        out += [row, *after.get(id(row), ())]
    return out + after.get(id(None), [])


def parse_file(real: str, st: os.stat_result) -> XlsxDocument:
    """Read the workbook at ``real``. Raises ``DocumentError`` (broken, encrypted, over budget)."""
    try:
        check_workbook(real)
        with warnings.catch_warnings():  # openpyxl's notes (a WMF picture dropped) are no line for the person
            warnings.simplefilter("ignore")
            rows, sheets = _read_rows(real)
    except DocumentError:
        raise
    except Exception as exc:  # openpyxl raises many kinds on a broken part
        raise DocumentError(f"Cannot read XLSX {real}: {type(exc).__name__}: {exc}",
                            hint="check the file opens in Excel or LibreOffice") from exc
    for i, row in enumerate(rows):
        row.index = i
    visible = [r for r in rows if not r.hidden]
    doc = XlsxDocument(rows, sheets=sheets)
    if len(visible) < len(rows):
        doc.visible = TextDocument([dataclasses.replace(r, index=i) for i, r in enumerate(visible)])
    return doc


def _read_rows(real: str) -> tuple[list[RowParagraph], list[str]]:
    """Every sheet's rows (values, formulas where a cached value is blank, comments) and the sheet names."""
    from openpyxl import load_workbook

    wb = load_workbook(real, data_only=True)
    rows: list[RowParagraph] = []
    sheets = list(wb.sheetnames)
    found = threads(real)
    region = said = 0  # the next table region's number; the comments read so far
    blanks = {ws.title: _blank(ws) for ws in wb.worksheets}
    fwb = load_workbook(real, read_only=True) if any(blanks.values()) else None  # formulas, streamed
    try:
        written = {t: formulas(fwb[t], b) for t, b in blanks.items() if b} if fwb is not None else {}
    finally:
        if fwb is not None:
            fwb.close()
    for ws in wb.worksheets:
        hidden = ws.sheet_state != "visible"
        own = _sheet_rows(ws, hidden, region, written.get(ws.title))
        region = max((r.region for r in own), default=region - 1) + 1
        own = _with_comments(ws, own, found, hidden, region, MAX_COMMENTS - said)
        region = max((r.region for r in own), default=region - 1) + 1
        said += sum(r.comment for r in own)
        rows.extend(own)
    return rows, sheets


_cache: FileCache[XlsxDocument] = FileCache(parse_file, what="XLSX", max_items=CACHE_SIZE,
                                            weight=lambda d: len(d.paragraphs), max_weight=MAX_CELLS)


def load_xlsx(path: str | os.PathLike[str]) -> XlsxDocument:
    """The parsed workbook, cached by real path + size + mtime. Raises ``DocumentError``."""
    return _cache.get(path)


def warm_xlsx(path: str | os.PathLike[str]) -> bool:
    """Parse ``path`` into the cache now; True when it was parsed now."""
    return _cache.warm(path)
