"""A table cell of two lines centred on a row of one-line cells starts above the row's baseline.

nc20a Q17 (a Chinese quarterly report's row "管理费用 7,764,789.98 15,753,158.14 -50.71%" whose reason cell reads
"上期的搬迁新址装修费用、发行新 / H 股聘任中介费用，本期未发生" over two lines): the cell's first line stood above the
row's band, ended the table and became a block of its own, so the row's place and quote lost it. Built here on a
synthetic table of the same shape.
"""

from __future__ import annotations

from pathlib import Path

from mnote_kr_testkit.pdfs import PdfBuilder

from mnote_kr.models import LocateRequest
from mnote_kr_pdf_bbox import locate
from mnote_kr_pdf_bbox.pdftext import read_document

ROWS = [("Item", "Q1 2018", "Q1 2017", "Change", "Reason"),
        ("Admin costs", "7,764.98", "15,753.14", "-50.71%", None),
        (None, "-7,889.85", "-15,424.67", "48.85%", "fewer one-off items"),
        ("Finance costs", "7.67", "403.27", "-98.10%", "no new loans this year"),
        ("Sales costs", "1,204.11", "1,180.02", "2.04%", "more dealers")]
FIRST, SECOND = "last year's office move and", "new share issue fees, none now"
#: a label of two lines centred on its row of figures (the first column's cell)
LABEL = ("Net profit without one-off", "gains (yuan)")
XS = (60.0, 170.0, 250.0, 330.0, 400.0)


def _table(tmp_path: Path) -> Path:
    b = PdfBuilder()
    p = b.add_page(612, 792)
    y = 700.0
    for row in ROWS:
        for x, cell in zip(XS, row, strict=True):
            if cell is not None:
                b.text(p, x, y, cell, 9)
        if row[0] == "Admin costs":  # the reason cell's two lines, centred on the row's baseline
            b.text(p, XS[4], y + 7.8, FIRST, 9)
            b.text(p, XS[4], y - 7.8, SECOND, 9)
        if row[0] is None:
            b.text(p, XS[0], y + 7.8, LABEL[0], 9)
            b.text(p, XS[0], y - 7.8, LABEL[1], 9)
        y -= 30
    f = tmp_path / "report.pdf"
    f.write_bytes(b.build())
    return f


def test_a_cells_first_line_over_its_rows_baseline_stays_in_the_rows_block(tmp_path: Path) -> None:
    f = _table(tmp_path)
    before = f.read_bytes()
    page = read_document(f).pages[0]
    text = {li: "".join(page.text[c] for c, k in enumerate(page.line_of) if k == li) for li in range(len(page.lines))}
    first = next(li for li, t in text.items() if FIRST in t)
    label = next(li for li, t in text.items() if "Admin costs" in t)
    assert page.block_of[first] == page.block_of[label], [[text[li] for li in blk] for blk in page.blocks]
    evidence = "\n".join(["Admin costs 7,764.98 15,753.14 -50.71%", FIRST, SECOND,
                          "Finance costs 7.67 403.27 -98.10% no new loans this year"])  # the chunk, as the layer reads
    loc = locate(LocateRequest(file=str(f), evidence=evidence, query="Why did admin costs fall by half?"))
    assert FIRST in (loc.place_text or ""), loc.place_text
    assert f.read_bytes() == before


def test_a_label_of_two_lines_centred_on_its_row_is_the_rows_whole_label(tmp_path: Path) -> None:
    page = read_document(_table(tmp_path)).pages[0]
    text = {li: "".join(page.text[c] for c, k in enumerate(page.line_of) if k == li) for li in range(len(page.lines))}
    row = {page.block_of[li] for li, t in text.items() if "-7,889.85" in t}
    held = {t for li, t in text.items() if page.block_of[li] in row}
    assert any(LABEL[0] in t for t in held) and any(LABEL[1] in t for t in held), held
