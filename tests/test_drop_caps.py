"""A drop cap read apart from its word: the AMT handbook sample's "The Boots self-locking nut" begins with a
large "T" that LightRAG's PDF reader (pypdf) gives as a line of its own, ``T\\nhe Boots``, and a newcomer was
quoted "T he Boots self-locking nut" (nc16a O4). A lone capital at a line start is joined to the word that
follows when the joined word is a word of the same text or a common word; "A the" stays as written."""

from __future__ import annotations

import pypdf
from mnote_kr_testkit.data import CORPUS

from mnote_kr.citations.cleaning import display_text
from mnote_kr.citations.cleaning.copyable import copyable, join_drop_caps

HANDBOOK = CORPUS / "pdf" / "docling__amt_handbook_sample.pdf"


def test_the_handbooks_drop_cap_is_joined_in_the_quote() -> None:
    text = pypdf.PdfReader(str(HANDBOOK)).pages[0].extract_text()
    assert "\nT\nhe Boots self-locking nut" in text  # the chunk's text as LightRAG's reader gives it
    at = text.index("Boots Self-Locking Nut")
    chunk = text[at:at + 400]
    shown = display_text(chunk, "Which self-locking nut is designed to hold tight despite severe vibration?")
    assert "The Boots self-locking nut is of one piece" in shown and "T he" not in shown, shown
    assert "The Boots self-locking nut" in copyable(chunk)


def test_a_lone_capital_joins_only_into_a_real_word() -> None:
    assert join_drop_caps("Intro\nI\nn the first place") == "Intro\nIn the first place"  # a common word
    assert join_drop_caps("W\nrenches vary. A wrenches table.") == "Wrenches vary. A wrenches table."  # its text's
    assert join_drop_caps("A\nthe end") == "A\nthe end"  # "Athe" is no word
    assert join_drop_caps("Grade\nA\nthe best") == "Grade\nA\nthe best"
    assert join_drop_caps("I\nam here") == "I\nam here"  # "Iam" is no word
    assert join_drop_caps("see T\nhe said") == "see T\nhe said"  # not at a line start
    assert join_drop_caps("x\nhe said") == "x\nhe said"  # not a capital
