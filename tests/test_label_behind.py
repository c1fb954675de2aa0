"""A short label chosen by meaning goes behind a line holding the question's words (``placing._label_behind``), and a
label is one thing to placing and folding (``text.labels.is_label``; review r28 finding 1).

The label's words are counted CJK-aware: "本机所用电池应在…" is a sentence, not one "word" a share of the query's
words pushes behind; and a label much nearer the question by meaning than the line keeps the lead.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from mnote_kr.citations.locate import placing
from mnote_kr.citations.locate.textdoc import TextDocument, TextParagraph
from mnote_kr.citations.render import folding

CHINESE = "本机所用电池应在零下二十度至四十五度之间保管，避免阳光直射，长期不用时每三个月充电一次。"
ENGLISH = "Store the battery of this unit between minus twenty and forty-five degrees, out of direct sunlight."
OTHER = "The charger holds the battery while charging and its lamp shows the charge."


def _doc(*texts: str) -> TextDocument:
    return TextDocument([TextParagraph(index=i, text=t) for i, t in enumerate(texts)])


@pytest.mark.parametrize("first", [CHINESE, ENGLISH])
def test_a_sentence_holding_few_query_words_is_no_label(first: str) -> None:
    # the first paragraph (by meaning) holds one of the query's bigrams; the second a half of its words
    assert placing._label_behind(_doc(first, OTHER), [0, 1], {0: 0.1, 1: 0.5}) == [0, 1]


def test_a_short_label_goes_behind_the_line_holding_the_words() -> None:
    doc = _doc("Замок электромагнитный", "Усилие удержания: 400 кг.")
    assert placing._label_behind(doc, [0, 1], {0: 0.1, 1: 0.5}, {0: 0.72, 1: 0.60}) == [1, 0]


def test_a_label_much_nearer_by_meaning_keeps_the_lead() -> None:
    doc = _doc("Замок электромагнитный", "Усилие удержания: 400 кг.")
    assert placing._label_behind(doc, [0, 1], {0: 0.1, 1: 0.5}, {0: 0.9, 1: 0.1}) == [0, 1]


def _cit(text: str) -> SimpleNamespace:  # what folding reads of a citation: its quote and its locator's words
    return SimpleNamespace(display_quote=text, locator=SimpleNamespace(place_text=None, quote=None))


@pytest.mark.parametrize(("text", "label"), [
    ("Замок электромагнитный", True), ("Visa number", True), ("图表 1", True), ("发票 1", True),
    ("联系人电话", True), (CHINESE, False), (ENGLISH, False), ("Усилие удержания: 400 кг.", False)])
def test_placing_and_folding_call_the_same_lines_labels(text: str, label: bool) -> None:
    from mnote_kr.citations.text.labels import is_label

    assert is_label(text) is label
    assert folding._is_label(_cit(text)) is label


@pytest.mark.parametrize(("gap", "lead"), [(0.14, 1), (0.16, 0)])
def test_a_label_goes_behind_up_to_label_nearer_by_meaning_and_keeps_the_lead_beyond(gap: float, lead: int) -> None:
    """Review r29 finding 8: the bound ``LABEL_NEARER`` (0.15) itself, not a gap of 0.8: a label 0.14 nearer the
    question than the line holding its words goes behind it, one 0.16 nearer keeps the lead."""
    doc = _doc("Замок электромагнитный", "Усилие удержания: 400 кг.")
    order = placing._label_behind(doc, [0, 1], {0: 0.1, 1: 0.5}, {0: 0.60 + gap, 1: 0.60})
    assert order[0] == lead


def _placed(text: str, cos: float) -> SimpleNamespace:
    return SimpleNamespace(display_quote=text, locator=SimpleNamespace(place_text=None, quote=None,
                                                                       meaning_score=cos))


@pytest.mark.parametrize("label", ["Electroencephalographic monitoring protocols", "Annual revenue recognition",
                                   "Accumulated depreciation", "Замок электромагнитный"])
def test_folding_drops_a_long_label_nearer_by_meaning_but_keeps_a_sentence_as_near(label: str) -> None:
    """Review r29 finding 7: a label of up to three words whatever its length (no 12-character cap since round 28,
    kept in round 29 by the tuning sets, ``folding.LABEL_CHARS``) holding none of the question's words is not shown
    behind the places holding some, however near by meaning; a sentence as near, in other words, is."""
    from mnote_kr.citations.text.queryterms import QueryTerms

    terms = QueryTerms("how often are brain signals recorded during the operation?", {}, 1)
    worded = _placed("Brain signals are recorded every five minutes during the operation.", 0.50)
    sentence = _placed("Electrodes on the scalp track its activity throughout, and a nurse reads them.", 0.70)
    kept = folding._worded_first([worded, _placed(label, 0.70), sentence], terms)  # type: ignore[list-item]
    assert [p.display_quote for p in kept] == [worded.display_quote, sentence.display_quote]
