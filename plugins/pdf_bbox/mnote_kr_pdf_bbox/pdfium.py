"""PDFium, imported when a PDF is read, and the one lock every call into it holds.

PDFium is not thread-safe: ``pdftext`` (reading), ``render`` (page images) and ``budget``
(counting pages) all hold ``PDFIUM_LOCK`` around every call.
"""

from __future__ import annotations

import threading
from typing import Any

PDFIUM_LOCK = threading.RLock()


def modules() -> tuple[Any, Any]:
    """pypdfium2 and its raw bindings, imported when a PDF is read: a search whose documents
    all come from the on-disk cache never loads PDFium (a tenth of a second or more)."""
    import pypdfium2 as pdfium_mod
    import pypdfium2.raw as raw

    return pdfium_mod, raw


def page_chars(tp: Any, raw: Any) -> tuple[str, list[int] | None]:
    """A text page's characters, and where PDFium's char list differs from them, the index of
    each character's first PDFium char (None: one each, index for index).

    PDFium's char list holds UTF-16 code units: a letter outside the Basic Multilingual Plane
    (``𝑄``, U+1D444, as a mind map's exporter writes a formula) is two chars, a surrogate pair,
    both with the letter's box. It is one character here, so it folds and matches as itself
    (``Q``); a char whose code unit is 0 or a surrogate without its other half reads as U+FFFD.
    """
    n = tp.count_chars()
    text = tp.get_text_range(0, n) if n > 0 else ""
    if len(text) == n:  # UTF-16 decoding joins a pair, so equal lengths mean none is there
        return text, None
    units = [raw.FPDFText_GetUnicode(tp, i) for i in range(n)]
    out: list[str] = []
    first: list[int] = []
    i = 0
    while i < n:
        u = units[i]
        first.append(i)
        if 0xD800 <= u < 0xDC00 and i + 1 < n and 0xDC00 <= units[i + 1] < 0xE000:
            out.append(chr(0x10000 + ((u - 0xD800) << 10) + (units[i + 1] - 0xDC00)))
            i += 2
            continue
        out.append("\ufffd" if u == 0 or 0xD800 <= u < 0xE000 else chr(u))
        i += 1
    return "".join(out), (first if len(first) != n else None)
