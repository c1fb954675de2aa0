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


#: ``pdfplumber__issue-982-example.pdf`` page 4: LightRAG's chunk ends inside the ELIZA text block, before
#: the sentence that answers (a chunk boundary; the rest of the block opens the next chunk).
ELIZA_CHUNK = ("B. Chatbots\n\nOne of the earliest programs in this category is ELIZA, a bot created by Joseph "
               "Weizenbaum in the 1960s [Wei76]. This program had a set of patterns implemented to which it would "
               "reply in a seemingly smart way in a psychologists fashion. This means quite often the program "
               "would simply repeat the last sentence and add something meaningless like “How do you feel about it?”.")
SECRETARY = "What did Weizenbaum's secretary ask when he looked over her shoulder?"


def test_a_block_the_chunk_ends_inside_is_quoted_where_its_own_words_answer() -> None:
    """A newcomer's question: the box was the ELIZA block, which holds the answer ("would you mind leaving the
    room"), and the quote showed the block's first two sentences, all the chunk holds of it. The block's
    own words hold a sentence answering more of the question: the quote is read from them."""
    pdf = CORPUS / "pdf" / "pdfplumber__issue-982-example.pdf"
    before = hashlib.sha256(pdf.read_bytes()).digest()
    plugins = load_plugins(None)
    loc = plugins.locate(LocateRequest(file=str(pdf), evidence=ELIZA_CHUNK, query=SECRETARY, passage=ELIZA_CHUNK))
    assert loc.locator_plugin == "pdf_bbox" and loc.page == 4 and loc.place_text, loc
    assert "leaving the room" in " ".join(loc.place_text.split())  # the box holds the answer
    context = plugins.clean_text(ELIZA_CHUNK, SECRETARY, None).display_quote
    assert place_quote(context, loc.place_text, SECRETARY) is None  # not the chunk's words: the place's own
    from mnote_kr.citations.pipeline import _place_quote

    shown, own = _place_quote(plugins, loc, context, SECRETARY)
    assert "would you mind" in shown and own is not None, shown
    # a question the chunk's sentences answer as well as the block's keeps the chunk's cleaned words
    eliza = "Who created ELIZA and when?"
    assert "One of the earliest programs" in (place_quote(context, loc.place_text, eliza) or "")
    assert hashlib.sha256(pdf.read_bytes()).digest() == before


#: ``mineru__academic_paper_formula.pdf`` page 1 as LightRAG's chunk holds it (recorded from a newcomer's index):
#: its text reader writes ω as "!" and the comma in C(p, p̄) as ";"; PDFium's text layer reads both right.
FORMULA_CHUNK = ("horizontal direction. Given that support regions are of size\n!!, the two-pass method reduces the "
                 "complexity of cost\naggregation from O(!2) to O(!).\nB. Temporal cost aggregation\nOnce aggregated "
                 "costs C(p; p) have been computed for all\npixels p in the reference image and their respective "
                 "matching\ncandidates p in the target image, a single-pass temporal\naggregation routine is "
                 "exectuted. At each time instance, the\nalgorithm stores an auxiliary cost Ca(p; p) which holds a\n"
                 "weighted summation of costs obtained in the previous frames.")


def test_a_pdf_boxs_quote_reads_its_own_text_layer_not_the_chunks_damaged_symbols() -> None:
    """A newcomer's S1: the quote showed C(p; p) and O(!2) from the chunk, while the boxed block's own text layer
    (PDFium) reads C(p, p) and O(ω ...). The chunk stays the citation's context."""
    from mnote_kr.citations.pipeline import _place_quote

    pdf = CORPUS / "pdf" / "mineru__academic_paper_formula.pdf"
    before = hashlib.sha256(pdf.read_bytes()).digest()
    plugins = load_plugins(None)
    query = "auxiliary cost of the previous frames"
    loc = plugins.locate(LocateRequest(file=str(pdf), evidence=FORMULA_CHUNK, query=query, passage=FORMULA_CHUNK))
    assert loc.locator_plugin == "pdf_bbox" and loc.page == 1 and loc.place_text
    assert "Ca(p, p)" in loc.place_text  # the text layer, as PDFium reads it
    context = plugins.clean_text(FORMULA_CHUNK, query, None).display_quote
    shown, own = _place_quote(plugins, loc, context, query)
    assert "auxiliary cost Ca(p, p)" in shown and "(p; p)" not in shown, shown
    assert own is None  # the chunk holds the place: it stays the context
    assert hashlib.sha256(pdf.read_bytes()).digest() == before


