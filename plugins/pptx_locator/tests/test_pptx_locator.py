"""The PPTX locator on docling's test presentations: slide, shape and box checked against docling's
ground truth (not this plugin's reader), speaker notes, honest ``file``, budgets, untouched sources."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import pytest

from mnote_kr.errors import DocumentError
from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins

CORPUS = Path(__file__).resolve().parents[3] / "tests" / "data" / "corpus"
SAMPLE = CORPUS / "pptx" / "docling__powerpoint_sample.pptx"


def docling_box(name: str, text: str) -> tuple[int, list[float]]:
    """Slide and EMU box [x0, y0, x1, y1] docling gives the text item ``text``."""
    truth = json.loads((CORPUS / "groundtruth" / "docling" / f"{name}.json").read_text(encoding="utf-8"))
    (item,) = [t for t in truth["texts"] if t["text"] == text]
    prov = item["prov"][0]
    b = prov["bbox"]
    return prov["page_no"], [b["l"], min(b["t"], b["b"]), b["r"], max(b["t"], b["b"])]


@pytest.fixture(scope="module")
def plugins():  # type: ignore[no-untyped-def]
    return load_plugins(None)


def test_pptx_is_claimed_by_the_pptx_locator_entry_point(plugins) -> None:  # type: ignore[no-untyped-def]
    info = {i.name: i for i in plugins.describe()}["pptx_locator"]
    assert (info.origin, info.distribution) == ("entry point", "mnote-kr-pptx-locator")
    assert plugins.locator_plugin(".pptx") == "pptx_locator"


def test_shape_text_cites_slide_shape_and_box_as_docling_places_it(plugins) -> None:  # type: ignore[no-untyped-def]
    before = hashlib.sha256(SAMPLE.read_bytes()).digest()
    text = "A rectangle shape with this text inside."
    loc = plugins.locate(LocateRequest(file=str(SAMPLE), evidence=f"Second slide title\n{text}", query="rectangle"))
    slide, box = docling_box(SAMPLE.name, text)
    assert (loc.locator_precision, loc.locator_degraded, loc.slide, loc.bbox, loc.bbox_unit) == (
        "slide", False, slide, box, "emu")
    assert (loc.shape_id, loc.shape_name, loc.paragraph_index, loc.speaker_notes) == (4, "Rectangle 3", 0, False)
    assert loc.bbox_fraction == [round(v / d, 4) for v, d in zip(box, (12192000, 6858000) * 2, strict=True)]
    assert hashlib.sha256(SAMPLE.read_bytes()).digest() == before


def test_list_item_lands_on_its_paragraph_inside_the_placeholder(plugins) -> None:  # type: ignore[no-untyped-def]
    loc = plugins.locate(LocateRequest(file=str(SAMPLE), evidence="With foo\nBar\nAnd baz things", query="baz"))
    slide, box = docling_box(SAMPLE.name, "And baz things")
    assert (loc.slide, loc.bbox, loc.paragraph_index) == (slide, box, 3)


def test_speaker_notes_are_cited_as_the_slides_notes(plugins) -> None:  # type: ignore[no-untyped-def]
    loc = plugins.locate(LocateRequest(file=str(SAMPLE), evidence="Final notes on the third slide.",
                                       query="final notes"))
    assert (loc.locator_precision, loc.slide, loc.speaker_notes, loc.bbox) == ("slide", 3, True, None)
    # the notes placeholder is no shape on the slide, so none is named (on slide 2 its id is a list's too)
    assert (loc.shape_id, loc.shape_name, loc.bbox_fraction) == (None, None, None)
    # the quote is the notes, not the provider's chunk of every slide (a newcomer saw all three slides)
    assert loc.quote == "Final notes on the third slide. Second line of notes."


def _from_wrapper(plugins, query: str):  # type: ignore[no-untyped-def]
    """The locator of the deck's own text (what a text wrapper sends LightRAG: titles as ``#`` lines, notes
    as ``Notes:`` paragraphs), evidence cleaned as the host cleans a retrieved chunk."""
    chunk = plugins.extract_text(str(SAMPLE))
    bundle = plugins.clean_text(chunk, query, None)
    return plugins.locate(LocateRequest(file=str(SAMPLE), evidence=bundle.locator_evidence_text, query=query,
                                        passage=chunk))


def test_a_note_in_the_decks_own_text_is_cited_on_its_slides_notes_in_its_own_words(plugins) -> None:  # type: ignore[no-untyped-def]
    loc = _from_wrapper(plugins, "what do the notes on the second slide say")
    assert (loc.locator_precision, loc.locator_degraded, loc.slide, loc.speaker_notes, loc.shape_id) == (
        "slide", False, 2, True, None)
    assert loc.quote == "Some notes on the second slide."  # no "Notes:" or "#" of the wrapper
    loc = _from_wrapper(plugins, "second line of notes")
    assert (loc.slide, loc.speaker_notes, loc.paragraph_index, loc.quote) == (
        3, True, 1, "Second line of notes.")


def test_a_shapes_words_in_the_decks_own_text_land_on_that_shape_as_before(plugins) -> None:  # type: ignore[no-untyped-def]
    """A deck sent as its own text (it has notes) cites a slide's body on the same shape as LightRAG's
    reading of the deck (each top-level shape's text on a line) does."""
    query = "rectangle shape with this text"
    lightrag = "Test Table Slide\nWith footnote\nSecond slide title\nLet’s introduce a list\nWith foo\nBar\n" \
               "And baz things\nA rectangle shape with this text inside.\n"
    theirs = plugins.locate(LocateRequest(file=str(SAMPLE), evidence=lightrag, query=query))
    ours = _from_wrapper(plugins, query)
    for loc in (theirs, ours):
        assert (loc.slide, loc.shape_id, loc.shape_name, loc.paragraph_index, loc.speaker_notes) == (
            2, 4, "Rectangle 3", 0, False), loc
    assert ours.quote == theirs.quote == "A rectangle shape with this text inside."


def test_a_shape_paragraph_is_quoted_with_the_rest_of_its_shape_not_the_deck(plugins) -> None:  # type: ignore[no-untyped-def]
    loc = plugins.locate(LocateRequest(file=str(SAMPLE), evidence="Let’s introduce a list\nWith foo\nBar",
                                       query="introduce a list"))
    assert (loc.slide, loc.paragraph_index) == (2, 0)
    assert loc.quote == "Let’s introduce a list; With foo; Bar; And baz things"  # one shape: no title, no rectangle


def test_table_row_cites_the_table_shape(plugins) -> None:  # type: ignore[no-untyped-def]
    truth = json.loads((CORPUS / "groundtruth" / "docling" / f"{SAMPLE.name}.json").read_text(encoding="utf-8"))
    b = truth["tables"][0]["prov"][0]["bbox"]
    loc = plugins.locate(LocateRequest(file=str(SAMPLE), evidence="A merged with B | C | A | B | C", query="merged"))
    assert (loc.slide, loc.bbox) == (truth["tables"][0]["prov"][0]["page_no"],
                                     [b["l"], min(b["t"], b["b"]), b["r"], max(b["t"], b["b"])])
    assert loc.paragraph_index == 1  # the table's second row


def test_no_match_is_an_honest_file_locator(plugins) -> None:  # type: ignore[no-untyped-def]
    loc = plugins.locate(LocateRequest(file=str(SAMPLE), evidence="quantum chromodynamics on a lattice",
                                       query="lattice"))
    assert (loc.locator_precision, loc.locator_degraded, loc.slide, loc.bbox) == ("file", True, None, None)


def test_slide_titles_are_headings_of_the_extracted_text(plugins) -> None:  # type: ignore[no-untyped-def]
    text = plugins.extract_text(str(SAMPLE))
    assert "# Second slide title\n\nLet’s introduce a list" in text
    assert "Notes: Some notes on the second slide." in text


def test_zip_bomb_is_one_clear_error(tmp_path: Path, plugins) -> None:  # type: ignore[no-untyped-def]
    bomb = tmp_path / "bomb.pptx"
    with zipfile.ZipFile(SAMPLE) as src, zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info, src.read(info))
        dst.writestr("ppt/media/padding.xml", b"\0" * (80 * 1024 * 1024))
    with pytest.raises(DocumentError, match=r"zip bomb|over budget") as err:
        plugins.locate(LocateRequest(file=str(bomb), evidence="rectangle", query="rectangle"))
    assert "\n" not in str(err.value)


