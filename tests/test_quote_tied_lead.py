"""A quote starts at the sentence holding the query's words, not at its neighbour meaning preferred.

A newcomer (nc25a, Q3) asked "Who wrote the chatbot that answered like a psychologist in the 1960s?";
the exact box on page 4 of pdfplumber's issue-982 paper held the answer, and ``open`` quoted "This program
had a set of patterns ... in a psychologists fashion. ...", leaving out the sentence before it, "ELIZA, a
bot created by Joseph Weizenbaum in the 1960s", which holds the query's 1960s. Both sentences hold as
many of the query's words (one term each); e5 put the second nearer the question, and the quote started
there. Now the earlier sentence holding as many leads while the two fit in the quote.
"""

from __future__ import annotations

import pytest

from mnote_kr.citations.cleaning.quote import QUOTE_CHARS, answer_quote
from mnote_kr.citations.rank import meaning

QUERY = "Who wrote the chatbot that answered like a psychologist in the 1960s?"
# the passage as the text layer of tests/data/corpus/pdf/pdfplumber__issue-982-example.pdf reads it (p. 4)
PASSAGE = ("participate in the conversation, which is usually not the case.\n"
           "One of the earliest programs in this category is ELIZA, a bot\n"
           "created by Joseph Weizenbaum in the 1960s [Wei76]. This\n"
           "program had a set of patterns implemented to which it would\n"
           "reply in a seemingly smart way in a psychologists fashion.\n"
           "This means quite often the program would simply repeat the\n"
           "last sentence and add something meaningless like “How do\n"
           "you feel about it?”.")


def test_the_quote_keeps_the_earlier_sentence_holding_as_many_query_words_with_real_e5(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(meaning, "_some_vectors", lambda: True)  # as in a workspace whose files have vectors
    cosines = meaning.sentence_cosines(["participate in the conversation.", "ELIZA, a bot created in the 1960s.",
                                        "It replied in a psychologists fashion."], QUERY)
    assert cosines is not None  # the real e5 answers
    quote = answer_quote(PASSAGE, QUERY, by_meaning=lambda texts: meaning.sentence_cosines(texts, QUERY))
    assert quote.startswith("One of the earliest programs in this category is ELIZA"), quote
    assert "Joseph Weizenbaum in the 1960s" in quote and "psychologists fashion" in quote


def test_an_earlier_tied_sentence_that_does_not_fit_does_not_lead() -> None:
    far = ("The first bot in this list was written long ago in the 1960s by a lab whose name nobody recalls "
           "today, and " + "its story goes on and on for a long while " * 6 + "without end.")
    text = PASSAGE.replace("ELIZA, a bot", "ELIZA. " + far + " Another bot")
    chosen = "This\nprogram had a set of patterns"

    def prefer_the_psychologist(texts: list[str]) -> list[float]:
        return [1.0 if "psychologists" in t else 0.0 for t in texts]

    quote = answer_quote(text, QUERY, by_meaning=prefer_the_psychologist)
    assert quote.startswith(chosen) and len(quote) <= QUOTE_CHARS * 1.5, quote  # the fitting rule: best leads
