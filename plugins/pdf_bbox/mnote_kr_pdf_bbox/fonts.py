"""Chinese, Japanese and Korean in page images when the PDF does not embed its font.

A PDF may name a CJK font without embedding it (``chatchat__1.pdf`` uses Adobe's STSong-Light,
one of the fonts every Acrobat reader brings along). PDFium then asks the system for a font of
that charset; on a machine with no CJK font it gets none and draws no text at all. So PDFium's
system-font lookup (``FPDF_SetSystemFontInfo``) is wrapped once per process: a request for a CJK
charset (GB2312, Big5, Shift-JIS, Hangul) gets Noto Sans CJK, which the ``noto-cjk-sans-jp-regular``
wheel ships (OFL-1.1; its one OpenType file holds every CJK glyph, Japanese forms by default);
everything else goes to PDFium's default lookup as before.

:func:`missing_fonts` names the fonts a page uses without embedding them, and :func:`substitute`
whether a CJK substitute is installed: the viewer says so when text may be drawn in another font
or not at all.
"""

from __future__ import annotations

import ctypes
from pathlib import Path
from typing import Any

from .pdfium import PDFIUM_LOCK, modules

__all__ = ["FACE", "font_file", "install", "missing_fonts", "substitute"]

FACE = b"Noto Sans CJK JP"
CJK_CHARSETS = (128, 129, 134, 136)  # FXFONT_SHIFTJIS, _HANGEUL, _GB2312, _CHINESEBIG5
_HANDLE = 0x6D6E6B72  # our one font's handle: not a pointer PDFium ever dereferences

_installed: dict[str, Any] = {}  # the callbacks and structs PDFium holds pointers to (kept alive here)


def font_file() -> Path | None:
    """The shipped CJK font, or None when its package is not installed."""
    try:
        from noto_cjk_sans_jp_regular import FONT_PATH
    except ImportError:
        return None
    path = Path(str(FONT_PATH))
    return path if path.is_file() else None


def substitute() -> str | None:
    """The face PDFium draws CJK text in when a PDF lacks its font (None: no substitute)."""
    return FACE.decode() if install() else None


def install() -> bool:
    """Wrap PDFium's system-font lookup so CJK charsets map to the shipped font; once per process."""
    if "info" in _installed:
        return True
    path = font_file()
    if path is None:
        return False
    with PDFIUM_LOCK:
        if "info" in _installed:
            return True
        _, raw = modules()
        default = raw.FPDF_GetDefaultSystemFontInfo()
        if not default:
            return False
        base = default.contents
        data: list[bytes] = []

        def font_bytes() -> bytes:
            if not data:
                data.append(path.read_bytes())  # 16 MB, read on the first page that needs it
            return data[0]

        def release(this: Any) -> None:
            return None

        def enum_fonts(this: Any, mapper: Any) -> None:
            if base.EnumFonts:
                base.EnumFonts(default, mapper)
            for charset in CJK_CHARSETS:
                raw.FPDF_AddInstalledFont(mapper, FACE, charset)

        def map_font(this: Any, weight: int, italic: int, charset: int, pitch: int, face: Any, exact: Any) -> Any:
            if charset in CJK_CHARSETS or (face and ctypes.string_at(face) == FACE):
                return _HANDLE
            return base.MapFont(default, weight, italic, charset, pitch, face, exact)

        def get_font(this: Any, face: Any) -> Any:
            if face and ctypes.string_at(face) == FACE:
                return _HANDLE
            return base.GetFont(default, face) if base.GetFont else None

        def font_data(this: Any, handle: Any, table: int, buf: Any, size: int) -> int:
            if handle != _HANDLE:
                return int(base.GetFontData(default, handle, table, buf, size))
            if table != 0:  # 0 asks for the whole file; single tables are read from it by PDFium
                return 0
            blob = font_bytes()
            if buf and size >= len(blob):
                ctypes.memmove(buf, blob, len(blob))
            return len(blob)

        def face_name(this: Any, handle: Any, buf: Any, size: int) -> int:
            if handle != _HANDLE:
                return int(base.GetFaceName(default, handle, buf, size))
            name = FACE + b"\0"
            if buf and size >= len(name):
                ctypes.memmove(buf, name, len(name))
            return len(name)

        def font_charset(this: Any, handle: Any) -> int:
            return 134 if handle == _HANDLE else int(base.GetFontCharset(default, handle))

        def delete_font(this: Any, handle: Any) -> None:
            if handle != _HANDLE:
                base.DeleteFont(default, handle)

        kinds = dict(raw.FPDF_SYSFONTINFO._fields_)
        callbacks = {"Release": release, "EnumFonts": enum_fonts, "MapFont": map_font, "GetFont": get_font,
                     "GetFontData": font_data, "GetFaceName": face_name, "GetFontCharset": font_charset,
                     "DeleteFont": delete_font}
        wrapped = {name: kinds[name](fn) for name, fn in callbacks.items()}
        info = raw.FPDF_SYSFONTINFO(version=1, **wrapped)
        raw.FPDF_SetSystemFontInfo(ctypes.byref(info))
        _installed.update(info=info, callbacks=wrapped, default=default)
    return True


def missing_fonts(page: Any) -> list[str]:
    """Base names of the fonts a loaded ``PdfPage``'s text uses without embedding them (sorted)."""
    _, raw = modules()
    names: set[str] = set()
    for obj in page.get_objects(max_depth=4):
        if obj.type != raw.FPDF_PAGEOBJ_TEXT:
            continue
        font = raw.FPDFTextObj_GetFont(obj.raw)
        if not font or raw.FPDFFont_GetIsEmbedded(font):
            continue
        size = raw.FPDFFont_GetBaseFontName(font, None, 0)
        buf = ctypes.create_string_buffer(max(1, size))
        raw.FPDFFont_GetBaseFontName(font, buf, size)
        names.add(buf.value.decode("latin-1"))
    return sorted(names)
