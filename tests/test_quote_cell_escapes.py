"""A quote from a table cell shows the cell's text, not its JSON: no escaped line break (a literal ``\\n``) and no
private-use glyph (a Symbol or Wingdings bullet, U+F0A8) in ``displayQuote`` or ``contextQuote`` (nc27a Q12).

The cell is the INSTRUCTIONS box of ``poi__form_footnotes.docx`` as LightRAG 1.5.7's native DOCX parser writes it (a
one-cell ``<table>`` whose JSON string holds ``\\n`` escapes and a Wingdings bullet, U+F0A8, before its last item);
LightRAG's chunker cut the chunk the newcomer's search returned inside that string, at "apply,"."""

from __future__ import annotations

import re

import pytest

from mnote_kr.citations.cleaning import clean_citation_text, display_text, locator_text

#: The cell as LightRAG's parser wrote it (recorded from ``extract_docx_blocks``; ``\\n`` is JSON's escape).
TABLE = ('<table>[["INSTRUCTIONS\\n* Type or write in block letters, on blue or black ink only.  Form can be filled '
         'out on line.\\n* Complete first and second pages, except for box marked \u201cFor Offical Use Only\u201d.'
         '\\n* Answer all questions thoroughly and accurately.  If a question does not apply, please type N/A.'
         '\\n\uf0a8 Sign and date each form.  Original signature is mandatory (no photocopy)."]]</table>')
#: The chunk the search returned: cut inside the cell's string (nc27a q12's rawQuote).
CUT = TABLE[TABLE.index("apply, please"):]
_PRIVATE_USE = re.compile("[\ue000-\uf8ff]")


@pytest.mark.parametrize("raw", [TABLE, CUT, "Form 29\n" + TABLE, CUT + "\nSection 2. Travel history"])
def test_a_table_cells_quote_shows_no_json_escape_and_no_private_use_glyph(raw: str) -> None:
    bundle = clean_citation_text(raw, "What colour of pen do I need for the visa application?")
    for text in (display_text(raw), bundle.display_quote, bundle.locator_evidence_text, locator_text(raw)):
        assert "\\n" not in text and '\\"' not in text, text
        assert '"]]' not in text and "[[" not in text, text
    for text in (display_text(raw), bundle.display_quote):  # the locator's text keeps what the file holds
        assert not _PRIVATE_USE.search(text), text
    shown = display_text(raw)
    assert "N/A. \u2022 Sign and date each form. Original signature is mandatory (no photocopy)." in shown, shown
    assert "apply, please type N/A." in shown  # the cut cell's first words are one cell's, not two
    assert "|" not in shown  # one cell: no cell separator


def test_a_cell_cut_before_its_end_decodes_its_escapes_too() -> None:
    cut = TABLE[: TABLE.index("Sign and date")]  # the chunk ends inside the string, after "\\n\uf0a8 "
    shown = display_text(cut)
    assert "\\n" not in shown and not _PRIVATE_USE.search(shown), shown
    assert shown.startswith("INSTRUCTIONS * Type or write in block letters"), shown


@pytest.mark.parametrize(("raw", "shown"), [
    # a Wingdings bullet opening an item after a sentence, a line joined into the cell's one line
    ("Please type N/A. \uf0a8 Sign and date each form.", "Please type N/A. \u2022 Sign and date each form."),
    # elsewhere a symbol font's code point is the Symbol font's glyph (its θ); a font's own glyph never shows as a box
    ("The angle \uf071 = 30\u00b0", "The angle \u03b8 = 30\u00b0"),
    ("\uf8f1 x if a\n\uf8f2 y else", "\u23a7 x if a \u23a8 y else"),  # a big brace's pieces in a PDF formula
    # review r28 finding 5: Wingdings' boxes are a form's answers, not Symbol's brace pieces or Greek letters
    ("Married \uf0fe Yes \uf0a8 No", "Married \u2611 Yes \u25fb No"),
    ("\uf078 approved", "\u2612 approved"),
    ("Consent \uf0fd given \uf06f refused \uf0a8 not asked", "Consent \u2612 given \u2610 refused \u25fb not asked"),
    # ... and Symbol's where the text is a formula: its letters, a brace's pieces stacked
    ("\uf078 = 0.7 and \uf06f < \uf061", "\u03be = 0.7 and \u03bf < \u03b1"),
    ("\uf0ec a \uf0fc\n\uf0ed b \uf0fd\n\uf0ee c \uf0fe", "\u23a7 a \u23ab \u23a8 b \u23ac \u23a9 c \u23ad"),
    # a private-use character no font table knows (a font's own glyph, a user-defined CJK character) is marked with
    # the geta mark typesetting uses for a character it cannot show, not dropped
    ("Energy\ue000 saved", "Energy\u3013 saved"),
    ("\ue000\u5e02\u653f\u5e9c", "\u3013\u5e02\u653f\u5e9c"),
    ("\U000f0001 plane 15", "\u3013 plane 15"),
])
def test_private_use_glyphs_never_show_in_a_quote(raw: str, shown: str) -> None:
    assert display_text(raw) == shown
    assert display_text(shown) == shown  # cleaning again changes nothing
