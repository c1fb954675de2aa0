"""The workbook as the viewer draws it (``document_model``): per sheet, its non-empty cells.

Built from the same parsed rows ``locate`` reads (the values as a person reads them: 4,100;
2023-05-01), so a locator's ``sheet`` and ``range`` land on what is drawn. Bounded: a sheet
gives at most ``MAX_SHEET_CELLS`` cells and the workbook ``MAX_MODEL_CELLS``, each sheet in the
reader's order (table region by region, row by row) up to the first row that does not fit; a sheet
cut short says so (``truncated``) and the viewer says a citation below
the cut is not shown. A cell comment is no cell of its own: its line is left out.
"""

from __future__ import annotations

import os

from mnote_kr.plugin_api import DocumentModel, ModelCell, ModelSheet

from .reader import XlsxDocument, load_xlsx

MAX_SHEET_CELLS = 20_000
MAX_MODEL_CELLS = 100_000


def sheets_model(doc: XlsxDocument, plugin: str, *, sheet_cap: int = MAX_SHEET_CELLS,
                 total_cap: int = MAX_MODEL_CELLS) -> DocumentModel:
    """``doc`` as ``kind="sheets"``: the sheets with a non-empty cell or a comment, in workbook order, capped."""
    cells: dict[str, list[ModelCell]] = {}
    hidden: dict[str, bool] = {}
    cut: set[str] = set()
    total = 0
    for row in doc.paragraphs:
        own = cells.setdefault(row.sheet, [])
        hidden[row.sheet] = hidden.get(row.sheet, True) and row.hidden
        if row.comment:  # a comment's line: its sheet is drawn, its cell from its row (if it holds a value)
            continue
        room = min(sheet_cap - len(own), total_cap - total)
        if row.sheet in cut or room < len(row.cells):
            cut.add(row.sheet)
            continue
        own.extend(ModelCell(row=row.row, column=col, text=shown)
                   for (col, _), shown in zip(row.cells, row.shown, strict=True))
        total += len(row.cells)
    sheets = []
    for name, own in cells.items():
        own.sort(key=lambda c: (c.row, c.column))  # regions interleave rows; the viewer wants reading order
        sheets.append(ModelSheet(name=name, hidden=hidden[name], cells=own, truncated=name in cut))
    return DocumentModel(kind="sheets", plugin=plugin, sheets=sheets)


def document_model_xlsx(path: str | os.PathLike[str], plugin: str) -> DocumentModel:
    """The viewer's model of the workbook at ``path``. Raises ``DocumentError``."""
    return sheets_model(load_xlsx(path), plugin)
