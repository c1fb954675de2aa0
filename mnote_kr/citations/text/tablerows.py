"""A table row as people read it: its label, then each value under its header.

Shared by the readers of tables (a workbook's regions, a slide's tables) so a row reads the same in
every format: ``header_row`` finds the header of a table's rows, ``labelled_row`` writes a row as
``label: header: value; header: value`` ("Revenue: 2022: 3,900; 2023: 4,100"), or one value as
``label, header: value`` ("Revenue, 2023: 4,100"). A blank cell is no part of it, so every value
written stands beside its own header, whatever is blank around it.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["header_row", "is_header", "is_number", "labelled_row"]


def is_number(text: str) -> bool:
    """Whether the cell's text is a number (``4,100`` too)."""
    try:
        float(text.replace(",", ""))
    except ValueError:
        return False
    return True


def is_header(head: Sequence[str], below: Sequence[str]) -> bool:
    """Whether ``head`` (a row's non-blank texts) heads the row ``below`` it: all text; or, over a column
    of labels, a label's header and years ("Line item | 2022 | 2023")."""
    if not any(is_number(t) for t in head):
        return True
    first, rest = head[0], head[1:]
    return (bool(below) and not is_number(first) and not is_number(below[0])
            and all(not is_number(t) or (t.isdigit() and 1000 <= int(t) <= 2999) for t in rest))


def header_row(rows: Sequence[Sequence[str]]) -> int | None:
    """The index of the header among a table's rows (each its non-blank texts, in order), or None: the
    first row of two texts or more (single texts above it are the table's title), with a row below it
    that it heads (``is_header``)."""
    at = next((i for i, row in enumerate(rows) if len(row) > 1), None)
    if at is None or at == len(rows) - 1 or not is_header(rows[at], rows[at + 1]):
        return None
    return at


def labelled_row(label: str | None, parts: Sequence[tuple[str, str]]) -> str:
    """A row's values as people read them, each ``(header, value)`` as ``header: value`` (a value alone
    when its header is blank): ``label: 2022: 3,900; 2023: 4,100``; one value with a label reads
    ``label, 2023: 4,100``."""
    said = [f"{header}: {value}" if header else value for header, value in parts]
    if len(said) == 1 and label:
        return f"{label}, {said[0]}"
    return f"{label}: " + "; ".join(said) if label else "; ".join(said)
