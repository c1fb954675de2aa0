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
