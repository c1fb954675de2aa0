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
    ("github, jan. 2016", "january"), ("github, nov. 2015", "november"), ("distrib. | pre-treatment", "distribution"),
    ("doc. | 144564", "documents"), ("ref. 12", "reference"), ("fig. 3", "figure"), ("feb. 2016", "february"),
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
    # A conventional abbreviation is cut after a consonant, before a vowel (temp|erature, max|imum): "temp."
    # is no "template" (temp|late), "bank." no "bankruptcy", "run." no "runtime", "table." no "tableformer".
    ("ambient temp. | ºc", "template"), ("have cleared the bank. 11 u.s.c.", "bankruptcy"),
    ("the term of the plan begins to run. 11 u.s.c.", "runtime"), ("presented in table. 2.", "tableformer"),
    # A whole word and an ending of its own is that word inflected, not shortened: "process." is no "processing".
    ("an open hiring process. 2", "processing"), ("the payment of interest. 11 u.s.c.", "interesting"),
    ("instructions on that form. 2", "formally"), ("act. 2", "active"), ("are met. 2", "meter"),
    ("doug.rudolph@faa.gov. 2", "government"),  # a host name's last part, not a word written short
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
    assert not template.hits(normalize("Temp folder | C:\\tmp")) and not template.hits(normalize("Ambient temp. | x"))


def test_the_evidence_window_finds_the_abbreviated_word() -> None:
    text = "HIGH VOLTAGE SWITCHBOARD\nAmbient temp.\t\tºC\t:\tMin. -5, max. +40"
    hits = find_terms(text, "ambient temperature range for the switchboard")
    assert {i for _, i in hits} == {0, 1, 3}, hits  # ambient, temperature (as "temp."), switchboard
    assert not find_terms("Temp folder\tC:\\tmp", "template")


def test_which_template_does_not_land_on_the_ambient_temperature_row() -> None:
    """"Which template is used?" had gone to a row "Ambient temp." (the r19 brief): a word sharing the
    abbreviation's first letters is not the word it stands for."""
    qt = QueryTerms("which template is used", {"template": 1}, 10)
    assert qt.score(normalize("Ambient temp. | ºC | : | Min. -5, max. +40")) == 0
    assert not find_terms("Ambient temp.\tºC\tMin. -5", "which template is used")
    assert find_terms("Ambient temp.\tºC\tMin. -5", "ambient temperature")  # its own word still meets it
