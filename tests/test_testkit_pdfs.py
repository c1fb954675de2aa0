"""The generated PDFs' oracle: each drawn string's box is where PDFium renders its ink.

Many locator tests take the expected place of a passage from ``PdfBuilder``'s drawn boxes, so those
boxes are checked here against the rendering (crop box and rotation applied by PDFium), on plain,
cropped and rotated pages, never against a formula of the locator's.
"""

from __future__ import annotations

import pytest
from mnote_kr_testkit.pdfs import PdfBuilder, ink_box

CROP = (36.0, 48.0, 580.0, 760.0)
GEOMETRIES = [(0, None), (0, CROP), (90, CROP), (180, CROP), (270, CROP), (90, None)]
IDS = [f"rot{r}-{'crop' if c else 'full'}" for r, c in GEOMETRIES]


def _holds_ink(box: tuple[float, float, float, float], ink: tuple[float, float, float, float],
               slack: float = 3.0) -> bool:
    """``box`` holds all the ink and reaches past it by at most ``slack`` points on every side (a text
    box spans the font's ascent and descent, the ink only the glyphs drawn)."""
    return (box[0] <= ink[0] + 0.5 and box[1] <= ink[1] + 0.5 and box[2] >= ink[2] - 0.5 and box[3] >= ink[3] - 0.5
            and all(abs(b - i) <= slack for b, i in zip(box, ink, strict=True)))


@pytest.mark.parametrize(("rotate", "crop"), GEOMETRIES, ids=IDS)
def test_a_drawn_box_holds_the_ink_pdfium_renders_for_it(rotate: int,
                                                         crop: tuple[float, float, float, float] | None) -> None:
    b = PdfBuilder()
    page = b.add_page(rotate=rotate, cropbox=crop)
    drawn = b.text(page, 120, 540, "Blade heating kept the ice off", 14)
    pdf = b.build()
    ink = ink_box(pdf, page)
    assert _holds_ink(drawn.box, ink), (drawn.box, ink)
    w, h = b.display_size(page)
    assert 0 <= drawn.box[0] < drawn.box[2] <= w and 0 <= drawn.box[1] < drawn.box[3] <= h


def test_strings_on_one_page_get_the_boxes_of_their_own_ink() -> None:
    # two strings far apart on a rotated, cropped page: each page holds one, rendered alone
    b = PdfBuilder()
    boxes = []
    for x, y in ((100, 600), (300, 200)):
        page = b.add_page(rotate=90, cropbox=CROP)
        boxes.append(b.text(page, x, y, "Rime ice on the leading edge", 12).box)
    pdf = b.build()
    for page, box in enumerate(boxes, 1):
        assert _holds_ink(box, ink_box(pdf, page))
    assert not _holds_ink(boxes[0], ink_box(pdf, 2))
