"""Human source cards: the quote excerpt starts and ends on whole words."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from mnote_kr.citations.render.cards import _excerpt

TEXT = ("The concept of the word processor predates modern computers. Pre-Digital Era (19th - Early 20th "
        "Century) The origins of word processing can be traced back to the invention of the typewriter in the "
        "mid-19th century. Patented in 1868 by Christopher Latham Sholes, the typewriter revolutionized written "
        "communication by enabling people to produce legible documents quickly and more.")


def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z0-9]+", text))


def test_excerpt_keeps_the_query_and_cuts_no_word_in_half() -> None:
    out = _excerpt(TEXT, "who patented the typewriter")
    assert "Patented in 1868" in out and out.startswith("...") and out.endswith("...")
    assert _words(out.strip(".")) <= _words(TEXT)  # every word of the excerpt is a whole word of the text


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=len(TEXT) - 1))
def test_excerpt_words_are_whole_words_wherever_the_query_sits(i: int) -> None:
    word = re.findall(r"[A-Za-z]{4,}", TEXT[i:] + " Sholes")[0]
    out = _excerpt(TEXT, word, width=120)
    assert word.casefold() in out.casefold()
    assert _words(out.strip(".")) <= _words(TEXT)


def test_excerpt_does_not_start_on_the_punctuation_of_the_word_before() -> None:
    # mineru__demo1.pdf: the excerpt window opened just after "Eq" and the card read ".... (2), using"
    text = ("x" * 40 + " the impact of Eq. (2), using an inverse sigmoidal function was employed to assess the "
            "impact of afforestation on the number of zero flow days per year" + " and more words" * 30)
    cut, query_at = text.index(". (2)"), text.index("afforestation")
    out = _excerpt(text, "afforestation", width=3 * (query_at - cut))  # the window opens on ". (2)"
    assert out.startswith("...") and not out[3:].lstrip().startswith((".", ",")), out
