"""mnote-kr OCR: scans and images become searchable text, and citations land on the line's box.

Written only against ``mnote_kr.plugin_api``. RapidOCR (``rapidocr-onnxruntime==1.4.4``: the
PP-OCRv4 detection and Chinese + English recognition models ship in its wheel; nothing is
downloaded) reads:

* **images** (``.png .jpg .jpeg .tif .tiff .webp .bmp``): this plugin is their locator. Its
  ``extract_text`` gives the provider the recognised text for the image's wrapper document, its
  ``locate`` answers ``bbox`` in image pixels on page 1, and the viewer shows the image as one page
  (``document_model`` + ``render_page``) with the box drawn.
* **PDF pages without a usable text layer** (none, or one that is mostly mojibake: ``unreadable_layer``):
  the PDF's own locator reads the PDF; when it has no
  text for the file (``extract_text``) or no place for a citation (``locate``), the host asks
  ``recognize_text`` / ``locate_recognized`` here, which answer from the recognised pages with
  boxes in PDF points.

Each file is recognised once per content (cached by SHA-256, see ``scan``) within the budgets of
``budget``: a decompression bomb is refused from its header, huge pages are downscaled, pages and
seconds per file are bounded, and each limit reached is one line; the ``[ocr]`` table of the
configuration sets them. Turn OCR off with ``enabled = false`` in that table, or
``disabled_plugins = ["ocr"]`` (``MNOTE_KR_DISABLE_PLUGINS=ocr``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from mnote_kr.plugin_api import DocumentModel, LocateRequest, Locator, SourceEntry, hookimpl

from .budget import IMAGE_SUFFIXES, is_image

if TYPE_CHECKING:
    from .scan import Scan

PLUGIN_NAME = "ocr"
__version__ = "0.1.0"


def _say(progress: Callable[[str], None] | None) -> Callable[[str], None]:
    return progress if progress is not None else (lambda message: None)


@hookimpl
def configure(config: dict[str, Any]) -> None:
    """The ``[ocr]`` table's budgets (see ``budget.configure``)."""
    from .budget import configure as take

    take(config.get("ocr", {}))


@hookimpl
def locator_extensions() -> list[str]:
    """This plugin locates citations in images."""
    return list(IMAGE_SUFFIXES)


@hookimpl
def check_budget(path: str, max_text_chars: int) -> str | None:
    """An image whose header declares more pixels than ``refuse_pixels`` is refused unread."""
    if not is_image(path):
        return None
    from .budget import check_image

    return check_image(path)


def _scanned(path: str, progress: Callable[[str], None] | None, hint: str | None = None) -> Scan:
    """The file's recognition (made now or kept); ``DocumentError`` when it could not be read."""
    from .scan import scan

    result = scan(path, _say(progress))
    if result.error:
        from mnote_kr.plugin_api import DocumentError

        raise DocumentError(result.error, path=path, hint=hint)
    return result


@hookimpl
def extract_text(path: str, progress: Callable[[str], None] | None = None) -> str | None:
    """An image's recognised text (paragraphs in reading order); raises ``DocumentError`` when the
    image cannot be read, ``OverBudgetError`` when it is over the size limit."""
    if not is_image(path):
        return None
    return _scanned(path, progress, "its name is still indexed").markdown()


@hookimpl
def recognize_text(path: str, progress: Callable[[str], None] | None = None) -> str | None:
    """A PDF's text with its scanned pages recognised (``## Page N`` before each page: a text page's
    layer, a scanned page's recognised lines), or None when no page without a text layer shows any
    recognisable text (the PDF's own reader has all there is)."""
    if not path.lower().endswith(".pdf"):
        return None
    result = _scanned(path, progress)
    if not result.recognised_text():
        return None
    from .places import queue

    queue(result)  # ingest embeds the recognised lines, to place them by meaning
    return result.markdown()


@hookimpl
def locate(request: LocateRequest) -> Locator | None:
    """``bbox`` in image pixels (page 1) for the recognised line(s) that hold the evidence."""
    if not is_image(request.file):
        return None
    from .locating import locate_in
    from .scan import scan

    found = locate_in(scan(request.file), request, PLUGIN_NAME)
    assert found is not None  # an image has no text layer to leave a place to
    return found


@hookimpl
def locate_recognized(request: LocateRequest) -> Locator | None:
    """A place on a scanned PDF page, from the recognition made when the PDF was indexed (None when
    it was not recognised: the PDF's own locator's answer stands)."""
    if not request.file.lower().endswith(".pdf"):
        return None
    from .locating import locate_in

    result = _recognised_pdf(request.file)
    if result is None:
        return None
    found = locate_in(result, request, PLUGIN_NAME)
    return found if found is not None and found.locator_precision == "bbox" else None


