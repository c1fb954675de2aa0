"""``named_header``: the row's cell under the header a question names (shared by the DOCX and XLSX
locators through the plugin API)."""

from __future__ import annotations

from mnote_kr.plugin_api import named_header

BOOKS = [("Title", "D"), ("Author", "E"), ("Publisher", "F"), ("Year", "G")]


def test_a_verb_names_its_agent_noun_only_when_inflections_are_asked_for() -> None:
    assert named_header("Who published A Brief History of Time?", BOOKS, inflected=True) == "F"
    assert named_header("Who published A Brief History of Time?", BOOKS) is None  # whole phrases only
    assert named_header("the publisher of Dune", BOOKS) == "F"
    assert named_header("books authored by Hawking, by years", BOOKS, inflected=True) == "E"  # named first


def test_a_word_sharing_a_headers_start_is_not_an_inflection() -> None:
    cells = [("Center", 1), ("Total", 2)]
    assert named_header("how many cents", cells, inflected=True) is None


def test_the_more_specific_header_wins_and_a_tie_names_none() -> None:
    cells = [("Price", 1), ("Unit price", 2)]
    assert named_header("the unit prices of rope", cells, inflected=True) == 2
    assert named_header("the unit price of rope", cells) == 2
    assert named_header("the price of rope", [("Price", 1), ("Price", 2)]) is None
