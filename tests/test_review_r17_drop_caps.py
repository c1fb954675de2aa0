"""Review of round 17's drop-cap join (``copyable.join_drop_caps``): "A" and "I" are words.

The rule joins a capital at a line's start to the word after it, across a line break or one space, when the
joined word is common. After one space that is how English starts a sentence with the article: "A gain of 5%
was recorded" was quoted "Again of 5% was recorded", "A bout of flu" "About of flu". A drop cap read apart
on its own line (``T\\nhe``, ``I\\nn``) is still joined, and one that is no word alone (``T he``) after a space.
"""

from __future__ import annotations

from mnote_kr.citations.cleaning.copyable import copyable, join_drop_caps


def test_the_article_and_the_pronoun_before_a_word_are_not_joined() -> None:
    assert join_drop_caps("A gain of 5% was recorded.") == "A gain of 5% was recorded."
    assert join_drop_caps("Results\nA bout of flu kept him home.") == "Results\nA bout of flu kept him home."
    assert copyable("Outcomes\nA gain of 5% over 2019.") == "Outcomes\nA gain of 5% over 2019."


def test_a_drop_cap_read_apart_is_still_joined() -> None:
    assert join_drop_caps("T he Boots nut") == "The Boots nut"
    assert join_drop_caps("Intro\nI\nn the first place") == "Intro\nIn the first place"
    assert join_drop_caps("A\nfter the war") == "After the war"
