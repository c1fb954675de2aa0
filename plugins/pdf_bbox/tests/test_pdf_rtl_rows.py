"""An Arabic page read as a person reads it (nc27c N1, docling__right_to_left_01.pdf).

The line "سبيل المثال، يمكن استخدام مكتبة pandas في Python لإدارة البيانات بكفاءة، …" is drawn as five pieces
(the Arabic runs and the embedded "pandas", "في", "Python") whose boxes differ in height by a point or two; each
lam-alef ligature is one glyph whose two letters the text layer gives in visual order ("إل" for "لإ").
Truth comes from Docling's ground truth and from what PDFium finds inside the returned box.
"""

from __future__ import annotations

import pypdfium2 as pdfium
from mnote_kr_testkit.data import CORPUS

from mnote_kr.models import LocateRequest
from mnote_kr_pdf_bbox import locate
from mnote_kr_pdf_bbox.lines import reading_order
from mnote_kr_pdf_bbox.pdftext import line_text, read_document

F = CORPUS / "pdf" / "docling__right_to_left_01.pdf"
SENTENCE = "سبيل المثال، يمكن استخدام مكتبة pandas في Python لإدارة البيانات بكفاءة، بينما توفر R أدوات قوية للرسم"


def _text_in(box: list[float]) -> str:
    doc = pdfium.PdfDocument(str(F))
    try:
        page = doc[0]
        h = page.get_height()
        tp = page.get_textpage()
        return str(tp.get_text_bounded(box[0], h - box[3], box[2], h - box[1]))
    finally:
        doc.close()


def test_lam_alef_ligatures_read_in_logical_order() -> None:
    text = read_document(F).pages[0].text
    assert "لإدارة" in text and "الإنتاجية" in text and "المشكلات" in text and "الإحصائي" in text
    assert "إلدارة" not in text and "اإلنتاجية" not in text and "المشكالت" not in text
    assert "البرمجة" in text  # the article's alef and lam are two glyphs: left as they are


def test_pieces_of_one_row_read_as_one_line_of_one_block() -> None:
    page = read_document(F).pages[0]
    row = [li for li in range(len(page.lines)) if "مكتبة" in line_text(page, li) and "سبيل" in line_text(page, li)]
    assert len(row) == 1
    pieces = {li for li in range(len(page.lines)) if abs(page.base[li] - page.base[row[0]]) < 1}
    assert len(pieces) >= 3  # the row is drawn in pieces (the premise of this test)
    assert len({page.block_of[li] for li in pieces}) == 1  # one paragraph holds the whole row
    blk = page.blocks[page.block_of[row[0]]]
    at = [blk.index(li) for li in sorted(pieces, key=lambda li: -page.lines[li][2])]
    assert at == list(range(at[0], at[0] + len(at)))  # right to left, one after the other


def test_reading_order_keeps_a_row_of_uneven_pieces_together() -> None:
    # two rows; the second's pieces start a point apart in y (a taller glyph in one of them)
    boxes = [(100.0, 255.0, 520.0, 267.5),
             (400.0, 269.2, 520.0, 281.3), (350.0, 270.4, 396.0, 281.3), (108.0, 268.0, 346.0, 281.3)]
    assert reading_order(boxes, rtl=True) == [0, 1, 2, 3]
    # a left-to-right page keeps its tops' order: grouping there stopped a block cut at a superscript from running on
    # to its sentence's end (tests/test_quote_own_place.py, the two-pass method's O(ω²))
    ltr = [(612 - b[2], b[1], 612 - b[0], b[3]) for b in boxes]
    assert reading_order(ltr, rtl=False) == [0, 3, 1, 2]


def test_answering_sentence_is_boxed_whole() -> None:
    q = "ما هي المكتبة التي يمكن استخدامها في Python لإدارة البيانات بكفاءة؟"
    loc = locate(LocateRequest(file=str(F), evidence=SENTENCE, query=q))
    assert loc.locator_precision == "bbox" and loc.page == 1
    inside = _text_in(loc.bbox)
    assert "pandas" in inside and "Python" in inside and "مكتبة" in inside and "بكفاءة" in inside


def test_a_box_spanning_two_lines_does_not_join_them_into_one_row() -> None:
    # review r28 finding 3: a drop cap (or a tall bracket, an inline image) at the right of two Arabic lines; it
    # widened its row's band to both lines, whose pieces were then read by x: L1 right, L2 right, L2 left, L1 left
    tall = (300.0, 0.0, 310.0, 22.0)
    boxes = [(200.0, 0.0, 300.0, 10.0), (100.0, 0.0, 200.0, 10.0), (250.0, 12.0, 300.0, 22.0),
             (100.0, 12.0, 250.0, 22.0), tall]
    assert reading_order(boxes, rtl=True) == [4, 0, 1, 2, 3]
    # a drop cap three lines tall, listed first
    three = [(300.0, 0.0, 310.0, 34.0), *boxes[:4], (150.0, 24.0, 300.0, 34.0), (100.0, 24.0, 150.0, 34.0)]
    assert reading_order(three, rtl=True) == [0, 1, 2, 3, 4, 5, 6]