@hookimpl
def recognized_pages(path: str) -> tuple[int, int] | None:
    """``(pages read by OCR, pages in all)`` of a PDF from its kept recognition (None: none kept)."""
    if not path.lower().endswith(".pdf"):
        return None
    result = _recognised_pdf(path)
    if result is None:
        return None
    return sum(1 for p in result.pages if p.source == "ocr"), len(result.pages)


@hookimpl
def text_layer_request(request: LocateRequest) -> LocateRequest | None:
    """The request cut to what the PDF's text layer holds: its passage and evidence without the
    page markers and the lines recognised on its scanned pages (None: no recognition kept, or
    nothing of the evidence is left)."""
    if not request.file.lower().endswith(".pdf"):
        return None
    import msgspec

    from .locating import layer_only

    result = _recognised_pdf(request.file)
    if result is None or not any(p.source == "text-layer" for p in result.pages):
        return None
    evidence = layer_only(result, request.evidence)
    if not evidence:
        return None
    return msgspec.structs.replace(request, evidence=evidence, passage=layer_only(result, request.passage))


def _recognised_pdf(path: str) -> Scan | None:
    """The recognition kept for this PDF when some page of it was recognised, else None."""
    from .scan import cached

    try:
        result = cached(path)
    except Exception:  # noqa: BLE001 - unreadable now: the PDF locator's answer stands
        return None
    return result if result is not None and result.recognised_pages() else None


@hookimpl
def prepare_locate(path: str) -> bool | None:
    """Recognise an image ahead of the first search (False: its record was already kept)."""
    if not is_image(path):
        return None
    from .places import queue
    from .scan import cached, scan

    kept = cached(path)
    result = kept if kept is not None else scan(path)
    queue(result)  # ingest embeds the recognised lines, to place them by meaning
    return kept is None


@hookimpl
def document_model(path: str) -> DocumentModel | None:
    """An image as one page, sized in pixels (the frame of ``locate``'s boxes)."""
    if not is_image(path):
        return None
    from mnote_kr.plugin_api import PageSize

    from .scan import shown_size

    width, height = shown_size(path)
    return DocumentModel(kind="pages", pages=[PageSize(width=float(width), height=float(height))], plugin=PLUGIN_NAME)


@hookimpl
def render_page(path: str, page: int, scale: float) -> bytes | None:
    """The image as PNG (page 1 only), at most at its own size: the browser scales it to the frame."""
    if not is_image(path):
        return None
    from .view import render_image

    return render_image(path, page, scale)


@hookimpl
def reader_status(entries: Mapping[str, SourceEntry]) -> dict[str, Any] | None:
    """The workspace's images and PDFs as OCR sees them, from the records alone (no file is read):
    files recognised (an image, or a PDF with scanned pages, with the pages recognised), files
    waiting (an image, or a PDF not yet checked for pages without a text layer, since a PDF is
    checked when it is sent; or one whose recognition was cut by the time limit), files failed
    with the reason (not one the index failed already: status lists it once), the scanned pages
    left out by the pages limit, and the PDFs with pages whose text layer is unreadable (mostly mojibake:
    read by OCR instead), each with its pages."""
    from .scan import record_for

    done = waiting = pages = left_out = 0
    failed: list[dict[str, str]] = []
    unreadable: list[dict[str, Any]] = []
    for rel in entries:
        if not is_image(rel) and not rel.lower().endswith(".pdf"):
            continue
        entry = entries[rel]
        if entry.stale or entry.status.startswith("delete") or entry.status in ("refused", "excluded", "failed"):
            continue
        record = record_for(entry.source_hash)
        if record is None:
            waiting += 1
        elif record.error:
            failed.append({"sourcePath": rel, "reason": record.error})
        elif record.recognised_pages():
            done += 1
            pages += record.recognised_pages()
            left_out += sum(1 for p in record.pages if p.source == "skipped")
            if record.unreadable_pages():
                unreadable.append({"sourcePath": rel, "pages": record.unreadable_pages(),
                                   "reason": f"text layer unreadable on {len(record.unreadable_pages())} page(s) "
                                             "(a font without a usable Unicode map): read by OCR"})
    if not (done or waiting or failed):
        return None
    summary = (f"{done} file(s) recognised ({pages} page(s)), {waiting} waiting for recognition, "
               f"{len(failed)} failed")
    if left_out:
        summary += f"; {left_out} scanned page(s) left out by the pages limit ([ocr] max_pages)"
    if waiting:
        summary += " ('mnote-kr ingest --force FILE' recognises one now)"
    if unreadable:
        summary += f"; {len(unreadable)} file(s) with an unreadable text layer read by OCR"
    return {"ocr": {"recognised": done, "pages": pages, "leftOut": left_out, "waiting": waiting, "failed": failed,
                    "unreadable": unreadable, "summary": summary}}
