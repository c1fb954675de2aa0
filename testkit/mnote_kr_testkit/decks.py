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


def add_table(slide: Any, rows: list[list[str]], merges: tuple[tuple[int, int, int, int], ...] = ()) -> Any:
    """A table on ``slide`` holding ``rows`` ("" for a blank cell), each ``(row, col, last row, last col)``
    of ``merges`` merged as PowerPoint merges cells (gridSpan/rowSpan over hMerge/vMerge cells; the text
    is the first cell's). Returns the table's graphic frame."""
    from pptx.util import Inches

    frame = slide.shapes.add_table(len(rows), max(len(r) for r in rows), Inches(0.5), Inches(1.5), Inches(9),
                                   Inches(0.4 * len(rows)))
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            frame.table.cell(r, c).text = text
    for r0, c0, r1, c1 in merges:
        frame.table.cell(r0, c0).merge(frame.table.cell(r1, c1))
    return frame
