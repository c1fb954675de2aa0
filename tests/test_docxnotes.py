"""DOCX notes read inline (``plugin_api.docxnotes``): Word's numbers, the wording, the budget, and a
quote that can lead with a note's sentence."""

from __future__ import annotations

from mnote_kr.citations.cleaning.quote import answer_quote, sentences
from mnote_kr.plugin_api import docxnotes as dn

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def test_note_numbers_in_words_formats() -> None:
    got = {fmt: [dn.note_number(n, fmt) for n in (1, 4, 9, 27)]
           for fmt in ("decimal", "lowerRoman", "upperRoman", "lowerLetter", "upperLetter", "chicago", "bidiNumber")}
    assert got == {"decimal": ["1", "4", "9", "27"], "lowerRoman": ["i", "iv", "ix", "xxvii"],
                   "upperRoman": ["I", "IV", "IX", "XXVII"], "lowerLetter": ["a", "d", "i", "aa"],
                   "upperLetter": ["A", "D", "I", "AA"], "chicago": ["*", "\u00a7", "***", "\u2021" * 7],
                   "bidiNumber": ["1", "4", "9", "27"]}


def test_note_marks_follow_reference_order_sections_and_word_restarts() -> None:
    F, E, R = dn.FOOTNOTE, dn.ENDNOTE, dn.NoteRef
    refs = [R(F, "9"), R(E, "2"), R(F, "4", custom="\u2020"), R(F, "5"), R(F, "6", section=1), R(E, "3", section=1)]
    # defaults: footnotes 1, 2 (the custom mark takes no number), endnotes i, ii; a section goes on counting
    assert dn.note_marks(refs) == {(F, "9"): "1", (E, "2"): "i", (F, "4"): "\u2020", (F, "5"): "2",
                                   (F, "6"): "3", (E, "3"): "ii"}
    # the second section restarts its footnotes at 1 in its own format; the document's start and format elsewhere
    sections = [{}, {F: dn.NoteProps(fmt="upperLetter", restart="eachSect")}]
    settings = {F: dn.NoteProps(start=5), E: dn.NoteProps(fmt="decimal")}
    assert dn.note_marks(refs, settings, sections) == {(F, "9"): "5", (E, "2"): "1", (F, "4"): "\u2020", (F, "5"): "6",
                                                       (F, "6"): "E", (E, "3"): "2"}
    # numbered per page: where pages break is not in the file, so no number is made up
    assert dn.note_marks([R(F, "1")], {F: dn.NoteProps(restart="eachPage")}) == {(F, "1"): ""}


