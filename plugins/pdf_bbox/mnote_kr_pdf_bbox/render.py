"""Pages for the viewer: page sizes (``document_model``) and page images (``render_page``).

Sizes are in the locator's frame (crop box clipped to the media box, after ``/Rotate``;
see ``pdftext.PageGeometry``; a test checks the two agree), and PDFium renders exactly that area, so a locator
``bbox`` times ``scale`` is its pixel rectangle in the image. Images are PNG, encoded
here with zlib (no imaging library needed); the host caches them. PDFium is not
thread-safe: every call holds ``pdfium.PDFIUM_LOCK``. CJK text in a font the PDF does not
embed is drawn in the shipped Noto Sans CJK (``fonts.py``).
"""

from __future__ import annotations

import os
import re
import struct
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pypdfium2 as pdfium

from mnote_kr.plugin_api import DocumentError, DocumentModel, FileCache, PageSize

from .fonts import install as install_cjk_font
from .fonts import missing_fonts, substitute
from .pdfium import PDFIUM_LOCK
from .pdftext import _open

MAX_SCALE = 4.0  # 288 dpi: enough for a retina screen, bounded memory (an A4 page is ~35 MB raw)
PNG_LEVEL = 1  # zlib level: pages are mostly white; level 1 is ~2.5x faster than 6 at about the same size


def _read_sizes(real: str, st: os.stat_result) -> list[PageSize]:
    # PDFium's page size is the crop box intersected with the media box, after /Rotate: the
    # same frame as ``pdftext.PageGeometry``, read without loading each page's content.
    with PDFIUM_LOCK:
        doc = _open(Path(real))
        try:
            return [PageSize(width=round(w, 3), height=round(h, 3))
                    for w, h in (doc.get_page_size(i) for i in range(len(doc)))]
        except pdfium.PdfiumError as exc:
            raise DocumentError(f"Broken PDF, page sizes unreadable: {real}", path=real) from exc
        finally:
            doc.close()


_sizes: FileCache[list[PageSize]] = FileCache(_read_sizes, what="PDF", max_items=64)


def page_sizes(path: str | Path) -> list[PageSize]:
    """Every page's displayed size in points, cached by real path + size + mtime."""
    if not os.path.exists(path):
        raise DocumentError(f"PDF not found: {path}", path=str(path))
    return _sizes.get(path)


def document_model(path: str | Path) -> DocumentModel:
    """The PDF as the viewer needs it: its pages and their sizes."""
    from .locator import PLUGIN

    return DocumentModel(kind="pages", pages=page_sizes(path), plugin=PLUGIN)


def encode_png(rgb: bytes | memoryview, width: int, height: int, stride: int, channels: int = 3) -> bytes:
    """Raw 8-bit RGB (or RGBA with ``channels=4``) rows as a PNG file."""
    row = width * channels
    view = memoryview(rgb)
    raw = b"".join(b"\x00" + view[y * stride:y * stride + row].tobytes() for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    color = 2 if channels == 3 else 6
    header = struct.pack(">IIBBBBB", width, height, 8, color, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, PNG_LEVEL))
            + chunk(b"IEND", b""))


@contextmanager
def _loaded_page(p: Path, page: int, doing: str) -> Iterator[pdfium.PdfPage]:
    """Page ``page`` (1-based) of ``p``, loaded under ``PDFIUM_LOCK`` and closed afterwards."""
    with PDFIUM_LOCK:
        doc = _open(p)
        try:
            if not 1 <= page <= len(doc):
                raise DocumentError(f"Page {page} out of range: the PDF has {len(doc)} pages", path=str(p))
            pdf_page = doc[page - 1]
            try:
                yield pdf_page
            finally:
                pdf_page.close()
        except pdfium.PdfiumError as exc:
            raise DocumentError(f"Broken PDF, page {page} cannot be {doing}: {p}", path=str(p)) from exc
        finally:
            doc.close()


def render_png(path: str | Path, page: int, scale: float) -> bytes:
    """Page ``page`` (1-based) at ``scale`` pixels per point, as PNG. Raises ``DocumentError``."""
    if not 0 < scale <= MAX_SCALE:
        raise DocumentError(f"Render scale {scale} out of range (0, {MAX_SCALE}]", path=str(path))
    install_cjk_font()  # CJK text in fonts the PDF does not embed (fonts.py)
    with _loaded_page(Path(path), page, "rendered") as pdf_page:
        bitmap = pdf_page.render(scale=scale, rev_byteorder=True, may_draw_forms=True)
        try:
            width, height, stride = bitmap.width, bitmap.height, bitmap.stride
            channels = bitmap.n_channels
            data = bytes(bitmap.buffer)
        finally:
            bitmap.close()
    # Encoding needs no PDFium: outside the lock, so another page can render meanwhile.
    return encode_png(data, width, height, stride, channels)


#: Han, kana, Hangul and CJK punctuation: the text a substitute CJK face is for.
_CJK = re.compile("[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")


def page_fonts(path: str | Path, page: int) -> tuple[list[str], str | None]:
    """(fonts page ``page`` uses without embedding them, the face CJK text of them is drawn in or None; "" when
    the page has no CJK text: a French page lacking ArialMT is told nothing of Chinese, Japanese or Korean)."""
    face = substitute()
    with _loaded_page(Path(path), page, "read") as pdf_page:
        textpage = pdf_page.get_textpage()
        try:
            cjk = bool(_CJK.search(textpage.get_text_bounded()))
        finally:
            textpage.close()
        return missing_fonts(pdf_page), face if cjk else ""
