"""A quote's answering sentence is found through the inflections of the question's words: a plural of a
word ending in "e" ("Trustees", "cases") meets its singular, and a four-letter plural ("pays", "fees") its
stem (``cleaning.quote._held``)."""

from __future__ import annotations

import pytest

from mnote_kr.citations.cleaning.quote import _held, answer_quote

# unstructured__handbook-872p.docx, paragraph 8071 (and its copies 3965, 6018): nc16a X9 quoted its last
# sentence, the one holding "trustee", while the second answers who pays for the annual audit.
AUDIT = ("Audits firms are usually selected by a panel consisting of the Assistant Director for Oversight in the "
         "EOUST and one or more United States Trustees.  The expense of the annual audit is paid from chapter 13 "
         "expense funds unless the Director determines that, because of unique circumstances, the Program will pay "
         "for the audit. The United States Trustee may approve the use of expense funds by the standing trustee to "
         "defend an action brought by an auditor when the United States Trustee has decided to terminate an audit "
         "services agreement. ")


def test_the_sentence_saying_who_pays_leads_the_quote() -> None:
    quote = answer_quote(AUDIT, "Who pays for the yearly outside examination of the trustee's books?")
    assert quote.startswith("The expense of the annual audit is paid from chapter 13 expense funds"), quote


@pytest.mark.parametrize(("query", "sentence"), [
    ("trustees", "The United States Trustee may approve it."),
    ("which states", "Each state is heard."),
    ("who pays", "The Program will pay for it."),
    ("what fees", "The fee is due."),
])
def test_an_inflection_of_a_query_word_is_held(query: str, sentence: str) -> None:
    assert _held([sentence, "Nothing here."], query)[0] > 0


def test_words_that_only_look_alike_stay_apart() -> None:
    assert _held(["The loss was small.", "Nothing here."], "los")[0] == 0  # "loss" keeps its double s
    assert _held(["A bus stopped.", "Nothing here."], "bu")[0] == 0
