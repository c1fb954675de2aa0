"""A compact, lossless form of a list of strings that count up: ``prefix + a zero-padded number``.

``["x-007", "x-008", "x-009"]`` is the run ``("x-", 7, 3, 3)``: prefix, first number, count
and width (the numbers are formatted ``f"{k:0{width}d}"``, so ``"x-999"`` is followed by
``"x-1000"``). :func:`run_of` returns the run a list is, or None when it is anything else (then
the list is kept as it is); :func:`expand` gives the list back. Nothing here knows who made the
strings: a run is found only by comparing the whole list with the run's expansion.
"""

from __future__ import annotations

import threading
from typing import Annotated

import msgspec

_DIGITS = "0123456789"
_SEP = "\0"
#: Limits a stored run must keep (checked when one is decoded: a damaged file cannot make a
#: reader build billions of strings), and so the ones :func:`run_of` returns.
MAX_WIDTH = 32
MAX_COUNT = 1 << 16
#: A stored run's prefix at most this long: with the count, what a few damaged bytes can make a
#: reader build is bounded (a longer prefix, or a longer list, is kept as the list it is).
MAX_PREFIX = 256
MAX_START = 1 << 62
#: Number strings are cut from a table per width (built as far as asked, at most this far, for
#: widths up to ``_TABLE_WIDTHS``: a few MB at most); others are formatted each time.
_TABLE_LIMIT = 1 << 14
_TABLE_WIDTHS = 8
_tables: dict[int, list[str]] = {}
_tables_lock = threading.Lock()


class IdRun(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """``[prefix, start, count, width]`` as stored (see the module docstring)."""

    prefix: Annotated[str, msgspec.Meta(max_length=MAX_PREFIX)]
    start: Annotated[int, msgspec.Meta(ge=0, le=MAX_START)]
    count: Annotated[int, msgspec.Meta(ge=1, le=MAX_COUNT)]
    width: Annotated[int, msgspec.Meta(ge=1, le=MAX_WIDTH)]


def _numbers(width: int, start: int, stop: int) -> list[str]:
    """``f"{k:0{width}d}"`` for ``k`` in ``range(start, stop)``."""
    if stop > _TABLE_LIMIT or width > _TABLE_WIDTHS:
        return [f"{k:0{width}d}" for k in range(start, stop)]
    table = _tables.get(width)
    if table is None or len(table) < stop:
        with _tables_lock:
            table = _tables.get(width)
            if table is None or len(table) < stop:
                size = min(_TABLE_LIMIT, max(stop, 1024, 2 * len(table) if table else 0))
                table = _tables[width] = [f"{k:0{width}d}" for k in range(size)]
    return table[start:stop]


def run_of(strings: list[str]) -> tuple[str, int, int, int] | None:
    """``(prefix, start, count, width)`` if ``strings`` (two or more) is exactly that run, else None.

    The prefix and number are read off the first string (its trailing ASCII digits); the whole
    list is then compared with the run's expansion, both joined with a NUL, which the prefix may
    not hold (equal joins of equally many strings are then equal lists). Joining touches each
    string once and builds no string per element: a save checks 100,000 lists.
    """
    count = len(strings)
    if count < 2 or count > MAX_COUNT:
        return None
    first = strings[0]
    if type(first) is not str:
        return None
    prefix = first.rstrip(_DIGITS)
    size = len(prefix)
    width = len(first) - size
    if not 0 < width <= MAX_WIDTH or size > MAX_PREFIX or _SEP in prefix:
        return None
    start = int(first[size:])
    stop = start + count
    if stop > MAX_START:
        return None
    table = _tables.get(width)
    numbers = table[start:stop] if table is not None and stop <= len(table) else _numbers(width, start, stop)
    try:
        joined = _SEP.join(strings)
    except TypeError:  # not all strings
        return None
    # joined == prefix + tail, without building that string: the first string starts with the prefix.
    tail = (_SEP + prefix).join(numbers)
    if len(joined) != size + len(tail) or not joined.endswith(tail):
        return None
    return prefix, start, count, width


def expand(prefix: str, start: int, count: int, width: int) -> list[str]:
    """The strings a run stands for."""
    table = _tables.get(width)
    stop = start + count
    numbers = table[start:stop] if table is not None and stop <= len(table) else _numbers(width, start, stop)
    if _SEP in prefix:  # never in a run run_of found, but a damaged file may hold one
        return list(map(prefix.__add__, numbers))
    # One join and one split build the strings in C: a tenth faster than a concatenation each.
    return (prefix + (_SEP + prefix).join(numbers)).split(_SEP)


def expand_runs(runs: list[IdRun | None]) -> list[list[str] | None]:
    """:func:`expand` of each run (None stays None): what decoding a chunk of entries needs."""
    tables, sep = _tables, _SEP
    out: list[list[str] | None] = []
    for run in runs:
        if run is None:
            out.append(None)
            continue
        prefix, start, width = run.prefix, run.start, run.width
        stop = start + run.count
        table = tables.get(width)
        numbers = table[start:stop] if table is not None and stop <= len(table) else _numbers(width, start, stop)
        out.append((prefix + (sep + prefix).join(numbers)).split(sep) if sep not in prefix
                   else list(map(prefix.__add__, numbers)))
    return out


def expand_run(run: IdRun) -> list[str]:
    """:func:`expand` of a decoded run."""
    return expand(run.prefix, run.start, run.count, run.width)
