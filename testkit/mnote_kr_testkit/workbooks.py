"""Workbooks the tests build with openpyxl: a tide gauge's readings, as a sheet people keep."""

from __future__ import annotations

from pathlib import Path


def formatted_far_down(path: Path, readings: int, *, last_row: int = 200_000, last_column: int = 26,
                       styled_rows: int = 0, styled_columns: int = 6) -> Path:
    """A "Tide gauge" sheet of a header ("Reading", "Metres") and ``readings`` rows, with one cell far below
    them (``last_row``, ``last_column``) formatted but empty, as Excel leaves a sheet whose column someone
    filled down: the sheet's ``<dimension>`` then reaches that cell (``A1:Z200000``) while ``readings + 1``
    rows hold a value. ``styled_rows`` rows below the readings hold ``styled_columns`` cells each, formatted
    but empty (a fill someone dragged down): cells the sheet's XML holds with no row holding a value.
    Returns ``path``."""
    from openpyxl import Workbook
    from openpyxl.styles import PatternFill

    wb = Workbook()
    ws = wb.active
    ws.title = "Tide gauge"
    ws.append(["Reading", "Metres"])
    for r in range(readings):
        ws.append([f"reading {r}", r % 7])
    fill = PatternFill("solid", fgColor="FFFF00")
    for r in range(readings + 2, readings + 2 + styled_rows):
        for c in range(1, styled_columns + 1):
            ws.cell(r, c).fill = fill
    ws.cell(last_row, last_column).fill = fill
    wb.save(path)
    return path


def styled_empty_cells(path: Path, cells: int, *, columns: int = 10) -> Path:
    """A "Fill" sheet whose XML holds ``cells`` cells: a header ("Reading", "Metres") and below it cells
    formatted (a fill) but empty, ``columns`` a row, as a fill dragged over a large range leaves them. The
    workbook is made by openpyxl with one such cell, then its sheet's XML is written out directly (openpyxl
    would take minutes and gigabytes to build a million cells). Returns ``path``."""
    import io
    import re
    import zipfile

    from openpyxl import Workbook
    from openpyxl.styles import PatternFill

    wb = Workbook()
    ws = wb.active
    ws.title = "Fill"
    ws.append(["Reading", "Metres"])
    ws["A2"].fill = PatternFill("solid", fgColor="FFFF00")
    buf = io.BytesIO()
    wb.save(buf)
    sheet = "xl/worksheets/sheet1.xml"
    with zipfile.ZipFile(buf) as src:
        parts = {info: src.read(info) for info in src.infolist()}
    xml = next(data for info, data in parts.items() if info.filename == sheet)
    header = re.search(rb"<row r=\"1\".*?</row>", xml)
    style = re.search(rb"<c r=\"A2\" s=\"(\d+)\"", xml)
    assert header is not None and style is not None, "openpyxl wrote the sheet differently"
    empty = cells - 2
    last_row = 1 + -(-empty // columns)
    head, _, rest = xml.partition(b"<sheetData>")
    tail = rest.partition(b"</sheetData>")[2]
    head = re.sub(rb'<dimension ref="[^"]*"/>', f'<dimension ref="A1:{column_name(columns)}{last_row}"/>'.encode(),
                  head)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for info, data in parts.items():
            if info.filename != sheet:
                dst.writestr(info, data)
        with dst.open(sheet, "w") as out:
            out.write(head + b"<sheetData>" + header.group(0))
            s = style.group(1).decode()
            for row in range(2, last_row + 1):
                n = min(columns, empty - (row - 2) * columns)
                out.write((f'<row r="{row}">' + "".join(f'<c r="{column_name(c)}{row}" s="{s}"/>'
                                                         for c in range(1, n + 1)) + "</row>").encode())
            out.write(b"</sheetData>" + tail)
    return path


def column_name(col: int) -> str:
    """1 -> "A", 27 -> "AA"."""
    letters = ""
    while col:
        col, rem = divmod(col - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


def locate_in_whole_book(plugins, book: Path, query: str):  # type: ignore[no-untyped-def]
    """The loaded ``plugins``' place for ``query`` in ``book`` when the engine's chunk was the whole workbook
    (a small book is one chunk): its text as the XLSX reader gives it, cleaned as the pipeline cleans it."""
    from mnote_kr.models import LocateRequest

    chunk = plugins.extract_text(str(book))
    bundle = plugins.clean_text(chunk, query, None)
    return plugins.locate(LocateRequest(file=str(book), evidence=bundle.locator_evidence_text, query=query,
                                        passage=chunk))