def test_not_a_zip_is_a_document_error(tmp_path: Path, plugins) -> None:  # type: ignore[no-untyped-def]
    fake = tmp_path / "fake.pptx"
    fake.write_bytes(b"not a presentation")
    with pytest.raises(DocumentError, match="Cannot read PPTX"):
        plugins.locate(LocateRequest(file=str(fake), evidence="x", query="x"))


def test_a_shape_kind_python_pptx_does_not_know_is_read_past(plugins) -> None:  # type: ignore[no-untyped-def]
    deck = CORPUS / "pptx" / "docling__powerpoint_unrecognized_shape.pptx"
    truth = json.loads((CORPUS / "groundtruth" / "docling" / f"{deck.name}.json").read_text(encoding="utf-8"))
    item = [t for t in truth["texts"] if t["prov"] and t["prov"][0]["page_no"] == 1][0]
    loc = plugins.locate(LocateRequest(file=str(deck), evidence=item["text"], query=item["text"].split()[0]))
    assert (loc.locator_precision, loc.slide) == ("slide", 1)


def test_a_window_of_short_shapes_is_resolved_by_the_query(plugins) -> None:  # type: ignore[no-untyped-def]
    """Slide 3 of docling's sample has text boxes of one or two words each: no shingle spans them, yet
    the evidence quotes them whole and the query names one."""
    evidence = "I1\nI2\nI3\nI4\nSome info:\nItem A\nItem B"
    loc = plugins.locate(LocateRequest(file=str(SAMPLE), evidence=evidence, query="info"))
    slide, box = docling_box(SAMPLE.name, "Some info:")
    assert (loc.locator_precision, loc.slide, loc.bbox, loc.paragraph_index) == ("slide", slide, box, 0)


