"""A query naming a slide ("what do the notes on slide 2 say", "第二张幻灯片的备注") is cited on that slide,
its notes when it asks for notes; the evidence's own place stands first behind it.

The real engine's case on docling's sample deck: LightRAG cut the deck's text in two chunks, and the
one it returned for "what do the notes on slide 2 say" was the tail of slide 3 (its list and notes),
so the citation landed on slide 3's notes and the answer stood behind it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from pptx.enum.shapes import MSO_SHAPE

from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins

SAMPLE = Path(__file__).resolve().parents[3] / "tests" / "data" / "corpus" / "pptx" / "docling__powerpoint_sample.pptx"


@pytest.fixture(scope="module")
def plugins():  # type: ignore[no-untyped-def]
    return load_plugins(None)


def _slide3_tail(plugins) -> str:  # type: ignore[no-untyped-def]
    """The deck's own text from slide 3's last list on: the chunk the engine returned."""
    deck = plugins.extract_text(str(SAMPLE))
    return deck[deck.index("l1\n"):]


def _locate(plugins, chunk: str, query: str):  # type: ignore[no-untyped-def]
    bundle = plugins.clean_text(chunk, query, None)
    return plugins.locate(LocateRequest(file=str(SAMPLE), evidence=bundle.locator_evidence_text, query=query,
                                        passage=chunk))


@pytest.mark.parametrize("query", ["what do the notes on slide 2 say", "What do the notes on the second slide say?",
                                   "第二张幻灯片的备注是什么", "幻灯片2的备注"])
def test_a_question_naming_a_slide_cites_that_slides_notes_with_the_evidences_place_behind(
        plugins, query: str) -> None:  # type: ignore[no-untyped-def]
    before = hashlib.sha256(SAMPLE.read_bytes()).digest()
    chunk = _slide3_tail(plugins)
    assert "Some notes on the second slide" not in chunk
    loc = _locate(plugins, chunk, query)
    assert (loc.locator_precision, loc.locator_degraded, loc.slide, loc.speaker_notes, loc.shape_id) == (
        "slide", False, 2, True, None)
    assert loc.quote == "Some notes on the second slide."
    behind = loc.runners_up[0]
    assert (behind.slide, behind.speaker_notes, behind.locator_degraded) == (3, True, True)  # today's first
    assert hashlib.sha256(SAMPLE.read_bytes()).digest() == before


def test_the_querys_other_words_choose_the_shape_on_the_named_slide(plugins) -> None:  # type: ignore[no-untyped-def]
    loc = _locate(plugins, _slide3_tail(plugins), "the rectangle shape on slide 2")
    assert (loc.slide, loc.shape_name, loc.speaker_notes, loc.locator_degraded) == (2, "Rectangle 3", False, False)


def test_a_slide_named_without_other_words_is_cited_at_its_first_shape_under_its_title(
        plugins) -> None:  # type: ignore[no-untyped-def]
    # the title is the place's heading, not its content (test_pptx_slide_content)
    loc = _locate(plugins, _slide3_tail(plugins), "what is on the second slide")
    assert (loc.slide, loc.quote, loc.locator_degraded) == (2, "Let’s introduce a list; With foo; Bar; And baz things",
                                                            False)
    assert loc.place_headings == ["Second slide title"]


@pytest.mark.parametrize("query", ["what do the notes on slide 9 say", "2 slides of notes", "notes version 2"])
def test_a_slide_the_deck_lacks_or_a_number_naming_no_slide_keeps_the_evidences_place(
        plugins, query: str) -> None:  # type: ignore[no-untyped-def]
    loc = _locate(plugins, _slide3_tail(plugins), query)
    assert (loc.slide, loc.speaker_notes) == (3, True) and "names slide" not in loc.reason


@pytest.mark.parametrize("query", ["what is l2 on page 7", "第9张幻灯片的l2", "what is l2 on slide 3"])
def test_the_place_words_do_not_count_against_the_first_pick(plugins, query: str) -> None:  # type: ignore[no-untyped-def]
    """The deck's words "slide" and "page" are in no shape the query asks for: a slide named that the deck
    lacks, or the one the evidence is on, chooses as if none were named."""
    chunk = _slide3_tail(plugins)
    plain = _locate(plugins, chunk, "what is l2")
    assert (plain.slide, plain.shape_name, plain.locator_degraded) == (3, "TextBox 7", False)
    assert "semantic" not in plain.reason
    loc = _locate(plugins, chunk, query)
    assert (loc.slide, loc.shape_name, loc.locator_degraded, loc.quote) == (3, "TextBox 7", False, plain.quote)
    assert "semantic" not in loc.reason


def test_each_place_is_headed_by_its_own_slides_title_not_the_chunks(plugins) -> None:  # type: ignore[no-untyped-def]
    """The engine's chunk is slide 3's (untitled: its block is headed "Slide 3"); the citation moved to slide 2's
    notes, and the places behind it, carry their own slide's title (none for an untitled slide)."""
    from mnote_kr_pptx_locator.reader import load_pptx

    titles = load_pptx(SAMPLE).titles
    loc = _locate(plugins, _slide3_tail(plugins), "what do the notes on slide 2 say")
    assert (loc.slide, loc.place_headings) == (2, ["Second slide title"])
    assert loc.runners_up
    for place in loc.runners_up:
        assert place.place_headings == ([titles[place.slide]] if titles[place.slide] else []), place.slide


