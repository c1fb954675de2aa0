"""A page whose text layer is mostly mojibake (``unreadable_layer``: a font without a usable Unicode map) is
never boxed from that layer. ``mineru__garbled_formula.pdf`` renders as clean Chinese maths; a file indexed
from its layer before OCR read such pages (nc16c) has chunks of garbage, and the layer matches them exactly:
the locator said ``bbox`` on ``K¥"N ²£+8B" ...``. It now gives the page as a hint at ``file`` precision and
says why (the OCR plugin, asked first, places a recognised line)."""

from __future__ import annotations

import hashlib

import pypdfium2 as pdfium
from mnote_kr_testkit.counting import count_calls
from mnote_kr_testkit.data import CORPUS

from mnote_kr.models import LocateRequest
from mnote_kr_pdf_bbox import locate

GARBLED = CORPUS / "pdf" / "mineru__garbled_formula.pdf"


def _layer_lines() -> list[str]:
    pdf = pdfium.PdfDocument(str(GARBLED))
    try:
        return pdf[0].get_textpage().get_text_range().splitlines()
    finally:
        pdf.close()


def test_garbage_evidence_on_an_unreadable_page_gets_the_page_as_a_hint_not_a_box() -> None:
    before = hashlib.sha256(GARBLED.read_bytes()).digest()
    lines = _layer_lines()
    at = next(i for i, ln in enumerate(lines) if "2009" in ln)
    for evidence in (" ".join(lines[at - 3:at + 2]), " ".join(lines[:6])):
        loc = locate(LocateRequest(file=str(GARBLED), evidence=evidence, query="这道不等式最后是用什么方法证出来的？"))
        assert loc is not None
        assert (loc.locator_precision, loc.locator_degraded, loc.bbox, loc.rects, loc.page_hint) == (
            "file", True, None, [], 1), loc
        assert "page 1's text layer is unreadable" in loc.locator_reason, loc.locator_reason
        assert not loc.place_text and not loc.runners_up
    assert hashlib.sha256(GARBLED.read_bytes()).digest() == before


def test_a_pages_layer_is_measured_once_per_document_model(monkeypatch) -> None:  # noqa: ANN001
    """Every located passage asks whether its page and each place behind it lie on an unreadable page; a page is
    measured once per document model, not once per question (round 27: re-measuring whole pages was most of what
    ranking by meaning added to a warm search). The answer is the measure's own, a garbled page's included."""
    from mnote_kr import plugin_api
    from mnote_kr_pdf_bbox.locator import unreadable_page
    from mnote_kr_pdf_bbox.pdftext import read_document

    measured, real = count_calls(monkeypatch, plugin_api, "unreadable_layer")
    doc = read_document(GARBLED)
    pages = range(len(doc.pages))
    first = [unreadable_page(doc, pi) for pi in pages]
    again = [unreadable_page(doc, pi) for _ in range(3) for pi in pages]
    assert first == [real(p.text) for p in doc.pages] and first[0] is True
    assert again == first * 3
    assert len(measured) == len(doc.pages)
