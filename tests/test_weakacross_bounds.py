"""``weakacross``'s two thresholds at their boundaries (review30 finding 9: ``STANDS_OUT`` was pinned only by P8's own
margin, ``APART`` not at all). ``benchmarks/weak_variants.py --stands-out`` replays other settings on a floor dump."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from mnote_kr.citations.render import weakacross
from mnote_kr.citations.text.scripts import script_share

KOREAN = "빅포인트의 유효기간은 5년으로 한다"
ENGLISH = "The points expire after five years"


def _places(first: float, english: float) -> list[Any]:
    """A Korean first place at cosine ``first``, then two English places, the nearer at ``english``."""
    return [SimpleNamespace(text=KOREAN, locator=SimpleNamespace(meaning_score=first)),
            SimpleNamespace(text=ENGLISH, locator=SimpleNamespace(meaning_score=english)),
            SimpleNamespace(text=ENGLISH + " in full", locator=SimpleNamespace(meaning_score=english - 0.1))]


def _stands_out(first: float, english: float) -> bool:
    return weakacross.stands_out("How long are the points valid?", _places(first, english), lambda c: c.text)


@pytest.mark.parametrize(("lead", "out"), [(-0.01, False), (-0.001, False), (0.001, True), (0.03, True)])
def test_a_first_place_in_another_script_stands_out_from_the_stands_out_margin(lead: float, out: bool) -> None:
    margin = weakacross.STANDS_OUT
    assert margin is not None
    assert _stands_out(0.60 + margin + lead, 0.60) is out


def test_nothing_stands_out_without_a_place_in_the_querys_script_or_with_the_rule_off(
        monkeypatch: pytest.MonkeyPatch) -> None:
    lone = _places(0.9, 0.1)[:1]
    assert not weakacross.stands_out("How long are the points valid?", lone, lambda c: c.text)
    monkeypatch.setattr(weakacross, "STANDS_OUT", None)
    assert not _stands_out(0.9, 0.1)


@pytest.mark.parametrize(("text", "apart"), [
    ("points 빅포인트의", True),  # half the units Latin: APART (0.5) is at most, apart
    ("points expire 빅포인트의", False),  # two thirds Latin
    ("빅포인트의 유효기간은", True),
    ("12 34", False),  # no letters: no script to be apart in
])
def test_a_text_is_apart_from_a_latin_query_at_half_its_units_or_fewer(text: str, apart: bool) -> None:
    assert weakacross.apart("latin", text) is apart
    if any(ch.isalpha() for ch in text):
        assert (script_share(text, "latin") <= weakacross.APART) is apart