@pytest.mark.parametrize("query", ["第三张幻灯片的备注", "第三张幻灯片的备注写了什么",
                                   "what do the notes on slide 3 say"])
def test_a_query_naming_the_evidences_own_slide_says_so(plugins, query: str) -> None:  # type: ignore[no-untyped-def]
    loc = _locate(plugins, _slide3_tail(plugins), query)
    assert (loc.slide, loc.speaker_notes, loc.locator_degraded) == (3, True, False)
    assert loc.reason.startswith("the query names slide 3 and asks for its notes"), loc.reason


def test_notes_asked_for_on_the_evidences_slide_are_cited_its_shape_behind(plugins) -> None:  # type: ignore[no-untyped-def]
    deck = plugins.extract_text(str(SAMPLE))
    shapes = deck[deck.index("List item4"):deck.index("Notes: Final")]  # slide 3's shapes, not its notes
    plain = _locate(plugins, shapes, "what is in the third slide")
    assert (plain.slide, plain.speaker_notes) == (3, False)
    loc = _locate(plugins, shapes, "第三张幻灯片的备注")
    assert (loc.slide, loc.speaker_notes, loc.locator_degraded) == (3, True, False)
    assert "asks for its notes" in loc.reason
    assert (loc.runners_up[0].slide, loc.runners_up[0].speaker_notes) == (3, False)


@pytest.fixture
def words_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """No deck vectors and no remembered answer: the places chosen by words."""
    from mnote_kr.citations.rank import meaning

    monkeypatch.setattr(meaning, "cosines", lambda *a, **k: None)
    monkeypatch.setattr(meaning, "nearest", lambda *a, **k: {})
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")


def test_a_named_slides_notes_holding_the_querys_words_stay_cited_exactly(
        plugins, tmp_path: Path, words_only: None) -> None:  # type: ignore[no-untyped-def]
    """The evidence is slide 2's notes and the query's other words ("budget deadline") are only there: the
    query names the slide without asking for notes, yet its shapes hold none of what it asks. Cited in r13 on a
    shape holding none of the words, approximate."""
    from pptx import Presentation

    prs = Presentation()
    s1 = prs.slides.add_slide(prs.slide_layouts[1])
    s1.shapes.title.text = "Overview"
    s1.placeholders[1].text = "Why we build it"
    s2 = prs.slides.add_slide(prs.slide_layouts[1])
    s2.shapes.title.text = "Project plan"
    s2.placeholders[1].text = "Kick-off\nDesign\nBuild"
    notes = "The budget deadline is March 3 and the auditor signs it."
    s2.notes_slide.notes_text_frame.text = notes
    path = tmp_path / "plan.pptx"
    prs.save(path)
    before = hashlib.sha256(path.read_bytes()).digest()
    passage = "Project plan\nKick-off\nDesign\nBuild\n" + notes
    for evidence in (notes, "Overview\nWhy we build it"):  # its own slide's notes, or another slide's place
        loc = plugins.locate(LocateRequest(file=str(path), evidence=evidence, passage=passage,
                                           query="what does slide 2 say about the budget deadline"))
        assert (loc.slide, loc.speaker_notes, loc.locator_degraded) == (2, True, False), loc.locator_reason
        assert loc.quote == notes
    # words the shapes hold too keep the shapes: the notes are not what the slide shows
    loc = plugins.locate(LocateRequest(file=str(path), evidence=notes, passage=passage,
                                       query="what does slide 2 say about design"))
    assert (loc.slide, loc.speaker_notes, loc.locator_degraded) == (2, False, False), loc.locator_reason
    assert hashlib.sha256(path.read_bytes()).digest() == before