def test_a_line_break_inside_a_paragraph_keeps_its_words_apart(tmp_path: Path, plugins) -> None:  # type: ignore[no-untyped-def]
    """``a:br`` (Shift+Enter) between two lines of one paragraph: the deck's own text and the quote read a
    space there, not "revenueUp", and LightRAG's reading of the shape (a vertical tab there) lands on it."""
    from mnote_kr_testkit.decks import harbour_deck
    from pptx.util import Inches

    prs, slide = harbour_deck("Ashgrove", "Revenue")
    box = slide.shapes.add_textbox(Inches(1), Inches(2), Inches(6), Inches(1))
    box.text_frame.text = "Quarterly revenue\vUp 12% on last year"  # python-pptx writes the \v as a:br
    slide.notes_slide.notes_text_frame.text = "Mention the new ferry."  # so the deck is sent as its own text
    path = tmp_path / "revenue.pptx"
    prs.save(path)
    text = plugins.extract_text(str(path))
    assert "\n\nQuarterly revenue Up 12% on last year\n\n" in text
    ours = _locate_in_text(plugins, path, text, "quarterly revenue up")
    theirs = plugins.locate(LocateRequest(file=str(path), evidence=f"Revenue\n{box.text_frame.text}",
                                          query="quarterly revenue up"))
    for loc in (ours, theirs):
        assert (loc.slide, loc.shape_id, loc.paragraph_index) == (2, box.shape_id, 0), loc
        assert loc.quote == "Quarterly revenue Up 12% on last year"


def _locate_in_text(plugins, path: Path, chunk: str, query: str):  # type: ignore[no-untyped-def]
    bundle = plugins.clean_text(chunk, query, None)
    return plugins.locate(LocateRequest(file=str(path), evidence=bundle.locator_evidence_text, query=query,
                                        passage=chunk))


def test_a_corpus_title_broken_over_lines_is_quoted_with_its_words_apart(plugins) -> None:  # type: ignore[no-untyped-def]
    from pptx import Presentation

    deck = CORPUS / "pptx" / "docling__powerpoint_bad_text.pptx"
    title = Presentation(str(deck)).slides[0].shapes.title.text  # LightRAG's reading: a:br as "\v"
    assert "\v" in title
    loc = plugins.locate(LocateRequest(file=str(deck), evidence=title, query="content template collection"))
    assert (loc.locator_precision, loc.slide) == ("slide", 1)
    assert loc.quote == " ".join(title.split())  # "X-Library The fully ...", not "X-LibraryThe fully ..."


def test_lightrags_chunk_of_a_line_broken_title_with_the_break_dropped_lands_on_it(plugins) -> None:  # type: ignore[no-untyped-def]
    """A deck LightRAG parses itself: its sanitiser drops the vertical tab python-pptx gives for ``a:br``,
    so its chunk glues the lines' words ("X-LibraryThe fully"); the title is still found and quoted with
    its words apart."""
    from lightrag.parser.legacy.extractors import _extract_pptx
    from lightrag.utils import sanitize_text_for_encoding

    deck = CORPUS / "pptx" / "docling__powerpoint_bad_text.pptx"
    chunk = sanitize_text_for_encoding(_extract_pptx(deck.read_bytes()))
    assert "X-LibraryThe fully" in chunk  # what LightRAG stores and returns
    loc = plugins.locate(LocateRequest(file=str(deck), evidence=chunk, query="content template collection"))
    assert (loc.locator_precision, loc.slide) == ("slide", 1)
    assert loc.quote == "X-Library The fully customisable and copyright-free standard content template collection " \
                        "exclusively for our customers"


def test_a_line_breaks_glued_words_are_written_apart_only_where_they_stand_as_a_word(tmp_path: Path) -> None:
    """The break of "Grade A / B" glues to "AB": written apart as a word of its own, never inside
    "ABC" or "TABLE"; the corpus title's glued "X-LibraryThe" still comes apart."""
    from mnote_kr_testkit.decks import harbour_deck
    from pptx.util import Inches

    from mnote_kr_pptx_locator.locating import apart
    from mnote_kr_pptx_locator.reader import load_pptx

    prs, slide = harbour_deck("Ashgrove", "Grades")
    box = slide.shapes.add_textbox(Inches(1), Inches(2), Inches(6), Inches(1))
    box.text_frame.text = "Grade A\vB"
    path = tmp_path / "grades.pptx"
    prs.save(path)
    doc = load_pptx(path)
    assert ("A", "B") in doc.breaks
    words = "The ABC LAB TABLE shows ABS values"
    assert apart(doc, words) == words
    assert apart(doc, "Grade AB, then ABC; (AB) and 2AB") == "Grade A B, then ABC; (A B) and 2AB"
    deck = load_pptx(CORPUS / "pptx" / "docling__powerpoint_bad_text.pptx")
    assert apart(deck, "X-LibraryThe fully customisable") == "X-Library The fully customisable"
