"""Moving an open viewer to another citation without reloading it (``docs/http-api.md``, "A shell's viewer").

A shell that keeps a document open asks the viewer's page to show another citation by
``postMessage`` (``static/shell.js``). The page fetches ``GET /view/{id}/place.json?from={its id}&issue={key}``
(same session as the page; ``issue``, the message's: the ID as that search showed it, its places and way back;
the latest search's without one) and moves what it shows:

* ``sameDocument`` false: the citation is in another file (or ``from`` is unknown); the page
  does nothing and tells the shell, which loads ``viewerPath`` instead;
* a paragraph document (DOCX, Markdown, text): ``paragraphIndex`` and ``highlight`` (offsets in
  that paragraph's text, as the server's own page marks them) and ``headHtml`` (the viewer's
  head for the new citation: ID, badge, quote, places); the page moves the highlight in place and
  scrolls to it: the document is not rendered again;
* a paged or laid-out document (PDF, PPTX, XLSX): ``mainHtml``, the viewer's content for the new
  citation at its page, slide or sheet (a PDF page's image is fetched only when the page changes).

Every HTML string comes from ``webpages`` (values escaped there), like the page itself.
"""

from __future__ import annotations

from typing import Any

from mnote_kr.citations.render.precision import page_hint
from mnote_kr.models import Citation, DocumentModel
from mnote_kr.viewer import webpages

__all__ = ["place_payload"]


def _main_of(page_html: str) -> str:
    """The content of a whole page's ``<main>`` (``webpages.page`` writes exactly one)."""
    return page_html.split("<main>", 1)[1].rsplit("</main>", 1)[0]


def _laid_out(c: Citation, model: DocumentModel, scale: float, version: str, note: str | None) -> str:
    loc = c.locator
    if model.kind == "pages":
        # a box's page, or the page a file citation knew without its place (``pageHint``)
        cited = loc.page if loc.locator_precision == "bbox" and loc.page else page_hint(loc) or 1
        shown = cited if 1 <= cited <= len(model.pages) else 1
        return webpages.pdf_viewer(c, model, shown, scale, version, note=note)
    if model.kind == "slides":
        cited = loc.slide if loc.locator_precision == "slide" and loc.slide else 1
        return webpages.slide_viewer(c, model, cited if 1 <= cited <= len(model.slides) else 1, note=note)
    return webpages.sheet_viewer(c, model, note=note)


def place_payload(c: Citation, model: DocumentModel | None, *, same_document: bool, scale: float,
                  version: str, note: str | None = None) -> dict[str, Any]:
    """What ``shell.js`` needs to show citation ``c`` in the page that shows ``from`` (see the module doc): ``c``
    as the search the page was asked for showed it (``issue``), or the newest with ``note`` saying why."""
    loc = c.locator
    out: dict[str, Any] = {"citationId": c.citation_id, "sameDocument": same_document,
                           "viewerPath": webpages.view_url_of(c), "issue": webpages.issue_param(c).get("issue"),
                           "sourceRootRelativePath": c.source_root_relative_path,
                           "locatorPrecision": c.locator_precision, "page": None, "paragraphIndex": None,
                           "highlight": None, "title": f"{c.citation_id} {c.source_root_relative_path} · mnote-kr"}
    if not same_document or model is None:
        out["sameDocument"] = False
        return out
    out["kind"] = model.kind
    if model.kind == "paragraphs":
        cited = loc.paragraph_index if loc.locator_precision == "paragraph" else None
        if cited is not None and not 0 <= cited < len(model.paragraphs):
            cited = None  # the document has fewer paragraphs than the locator says: never guess
        text = model.paragraphs[cited].text if cited is not None else ""
        h = loc.highlight
        if cited is not None and h is not None and 0 <= h.start < h.end <= len(text):
            out["highlight"] = {"start": h.start, "end": h.end}
        out["paragraphIndex"] = cited
        out["headHtml"] = webpages._viewer_head(c, webpages.place_banner(loc, cited is not None), None, note=note)
        return out
    if loc.locator_precision == "bbox":
        out["page"] = loc.page
    out["mainHtml"] = _main_of(_laid_out(c, model, scale, version, note))
    return out
