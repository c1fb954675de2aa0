"""A workbook read as the locator keeps it: one paragraph per non-empty row, in sheet order.

A row's text is its values as LightRAG indexes them (``str`` of each value, formulas by the value
cached in the file, ``data_only=True``), joined by `` | ``. Tables are runs of non-empty rows: a
run of two rows or more whose first row is all text has that row as its header. A row's label is
its first text cell when more cells follow; in a table, its cell under the header's first column.
Hidden sheets and rows are kept apart (``hidden``).

Budgets, before openpyxl loads a sheet into memory: the host's zip check (a sheet part expands
to at most 48 MB) and each sheet's size (its ``<dimension>``, else its rows counted while
streaming the XML): more than ``MAX_ROWS`` rows refuses the workbook with one ``DocumentError`` line.
"""

from __future__ import annotations

import datetime
import os
import re
import zipfile
from dataclasses import dataclass, field
from typing import Any

from mnote_kr.plugin_api import DocumentError, FileCache, TextDocument, TextParagraph, check_zip

MAX_ROWS = 100_000
MAX_CELLS = 2_000_000  # the cache's weight limit (rows kept)
MAX_PART_BYTES = 48 * 1024 * 1024
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


@dataclass(slots=True)
class XlsxDocument(TextDocument[RowParagraph]):
    """A parsed workbook; ``visible`` is the same rows without hidden sheets and rows."""

    visible: TextDocument[RowParagraph] | None = None

    def markdown(self) -> str:
        out: list[str] = []
        sheet = None
        for para in self.paragraphs:
            if para.hidden:
                continue
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


def _check_dimensions(real: str) -> None:
    """Refuse a sheet with more than ``MAX_ROWS`` rows, read from the sheet's XML without parsing it: its
    ``<dimension>``, else its ``<row`` tags counted while streaming (stops at the limit)."""
    with zipfile.ZipFile(real) as zf:
        for name in zf.namelist():
            if not (name.startswith("xl/worksheets/") and name.endswith(".xml")):
                continue
            with zf.open(name) as fh:
                head = fh.read(1 << 16)
                found = _DIMENSION.search(head)
                rows = int(found.group(2) or found.group(1) or 0) if found else 0
                chunk = head
                while not found and rows <= MAX_ROWS and chunk:
                    rows += len(_ROW.findall(chunk))
                    chunk = fh.read(1 << 20)
            if rows > MAX_ROWS:
                raise DocumentError(f"XLSX over budget: {name} of {real} has more than {MAX_ROWS} rows "
                                    f"(limit {MAX_ROWS})", hint=_HINT)


def _sheet_rows(ws: Any, sheet_hidden: bool) -> list[RowParagraph]:
    rows: list[RowParagraph] = []
    for cells in ws.iter_rows():
        found = [(c.column, c.value, c.number_format) for c in cells if c.value is not None and _text(c.value)]
        if not found:
            continue
        r = cells[0].row
        hidden = sheet_hidden or bool(ws.row_dimensions[r].hidden) if r in ws.row_dimensions else sheet_hidden
        texts = tuple((col, _text(v)) for col, v, _ in found)
        label = next((col for col, v, _ in found if isinstance(v, str)), None)
        rows.append(RowParagraph(index=0, text=" | ".join(t for _, t in texts), heading_path=(ws.title,),
                                 sheet=ws.title, row=r, cells=texts, shown=tuple(_shown(v, f) for _, v, f in found),
                                 label_column=label if label is not None and len(found) > 1 else None, hidden=hidden))
    _tables(rows)
    return rows


def _tables(rows: list[RowParagraph]) -> None:
    """Give each row of a table (a run of consecutive rows, first row all text) its header."""
    start = 0
    while start < len(rows):
        end = start
        while end + 1 < len(rows) and rows[end + 1].row == rows[end].row + 1:
            end += 1
        head = rows[start]
        all_text = all(not _is_number(t) for _, t in head.cells)
        if end > start and all_text and len(head.cells) > 1:
            headers = dict(head.cells)
            first = head.cells[0][0]
            head.is_header = True
            for row in rows[start + 1:end + 1]:
                row.header_row, row.headers = head.row, headers
                if len(row.cells) > 1 and row.cells[0][0] == first:  # a table row is labelled by its first column
                    row.label_column = first
        start = end + 1


def _is_number(text: str) -> bool:
    try:
        float(text.replace(",", ""))
    except ValueError:
        return False
    return True


def parse_file(real: str, st: os.stat_result) -> XlsxDocument:
    """Read the workbook at ``real``. Raises ``DocumentError`` (broken, encrypted, over budget)."""
    check_zip(real, "XLSX", max_part_bytes=MAX_PART_BYTES)
    try:
        _check_dimensions(real)
        from openpyxl import load_workbook

        wb = load_workbook(real, data_only=True)
        rows: list[RowParagraph] = []
        for ws in wb.worksheets:
            rows.extend(_sheet_rows(ws, ws.sheet_state != "visible"))
    except DocumentError:
        raise
    except Exception as exc:  # openpyxl raises many kinds on a broken part
        raise DocumentError(f"Cannot read XLSX {real}: {type(exc).__name__}: {exc}",
                            hint="check the file opens in Excel or LibreOffice") from exc
    for i, row in enumerate(rows):
        row.index = i
    visible = [r for r in rows if not r.hidden]
    doc = XlsxDocument(rows)
    if len(visible) < len(rows):
        shown = [RowParagraph(index=i, text=r.text, heading_path=r.heading_path, sheet=r.sheet, row=r.row,
                              cells=r.cells, shown=r.shown, header_row=r.header_row, headers=r.headers,
                              label_column=r.label_column, is_header=r.is_header) for i, r in enumerate(visible)]
        doc.visible = TextDocument(shown)
    return doc


_cache: FileCache[XlsxDocument] = FileCache(parse_file, what="XLSX", max_items=CACHE_SIZE,
                                            weight=lambda d: len(d.paragraphs), max_weight=MAX_CELLS)


def load_xlsx(path: str | os.PathLike[str]) -> XlsxDocument:
    """The parsed workbook, cached by real path + size + mtime. Raises ``DocumentError``."""
    return _cache.get(path)


def warm_xlsx(path: str | os.PathLike[str]) -> bool:
    """Parse ``path`` into the cache now; True when it was parsed now."""
    return _cache.warm(path)
