"""Page images draw CJK text whose font the PDF does not embed, in the shipped Noto Sans CJK.

This machine has no CJK system font (``fc-list :lang=zh`` is empty), as many servers and
containers: before ``fonts.py`` PDFium found no font for these charsets and drew no text. The
checks read the rendered pixels: ink in every character's cell, and different characters drawn
as different shapes (so they are glyphs, not one "missing glyph" box repeated).
"""

from __future__ import annotations

import ctypes
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as raw
import pytest
from mnote_kr_testkit.browser import read_png
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.pdfs import cid_font_pdf

from mnote_kr_pdf_bbox import fonts
from mnote_kr_pdf_bbox.render import render_png

SCALE = 2.0
TEXTS = {  # Simplified and Traditional Chinese, Japanese, Korean: one non-embedded Adobe font each
    "STSong-Light": "航空发动机状态监视系统",
    "MSung-Light": "航空發動機狀態監視系統",
    "HeiseiMin-W3": "航空エンジン状態監視",
    "HYSMyeongJo-Medium": "항공엔진상태감시시스템",
}


def _cells(png: bytes, boxes: list[tuple[float, float, float, float]]) -> list[bytes]:
    """Each box's pixels as a dark/light mask (dark: any channel below 128)."""
    width, _, rows = read_png(png)
    bpp = len(rows[0]) // width
    out = []
    for x0, y0, x1, y1 in boxes:
        mask = bytearray()
        xs = range(int(x0 * SCALE), int(x1 * SCALE))
        for y in range(int(y0 * SCALE), int(y1 * SCALE)):
            row = rows[y]
            mask.extend(1 if min(row[x * bpp:x * bpp + 3]) < 128 else 0 for x in xs)
        out.append(bytes(mask))
    return out


@pytest.mark.parametrize("font", sorted(TEXTS))
def test_each_character_of_a_non_embedded_cjk_font_is_drawn_as_its_own_glyph(tmp_path: Path, font: str) -> None:
    text = TEXTS[font]
    size = 24.0
    pdf, (line,) = cid_font_pdf([(72, 700, text)], font=font, size=size)
    path = tmp_path / "cjk.pdf"
    path.write_bytes(pdf)
    x0, y0, _, y1 = line
    boxes = [(x0 + k * size, y0, x0 + (k + 1) * size, y1) for k in range(len(text))]
    cells = _cells(render_png(path, 1, SCALE), boxes)
    inked = [sum(cell) / len(cell) for cell in cells]
    assert all(0.03 < share < 0.8 for share in inked), list(zip(text, inked, strict=True))
    drawn = {ch: cell for ch, cell in zip(text, cells, strict=True)}
    assert len(set(drawn.values())) == len(drawn), "characters drawn alike: a missing-glyph box, not glyphs"
    assert path.read_bytes() == pdf  # rendering never writes the source


def _stsong_boxes(path: Path) -> list[tuple[float, float, float, float]]:
    """Display-frame boxes (points, top-left origin) of the page's text objects in STSong-Light."""
    doc = pdfium.PdfDocument(str(path))
    try:
        page = doc[0]
        height = page.get_height()
        boxes = []
        for obj in page.get_objects(max_depth=4):
            if obj.type != raw.FPDF_PAGEOBJ_TEXT:
                continue
            font = raw.FPDFTextObj_GetFont(obj.raw)
            buf = ctypes.create_string_buffer(128)
            raw.FPDFFont_GetBaseFontName(font, buf, 128)
            if buf.value.startswith(b"STSong-Light"):
                left, bottom, right, top = obj.get_bounds()
                boxes.append((left, height - top, right, height - bottom))
        return boxes
    finally:
        doc.close()


def test_chatchat_page_has_chinese_ink_where_its_stsong_text_is() -> None:
    path = CORPUS / "pdf" / "chatchat__1.pdf"
    before = path.read_bytes()
    boxes = _stsong_boxes(path)
    assert len(boxes) > 100  # the page's body text: hundreds of single-glyph runs in the missing font
    cells = _cells(render_png(path, 1, SCALE), boxes)
    inked = sum(1 for cell in cells if cell and sum(cell) / len(cell) > 0.03)
    assert inked / len(cells) > 0.8, (inked, len(cells))
    assert path.read_bytes() == before


def test_the_viewer_learns_which_fonts_a_page_lacks() -> None:
    doc = pdfium.PdfDocument(str(CORPUS / "pdf" / "chatchat__1.pdf"))
    try:
        assert {"STSong-Light", "Times-Roman"} <= set(fonts.missing_fonts(doc[0]))
    finally:
        doc.close()
    assert fonts.substitute() == "Noto Sans CJK JP" and fonts.font_file() is not None
