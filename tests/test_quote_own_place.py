"""A citation's quote comes from its own place: it stops where the place's words end, even when the chunk
goes on with a sentence worded like the place's (a page that repeats the line of the page before)."""

from __future__ import annotations

import hashlib

from mnote_kr_testkit.data import CORPUS

from mnote_kr.citations.cleaning.quote import place_quote
from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins

MIXED = CORPUS / "pdf" / "paperless__multi-page-mixed.pdf"
#: LightRAG's chunk of the PDF as mnote-kr indexes it (its pages 1-3 read by OCR), as recorded from a search
#: of 'page 5' after 'ingest --wait': every page says "This is a multi page document. Page N."
CHUNK = "\n\n".join(f"## Page {n}\n\nThis is a multi page document. Page {n}." for n in range(1, 7))


def test_a_pdf_pages_quote_does_not_run_into_the_next_page_repeating_its_line() -> None:
    """The newcomer's search for page 5 of the corpus's mixed PDF: the citation boxed page 5, its quote ran on
    into page 6's line ("... Page 5. Page 6 This is a multi page document.")."""
    before = hashlib.sha256(MIXED.read_bytes()).digest()
    plugins = load_plugins(None)
    for n in (4, 5):
        query = f"page {n}"
        evidence = f"Page {n}\nThis is a multi page document. Page {n}."  # the sidecar block the provider cites
        loc = plugins.locate(LocateRequest(file=str(MIXED), evidence=evidence, query=query, passage=CHUNK))
        line = f"This is a multi page document. Page {n}."
        assert (loc.locator_plugin, loc.page, loc.place_text) == ("pdf_bbox", n, line)
        context = plugins.clean_text(CHUNK, query, None).display_quote
        assert f"Page {n + 1} This is a multi page document." in context  # the next page's line is in the chunk
        assert place_quote(context, loc.place_text, query) == line
    assert hashlib.sha256(MIXED.read_bytes()).digest() == before


def test_a_place_quote_stops_where_its_words_are_used_up() -> None:
    """Not a PDF: a log whose days (headings, run into the next sentence as a chunk's cleaned text has them)
    repeat a sentence. The place is Monday's paragraph; Tuesday's first sentence, worded as Monday's, is no
    part of its quote; a place that repeats a sentence itself keeps both."""
    log = ("Monday The pump was checked and found working. No leaks were seen. "
           "Tuesday The pump was checked and found working. One leak was seen at the valve.")
    monday = "The pump was checked and found working. No leaks were seen."
    assert place_quote(log, monday, "pump leaks") == monday
    tuesday = "The pump was checked and found working. One leak was seen at the valve."
    assert place_quote(log, tuesday, "valve leak") == tuesday
    twice = "Check the pump. Check the pump. Then close the valve."
    assert place_quote(f"Steps. {twice} Done.", twice, "pump") == twice
