"""mnote-kr locator plugin: PDF page + bbox.

Sidecar ``bbox`` positions are converted to PDF points (top-left origin of the page as
displayed); without them the evidence is found in the PDF's own text layer. See
``locator.py`` for the coordinate rules, ``align.py`` for finding the evidence,
``answer.py`` for the block that answers, ``layout.py`` for blocks and running headers
and ``budget.py`` for the limits any file is held to.
"""

from __future__ import annotations

from mnote_kr import hookimpl
from mnote_kr.models import DocumentModel, LocateRequest, Locator

from .locator import PLUGIN, is_pdf, locate_pdf
from .pdftext import clear_cache
from .render import document_model as _document_model
from .render import render_png

__all__ = ["PLUGIN", "clear_cache", "document_model", "locate", "locate_pdf", "locator_extensions", "render_page"]


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


@hookimpl
def document_model(path: str) -> DocumentModel | None:
    """The PDF's pages and their sizes in points (the locator's frame); None for another type."""
    if not is_pdf(path):
        return None
    return _document_model(path)


@hookimpl
def render_page(path: str, page: int, scale: float) -> bytes | None:
    """One page as PNG at ``scale`` pixels per point; None for another file type."""
    if not is_pdf(path):
        return None
    return render_png(path, page, scale)
