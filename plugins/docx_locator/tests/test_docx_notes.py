"""Footnotes and endnotes: a note's text stands at its mark in the paragraph holding it, so the note's
words locate to that paragraph (the corpus's notes, Word's numbers, a heading's and a deleted
reference left alone, a custom mark, a broken or hostile notes part)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.docx_docs import DocxBuilder
from mnote_kr_testkit.docx_notes import NAMED_HEADING_STYLES, named_styles_docx, note_para, ref, with_notes

from mnote_kr.errors import DocumentError
from mnote_kr.models import LocateRequest
from mnote_kr_docx_locator import cache as docx_cache
from mnote_kr_docx_locator import extract_text, locate
from mnote_kr_docx_locator.cache import load_docx

TIKA = CORPUS / "docx" / "tika__testWORD_2006ml.docx"
ENDNOTES = CORPUS / "docx" / "poi__endnotes.docx"
FORM = CORPUS / "docx" / "poi__form_footnotes.docx"


@pytest.fixture(autouse=True)
def _fresh_cache():
    docx_cache.clear_cache()
    yield
    docx_cache.clear_cache()


def _loc(path: Path, evidence: str, query: str = ""):
    return locate(LocateRequest(file=str(path), evidence=evidence, query=query))


def test_corpus_notes_read_at_the_paragraph_holding_their_mark() -> None:
    tika = load_docx(TIKA).paragraphs
    assert tika[17].text.startswith("This should have a footnote [Footnote 1: And this is the footnote]")
    assert tika[158].text == "This should point to an endnote  [Endnote i: This is an endnote]"
    assert "(tilaka  [Endnote i: XXX]or 'tika')" in load_docx(ENDNOTES).paragraphs[9].text
    form = load_docx(FORM).paragraphs[0]  # an empty table cell holding only the mark
    assert (form.in_table, form.text) == (True, " [Footnote 1: testdoc test phrase]")
    assert sum(p.text.count("[Footnote 1:") for p in tika) == 1  # the text box's paragraph holds none


@pytest.mark.parametrize(("path", "words", "index"), [
    (TIKA, "And this is the footnote", 17),
    (TIKA, "This is an endnote", 158),
    (FORM, "testdoc test phrase", 0),
])
def test_a_notes_words_locate_to_the_paragraph_holding_its_mark(path: Path, words: str, index: int) -> None:
    loc = _loc(path, words, words)
    assert (loc.locator_precision, loc.paragraph_index, loc.locator_degraded) == ("paragraph", index, False)
    para = load_docx(path).paragraphs[index].text
    assert loc.highlight is not None and words in para[loc.highlight.start:loc.highlight.end]


def test_word_numbers_notes_in_reference_order_footnotes_and_endnotes_apart(tmp_path: Path) -> None:
    b = DocxBuilder()
    first = note_para(b, "Alpha", ref("footnote", "7"))
    second = note_para(b, "Beta", ref("endnote", "3"), " goes on")
    third = note_para(b, "Gamma", ref("footnote", "2"))
    fourth = note_para(b, "Delta", ref("endnote", "5"))
    path = tmp_path / "n.docx"
    path.write_bytes(with_notes(b.build(), footnotes={"2": "Second footnote.", "7": "First footnote."},
                                endnotes={"3": "First endnote.", "5": "Second\nendnote in two paragraphs."}))
    texts = [p.text for p in load_docx(path).paragraphs]
    assert texts[first] == "Alpha [Footnote 1: First footnote.]"
    assert texts[second] == "Beta [Endnote i: First endnote.] goes on"
    assert texts[third] == "Gamma [Footnote 2: Second footnote.]"
    assert texts[fourth] == "Delta [Endnote ii: Second endnote in two paragraphs.]"
    assert "[Footnote 2: Second footnote.]" in (extract_text(str(path)) or "")  # the text fallback has them too


def test_document_note_properties_and_a_custom_mark(tmp_path: Path) -> None:
    b = DocxBuilder()
    a = note_para(b, "Starred", ref("footnote", "1", custom="*"))
    c = note_para(b, "Counted", ref("footnote", "2"))
    e = note_para(b, "Decimal endnote", ref("endnote", "4"))
    path = tmp_path / "p.docx"
    settings = ('<w:footnotePr><w:numFmt w:val="lowerLetter"/><w:numStart w:val="3"/></w:footnotePr>'
                '<w:endnotePr><w:numFmt w:val="decimal"/></w:endnotePr>')
    path.write_bytes(with_notes(b.build(), footnotes={"1": "Own mark.", "2": "Lettered."}, endnotes={"4": "Tail."},
                                settings=settings))
    texts = [p.text for p in load_docx(path).paragraphs]
    # the custom mark is the label, not text again, and takes no number
    assert (texts[a], texts[c], texts[e]) == (
        "Starred [Footnote *: Own mark.]", "Counted [Footnote c: Lettered.]", "Decimal endnote [Endnote 1: Tail.]")


def test_a_headings_deleted_and_unknown_reference_read_as_before(tmp_path: Path) -> None:
    b = DocxBuilder()
    head = note_para(b, "Findings", ref("footnote", "1"), heading=1)
    body = note_para(b, "Body text", ref("footnote", "2"))
    gone = note_para(b, "Revised", ref("footnote", "3", deleted=True))
    odd = note_para(b, "Dangling", ref("footnote", "99"))
    path = tmp_path / "h.docx"
    path.write_bytes(with_notes(b.build(), footnotes={"1": "On the title.", "2": "On the body.", "3": "Deleted."}))
    doc = load_docx(path)
    texts = [p.text for p in doc.paragraphs]
    assert (texts[head], doc.paragraphs[head].heading_level) == ("Findings", 1)
    assert doc.paragraphs[body].heading_path == ("Findings",)
    # the heading's note still takes its number (Word shows it), the deleted one does not
    assert texts[body] == "Body text [Footnote 2: On the body.]"
    assert (texts[gone], texts[odd]) == ("Revised", "Dangling")


def test_a_broken_notes_part_costs_the_notes_and_an_entity_refuses_the_file(tmp_path: Path) -> None:
    b = DocxBuilder()
    b.para("Plain first paragraph")
    note_para(b, "Marked", ref("footnote", "1"))
    broken = tmp_path / "broken.docx"
    broken.write_bytes(with_notes(b.build(), raw={"word/footnotes.xml": b"<w:footnotes><w:footnote"}))
    assert [p.text for p in load_docx(broken).paragraphs] == ["Plain first paragraph", "Marked"]
    hostile = tmp_path / "hostile.docx"
    bomb = b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><w:footnotes/>'
    hostile.write_bytes(with_notes(b.build(), raw={"word/footnotes.xml": bomb}))
    with pytest.raises(DocumentError, match="entity"):
        load_docx(hostile)


def test_a_note_on_a_title_locates_to_it_as_lightrag_reads_it_there(tmp_path: Path) -> None:
    """A paper's title with a funding footnote: LightRAG has no heading there (no outline level), so its chunk
    holds the note at the mark; the locator reads the note there too and its words locate to the title."""
    path = tmp_path / "title.docx"
    path.write_bytes(named_styles_docx())
    texts = [p.text for p in load_docx(path).paragraphs]
    assert texts == [f"Styled {s} words [Footnote {n}: Funded by grant {n}00.]"
                     for n, s in enumerate(NAMED_HEADING_STYLES, 1)]
    loc = _loc(path, "Styled Title words [Footnote 1: Funded by grant 100.]", "Funded by grant 100")
    assert (loc.paragraph_index, loc.locator_degraded) == (0, False)
    # they stay the locator's headings, and a heading path names a heading by its own words, not its note's
    assert load_docx(path).paragraphs[3].heading_path == ("Styled NamedOnly words", "Styled BodyLevel words")
