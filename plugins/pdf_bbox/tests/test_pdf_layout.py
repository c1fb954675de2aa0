"""Page layout rules (issue 13): running headers and page numbers, and paragraph blocks.

Every PDF here is drawn by the test at known positions, so the truth is where the test
put the text, never the locator's own geometry.
"""

from __future__ import annotations

from pathlib import Path

from mnote_kr_testkit.pdfs import Drawn, PdfBuilder, iou, union

from mnote_kr.models import LocateRequest
from mnote_kr_pdf_bbox import locate
from mnote_kr_pdf_bbox.layout import is_page_number
from mnote_kr_pdf_bbox.pdftext import line_text, read_document

WORDS = ("river basin rainfall runoff gauge station channel storage reservoir outflow spillway sediment "
         "turbine penstock tailrace headwater catchment aquifer recharge baseflow evaporation canopy").split()


def _body(n: int, k: int) -> str:
    """A distinct body line for page ``n``, line ``k``."""
    w = [WORDS[(n * 7 + k * 3 + j) % len(WORDS)] for j in range(8)]
    return f"Page {n} line {k}: the " + " ".join(w) + " are measured here."


def _header_doc(tmp_path: Path) -> tuple[Path, dict[int, Drawn]]:
    """20 pages; a chapter header runs at the top of pages 17-19 only (too few pages for a
    share-of-the-document rule); page 2 has a lone roman page number at its top."""
    b = PdfBuilder()
    headers: dict[int, Drawn] = {}
    for n in range(1, 21):
        p = b.add_page()
        if n == 2:
            headers[n] = b.text(p, 300, 760, "iv", 9)
        if 17 <= n <= 19:
            headers[n] = b.text(p, 72, 760, "Appendix B: Copying Terms", 9)
        for k in range(30):
            b.text(p, 72, 700 - 14 * k, _body(n, k), 10)
        b.text(p, 300, 40, str(n), 9)
    f = tmp_path / "headers.pdf"
    f.write_bytes(b.build())
    return f, headers


def test_page_numbers_alone_are_recognised() -> None:
    for t in ("7", "- 7 -", "iv", "xvii", "Page 3 of 12", "7 / 12", "(ii)"):
        assert is_page_number(t), t
    for t in ("1.2", "Chapter 4", "civil", "ill", "Section 1", ""):
        assert not is_page_number(t), t


def test_running_header_on_three_pages_and_a_lone_roman_page_number_are_furniture(tmp_path: Path) -> None:
    f, headers = _header_doc(tmp_path)
    doc = read_document(f)
    for n, d in headers.items():
        pg = doc.pages[n - 1]
        marked = {line_text(pg, li).strip() for li in pg.furniture}
        assert d.text in marked, (n, marked)
    # the body's first line right under the header is not furniture
    pg = doc.pages[16]
    assert not any(line_text(pg, li).startswith("Page 17 line 0") for li in pg.furniture)


def test_running_header_is_left_out_of_a_page_crossing_passage(tmp_path: Path) -> None:
    f, headers = _header_doc(tmp_path)
    # a chunk as a text extractor gives it: the end of page 17, page 18's header, the start of page 18
    evidence = "\n".join([_body(17, 28), _body(17, 29), "18", "Appendix B: Copying Terms", _body(18, 0), _body(18, 1)])
    loc = locate(LocateRequest(file=str(f), evidence=evidence, query="copying terms appendix"))
    assert loc.locator_precision == "bbox"
    for r in loc.rects:
        assert iou(r.bbox, list(headers[r.page].box if r.page in headers else (0, 0, 0, 0))) < 0.1, r
        assert r.bbox[1] > 30, r  # nothing in the top band
    # the header is never the primary box: the passage is cited as a semantic match
    assert loc.bbox is not None and loc.bbox[1] > 60


def test_page_numbers_of_a_table_row_at_the_page_bottom_stay_text(tmp_path: Path) -> None:
    b = PdfBuilder()
    p = b.add_page()
    for k in range(10):
        b.text(p, 72, 700 - 14 * k, _body(1, k), 10)
    row = [b.text(p, x, 30, v, 9) for x, v in ((72, "3"), (200, "4"), (330, "5"))]  # a table's last row
    f = tmp_path / "table.pdf"
    f.write_bytes(b.build())
    doc = read_document(f)
    assert not doc.pages[0].furniture, [line_text(doc.pages[0], li) for li in doc.pages[0].furniture]
    assert union([d.box for d in row])[1] > 700
