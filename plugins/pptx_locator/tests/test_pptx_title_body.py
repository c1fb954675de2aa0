"""A slide's title holding the query's topic words and nothing more ("What are the next steps on slide 3?", the
title "Next Steps") is the question's subject, not its answer: the citation is the slide's body shape under it,
quoted title first, then the body's list.

The real engine's case (nc17c, q17): LightRAG returned the whole deck as one chunk, the matcher landed on
slide 3's title "Next Steps", cited exact with the quote "Next Steps"; the list "1. Finalize pricing model …"
was never quoted whole.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins

DECK = Path(__file__).resolve().parents[3] / "tests" / "data" / "corpus" / "pptx" / \
    "docling__powerpoint_unrecognized_shape.pptx"
#: the chunk the engine returned (recorded in the trial's citation: ``rawQuote``)
CHUNK = ("Q3 Revenue Summary\nTotal revenue grew 18% year-over-year.\nEnterprise segment led growth at 24%.\n"
         "APAC region exceeded targets by 12%.\nKey Metrics\nMonthly active users: 4.2M\nNet retention rate: 112%\n"
         "Text in an unrecognized shape\nNext Steps\n1. Finalize pricing model\n2. Launch APAC campaign\n"
         "3. Hire 3 additional SEs")


@pytest.fixture(scope="module")
def plugins():  # type: ignore[no-untyped-def]
    return load_plugins(None)


def _locate(plugins, query: str):  # type: ignore[no-untyped-def]
    bundle = plugins.clean_text(CHUNK, query, None)
    return plugins.locate(LocateRequest(file=str(DECK), evidence=bundle.locator_evidence_text, query=query,
                                        passage=CHUNK))


@pytest.mark.parametrize("query", ["What are the next steps on slide 3?", "What are the next steps?"])
def test_a_title_holding_only_the_querys_topic_gives_way_to_the_body_under_it(plugins, query: str) -> None:  # type: ignore[no-untyped-def]
    before = hashlib.sha256(DECK.read_bytes()).digest()
    loc = _locate(plugins, query)
    assert (loc.slide, loc.shape_name, loc.locator_degraded) == (3, "Content Placeholder 2", False)
    assert loc.quote == "Next Steps: 1. Finalize pricing model; 2. Launch APAC campaign; 3. Hire 3 additional SEs"
    assert "title" in loc.reason
    assert hashlib.sha256(DECK.read_bytes()).digest() == before


def test_a_query_naming_the_title_keeps_it(plugins) -> None:  # type: ignore[no-untyped-def]
    loc = _locate(plugins, "What is the title of slide 3?")
    assert (loc.slide, loc.shape_name) == (3, "Title 1")
    assert loc.quote.startswith("Next Steps")


def test_a_title_saying_more_than_the_query_is_not_moved(plugins) -> None:  # type: ignore[no-untyped-def]
    """"Q3 Revenue Summary" holds "q3" besides the asked "revenue summary": its own words say which quarter,
    and the slide's body is not what "revenue summary" alone asks about."""
    loc = _locate(plugins, "revenue summary")
    assert (loc.slide, loc.shape_name) == (1, "Title 1")
