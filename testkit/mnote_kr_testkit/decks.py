"""PowerPoint decks the tests build with python-pptx: a harbour board's review, whose second slide each
test fills with what it checks (a text box, speaker notes, a chart)."""

from __future__ import annotations

from typing import Any


def harbour_deck(board: str, second_title: str) -> tuple[Any, Any]:
    """A presentation of two slides: a title slide ('Harbour operations review', prepared for the ``board``
    port board), then a title-only slide titled ``second_title``. Returns (presentation, second slide)."""
    from pptx import Presentation

    prs = Presentation()
    first = prs.slides.add_slide(prs.slide_layouts[0])
    first.shapes.title.text = "Harbour operations review"
    first.placeholders[1].text = f"Prepared for the {board} port board"
    second = prs.slides.add_slide(prs.slide_layouts[5])  # title only
    second.shapes.title.text = second_title
    return prs, second
