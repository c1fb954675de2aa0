"""The weak flag when the only words of the query the passages found hold say nothing of what it asks
(``noresults._saying_nothing``): common English words ("back", "best", "time"), or one word of a Chinese query
whose first place is not close in meaning. Eighteenth round (docs/embeddings.md)."""

from __future__ import annotations

import msgspec

from mnote_kr.citations.render.noresults import COMMON_WORDS, weak_reason
from mnote_kr.models import Citation
from tests.test_weak_variants import place


def near(quote: str, meaning: float | None, name: str = "kb/notes.docx", **parts: float) -> Citation:
    c = place("m1", quote, name, **parts)
    return msgspec.structs.replace(c, locator=msgspec.structs.replace(c.locator, meaning_score=meaning))


BACK = place("e1", "Go back to the first page and sign it.", lexical=0.2)
TIME = place("e2", "The hearing took some time; the court adjourned.", lexical=0.2)
TYPEWRITER = place("e3", "Sholes patented the typewriter in 1868; the machine sold slowly.", lexical=1.0)


def test_an_off_topic_query_sharing_one_common_word_is_weak() -> None:
    reason = weak_reason([BACK], "best exercises for lower back pain")
    assert reason is not None and "common words of the query (back)" in reason
    assert "nothing in your files clearly answers it" in reason
    tulips = weak_reason([TIME, BACK], "when is the best time to plant tulip bulbs")
    assert tulips is not None and "(back" not in tulips and "time" in tulips
    assert {"time", "best", "back", "top"} <= COMMON_WORDS


def test_a_real_hit_sharing_a_rare_word_is_not_weak_even_beside_a_common_one() -> None:
    assert weak_reason([TYPEWRITER], "who invented the typewriter") is None
    assert weak_reason([TYPEWRITER, TIME], "what time was the typewriter machine patented") is None
    assert weak_reason([TYPEWRITER], "typewriter machine sales") is None  # two rare words


def test_a_verbatim_phrase_or_a_named_file_clears_common_words_too() -> None:
    assert weak_reason([place("e4", "Go back.", "kb/back.docx", lexical=0.2, fileName=1.0)], "back") is None
    assert weak_reason([place("e5", "best of all", lexical=0.2, phrase=0.5)], "best of all") is None


def test_a_chinese_query_sharing_one_word_far_in_meaning_is_weak() -> None:
    query = "足球比赛越位规则是什么"
    far = near("规则由委员会制定。", 0.66, lexical=0.2)
    reason = weak_reason([far], query)
    assert reason is not None and "(规则)" in reason and "not close to the query in meaning" in reason
    assert weak_reason([near("规则由委员会制定。", 0.74, lexical=0.2)], query) is None  # close in meaning
    assert weak_reason([near("规则由委员会制定。", None, lexical=0.2)], query) is None  # no cosine: not judged
    assert weak_reason([near("比赛规则由委员会制定。", 0.66, lexical=0.2)], query) is None  # two of its words
    # an English query sharing one rare word is not judged by meaning
    assert weak_reason([near("The offside rule applies.", 0.55, lexical=0.2)], "football offside explained") is None
