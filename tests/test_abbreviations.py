"""A word written short with its full stop ("temp.", "max.", "qty.", "no.") meets the query word it stands for,
in the host's shared term matching: the query terms locators score (``QueryTerms``), and the terms the
evidence window centres on (``ranking.find_terms``). Without the full stop, or as a sentence's last word, a
short word stays itself: "temp" is no "template" (nc18b problem 2)."""

from __future__ import annotations

import pytest

from mnote_kr.citations.rank.ranking import find_terms
from mnote_kr.citations.text.abbrev import abbreviated_at
from mnote_kr.citations.text.queryterms import QueryTerms
from mnote_kr.citations.text.textnorm import normalize


@pytest.mark.parametrize(("text", "word"), [
    ("ambient temp.\t\tºc\t:\tmin. -5", "temperature"), ("ambient temp. | ºc", "temperature"),
    ("min. -5, max. +40", "maximum"), ("package no.: 13156456", "number"), ("qty. | 12", "quantity"),
    ("approx. 3 kg", "approximately"), ("ambient temp.", "temperature"),
])
def test_an_abbreviation_with_its_full_stop_meets_its_word(text: str, word: str) -> None:
    assert abbreviated_at(text, word), (text, word)


@pytest.mark.parametrize(("text", "word"), [
    ("temp folder | c:\\tmp", "template"),  # no full stop
    ("the values were stored in the system. the next one", "systematic"),  # a sentence's last word
    ("we kept the results of this study in the shared data.", "database"),  # a long line's last word
    ("temp. | ºc", "tempo"),  # the word is not longer by two letters: an inflection is the stemmer's
    ("e.g. the max", "eggs"),
    ("ambient te. | ºc", "temperature"),  # two letters are no beginning of a word
])
def test_no_abbreviation_where_a_short_word_stays_itself(text: str, word: str) -> None:
    assert not abbreviated_at(text, word), (text, word)


def test_query_terms_meet_the_abbreviated_word_but_weigh_it_less_than_the_word() -> None:
    qt = QueryTerms("what is the ambient temperature", {"ambient": 1, "temperature": 1}, 10)
    short = qt.score(normalize("Ambient temp. | ºC | : | Min. -5, max. +40"))
    ambient_only = qt.score(normalize("Ambient light | lx | : | 300"))
    written = qt.score(normalize("Ambient temperature | ºC | : | Min. -5, max. +40"))
    assert ambient_only < short < written, (ambient_only, short, written)
    template = QueryTerms("which template", {"template": 1}, 10)
    assert not template.hits(normalize("Temp folder | C:\\tmp")) and template.hits(normalize("temp. | x"))


def test_the_evidence_window_finds_the_abbreviated_word() -> None:
    text = "HIGH VOLTAGE SWITCHBOARD\nAmbient temp.\t\tºC\t:\tMin. -5, max. +40"
    hits = find_terms(text, "ambient temperature range for the switchboard")
    assert {i for _, i in hits} == {0, 1, 3}, hits  # ambient, temperature (as "temp."), switchboard
    assert not find_terms("Temp folder\tC:\\tmp", "template")