def test_an_unreadable_text_layer_is_not_quoted_over_the_chunk() -> None:
    """A place whose words are mojibake (a font without a usable Unicode map) keeps the chunk's sentences."""
    from mnote_kr.citations.pipeline import _place_quote
    from mnote_kr.models import Locator

    chunk = "The pump was checked and found working. No leaks were seen at the valve."
    garbled = "Ø\x17 x1 = 0 ½ x1 + x2 = 0. \x9c/ 1 x1 = 0. d\x9e\x06Øª ÔèÿÁ pump ÐÑÒ leaks"
    loc = Locator(locator_precision="bbox", page=1, bbox=[0.0, 0.0, 10.0, 10.0], place_text=garbled,
                  locator_plugin="pdf_bbox", reason="r", locator_reason="r")
    shown, _ = _place_quote(load_plugins(None), loc, chunk, "pump leaks")
    assert "\x17" not in shown and "pump" in shown


def test_a_pdf_heading_that_is_the_query_leads_into_its_text_layers_next_sentence() -> None:
    """The newcomer's S1 itself: "temporal cost aggregation" boxes the heading "B. Temporal cost aggregation"; its
    quote is the heading and the sentence after it, which came from the chunk (C(p; p)); it reads the text layer."""
    from mnote_kr.citations.pipeline import _place_quote

    pdf = CORPUS / "pdf" / "mineru__academic_paper_formula.pdf"
    plugins = load_plugins(None)
    query = "temporal cost aggregation"
    loc = plugins.locate(LocateRequest(file=str(pdf), evidence=FORMULA_CHUNK, query=query, passage=FORMULA_CHUNK))
    assert loc.locator_plugin == "pdf_bbox" and loc.place_text == "B. Temporal cost aggregation"
    context = plugins.clean_text(FORMULA_CHUNK, query, None).display_quote
    shown, _ = _place_quote(plugins, loc, context, query)
    assert shown.startswith("B. Temporal cost aggregation\nOnce aggregated costs C(p, p) have been computed"), shown
    assert "(p; p)" not in shown


#: The newcomer's chunk of the same page, from "the matching cost" on (nc17d problem 4).
TWO_PASS_CHUNK = (
    "the matching cost by performing two-pass aggregation using\ntwo orthogonal 1D windows [5], [6], [8]. The "
    "two-pass method\nﬁrst aggregates matching costs in the vertical direction, and\nthen computes a weighted sum "
    "of the aggregated costs in the\nhorizontal direction. Given that support regions are of size\n!!, the two-pass "
    "method reduces the complexity of cost\naggregation from O(!2) to O(!).\nB. Temporal cost aggregation\nOnce "
    "aggregated costs C(p; p) have been computed for all")


def test_a_pdf_block_cut_mid_sentence_by_the_layout_runs_on_to_the_sentences_end() -> None:
    """nc17d problem 4: the layout splits "ω × ω, the two-pass method reduces the complexity of cost / aggregation
    from O(ω²) to O(ω)." into two blocks at the superscript; the box and the quote stopped at "cost", the answer
    line cut. A block ending mid-sentence, whose next block the chunk goes on with, runs on to the sentence's end."""
    from mnote_kr.citations.pipeline import _place_quote

    pdf = CORPUS / "pdf" / "mineru__academic_paper_formula.pdf"
    before = hashlib.sha256(pdf.read_bytes()).digest()
    plugins = load_plugins(None)
    query = "how does the two-pass method reduce the complexity of cost aggregation"
    loc = plugins.locate(LocateRequest(file=str(pdf), evidence=TWO_PASS_CHUNK, query=query, passage=TWO_PASS_CHUNK))
    assert loc.locator_plugin == "pdf_bbox" and loc.page == 1 and loc.place_text, loc
    assert loc.place_text.startswith("ω × ω, the two-pass method") and loc.place_text.endswith("to O(ω)."), loc
    assert loc.bbox[3] > 147.0, loc.bbox  # the answer line (its baseline at 147.25) is inside the box
    assert "B. Temporal" not in loc.place_text  # a heading after the sentence's end is not run into
    context = plugins.clean_text(TWO_PASS_CHUNK, query, None).display_quote
    shown, _ = _place_quote(plugins, loc, context, query)
    assert "complexity of cost aggregation from O(ω" in shown and shown.rstrip().endswith("to O(ω)."), shown
    assert hashlib.sha256(pdf.read_bytes()).digest() == before
