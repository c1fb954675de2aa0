"""A user's words in angle brackets stay in the quote; only markup a parser or converter left goes.

Seen by a newcomer: the DOCX paragraph ``Page break in>><<this hyperlink and another one here>><<with
text following`` (``python-docx__par-rendered-page-breaks.docx``, as LightRAG's parser writes a
rendered page break) was quoted ``Page break in>>< ><``, and a Markdown note's ``Press <Enter> to
confirm ..., then type a<b and see the result.`` as ``Press to confirm ..., then type a``: every
``<word ...>`` was taken for a tag, and a ``<`` with no ``>`` after it for a tag the chunk cut.

Markup is what a parser writes: an HTML (or LightRAG) element name in the case markup writes it
(``<br/>``, ``<TABLE>``; not ``<Enter>`` or ``<Option>``), alone or with attributes
(``<img id="im-1" src="" />``; not ``<b and c>``), or any name with quoted attributes
(``<w:t xml:space="preserve">``). A ``<`` shown as text reads ``< `` (a space after it, as before),
so no quote holds anything a Markdown or HTML renderer would take for a tag.
"""

from __future__ import annotations

import os

import pytest
from mnote_kr_testkit.data import CORPUS

from mnote_kr.citations.cleaning import clean_citation_text, display_text, locator_text
from mnote_kr.citations.cleaning.quote import paragraph_quote
from mnote_kr_docx_locator.reader import parse_file

#: The chunk LightRAG 1.5.7 made of the DOCX's body (recorded from the newcomer's run).
PAGE_BREAKS_CHUNK = (
    "No page breaks\nPage break here>><<followed by more text.\n"
    "Page break in>><<this hyperlink and another one here>><<with text following\n"
    "Two page>><<breaks>><<in one run."
)
NOTE = "Press <Enter> to confirm the kumquat dialog, then type a<b and see the result."


def _words(text: str) -> str:
    """``text`` with a shown ``<`` back as written: the comparison is about words, not the space."""
    return " ".join(text.replace("< ", "<").split())


def test_a_docx_paragraphs_words_between_page_break_marks_stay() -> None:
    bundle = clean_citation_text(PAGE_BREAKS_CHUNK, "page break inside a hyperlink")
    for shown in (bundle.display_quote, bundle.locator_evidence_text):
        for words in ("<<followed by more text.", "<<this hyperlink and another one here>>",
                      "<<with text following", "<<breaks>><<in one run."):
            assert words in _words(shown), shown


def test_a_notes_words_in_angle_brackets_stay() -> None:
    bundle = clean_citation_text(NOTE, "kumquat dialog")
    assert _words(bundle.display_quote) == NOTE
    assert _words(bundle.locator_evidence_text) == NOTE
    assert bundle.display_quote == "Press < Enter> to confirm the kumquat dialog, then type a< b and see the result."


@pytest.mark.parametrize("text", [
    "Use List<String> or std::vector<int> here.",
    "Mail <john@example.com> now.",
    "if a<b and c>d then stop.",
    "Copy with <Ctrl>+<C> and paste.",
    "Hold <Option> and press <Del> to clear.",
    "The <placeholder> goes here, as does <your name>.",
    "Ends on a cut comparison x<y",
])
def test_text_in_angle_brackets_is_kept_in_display_and_locator_text(text: str) -> None:
    assert _words(display_text(text)) == text
    assert _words(locator_text(text)) == text
    assert display_text(display_text(text)) == display_text(text)


@pytest.mark.parametrize(("raw", "shown"), [
    ('Figure <img id="im-1f2e" src="" /> shows the rig.', "Figure shows the rig."),
    ('See <drawing id="im-3" format="png" path="x.png" src="" /> the rig.', "See the rig."),
    ("Line one<br/>line two<BR>line three.", "Line one line two line three."),
    ("A <b>bold</b> and <em>stressed</em> word, x<sup>2</sup>.", "A bold and stressed word, x2."),
    ('<p class="lead">Lead text.</p><div>More.</div>', "Lead text. More."),
    ("<table><tr><td>Cell</td><td>mAh</td></tr></table>", "Cell | mAh"),
    ('Word <w:t xml:space="preserve">run</w:t> text.', "Word run text."),
    ('A sentence. <drawing id="im-3" format="pn', "A sentence."),
    ('A sentence. <equation format="lat', "A sentence."),
    ("A sentence. <equ", "A sentence."),
    ("A sentence. </equa", "A sentence."),
])
def test_markup_a_parser_left_still_goes(raw: str, shown: str) -> None:
    assert display_text(raw) == shown


def test_the_docx_paragraph_is_quoted_in_its_own_words() -> None:
    """The located paragraph of the real file, quoted from the cleaned chunk (``paragraph_quote``)."""
    path = CORPUS / "docx" / "python-docx__par-rendered-page-breaks.docx"
    paragraphs = [p.text for p in parse_file(str(path), os.stat(path)).paragraphs]
    query = "page break inside a hyperlink"
    context = clean_citation_text(PAGE_BREAKS_CHUNK, query).display_quote
    for place in paragraphs[1:4]:
        assert _words(paragraph_quote(context, place, query) or "") == place
