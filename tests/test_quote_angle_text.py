"""A user's words in angle brackets stay in the quote, as written; only markup a parser or converter left goes.

Seen by a newcomer: the DOCX paragraph ``Page break in>><<this hyperlink and another one here>><<with
text following`` (``python-docx__par-rendered-page-breaks.docx``, as LightRAG's parser writes a
rendered page break) was quoted ``Page break in>>< ><``, and a Markdown note's ``Press <Enter> to
confirm ..., then type a<b and see the result.`` as ``Press to confirm ..., then type a``: every
``<word ...>`` was taken for a tag, and a ``<`` with no ``>`` after it for a tag the chunk cut.

Markup is decided by structure (``cleaning.tags``): any name with quoted attributes
(``<img id="im-1" src="" />``, ``<w:t xml:space="preserve">``); an HTML, SVG or MathML element's name as
markup writes it (``<br/>``, ``<TABLE>``; not ``<Enter>``, ``<Option>``) with attributes (not ``<b and c>``),
closed later in the text, closing one, or alone among the text's other markup (a README's ``<details>``,
an .html page); a tag parsers write bare (``<br>``, ``<sup>``). A lone ``<title>`` or ``<input>`` in prose
is the text's. A ``<`` of the text is shown as written: until round 26 a space followed it (``< Enter>``,
``in>><< this``, a newcomer's nc26b finding: Word shows ``in>><<this``), so that an agent echoing the quote
into Markdown would not hide it; a quote is text, and whoever renders it as HTML or Markdown escapes it
(the viewer and search page do, ``html.escape``).
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
    """``text`` with its whitespace collapsed: the comparison is about words, not line breaks."""
    return " ".join(text.split())


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
    assert bundle.display_quote == NOTE  # as written: no space after a "<" (it was "Press < Enter>", "a< b")


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
    assert paragraphs[2] == "Page break in>><<this hyperlink and another one here>><<with text following"
    for place in paragraphs[1:4]:
        assert paragraph_quote(context, place, query) == place  # Word shows "in>><<this", never "in>><< this"


def test_html_a_markdown_file_holds_is_not_shown_as_broken_tags() -> None:
    """DESIGN.md principle 4: displayQuote has no broken tags. A README's <details>/<summary> (and MathML's
    <mfrac>, <section>, <abbr>) were stripped before r13; then each showed as '< details>', '< /summary>'."""
    from mnote_kr.plugins import load_plugins

    plugins = load_plugins(None)
    for raw in ("<details>\n<summary>Build steps</summary>\n\nRun make to build the tool.\n</details>",
                "<math><mfrac><mi>a</mi><mn>2</mn></mfrac></math> is half of a",
                "<section><header>Intro</header>The pump works to build.</section>",
                # an indexed .html file (LightRAG's supported suffixes include .html/.htm)
                "<html><head><title>Build guide</title></head><body><main><article><p>Run make to build.</p>"
                "</article></main></body></html>",
                # a table as MinerU's HTML table recogniser writes it
                '<table id="tb-1" format="html"><html><body><table><tr><td>Build</td><td>42</td></tr></table>'
                "</body></html></table>"):
        shown = plugins.clean_text(raw, "build", None).display_quote
        assert "<" not in shown, shown


@pytest.mark.parametrize(("raw", "shown"), [
    # a README's HTML: paired, or among other markup (a void element, a closing tag a cut left alone)
    ("<details>\n<summary>Build steps</summary>\n\nRun make.\n</details>", "Build steps Run make."),
    ("Run make to build.\n</details>\n<details>\n<summary>Test steps", "Run make to build. Test steps"),
    ('<p align="center">Logo<input>Name</p>', "Logo Name"),
    ('<picture><source srcset="a.png"><img src="a.png" alt="logo"></picture> Kumquat', "Kumquat"),
    ("<abbr>HTML</abbr> and <dfn>markup</dfn>, <q>quoted</q>.", "HTML and markup, quoted."),
    ("<title>Build guide</title>", "Build guide"),
    ("<Details><Summary>Steps</Summary></Details>", "Steps"),  # HTML is case-insensitive: paired, it is markup
    ('<svg viewBox="0 0 1 1"><linearGradient><stop/></linearGradient><text>Logo</text></svg>', "Logo"),
    ("<html>\n<head>\n<meta charset=utf-8>", ""),  # a cut page's opening tags, side by side
])
def test_html_elements_as_markup_writes_them_go(raw: str, shown: str) -> None:
    assert display_text(raw) == shown
    assert "<" not in locator_text(raw)


@pytest.mark.parametrize("text", [
    "Type your name in the <input> field and press <Enter>.",
    "Put the <title> first, then the body.",
    "Choose an <option> from the list, or press <Option>.",
    "Hold <Option> and press <Del> to clear.",
    "Use <source> for the file, <output> for the result.",
    "SELECT * FROM <table> WHERE id = 1;",  # was read as a table element to the chunk's end
    "Replace <code> with the code we mailed you.",
    # the text's own words beside LightRAG's shells: a drawing is the parser's, no sign the text is HTML
    'Type in the <input> box. <drawing id="im-1" format="png" path="x.png" src="" /> See above.',
])
def test_an_element_name_alone_in_prose_stays_text(text: str) -> None:
    kept = text.split("<drawing")[0].strip()
    assert kept in _words(display_text(text)), display_text(text)
    assert kept in _words(locator_text(text))


@pytest.mark.parametrize("text", [
    "Usage: kumconv <input> <output> converts the kumquat file.",
    "Pick a <label> <select> pair for the kumquat form.",
    "For kumquats, the <main> <aside> layout works.",
])
def test_two_placeholders_side_by_side_in_prose_stay_in_the_quote(text: str) -> None:
    """A CLI synopsis's ``<input> <output>`` is the text's words: two element names side by side in prose,
    with no other markup in the text, are no markup (r13 quoted ``Usage: kumconv converts the kumquat file.``)."""
    bundle = clean_citation_text(text, "kumquat")
    assert _words(bundle.display_quote) == text, bundle.display_quote
