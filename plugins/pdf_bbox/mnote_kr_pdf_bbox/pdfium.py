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
