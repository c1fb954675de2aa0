"""A data table's cell is cited as its row: read by its headers, placed on the cell that answers.

``paragraphIndex`` counts a table's cell paragraphs one by one, so the matcher lands on a cell: often the
row's label, the cell holding the query's words ("遗传性乳腺癌"), while the answer stands beside it under
the header the query names ("相关基因": "BRCA1"). Here a located cell of a data table (two rows or more,
its cells mostly one short paragraph each: ``CELL_CHARS``) becomes its row; a table laid out (a CV's two
columns of many paragraphs) keeps its paragraphs' own citations:

* the row is read as the XLSX and PPTX locators read one (the host's ``header_row`` and
  ``labelled_row``): its first column's text as its label, then each value under its header,
  ``Q0101: 检测项目: 遗传性乳腺癌; 相关基因: BRCA1; 周期: 15个工作日``. A cell merged down
  (``w:vMerge``) reads as its value in every row it spans; a cell spanning columns (``w:gridSpan``)
  once, under its first and last column's headers (``Mon–Tue: closed``). A table without a header row
  reads plain (``a | b | c``); a header row as its texts. That reading, cut to about a quote's length
  (``ROW_CHARS``: the first values and the cited cell's), is the locator's ``quote`` (the citation's
  ``displayQuote``), with ``rowLabel`` and ``headers`` as XLSX gives them.
* the place is the row's cell under the header the query names best as a phrase (``TableRow.named``,
  the host's ``named_header``: the most specific, then the first named; none when two tie), else the
  row's cell holding the query as written when the matched one does not (``TableRow.written``: a search
  for "遗传性乳腺癌" opens at that cell, not at the row's longest cell the passage matched), else the
  cell matched: ``paragraphIndex`` stays a cell's first paragraph, so the locator contract and the
  viewer are unchanged. A named cell that only continues a vertical merge (no words of its own in
  this row) leaves the place on the matched cell, in the row asked about.
* a place in the header row moves to the data row the question asks about: the header holds the column's
  words for every row, so the row holding the query's other words (its key: "How many calories per portion
  do berries have?", the Berries row) answers, on its cell under the header named (the host's
  ``asked_row``). A question only about the columns, or whose other words two rows hold alike, keeps the
  header. Else a question naming a header and saying more than the header's words moves to the row
  holding a value under that header (the host's ``valued_row``): "遗传病检测项目的检测方法是什么" over
  项目编号 | … | 检测方法, whose one filled 检测方法 cell (merged down the rows below) holds the method;
  of several such rows, the one holding most of the question's other words, else of those holding as
  many (and some) the nearest by meaning (its cells holding them, once ingest embedded the paragraphs). The place
  keeps the header's claim, exact or approximate: the move never makes a place exact.
* the places behind it are other rows: a runner-up in a row already cited, or in the header row
  (it answers nothing by itself), is dropped. One locate reads each table once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import msgspec

from mnote_kr.plugin_api import (
    Highlight,
    Locator,
    asked_again,
    asked_row,
    header_row,
    keyed_header,
    kind_answered,
    labelled_row,
    named_header,
    places_key,
    rank_by_meaning,
    valued_row,
)

from .document import DocxDocument, Paragraph

__all__ = ["TableRow", "as_rows", "row_of"]

T = TypeVar("T")


#: A data table's cell holds one paragraph of at most this many characters, mostly. A table with one
#: row, or with a column most of whose cells below the first row hold several paragraphs or a longer one,
#: lays a page out (a CV's two columns): its cells are cited as paragraphs, each with its own quote. One
#: long cell (a requirement longer than the others) leaves a data table data (``_laid_out``).
CELL_CHARS = 200
#: A row's reading is cut to about a quote's length (``displayQuote``: about 320 characters,
#: docs/http-api.md): its first values and the cell cited, ``…`` where values are left out.
ROW_CHARS = 320
GAP = "…"


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
    section: str | None = None  # the section row above it, when other rows of its table share its label

    @property
    def label(self) -> str | None:
        return self.cells[0].text or None if self.labels and self.cells and self.cells[0].first == 0 else None

    @property
    def named_as(self) -> str | None:
        """The row's label as its reading says it: with its section first when other rows share the label
        ("Downwinders – Claims Filed": the table's "Claims Filed" rows are told apart by the rows over them)."""
        label = self.label
        return f"{self.section} – {label}" if label and self.section else label

    def heads(self, cell: RowCell) -> str:
        """The header over ``cell`` (its first and last column's, joined by an en dash when they differ)."""
        return "–".join(dict.fromkeys(h for h in (self.labels.get(cell.first, ""), self.labels.get(cell.last, ""))
                                      if h))

    def holding(self, paragraph: int) -> RowCell | None:
        """The cell holding paragraph ``paragraph`` (the last starting at or before it)."""
        return max((c for c in self.cells if c.paragraph <= paragraph), key=lambda c: c.paragraph, default=None)

    def reading(self, cited: RowCell | None = None) -> str:
        """The row as people read it (see the module), about ``ROW_CHARS`` at most: its first values
        and ``cited``'s."""
        if not self.labels:
            cells = [c for c in self.cells if c.text] if self.header else list(self.cells)
            while cells and not cells[-1].text:
                cells.pop()
            return _fit([(c, c.text) for c in cells], cited, lambda items: " | ".join(items))
        label = self.named_as
        parts = [(c, (self.heads(c), c.text)) for c in self.cells if c.text and not (label and c is self.cells[0])]
        if not parts:
            return label or ""
        head = self.heads(self.cells[0]) if label else ""  # a number labelling the row reads under it
        return _fit(parts, cited, lambda items: labelled_row(label, [("", GAP) if i == GAP else i for i in items],
                                                             head))

    def cell_reading(self, cell: RowCell) -> str:
        """One cell as people read it, by its row's label and its header: "Downwinders – Claims Filed, FY 2006
        Actual: 999"."""
        label = self.named_as
        return labelled_row(label, [(self.heads(cell), cell.text)], self.heads(self.cells[0]) if label else "")

    def written(self, query: str) -> RowCell | None:
        """The first cell with words of its own in this row that holds ``query`` as written (case and
        spacing aside); None when none does or the query is blank."""
        return next((c for c in self.cells if c.own and _holds(c, query)), None)

    def named(self, query: str) -> RowCell | None:
        """The cell under the header the query names best as a phrase, None when none is or two tie (the
        host's ``named_header``: the most specific, then the first named); the row's label is no answer."""
        return named_header(query, [(self.heads(c), c) for c in self.cells
                                    if c.text and not (self.label and c is self.cells[0])])

    def keyed(self, query: str) -> RowCell | None:
        """The cell under the one header naming a year, quarter, month or date the query names (the host's
        ``keyed_header``: "FY 2006" names "FY 2006 Actual", "April" names "Apr"); None when none or several do."""
        return keyed_header(query, [(self.heads(c), c) for c in self.cells
                                    if c.text and not (self.label and c is self.cells[0])])


def _holds(cell: RowCell, query: str) -> bool:
    """Whether ``cell`` holds ``query`` as written (case and spacing aside; a blank query: no)."""
    wanted = " ".join(query.split()).casefold()
    return bool(wanted) and wanted in " ".join(cell.text.split()).casefold()


def _fit(items: list[tuple[RowCell, T]], cited: RowCell | None, render: Callable[[list[T | str]], str]) -> str:
    """``render`` of the items within ``ROW_CHARS``: the first ones that fit with ``cited``'s, ``GAP``
    for each run left out; cut at ``ROW_CHARS`` when even that is longer."""
    def shown(keep: set[int]) -> str:
        out: list[T | str] = []
        for i, (_, item) in enumerate(items):
            if i in keep:
                out.append(item)
            elif not out or out[-1] != GAP:
                out.append(GAP)
        return render(out)

    whole = render([item for _, item in items])
    if len(whole) <= ROW_CHARS:
        return whole
    keep = {i for i, (c, _) in enumerate(items) if c is cited}
    for i in range(len(items)):
        if i not in keep:
            if len(shown(keep | {i})) > ROW_CHARS:
                break
            keep.add(i)
    text = shown(keep)
    return text if len(text) <= ROW_CHARS else text[:ROW_CHARS - 1].rstrip() + GAP


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


@dataclass(slots=True)
class _Table:
    """An outermost table's rows (by row number), its header row's index among them, and whether it
    holds data (``CELL_CHARS``)."""

    rows: dict[int, list[RowCell]]
    order: list[int]
    at: int | None
    data: bool
    sections: dict[int, str]  # a row whose label other rows share -> the section row over it
    members: dict[int, list[int]]  # a section row -> the rows under it, up to the next


def _members(rows: dict[int, list[RowCell]], order: list[int], at: int | None) -> dict[int, list[int]]:
    """Each section row below the header (one cell with text, spanning the table's every column) -> the rows
    with a label and values under it, up to the next section row."""
    if at is None:
        return {}
    width = max(c.last for cells in rows.values() for c in cells)
    out: dict[int, list[int]] = {}
    section = None
    for r in order[at + 1:]:
        filled = [c for c in rows[r] if c.text]
        if len(filled) == 1 and len(rows[r]) == 1 and filled[0].first == 0 and filled[0].last >= width:
            section = r
            out[r] = []
        elif section is not None and len(filled) > 1 and rows[r][0].first == 0 and rows[r][0].text:
            out[section].append(r)
    return {r: members for r, members in out.items() if members}


def _sections(rows: dict[int, list[RowCell]], members: dict[int, list[int]]) -> dict[int, str]:
    """Each row under a section row (``_members``) whose label (first cell) other rows of the table share -> that
    section row's text ("Downwinders" over its "Pending, Beginning of Year", "Claims Filed", ...; "On-Site
    Participants" over the same labels again)."""
    over = {r: rows[head][0].text for head, under in members.items() for r in under}
    labels: dict[str, list[int]] = {}
    for r in over:
        labels.setdefault(rows[r][0].text.casefold(), []).append(r)
    return {r: over[r] for rs in labels.values() if len(rs) > 1 for r in rs}


def _table(doc: DocxDocument, lo: int, hi: int) -> _Table:
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
    order = sorted(rows)
    at = header_row([[c.text for c in rows[r] if c.text] for r in order])
    members = _members(rows, order, at)
    return _Table(rows, order, at, len(rows) > 1 and not _laid_out(by_cell, texts), _sections(rows, members), members)


def _laid_out(by_cell: dict[tuple[int, int], list[Paragraph]], texts: dict[tuple[int, int], str]) -> bool:
    """Whether a table of two rows or more lays a page out: in some column, most cells below the first
    row that hold text hold several paragraphs or more than ``CELL_CHARS`` (a CV's column of periods'
    work). One long cell (a requirement longer than the others) leaves a data table data."""
    first = min(row for row, _ in by_cell)
    long: dict[int, list[bool]] = {}
    for (row, col), paras in by_cell.items():
        if row != first and texts[(row, col)]:
            column = paras[0].grid[0] if paras[0].grid is not None else col
            several = sum(1 for p in paras if p.text.strip()) > 1
            long.setdefault(column, []).append(several or len(texts[(row, col)]) > CELL_CHARS)
    return any(2 * sum(flags) > len(flags) for flags in long.values())


def row_of(doc: DocxDocument, index: int, tables: dict[int, _Table] | None = None) -> TableRow | None:
    """The row of a data table holding paragraph ``index``; None outside a table and in a table laid
    out (one row, or a column of cells of several paragraphs or long ones: ``CELL_CHARS``). ``tables``: the tables
    read so far, by table (one locate reads each once)."""
    para = doc.paragraphs[index]
    if para.cell is None:
        return None
    tables = {} if tables is None else tables
    if para.cell[0] not in tables:
        tables[para.cell[0]] = _table(doc, *_table_span(doc, index))
    table = tables[para.cell[0]]
    if not table.data:
        return None
    row = para.cell[1]
    labels: dict[int, str] = {}
    at = table.at
    if at is not None and row > table.order[at]:
        for c in table.rows[table.order[at]]:
            for g in range(c.first, c.last + 1):
                labels[g] = c.text
    return TableRow((para.cell[0], row), table.rows[row], labels, at is not None and row <= table.order[at],
                    table.sections.get(row))


def _row_asked(doc: DocxDocument, header: TableRow, query: str,
               tables: dict[int, _Table]) -> tuple[TableRow, RowCell, str] | None:
    """The data row a question cited on its table's header row asks about (the host's ``asked_row``),
    with its cell holding the question's words, else the row holding a value under the header the question
    names (``valued_row``), with that cell; and why. None on a title row above the header, or when neither
    says which row."""
    table = tables[header.key[0]]
    if table.at is None or header.key[1] != table.order[table.at]:
        return None
    below = [[c for c in table.rows[r] if c.own] for r in table.order[table.at + 1:]]
    said = [[f"{table.sections[r]} {c.text}" if k == 0 and r in table.sections else c.text for k, c in enumerate(cells)]
            for r, cells in zip(table.order[table.at + 1:], below, strict=True)]
    found = asked_row(query, [c.text for c in header.cells], said)
    if found is not None:
        cell, why = below[found[0]][found[1]], "the table's row holding the query's words beside its header's"
    else:  # the header names the asked column: the row holding its value answers (``valued_row``)
        under = [[next((c for c in cells if c.first <= h.first <= c.last), None) for h in header.cells]
                 for cells in below]
        found = valued_row(query, [c.text for c in header.cells],
                           [[c.text if c is not None else "" for c in cells] for cells in under],
                           lambda saying: _row_cosines(doc, query, {r: [under[r][i] for i in cells]
                                                                    for r, cells in saying.items()}))
        if found is None:
            return None
        cell, why = under[found[0]][found[1]], "the table's row holding a value under the header the query names"
        if cell is None:
            return None
    row = row_of(doc, cell.paragraph, tables)
    return (row, cell, why) if row is not None else None


def _section_asked(doc: DocxDocument, section: TableRow, query: str,
                   tables: dict[int, _Table]) -> tuple[TableRow, RowCell, str] | None:
    """The row under a section row ("On-Site Participants") that a question cited on the section row asks about
    (the host's ``asked_row``, the section's text as the header): "On-Site Participants pending claims at the
    beginning of FY 2005" asks its "Pending, Beginning of Year" row. None on another row, or when which row is not
    said."""
    table = tables[section.key[0]]
    under = table.members.get(section.key[1])
    if not under:
        return None
    found = asked_row(query, [section.cells[0].text], [[c.text for c in table.rows[r] if c.own] for r in under])
    if found is None:
        return None
    cells = [c for c in table.rows[under[found[0]]] if c.own]
    row = row_of(doc, cells[found[1]].paragraph, tables)
    return (row, cells[found[1]], "the row under its section row holding the query's words") if row else None


def _row_cosines(doc: DocxDocument, query: str, rows: dict[int, list[RowCell | None]]) -> dict[int, float] | None:
    """Each row's cosine with the query: its nearest cell's among ``rows[row]`` (those holding the question's
    words that say which row it is); None while the document's paragraphs have no vectors."""
    cells = {c.paragraph: r for r, held in rows.items() for c in held if c is not None}
    ranked = rank_by_meaning(places_key([p.text for p in doc.paragraphs]), query, dict.fromkeys(cells, 0.0))
    if ranked is None:
        return None
    out: dict[int, float] = {}
    for at, cos in ranked[1].items():
        out[cells[at]] = max(cos, out.get(cells[at], cos))
    return out


def _as_row(doc: DocxDocument, loc: Locator, query: str,
            tables: dict[int, _Table]) -> tuple[Locator, TableRow | None]:
    if loc.locator_precision != "paragraph" or loc.paragraph_index is None \
            or not 0 <= loc.paragraph_index < len(doc.paragraphs):
        return loc, None
    row = row_of(doc, loc.paragraph_index, tables)
    if row is None:
        return loc, None
    at, why = loc.paragraph_index, loc.locator_reason
    asked = _row_asked(doc, row, query, tables) if row.header else _section_asked(doc, row, query, tables)
    if asked is not None:  # the header row holds the column's words; the row asked about answers
        row, held, moved = asked
        at, why = held.paragraph, f"{why}; {moved}"
    named = row.named(query)
    keyed = row.keyed(query) if named is None else None
    named = keyed or named
    matched = row.holding(at)
    written = row.written(query)
    if named is not None and named.own:
        cited, how = named, f"in its row, the cell under '{row.heads(named)}' the query names"
    elif written is not None and (matched is None or not _holds(matched, query)):
        cited, how = written, "in its row, the cell holding the query as written"
    else:
        cited, how = matched, ""
    # a column named by its year, quarter, month or date is one of a series of the same quantity: the cell read
    # alone by its row's label and its header, not among its neighbours' values ("Claims Filed" alone said neither)
    quote = row.cell_reading(keyed) if keyed is not None and keyed is cited else row.reading(cited)
    changes: dict[str, object] = {"quote": quote or None, "row_label": row.label}
    if named is not None and named.own:
        changes["headers"] = [row.heads(named)]
    elif row.labels:
        changes["headers"] = [row.heads(c) for c in row.cells if c.text and not (row.label and c is row.cells[0])]
    if cited is not None and how and cited.paragraph != at:
        at, why = cited.paragraph, f"{why}; {how}"
        # a cell made approximate for lacking the kind of answer asked (a duration) whose row's cell under the
        # header the query names holds it ("检测周期是多少": 15个工作日 under 周期) answers: its claim is back
        kind = kind_answered(loc.locator_reason or "", query, doc.paragraphs[at].text) if named is cited else None
        if kind is not None:
            why = f"matched query terms; {how}, holding the {kind} it asks"
            changes["locator_degraded"] = False
    if at != loc.paragraph_index:
        para = doc.paragraphs[at]
        # the words the place moved from was said to lack, asked of the row moved to (its cells, its headers, its
        # headings): the Berries row holds the "berries" the header row lacked (nc28b)
        held = "\n".join([*(c.text for c in row.cells), *row.labels.values(), *para.heading_path])
        if (again := asked_again(doc, why or "", query, held)) is not None:
            why, changes["locator_degraded"] = again
        own = para.text if para.own_chars is None else para.text[:para.own_chars]
        changes.update(paragraph_index=para.index, para_id=para.para_id, place_text=para.text or None,
                       highlight=Highlight(start=0, end=len(own)) if own.strip() else None,
                       reason=why, locator_reason=why)
    return msgspec.structs.replace(loc, **changes), row  # type: ignore[arg-type]


def as_rows(doc: DocxDocument, loc: Locator, query: str) -> Locator:
    """``loc`` (and its runners-up) with a data table's cell read as its row (see the module); other
    places as they are. A runner-up in a row already cited, or in a table's header row, is dropped."""
    tables: dict[int, _Table] = {}
    main, row = _as_row(doc, loc, query, tables)
    seen = {row.key} if row is not None else set()
    runners = []
    for r in loc.runners_up:
        r, other = _as_row(doc, r, query, tables)
        if other is not None and (other.key in seen or (other.header and len(other.cells) > 1)):
            continue
        if other is not None:
            seen.add(other.key)
        runners.append(r)
    if len(runners) == len(loc.runners_up) and main is loc:
        return loc
    return msgspec.structs.replace(main, runners_up=runners)
