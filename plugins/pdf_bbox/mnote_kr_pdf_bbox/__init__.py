"""mnote-kr locator plugin: PDF page + bbox.

Sidecar ``bbox`` positions are converted to PDF points (top-left origin of the page as
displayed); without them the evidence is found in the PDF's own text layer. See
``locator.py`` for the coordinate rules, ``align.py`` for finding the evidence,
``answer.py`` for the block that answers (``blocks.py``: the blocks' texts as it reads them),
``layout.py`` for blocks and running headers and ``budget.py`` for the limits any file is held to.
"""

from __future__ import annotations

from typing import Any

from mnote_kr.plugin_api import DocumentModel, LocateRequest, Locator, hookimpl

PLUGIN = "pdf_bbox"

__all__ = ["PLUGIN", "check_budget", "clear_cache", "document_model", "locate", "locate_pdf", "locator_extensions",
           "page_fonts", "prepare_locate", "render_page"]


def __getattr__(name: str) -> Any:
    # pdfium loads only when a PDF is located: `mnote-kr status` and `--help` stay light.
    if name == "locate_pdf":
        from .locator import locate_pdf

        return locate_pdf
    if name == "clear_cache":
        from .model import clear_cache

        return clear_cache
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _is_pdf(path: str) -> bool:
    return path.lower().endswith(".pdf")


@hookimpl
def locator_extensions() -> list[str]:
    """This plugin locates citations in ``.pdf`` files."""
    return [".pdf"]


@hookimpl
def prepare_locate(path: str) -> bool | None:
    """Keep the PDF's text layer and geometry on disk so the first search need not read it, and
    have ingest embed its text blocks (ranked by meaning once it has)."""
    if not _is_pdf(path):
        return None
    from mnote_kr.plugin_api import queue_texts

    from . import answer, blocks
    from .model import load_document, warm_document

    parsed = warm_document(path)
    doc = load_document(path)
    if doc.has_text and answer.BY_MEANING:
        queue_texts(blocks.place_texts(doc))  # ingest embeds its text blocks once it is citable
    return parsed


@hookimpl
def check_budget(path: str) -> str | None:
    """Why the reader would not take this PDF (the budget it exceeds: inflated stream bytes,
    chained filters, pages; see ``budget.check_file``), or None. Only what is cheap to check
    before indexing: the text layer's characters and seconds are checked when it is read, and
    the page limit keeps a PDF's text under the host's index budget (``max_text_chars``, not
    taken here: reading 3,000 pages' text to count it costs more than the check may)."""
    if not _is_pdf(path):
        return None
    from pathlib import Path

    from mnote_kr.plugin_api import OverBudgetError

    from .budget import check_file

    try:
        check_file(Path(path))
    except OverBudgetError as exc:
        return exc.message
    except OSError:
        return None  # unreadable now: the provider reports what it makes of the file
    return None


@hookimpl
def prepare_search() -> None:
    """Import the text-layer locator (and what it builds on) while the provider answers."""
    from . import locator  # noqa: F401


@hookimpl
def locate(request: LocateRequest) -> Locator | None:
    """Locate a citation in a PDF; None for any other file type."""
    from .locator import is_pdf, locate_pdf

    if not is_pdf(request.file):
        return None
    return locate_pdf(request)


@hookimpl
def document_model(path: str) -> DocumentModel | None:
    """The PDF's pages and their sizes in points (the locator's frame); None for another type."""
    if not _is_pdf(path):
        return None
    from .render import document_model as _document_model

    return _document_model(path)


@hookimpl
def page_fonts(path: str, page: int) -> tuple[list[str], str | None] | None:
    """The fonts a page names without embedding them, and the CJK face drawn for them; None for another type."""
    if not _is_pdf(path):
        return None
    from .render import page_fonts as _page_fonts

    return _page_fonts(path, page)


@hookimpl
def render_page(path: str, page: int, scale: float) -> bytes | None:
    """One page as PNG at ``scale`` pixels per point; None for another file type."""
    if not _is_pdf(path):
        return None
    from .render import render_png

    return render_png(path, page, scale)
