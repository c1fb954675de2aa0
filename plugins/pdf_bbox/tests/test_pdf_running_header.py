"""A running header on a one-page PDF is never the cited place; a title at the top still is.

Nothing repeats on a single page, so the header is known by its shape: the outermost row holds a
page number and words, in type no larger than the body. Boxes come from the layout drawn here.
"""

from __future__ import annotations

from pathlib import Path

from mnote_kr_testkit.pdfs import PdfBuilder, iou, union

from mnote_kr.models import LocateRequest
from mnote_kr_pdf_bbox import locate

BODY = ["Inference timing results for all experiments were obtained on one machine",
        "with a single core, and the structure recognition runs were repeated twice.",
        "We tuned the hyper parameters of the decoder on the validation split only."]


def _page(tmp_path: Path, top: list[tuple[float, str, float]]) -> tuple[Path, list, list]:
    b = PdfBuilder()
    p = b.add_page()
    drawn_top = [b.text(p, x, 750, text, size) for x, text, size in top]
    body = [b.text(p, 72, 700 - 14 * i, line, 10) for i, line in enumerate(BODY)]
    b.text(p, 72, 600, "A second paragraph about the results of the table model on benchmark data.", 10)
    path = tmp_path / "one-page.pdf"
    path.write_bytes(b.build())
    return path, [d.box for d in drawn_top], [d.box for d in body]


def test_a_numbered_header_row_in_body_type_is_never_the_box(tmp_path: Path) -> None:
    path, header, body = _page(tmp_path, [(180, "Optimized Table Tokenization for Structure Recognition", 9),
                                          (470, "9", 9)])
    evidence = "Optimized Table Tokenization for Structure Recognition 9 " + " ".join(BODY)
    loc = locate(LocateRequest(file=str(path), evidence=evidence, query="table structure recognition hyper parameter"))
    assert loc.page == 1 and loc.bbox is not None
    assert iou(loc.bbox, union(header)) == 0, loc.bbox  # the header is furniture
    assert iou(loc.bbox, union(body)) >= 0.5, (loc.bbox, union(body))
    assert all(iou(r.bbox, union(header)) == 0 for r in loc.rects or [])


def test_a_title_set_larger_at_the_top_stays_citable(tmp_path: Path) -> None:
    path, title, _ = _page(tmp_path, [(72, "Table Tokenization Results 2", 16)])
    loc = locate(LocateRequest(file=str(path), evidence="Table Tokenization Results 2", query="tokenization results"))
    assert loc.locator_precision == "bbox" and loc.bbox is not None and iou(loc.bbox, title[0]) >= 0.5, loc


def test_a_row_of_figures_at_the_top_is_no_header(tmp_path: Path) -> None:
    path, row, _ = _page(tmp_path, [(72, "Accuracy per split", 9), (300, "91", 9), (380, "87", 9)])
    loc = locate(LocateRequest(file=str(path), evidence="Accuracy per split 91 87", query="accuracy per split"))
    assert loc.locator_precision == "bbox" and loc.bbox is not None and iou(loc.bbox, row[0]) >= 0.5, loc  # citable
