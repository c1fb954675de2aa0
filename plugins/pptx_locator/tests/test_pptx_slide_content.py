"""A question naming a slide without asking for its notes is cited on the slide's shapes; within a slide the
title is context (it heads every shape), the shape holding the question's other words answers.

Recorded as a newcomer (18 corpus files, managed engine): "what is on the second slide of the powerpoint sample"
and "第二张幻灯片的矩形里写了什么" (what is written in the rectangle on the second slide) were cited on
``slide 2 notes`` ("Some notes on the second slide.": closest by meaning to "the second slide"); "what does page 3
say" on slide 3's notes; "quarterly revenue in Q2" on the chart deck's slide 2 title ("Quarterly revenue")
instead of its chart ("Q2: 20").
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins

PPTX = Path(__file__).resolve().parents[3] / "tests" / "data" / "corpus" / "pptx"
SAMPLE = PPTX / "docling__powerpoint_sample.pptx"
CHART = PPTX / "docling__pptx_chart.pptx"


@pytest.fixture(scope="module")
def plugins():  # type: ignore[no-untyped-def]
    return load_plugins(None)


@pytest.fixture(params=["words", "meaning"])
def vectors(request: pytest.FixtureRequest, plugins) -> str:  # type: ignore[no-untyped-def]
    """Both ways a deck is read: by words alone (not embedded yet) and with ingest's vectors of its places."""
    if request.param == "meaning":
        from mnote_kr.citations.rank import meaning

        for deck in (SAMPLE, CHART):
            plugins.prepare_locate(str(deck))
        meaning.embed_queued(lambda _line: None)
    return str(request.param)


def _slide3_tail(plugins) -> str:  # type: ignore[no-untyped-def]
    """The engine's chunk of the sample deck: slide 3's last list and its notes."""
    deck = plugins.extract_text(str(SAMPLE))
    return deck[deck.index("l1\n"):]


def _locate(plugins, deck: Path, chunk: str, query: str):  # type: ignore[no-untyped-def]
    bundle = plugins.clean_text(chunk, query, None)
    return plugins.locate(LocateRequest(file=str(deck), evidence=bundle.locator_evidence_text, query=query,
                                        passage=chunk))


@pytest.mark.parametrize("query", ["what is on the second slide of the powerpoint sample",
                                   "what is on the second slide", "第二张幻灯片上有什么"])
def test_a_named_slide_not_asked_for_notes_is_cited_on_its_body_not_its_notes_or_title(
        plugins, vectors: str, query: str) -> None:  # type: ignore[no-untyped-def]
    before = hashlib.sha256(SAMPLE.read_bytes()).digest()
    loc = _locate(plugins, SAMPLE, _slide3_tail(plugins), query)
    assert (loc.slide, loc.speaker_notes, loc.locator_degraded) == (2, False, False), loc.reason
    assert loc.shape_name != "Title 1"  # the title heads the place (``place_headings``), it is no content
    assert loc.place_headings == ["Second slide title"]
    assert hashlib.sha256(SAMPLE.read_bytes()).digest() == before


@pytest.mark.parametrize("query", ["第二张幻灯片的矩形里写了什么", "what is in the rectangle on slide 2"])
def test_a_shape_kind_the_query_names_chooses_that_shape_on_the_named_slide(
        plugins, vectors: str, query: str) -> None:  # type: ignore[no-untyped-def]
    loc = _locate(plugins, SAMPLE, _slide3_tail(plugins), query)
    assert (loc.slide, loc.shape_name, loc.speaker_notes) == (2, "Rectangle 3", False), loc.reason
    assert loc.quote == "A rectangle shape with this text inside."


def test_the_title_is_cited_when_the_query_asks_for_it(plugins) -> None:  # type: ignore[no-untyped-def]
    loc = _locate(plugins, SAMPLE, _slide3_tail(plugins), "what is the title of slide 2")
    assert (loc.slide, loc.shape_name) == (2, "Title 1")


def test_the_evidences_notes_on_a_slide_named_as_a_page_give_way_to_its_shapes(
        plugins, vectors: str) -> None:  # type: ignore[no-untyped-def]
    loc = _locate(plugins, SAMPLE, _slide3_tail(plugins), "what does page 3 say")
    assert (loc.slide, loc.speaker_notes, loc.locator_degraded) == (3, False, False), loc.reason
    assert (loc.runners_up[0].slide, loc.runners_up[0].speaker_notes) == (3, True)  # the evidence's place behind
    asked = _locate(plugins, SAMPLE, _slide3_tail(plugins), "what do the notes on page 3 say")
    assert (asked.slide, asked.speaker_notes) == (3, True)


CHART_CHUNK = "Quarterly revenue\nChart: 2026\nQ1: 10\nQ2: 20\nQ3: 30"  # the engine's evidence of slide 2


@pytest.mark.parametrize("query", ["quarterly revenue in Q2", "Q2 quarterly revenue", "what was the revenue in Q2"])
def test_a_title_restating_the_subject_gives_way_to_the_shape_holding_the_asked_part(
        plugins, vectors: str, query: str) -> None:  # type: ignore[no-untyped-def]
    loc = _locate(plugins, CHART, CHART_CHUNK, query)
    assert (loc.slide, loc.shape_name) == (2, "Chart 2"), loc.reason
    assert loc.quote is not None and "Q2: 20" in loc.quote
    assert loc.place_headings == ["Quarterly revenue"]


def test_a_query_holding_only_the_titles_words_keeps_the_title(plugins) -> None:  # type: ignore[no-untyped-def]
    loc = _locate(plugins, CHART, CHART_CHUNK, "quarterly revenue")
    assert (loc.slide, loc.shape_name) == (2, "Title 1"), loc.reason
