"""A line lifted into the table row under it (a cell's first line set over the row's baseline, ``tables.OPENING_LINES``)
must be in one of the table's columns: text of another column beside the table, centred on a row the same way, is no
cell of it. Synthetic pages, drawn by the test."""

from __future__ import annotations

from pathlib import Path

from mnote_kr_testkit.pdfs import PdfBuilder

from mnote_kr_pdf_bbox.pdftext import read_document

XS = (330.0, 420.0, 480.0)  # the table, in the page's right column
ROWS = [("Station", "Flow", "Level"), ("North weir", "12.5", "3.1"), ("South weir", "8.25", "2.7"),
        ("East gauge", "4.75", "1.9"), ("West gauge", "6.5", "2.2")]
BESIDE = ("Gauges are read at dawn by the", "warden on duty each morning")


def _blocks(f: Path) -> list[list[str]]:
    page = read_document(f).pages[0]
    text = {li: "".join(page.text[c] for c, k in enumerate(page.line_of) if k == li) for li in range(len(page.lines))}
    return [[text[li] for li in blk] for blk in page.blocks]


def test_text_beside_a_table_centred_on_a_row_is_no_cell_of_it(tmp_path: Path) -> None:
    b = PdfBuilder()
    p = b.add_page(612, 792)
    y = 700.0
    for k, row in enumerate(ROWS):
        for x, cell in zip(XS, row, strict=True):
            b.text(p, x, y, cell, 9)
        if k == 2:  # a short paragraph of the left column, its two lines centred on this row's baseline
            b.text(p, 60, y + 7.8, BESIDE[0], 9)
            b.text(p, 60, y - 7.8, BESIDE[1], 9)
        y -= 30
    f = tmp_path / "beside.pdf"
    f.write_bytes(b.build())
    before = f.read_bytes()
    blocks = _blocks(f)
    holding = [blk for blk in blocks if any(BESIDE[0] in t or BESIDE[1] in t for t in blk)]
    assert all(not any(cell in t for t in blk for row in ROWS for cell in row) for blk in holding), blocks
    assert f.read_bytes() == before


LEVELS = [("Reservoir", "Volume", None), ("Upper lake", "310", "12.4"), ("Lower lake", "95", "7.8"),
          ("Mill pond", "12", "2.1")]
HEADER = ("Level at", "dawn (m)")  # the third column's header, two lines centred on the header row


def test_a_header_cell_opening_over_the_second_of_two_stacked_tables_is_its_rows(tmp_path: Path) -> None:
    """Two tables one under the other: the second's header row has a header of two lines centred on it in a
    column the first table lacks. Its first line, in no column of the table above, is still the second table's
    header cell (the column of the rows under it), and nothing of the second goes into the first's rows."""
    b = PdfBuilder()
    p = b.add_page(612, 792)
    y = 700.0
    for row in ROWS:
        for x, cell in zip((60.0, 170.0, 230.0), row, strict=True):
            b.text(p, x, y, cell, 9)
        y -= 30
    for row in LEVELS:
        for x, cell in zip((60.0, 170.0, 330.0), row, strict=True):
            if cell is not None:
                b.text(p, x, y, cell, 9)
        if row[2] is None:
            b.text(p, 330, y + 7.8, HEADER[0], 9)
            b.text(p, 330, y - 7.8, HEADER[1], 9)
        y -= 30
    f = tmp_path / "stacked.pdf"
    f.write_bytes(b.build())
    before = f.read_bytes()
    blocks = _blocks(f)
    assert f.read_bytes() == before
    header = [blk for blk in blocks if any("Reservoir " in t for t in blk)]
    assert len(header) == 1 and any(HEADER[0] in t for t in header[0]) and any(HEADER[1] in t for t in header[0]), \
        blocks
    ours = {cell for row in LEVELS for cell in row if cell} | set(HEADER)
    first = [blk for blk in blocks if {t.strip() for t in blk} & {cell for row in ROWS for cell in row}]
    assert len(first) == len(ROWS) and not [t for blk in first for t in blk if t.strip() in ours], blocks
