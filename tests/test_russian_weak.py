"""A Russian question the passage answers in other inflections is not called weak (review r28 finding 8).

The locator met "удержания" in "удержание" (``queryterms.stem``) while the weak rule (``ranking._stem``, the words the
library holds) did not: one answer could be placed exact and flagged "the library lacks" its words. One stem now.
"""

from __future__ import annotations

import pytest

from mnote_kr.citations.caches import libwords
from mnote_kr.citations.rank.ranking import _stem, terms
from mnote_kr.citations.render.weakmore import library_lacks
from mnote_kr.citations.text.queryterms import stem
from tests.test_weak_variants import place

QUESTION = "Какое усилие удержания у электромагнитного замка?"
PASSAGE = "Замок электромагнитный. Предназначен для запирания двери. Усилия удержание: 400 кг."


@pytest.mark.parametrize("word", ["удержания", "удержание", "электромагнитного", "электромагнитный", "замка", "замок"])
def test_the_locator_and_the_weak_rule_stem_a_russian_word_alike(word: str) -> None:
    assert _stem(word) == stem(word)


def test_a_russian_question_held_in_other_inflections_is_not_lacking() -> None:
    lib = libwords.LibraryWords()
    for i in range(3):
        lib.put(f"docs/{i}.md", "", [f"Отчёт номер {i}: договор поставки оборудования."])
    lib.put("docs/lock.docx", "", [PASSAGE])
    assert _stem("удержания") == _stem("удержание")
    assert "какое" not in terms(QUESTION)  # a question word, as the locator's terms have it
    held, absent = library_lacks([place("c1", PASSAGE, "docs/lock.docx", lexical=0.3)], QUESTION, lambda: lib)
    assert absent == [], (held, absent)