def test_inline_wording_and_the_documents_budget() -> None:
    assert dn.inline_note(dn.FOOTNOTE, "1", "A note.") == " [Footnote 1: A note.]"
    assert dn.inline_note(dn.ENDNOTE, "", "Unnumbered.") == " [Endnote: Unnumbered.]"
    assert dn.inline_note(dn.FOOTNOTE, "2", "") == ""  # an empty note: the mark reads as nothing, as before
    assert dn.note_text(["  First   line\t", "", "second"]) == "First line second"
    long = "x" * (dn.MAX_INLINE_CHARS // 3)
    notes = dn.InlineNotes({(dn.FOOTNOTE, "1"): long}, {(dn.FOOTNOTE, "1"): "1"})
    rendered = [notes.render(dn.FOOTNOTE, "1") for _ in range(4)]
    assert [len(r) > 0 for r in rendered] == [True, True, False, False]  # referred to again and again: bounded
    assert notes.render(dn.ENDNOTE, "1") == ""



def test_a_note_past_the_budget_is_never_copied_again() -> None:
    """A hostile DOCX refers to one 4,000,000-character note 200,000 times (a 3.3 MB file): past the budget
    each reference read as nothing, but each one built the note's inline text first and threw it away
    (93 s in the DOCX locator, 97 s in LightRAG's parse with the notes patch; 1.4 s without). A reference
    past the budget costs no copy of the note."""
    import tracemalloc

    # one note longer than the budget, one whose text fits and whose inline text (its label) does not
    notes = dn.InlineNotes({(dn.FOOTNOTE, "1"): "x" * dn.MAX_INLINE_CHARS, (dn.FOOTNOTE, "2"): "y" * (
        dn.MAX_INLINE_CHARS - 5)}, {(dn.FOOTNOTE, "1"): "1", (dn.FOOTNOTE, "2"): "2"})
    tracemalloc.start()
    try:
        assert [notes.render(dn.FOOTNOTE, n) for n in "1212"] == [""] * 4
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < dn.MAX_INLINE_CHARS // 4, peak

def test_a_quote_can_lead_with_the_notes_sentence() -> None:
    text = ("The survey covered every parish in the county during the wet spring of that year. Response rates were "
            "lower in the hill parishes [Footnote 3: Postal delivery there was suspended for six weeks. Late forms "
            "were accepted.] than on the coast, which the authors discuss at length in the chapter that follows on "
            "methods. The tables give each parish's figures.")
    said = [text[a:b] for a, b in sentences(text)]
    assert said[2:4] == ["[Footnote 3: Postal delivery there was suspended for six weeks.",
                         "Late forms were accepted.]"]
    assert said[4].startswith("than on the coast,")
    assert answer_quote(text, "why was postal delivery suspended").startswith("[Footnote 3: Postal delivery")
    plain = "No notes here. [1] A bracket is no note."
    assert [plain[a:b] for a, b in sentences(plain)] == ["No notes here.", "[1] A bracket is no note."]


def test_a_comment_reads_as_its_author_and_words_and_a_quote_can_lead_with_it() -> None:
    from lxml import etree

    part = etree.fromstring(
        f'<w:comments xmlns:w="{W}"><w:comment w:id="3" w:author="Jane Smith"><w:p><w:r><w:annotationRef/>'
        '</w:r><w:r><w:t>Check the</w:t></w:r><w:r><w:tab/><w:t>figure.</w:t></w:r></w:p><w:p><w:r><w:t>Again.</w:t>'
        '</w:r></w:p></w:comment><w:comment w:id="4" w:author=""><w:p><w:r><w:t>No one.</w:t></w:r></w:p></w:comment>'
        '<w:comment w:id="5" w:author="X"><w:p/></w:comment></w:comments>')
    texts, authors = dn.comment_texts(part)
    C = dn.COMMENT
    assert texts == {(C, "3"): "Check the figure. Again.", (C, "4"): "No one."}
    assert authors == {(C, "3"): "Jane Smith"}
    assert dn.inline_note(C, "Jane Smith", "Check the figure.") == " [Comment (Jane Smith): Check the figure.]"
    assert dn.inline_note(C, "", "No one.") == " [Comment: No one.]"
    notes = dn.InlineNotes(texts, authors)
    assert notes.render(C, "3") == " [Comment (Jane Smith): Check the figure. Again.]"
    para = "The yield rose [Comment (Jane Smith): Check the figure. Again.] in the second year."
    assert dn.without_notes(para) == "The yield rose in the second year."
    assert [para[a:b] for a, b in sentences(para)] == [
        "The yield rose", "[Comment (Jane Smith): Check the figure.", "Again.]", "in the second year."]
    long = ("The survey covered every parish in the county during the wet spring of that year. Response rates were "
            "lower in the hill parishes [Comment (Ann): Postal delivery there was suspended for six weeks. Late forms "
            "were accepted.] than on the coast, which the authors discuss at length in the chapter that follows on "
            "methods. The tables give each parish's figures.")
    assert answer_quote(long, "why was postal delivery suspended").startswith("[Comment (Ann): Postal delivery")


def test_a_note_taken_out_between_two_words_leaves_them_apart() -> None:
    # a chunk's spaces collapsed: the note's own space was the only one between "tilaka" and "or"
    # (poi__endnotes.docx's "(tilaka or 'tika')" with endnote i after "tilaka ")
    quoted = dn.without_notes("the red spot (tilaka [Endnote i: XXX]or 'tika') on")
    assert quoted == "the red spot (tilaka or 'tika') on"
    own, notes = dn.split_notes("spot (tilaka [Endnote i: XXX]or 'tika')")
    assert own == "spot (tilaka or 'tika')" and notes == [(len("spot (tilaka "), "[Endnote i: XXX]")]
    # before punctuation or a space the note's space goes; Chinese is written without one
    assert dn.without_notes("the yield rose [Footnote 1: See table 2].") == "the yield rose."
    assert dn.without_notes("the yield rose  [Footnote 1: See table 2]or fell") == "the yield rose or fell"
    assert dn.without_notes("产量上升 [Footnote 1: 见表2]了") == "产量上升了"
