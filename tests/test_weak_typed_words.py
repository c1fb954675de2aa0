"""A weak note names the query's words as the user typed them, not the stems the rule compares (nc28c surprise 4:
"(advanc, analysi, carry, kind, programmer)" for "What kinds of advanced analysis can programmers carry out with R
and Python?", and "diamond, huguan is in no file"). Replayed on the recorded search of test_weak_other_script."""

from __future__ import annotations

from mnote_kr.citations.rank.ranking import terms
from mnote_kr.citations.render.noresults import content_words, weak_reason
from mnote_kr.citations.render.typedwords import as_typed
from tests.test_weak_other_script import LIBRARY, RECORDED, RUSSIAN, cards

A2 = "What kinds of advanced analysis can programmers carry out with R and Python?"


def test_the_stems_of_a_question_read_back_as_its_words() -> None:
    stems = sorted(set(terms(A2)))
    assert "advanc" in stems and "analysi" in stems  # what the rule compares
    assert sorted(as_typed(stems, A2)) == ["Python", "advanced", "analysis", "carry", "kinds", "out",
                                   "programmers"]


def test_typed_words_keep_the_users_case_and_cjk_terms_as_they_are() -> None:
    query = "How much diamond wire capacity does the Huguan project plan? 金刚线"
    assert as_typed(["huguan", "diamond", "金刚", "unknown"], query) == ["Huguan", "diamond", "金刚", "unknown"]
    assert as_typed(sorted(content_words("Which R&D costs rose?")), "Which R&D costs rose?") == ["costs", "R&D", "rose"]


def test_the_across_script_note_names_the_words_typed() -> None:
    reason = weak_reason(cards(), RECORDED["q"], lambda: LIBRARY)
    assert reason is not None and RUSSIAN in reason
    assert "(days, signing, work)" in reason, reason


def test_words_in_no_file_are_named_as_typed_with_the_verb_agreeing() -> None:
    first = RECORDED["places"][0]["meaning"]
    nearly = [p | {"meaning": first - 0.02} if p["path"] == RUSSIAN else p for p in RECORDED["places"]]
    query = RECORDED["q"].replace("signing", "notarising")
    reason = weak_reason(cards(nearly), query, lambda: LIBRARY)
    assert reason is not None and RUSSIAN in reason
    assert "'finished' and 'notarising' are in no file of this library" in reason, reason
    assert "notaris," not in reason and "finish," not in reason
