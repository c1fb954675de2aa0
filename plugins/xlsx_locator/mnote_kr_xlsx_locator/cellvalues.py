"""The dates and numbers a question names, held by a row's cells as values.

"Widget C 在2024年1月7日的收入是多少？" names the row holding Widget C and the date 2024-01-07, which the
workbook's cell reads as ``2024-01-07 00:00:00``: no token of the one is a token of the other, so by words
every Widget C row held the question alike, and the date's "7" met a quantity of 7 in another row. A date
is a value: the question's dates (the host's ``value_mentions``: 2024年1月7日, Jan 7 2024, 7 January 2024,
2024/1/7, 1/7/2024) are compared with each cell's (``same_value``), never as words (``words_of``: the
question without them). A number is a value too: one written with a separator or a decimal part (12,155 is
the cell's 12155, not the words "12" and "155"; 3.0 is its 3) is compared as a value only, like a date; a
plain digit run ("15000", "7") stays a word, as the cell's own text writes it, and counts as a value too
when a cell holds it written otherwise (``counted``).

An ambiguous date (``1/7/2024``: 7 January or 1 July) counts for either reading only among rows holding
one of them: when the rows compared hold both readings, it tells them apart no better than anything else
and counts for none (``decisive``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from mnote_kr.plugin_api import ValueMention, iter_tokens, normalize, same_value, value_mentions, without_dates

from .reader import RowParagraph


def as_value(m: ValueMention) -> bool:
    """Whether the mention is compared as a value only, never as words: a date, a number written with a
    separator or a decimal part."""
    return bool(m.dates) or "," in m.text or "." in m.text


def words_of(query: str) -> str:
    """The query with its dates and its numbers written with separators blanked (``as_value``): its words."""
    said = list(without_dates(query))
    for m in value_mentions(query):
        if as_value(m):
            said[m.start:m.end] = " " * (m.end - m.start)
    return "".join(said)


def asked_values(query: str) -> tuple[ValueMention, ...]:
    """The dates and numbers the query names, one of each value (a date said twice is one item)."""
    out: list[ValueMention] = []
    for m in value_mentions(query):
        if not any(same_value(m, o) and m.dates == o.dates for o in out):
            out.append(m)
    return tuple(out)


def _tokens(text: str) -> set[str]:
    return {tok for tok, _, _ in iter_tokens(normalize(text))}


def cell_holds(text: str, asked: ValueMention) -> bool:
    """Whether the cell's text holds the value ``asked`` names (a date written any way; a number)."""
    return any(same_value(asked, m) for m in value_mentions(text))


def counted(text: str, asked: ValueMention) -> bool:
    """Whether ``asked`` counts as an item the cell holds: a value compared as one (``as_value``), or a plain
    number unless the cell holds its digits as written (then they count as a word already, never twice)."""
    if not cell_holds(text, asked):
        return False
    return as_value(asked) or not _tokens(asked.text) <= _tokens(text)


def decisive(asked: Sequence[ValueMention], rows: Iterable[RowParagraph]) -> tuple[ValueMention, ...]:
    """The values of ``asked`` that can choose among ``rows``: an ambiguous date (two readings) only when the
    rows' cells hold at most one of its readings."""
    ambiguous = [m for m in asked if len(m.dates) > 1]
    if not ambiguous:
        return tuple(asked)
    texts = [text for row in rows for _, text in row.cells]

    def readings_held(m: ValueMention) -> int:
        return sum(any(cell_holds(t, dataclasses.replace(m, dates=frozenset({r}))) for t in texts) for r in m.dates)

    return tuple(m for m in asked if len(m.dates) < 2 or readings_held(m) < 2)


def held_by(row: RowParagraph, asked: Sequence[ValueMention], columns: Iterable[int] | None = None) -> int:
    """How many of the ``asked`` values the row's cells (those of ``columns``, else all) hold (``counted``)."""
    cols = None if columns is None else set(columns)
    texts = [text for col, text in row.cells if cols is None or col in cols]
    return sum(any(counted(t, m) for t in texts) for m in asked)


def verbatim(row: RowParagraph, asked: Sequence[ValueMention]) -> int:
    """How many of the ``asked`` values compared as values (``as_value``) a cell of the row holds written as the
    query writes them."""
    texts = [normalize(text) for _, text in row.cells]
    return sum(any(m.text in t for t in texts) for m in asked if as_value(m))


def another_day(row: RowParagraph, asked: Sequence[ValueMention]) -> ValueMention | None:
    """The date the query asks about when ``row`` holds a date of its own and none of the query's (any
    reading of an ambiguous one): the row is about another day, not the answer's place; else None."""
    dates = [m for m in asked if m.dates]
    texts = [text for _, text in row.cells]
    if row.comment or not dates or any(cell_holds(t, m) for t in texts for m in dates):
        return None
    return dates[0] if any(v.dates for t in texts for v in value_mentions(t)) else None
