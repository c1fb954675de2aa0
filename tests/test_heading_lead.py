"""A place whose words are only the query's (a heading searched by its words) is quoted with what follows
it in the chunk; a place saying more keeps its own words (``cleaning.headlead``)."""

from __future__ import annotations

import pytest

from mnote_kr.citations.cleaning.headlead import heading_lead, only_the_query

CHUNK = ("Icing on wind turbines costs output in winter. 2.1 Blade heating\n\nHeated blades kept the power loss "
         "below five percent on every turbine. It was switched on below zero. 2.2 Unheated blades lost more.")


@pytest.mark.parametrize(("place", "query", "only"), [
    ("2.1 Blade heating", "blade heating", True),  # a section number is not more than the query
    ("A. Google DeepDream", "Google DeepDream", True),
    ("三、热化学方程式", "热化学方程式", True),
    ("A Study", "study", False),  # a word, not a marker
    ("Figure 7-26. Self-locking nuts.", "self-locking nuts", False),  # which figure: more than the query
    ("2 蒙牛冠益乳原味450g", "蒙牛冠益乳", False),  # a row: the answer is there
    ("Blade heating", "", False),
])
def test_only_the_query_is_a_place_that_says_nothing_more(place: str, query: str, only: bool) -> None:
    assert only_the_query(place, query) is only


def test_a_heading_is_quoted_with_the_first_sentence_after_it_and_nothing_more() -> None:
    assert heading_lead("2.1 Blade heating", CHUNK, "Blade heating") == (
        "2.1 Blade heating\nHeated blades kept the power loss below five percent on every turbine.")


def test_a_long_sentence_after_the_heading_is_cut_between_words() -> None:
    chunk = "Blade heating " + "warm air runs through the blade " * 30 + "and it works."
    out = heading_lead("Blade heating", chunk, "blade heating", limit=120) or ""
    assert out.startswith("Blade heating\nwarm air") and out.endswith("…") and len(out) <= 122, out
    assert out[:-1].split()[-1] in chunk.split()  # a whole word before the cut


def test_no_lead_when_the_chunk_lacks_the_heading_or_nothing_worded_follows_it() -> None:
    assert heading_lead("Blade heating", "Unheated blades lost more.", "blade heating") is None
    assert heading_lead("Blade heating", "Icing costs output. Blade heating 7-45", "blade heating") is None
    assert heading_lead("Figure 3. Blade heating.", CHUNK, "blade heating") is None