def _growth_deck():  # type: ignore[no-untyped-def]
    """A two-slide deck: an overview, then "Growth" with a text box of users and a rectangle of the target."""
    from pptx import Presentation
    from pptx.util import Inches

    prs = Presentation()
    s1 = prs.slides.add_slide(prs.slide_layouts[1])
    s1.shapes.title.text = "Overview"
    s1.placeholders[1].text = "Why we build it"
    s2 = prs.slides.add_slide(prs.slide_layouts[5])
    s2.shapes.title.text = "Growth"
    box = s2.shapes.add_textbox(Inches(1), Inches(2), Inches(4), Inches(1))
    box.text_frame.text = "Active users: 5,000 in May"
    rect = s2.shapes.add_shape(MSO_SHAPE.RECTANGLE, Inches(1), Inches(4), Inches(2), Inches(1))
    rect.text_frame.text = "Target for June"
    return prs, s2


def test_a_query_word_in_a_shapes_name_does_not_outrank_the_shape_holding_the_words(
        plugins, tmp_path: Path, words_only: None) -> None:  # type: ignore[no-untyped-def]
    """"number of users on slide 2": r13 took every query word as a shape kind and ranked kind before words, so
    the slide-number box ("Slide Number Placeholder 4", "2") was cited with the reason "its other words are in
    this shape". The text box holding "users" answers; a placeholder's name is no kind an ordinary word names."""
    from pptx.util import Inches

    prs, s2 = _growth_deck()
    num = s2.shapes.add_textbox(Inches(8), Inches(6), Inches(1), Inches(1))
    num.name = "Slide Number Placeholder 4"  # PowerPoint's name for the slide-number box
    num.text_frame.text = "2"
    date = s2.shapes.add_textbox(Inches(1), Inches(6), Inches(2), Inches(1))
    date.name = "Date Placeholder 5"
    date.text_frame.text = "5/12/2026"
    path = tmp_path / "growth.pptx"
    prs.save(path)
    ask = lambda query: plugins.locate(LocateRequest(  # noqa: E731
        file=str(path), evidence="Why we build it", query=query, passage="Overview\nWhy we build it"))
    for query in ("number of users on slide 2", "the users number on slide 2", "slide 2 users count date"):
        loc = ask(query)
        assert (loc.slide, loc.quote) == (2, "Active users: 5,000 in May"), (query, loc.shape_name, loc.reason)
    # a kind the query names breaks the tie when no shape holds its words: the rectangle, not the first box
    loc = ask("what is in the rectangle on slide 2")
    assert (loc.slide, loc.quote) == (2, "Target for June"), (loc.shape_name, loc.reason)
    # and never outranks the shape holding the words: the text box holds "users", the rectangle none
    loc = ask("the users in the rectangle on slide 2")
    assert (loc.slide, loc.quote) == (2, "Active users: 5,000 in May"), (loc.shape_name, loc.reason)


def test_a_shape_kind_named_is_cited_even_when_the_notes_mention_that_kind(
        plugins, tmp_path: Path, words_only: None) -> None:  # type: ignore[no-untyped-def]
    """"what is in the rectangle on slide 2": the kind word is how the query names the shape, not a word it
    asks the slide's content about. The notes saying "point at the rectangle" made ``notes_hold_more`` keep
    the notes, which then outranked the rectangle (they hold "rectangle", the shape's text does not)."""
    prs, s2 = _growth_deck()
    s2.notes_slide.notes_text_frame.text = "Point at the rectangle while presenting."
    path = tmp_path / "growth.pptx"
    prs.save(path)
    before = hashlib.sha256(path.read_bytes()).digest()
    loc = plugins.locate(LocateRequest(file=str(path), evidence="Why we build it",
                                       query="what is in the rectangle on slide 2",
                                       passage="Overview\nWhy we build it"))
    assert (loc.slide, loc.speaker_notes, loc.quote) == (2, False, "Target for June"), (loc.shape_name, loc.reason)
    assert hashlib.sha256(path.read_bytes()).digest() == before
