"""A table cell's citation is its row: read by its headers, placed on the cell that answers.

``paragraphIndex`` counts a table's cell paragraphs one by one, so the matcher lands on a cell: often the
row's label, the cell holding the query's words ("遗传性乳腺癌"), while the answer stands beside it under
the header the query names ("相关基因": "BRCA1"). Here a located cell becomes its row:

* the row is read as the XLSX and PPTX locators read one (the host's ``header_row`` and
  ``labelled_row``): its first column's text as its label, then each value under its header,
  ``Q0101: 检测项目: 遗传性乳腺癌; 相关基因: BRCA1; 周期: 15个工作日``. A cell merged down
  (``w:vMerge``) reads as its value in every row it spans; a cell spanning columns (``w:gridSpan``)
  once, under its first and last column's headers (``Mon–Tue: closed``). A table without a header row
  reads plain (``a | b | c``); a header row as its texts. That reading is the locator's ``quote``
  (the citation's ``displayQuote``), with ``rowLabel`` and ``headers`` as XLSX gives them.
* the place is the row's cell under the header the query names as a phrase (the longest so named; none
  when two are), else the cell matched: ``paragraphIndex`` stays a cell's first paragraph, so the
  locator contract and the viewer are unchanged. A named cell that only continues a vertical merge (no
  words of its own in this row) leaves the place on the matched cell, in the row asked about.
* the places behind it are other rows: a runner-up in a row already cited, or in the header row
  (it answers nothing by itself), is dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import msgspec

from mnote_kr.plugin_api import Highlight, Locator, header_row, labelled_row, normalize

from .document import DocxDocument, Paragraph

__all__ = ["TableRow", "as_rows", "row_of"]


@dataclass(slots=True)
class RowCell:
    """One cell of a row: its grid columns, its text (a merged cell's where it continues one) and its
    first paragraph."""

    first: int  # grid column
    last: int
    text: str
    paragraph: int
    own: bool  # its words stand in this row's paragraphs (not a vertical merge's continuation)


@dataclass(slots=True)
class TableRow:
    """The row of a located cell, read by the table's header."""

    key: tuple[int, int]  # (outermost table, row)
    cells: list[RowCell]
    labels: dict[int, str]  # grid column -> header text ({} without a header, and for the header row)
    header: bool  # the header row or a title row above it

    @property
    def label(self) -> str | None:
        return self.cells[0].text or None if self.labels and self.cells and self.cells[0].first == 0 else None

    def heads(self, cell: RowCell) -> str:
        """The header over ``cell`` (its first and last column's, joined by an en dash when they differ)."""
        return "–".join(dict.fromkeys(h for h in (self.labels.get(cell.first, ""), self.labels.get(cell.last, ""))
                                      if h))

    def reading(self) -> str:
        """The row as people read it (see the module)."""
        if not self.labels:
            if self.header:
                return " | ".join(c.text for c in self.cells if c.text)
            texts = [c.text for c in self.cells]
            while texts and not texts[-1]:
                texts.pop()
            return " | ".join(texts)
        label = self.label
        parts = [(self.heads(c), c.text) for c in self.cells if c.text and not (label and c is self.cells[0])]
        return labelled_row(label, parts) if parts else label or ""

    def named(self, query: str) -> RowCell | None:
        """The cell under the header the query names as a phrase (the longest; None when two tie)."""
        q = " ".join(normalize(query).split())
        found: list[tuple[int, RowCell]] = []
        for cell in self.cells:
            head = " ".join(normalize(self.heads(cell)).split())
            if cell.text and head and not (self.label and cell is self.cells[0]) and _says(q, head):
                found.append((len(head), cell))
        found.sort(key=lambda f: -f[0])
        if not found or (len(found) > 1 and found[1][0] == found[0][0]):
            return None
        return found[0][1]


def _says(query: str, phrase: str) -> bool:
    return re.search(r"(?<![a-z0-9])" + re.escape(phrase) + r"(?![a-z0-9])", query) is not None


def _cell_text(paras: list[Paragraph]) -> str:
    own = (p.text if p.own_chars is None else p.text[:p.own_chars] for p in paras)
    return " ".join(" ".join(t.split()) for t in own if t.strip())


def _table_span(doc: DocxDocument, at: int) -> tuple[int, int]:
    """The paragraph indices ``[lo, hi)`` of the outermost table holding paragraph ``at``."""
    paras = doc.paragraphs
    table = paras[at].cell[0]  # type: ignore[index]
    lo = hi = at
    while lo > 0 and paras[lo - 1].cell is not None and paras[lo - 1].cell[0] == table:  # type: ignore[index]
        lo -= 1
    while hi < len(paras) and paras[hi].cell is not None and paras[hi].cell[0] == table:  # type: ignore[index]
        hi += 1
    return lo, hi


def _rows(doc: DocxDocument, lo: int, hi: int) -> dict[int, list[RowCell]]:
    by_cell: dict[tuple[int, int], list[Paragraph]] = {}
    for p in doc.paragraphs[lo:hi]:
        by_cell.setdefault((p.cell[1], p.cell[2]), []).append(p)  # type: ignore[index]
    texts = {key: _cell_text(paras) for key, paras in by_cell.items()}
    rows: dict[int, list[RowCell]] = {}
    for (row, col), paras in by_cell.items():
        first = paras[0]
        start, span = first.grid if first.grid is not None else (col, 1)
        text, own = texts[(row, col)], True
        if not text and first.merged_from is not None and lo <= first.merged_from < hi:
            origin = doc.paragraphs[first.merged_from].cell
            text, own = texts.get((origin[1], origin[2]), ""), False  # type: ignore[index]
        rows.setdefault(row, []).append(RowCell(start, start + span - 1, text, first.index, own))
    for cells in rows.values():
        cells.sort(key=lambda c: c.first)
    return rows


def row_of(doc: DocxDocument, index: int) -> TableRow | None:
    """The table row holding paragraph ``index``, or None outside a table."""
    para = doc.paragraphs[index]
    if para.cell is None:
        return None
    lo, hi = _table_span(doc, index)
    rows = _rows(doc, lo, hi)
    order = sorted(rows)
    at = header_row([[c.text for c in rows[r] if c.text] for r in order])
    row = para.cell[1]
    labels: dict[int, str] = {}
    if at is not None and row > order[at]:
        for c in rows[order[at]]:
            for g in range(c.first, c.last + 1):
                labels[g] = c.text
    return TableRow((para.cell[0], row), rows[row], labels, at is not None and row <= order[at])


def _as_row(doc: DocxDocument, loc: Locator, query: str) -> tuple[Locator, tuple[int, int] | None]:
    if loc.locator_precision != "paragraph" or loc.paragraph_index is None \
            or not 0 <= loc.paragraph_index < len(doc.paragraphs):
        return loc, None
    row = row_of(doc, loc.paragraph_index)
    if row is None:
        return loc, None
    changes: dict[str, object] = {"quote": row.reading() or None, "row_label": row.label}
    named = row.named(query)
    if named is not None and named.own:
        changes["headers"] = [row.heads(named)]
        if named.paragraph != loc.paragraph_index:
            para = doc.paragraphs[named.paragraph]
            own = para.text if para.own_chars is None else para.text[:para.own_chars]
            why = f"{loc.locator_reason}; in its row, the cell under '{row.heads(named)}' the query names"
            changes.update(paragraph_index=para.index, para_id=para.para_id, place_text=para.text or None,
                           highlight=Highlight(start=0, end=len(own)) if own.strip() else None,
                           reason=why, locator_reason=why)
    elif row.labels:
        changes["headers"] = [row.heads(c) for c in row.cells if c.text and not (row.label and c is row.cells[0])]
    return msgspec.structs.replace(loc, **changes), row.key  # type: ignore[arg-type]


def _is_header(doc: DocxDocument, loc: Locator) -> bool:
    row = row_of(doc, loc.paragraph_index) if loc.paragraph_index is not None else None
    return row is not None and row.header and len(row.cells) > 1


def as_rows(doc: DocxDocument, loc: Locator, query: str) -> Locator:
    """``loc`` (and its runners-up) with a table cell read as its row (see the module); other places as
    they are. A runner-up in a row already cited, or in a table's header row, is dropped."""
    main, key = _as_row(doc, loc, query)
    seen = {key} if key is not None else set()
    runners = []
    for r in loc.runners_up:
        r, rkey = _as_row(doc, r, query)
        if rkey is not None and (rkey in seen or _is_header(doc, r)):
            continue
        if rkey is not None:
            seen.add(rkey)
        runners.append(r)
    if len(runners) == len(loc.runners_up) and main is loc:
        return loc
    return msgspec.structs.replace(main, runners_up=runners)
