"""``named_header``: the row's cell under the header a question names (shared by the DOCX and XLSX
locators through the plugin API); ``meant_header``: the same by meaning, when no word names one."""

from __future__ import annotations

import pytest

from mnote_kr.plugin_api import meant_header, named_header

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


def test_meant_header_chooses_by_meaning_only_with_a_lead(monkeypatch: pytest.MonkeyPatch) -> None:
    """No word of "who wrote" names a header: the model means Author; no lead big enough, or no model, no
    choice."""
    from mnote_kr.citations.rank import meaning

    others = [h for h in BOOKS if h[0] != "Title"]  # the title named the row
    assert named_header("who wrote", others, inflected=True) is None
    assert meant_header("who wrote", others) == "E"
    assert meant_header("who wrote", others, margin=1.0) is None
    monkeypatch.setattr(meaning, "query_vector", lambda text: None)  # the model is not installed
    assert meant_header("who wrote", others) is None


def test_meant_header_chooses_no_column_a_question_asks_for_that_the_table_lacks() -> None:
    """Review of r13: "Maria Lopez email" over Department | Salary | Start date chose Salary (it led the next
    header by the margin); the best header is only the least far from "email". It must mean the question too
    (``MEANT_FLOOR``)."""
    staff = [("Department", "C"), ("Salary", "D"), ("Start date", "E")]
    assert meant_header("how much does earn", staff) == "D"
    assert meant_header("email", staff) is None
    assert meant_header("who wrote", [h for h in BOOKS if h[0] != "Title"], floor=1.0) is None


def test_one_header_is_chosen_only_when_the_question_means_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Review of r13: the only other header was returned unasked, model or no model ("Is Maria Lopez on
    holiday?" over Name | Phone: Phone, 'chosen by meaning'). One header still has to mean the question."""
    from mnote_kr.citations.rank import meaning

    assert meant_header("who wrote", [("Author", "E"), ("", "F")]) == "E"
    assert meant_header("is on holiday", [("Phone", "B")]) is None
    monkeypatch.setattr(meaning, "query_vector", lambda text: None)  # the model is not installed
    assert meant_header("who wrote", [("Author", "E"), ("", "F")]) is None


YEARS = [("2021", "A"), ("2022E", "B"), ("2023E", "C"), ("2024E", "D")]


def test_a_year_column_marked_estimated_is_named_by_its_year_and_no_other() -> None:
    """A broker's forecast table heads its columns "2024E" (estimated); the question says "2024年" (nc24a Q11)."""
    assert named_header("高测股份2024年营业收入预测是多少？", YEARS) == "D"
    assert named_header("revenue forecast for 2023", YEARS) == "C"
    assert named_header("revenue in 2021", YEARS) == "A"
    assert named_header("revenue in 20240", YEARS) is None  # no year of the table: a longer number
    assert named_header("每股收益 2025年", YEARS) is None


def test_a_chinese_header_touching_a_figure_is_named_as_a_whole() -> None:
    """Chinese sets no space between a word and a figure: "净利润率2024E" names 净利润率, the longer header, not
    净利润 inside it; a Latin header still needs its word's edge ("ion" is not named in "cation2")."""
    rows = [("净利润", 1), ("净利润率", 2)]
    assert named_header("净利润率2024E", rows) == 2
    assert named_header("每股净资产2023年预测", [("每股净资产", 7)]) == 7
    assert named_header("cation2", [("ion", 1)]) is None
