"""The line numbers down a page's margin: a court transcript's or pleading paper's "1" to "25" or "28".

Such a page numbers its rows in a column of its own, left (or right) of every line of text. PDFium reads each
number as a line, and the block of each row began with it, so a quote read "17 Angeles, Cal.; on behalf of
the Petitioner." and the row's number stood between two lines of one sentence. The numbers are furniture
(``layout.find_furniture``): never a place's text, never part of a block, left out of the compact text.

A column counts when at least ``MIN_NUMBERS`` lines each hold one number alone, every one of them
clear of the rest of the page's text on one side (a table's row numbers stand inside the page's text,
beside the rows they number), their edges on that side aligned, and the numbers run up by one from the
top down.
"""

from __future__ import annotations

from collections.abc import Sequence

Box = tuple[float, float, float, float]

MIN_NUMBERS = 10  # a transcript page numbers 25 rows, pleading paper 28
_ALIGN = 3.0  # points: the numbers' outer edges line up within this


def margin_numbers(boxes: Sequence[Box], texts: Sequence[str]) -> set[int]:
    """The indices of the lines that number the page's rows down one of its margins (module docstring)."""
    numbers = [li for li, t in enumerate(texts) if t.strip().isdigit() and len(t.strip()) <= 4]
    if len(numbers) < MIN_NUMBERS:
        return set()
    alone = set(numbers)
    others = [boxes[li] for li in range(len(boxes)) if li not in alone and texts[li].strip()]
    found: set[int] = set()
    for left in (True, False):  # a reviewed paper's numbers may run down both margins
        if left:
            edge = min((b[0] for b in others), default=float("inf"))
            column = [li for li in numbers if boxes[li][2] <= edge]
        else:
            edge = max((b[2] for b in others), default=float("-inf"))
            column = [li for li in numbers if boxes[li][0] >= edge]
        if len(column) < MIN_NUMBERS:
            continue
        outer = [boxes[li][0] if not left else boxes[li][2] for li in column]
        # right-aligned on the left ("9", "10"), so their right edges meet; left-aligned on the right
        if max(outer) - min(outer) > _ALIGN:
            continue
        column.sort(key=lambda li: boxes[li][1])
        values = [int(texts[li].strip()) for li in column]
        if all(b == a + 1 for a, b in zip(values, values[1:], strict=False)):
            found.update(column)
    return found
