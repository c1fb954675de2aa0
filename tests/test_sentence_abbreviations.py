"""One list of the words whose full stop does not end a sentence, read by both sentence cutters: the quote's
(:mod:`mnote_kr.citations.cleaning.sentences`) and the viewer's highlight (:mod:`mnote_kr.viewer.marking`).

Each used to keep its own list ("viz." ended a quote's sentence but not the viewer's, "inc." the viewer's but not
the quote's). The words below are the union of the two old lists, written out here (not read from the code):
every one of them, before a number, goes on with its sentence in both cutters."""

from __future__ import annotations

import pytest

from mnote_kr.citations.cleaning.sentences import sentences
from mnote_kr.viewer.marking import sentence_span

#: The quote cutter's old list, then the viewer's two (never an end; an end unless a number follows).
OLD_QUOTE = "e.g i.e etc al fig figs no nos dr mr mrs ms prof st vs cf eq eqs vol pp ed eds inc ltd co jr sr approx"
OLD_VIEWER = ("e.g i.e cf vs viz al approx ca resp incl esp mr mrs ms dr prof st jr sr "
              "fig figs no nos eq eqs vol p pp sec ch art tab ref refs")
UNION = sorted(set(OLD_QUOTE.split()) | set(OLD_VIEWER.split()))


@pytest.mark.parametrize("word", UNION)
def test_an_abbreviation_of_either_old_list_ends_no_sentence_in_either_cutter(word: str) -> None:
    text = f"The values are given in the table (see {word}. 12 for details) below. Other text follows here."
    first = text.index(" Other")
    # the quote's sentences: the first runs past the abbreviation to "below."
    spans = sentences(text)
    assert spans[0] == (0, first), (word, [text[a:b] for a, b in spans])
    # the viewer's: a highlight on "details" widens to the same whole sentence
    at = text.index("details")
    assert sentence_span(text, at, at + len("details")) == (0, first), word


def test_a_full_stop_after_a_plain_word_still_ends_the_sentence_in_both() -> None:
    text = "The values are given in the table. 12 rows follow here."
    end = text.index(" 12")
    assert sentences(text)[0] == (0, end)
    assert sentence_span(text, 4, 10) == (0, end)
