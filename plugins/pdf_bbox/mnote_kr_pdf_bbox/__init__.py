"""mnote-kr locator plugin: PDF page + bbox.

Sidecar ``bbox`` positions are converted to PDF points (top-left origin of the page as
displayed); without them the evidence is found in the PDF's own text layer. See
``locator.py`` for the coordinate rules, ``align.py`` for finding the evidence,
``answer.py`` for the block that answers, ``layout.py`` for blocks and running headers
and ``budget.py`` for the limits any file is held to.
"""

from __future__ import annotations

from mnote_kr import hookimpl
from mnote_kr.models import LocateRequest, Locator

from .locator import PLUGIN, is_pdf, locate_pdf
from .pdftext import clear_cache

__all__ = ["PLUGIN", "clear_cache", "locate", "locate_pdf", "locator_extensions"]


@hookimpl
def locator_extensions() -> list[str]:
    """This plugin locates citations in ``.pdf`` files."""
    return [".pdf"]


@hookimpl
def locate(request: LocateRequest) -> Locator | None:
    """Locate a citation in a PDF; None for any other file type."""
    if not is_pdf(request.file):
        return None
    return locate_pdf(request)
