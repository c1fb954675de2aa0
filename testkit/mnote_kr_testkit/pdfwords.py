"""Where a real PDF's words are, as PDFium reads and draws them: the oracle tests of table places
check a locator's box against (never the locator's own reading)."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium


def page_text(path: Path, page: int) -> str:
    """The text layer of 1-based ``page``."""
    doc = pdfium.PdfDocument(str(path))
    try:
        return doc[page - 1].get_textpage().get_text_range()
    finally:
        doc.close()


def text_in(path: Path, page: int, box: list[float]) -> str:
    """What PDFium reads inside ``box`` (top-left points) of 1-based ``page``, unrotated and uncropped."""
    doc = pdfium.PdfDocument(str(path))
    try:
        pg = doc[page - 1]
        h = pg.get_height()
        return pg.get_textpage().get_text_bounded(left=box[0], bottom=h - box[3], right=box[2], top=h - box[1])
    finally:
        doc.close()


def word_boxes(path: Path, page: int, word: str, *, whole_word: bool = True) -> list[tuple[float, float, float, float]]:
    """Where PDFium draws each occurrence of ``word`` on 1-based ``page`` (top-left points, an unrotated page)."""
    doc = pdfium.PdfDocument(str(path))
    try:
        pg = doc[page - 1]
        h = pg.get_height()
        tp = pg.get_textpage()
        found = []
        search = tp.search(word, match_case=True, match_whole_word=whole_word)
        while (hit := search.get_next()) is not None:
            boxes = [tp.get_charbox(i) for i in range(hit[0], hit[0] + hit[1])]
            found.append((min(b[0] for b in boxes), h - max(b[3] for b in boxes),
                          max(b[2] for b in boxes), h - min(b[1] for b in boxes)))
        return found
    finally:
        doc.close()
