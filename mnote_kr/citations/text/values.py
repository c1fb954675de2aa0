"""Dates and numbers a text names, compared as values, not as the strings that write them.

A question writes a date its own way ("2024年1月7日", "Jan 7 2024", "7 January 2024", "2024/1/7",
"1/7/2024") and a cell holds it another ("2024-01-07 00:00:00", as a workbook's date reads): their
tokens share nothing ("2024", "年", "1" against "2024", "01", "07"), their values are one day. So are a
question's "12,155" and a cell's "12155", "3.0" and "3". ``value_mentions`` finds the dates and numbers of
a text (a question or a cell) with their spans and values; ``same_value`` says whether two name one value.

Dates, in the normalised text (``textnorm.normalize``: full-width digits read as ASCII):

* Chinese, Japanese and Korean: ``2024年1月7日`` (日, 号, 號 or 일 ending the day; 년 and 월 too),
  ``2024年1月`` (the month), ``1月7日`` (the day in any year);
* year first, month then day: ``2024-01-07``, ``2024/1/7``, ``2024.1.7``, a time after it read with it
  (``2024-01-07 00:00:00``: its zeros are no numbers of the text);
* day and month in either order before the year: ``7/1/2024``, ``13.1.2024``, ``1-7-2024``. A part over 12
  is the day, so ``13/1/2024`` and ``1/13/2024`` are both the 13th of January. Both parts 12 or under
  (``1/7/2024``) is read both ways, 7 January and 1 July: the text alone cannot tell (US and most other
  places disagree). A caller comparing it with many values decides whether it chooses (``readings``: when
  the values it meets hold only one of its readings, that one; when they hold both, it tells them apart
  no better than anything else);
* English month names (and their three-letter forms, "Sept", a full stop after them):
  ``Jan 7 2024``, ``January 7th, 2024``, ``7 January 2024``, ``the 7th of January 2024``, ``January 2024``
  (the month), ``Jan 7``, ``7 Jan`` (the day in any year; "may" only with a year: "may 5" is a verb's);
* a year alone is a number, not a date.

A reading is ``(year, month, day)``, None for a part the text leaves open (any year; the whole month);
two readings meet when every part both give is equal. Numbers are the text's digit runs outside dates:
thousands separators (``12,155``), a decimal part (``3.0`` is 3), a leading minus; no units, no percent.
A dotted run of three parts or more (a version ``1.2.3``, a section ``4.1.2``, an address ``10.0.0.1``)
is no number, and a date only as one of the forms above (``13.1.2024``; ``2024.1.7.3`` is none).
"""

from __future__ import annotations

import datetime
import functools
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from mnote_kr.citations.text.textnorm import normalize

__all__ = ["DateReading", "ValueMention", "same_value", "value_mentions", "without_dates"]

DateReading = tuple[int | None, int, int | None]  # year (None: any), month, day (None: the whole month)

_MONTHS = {"jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4,
           "may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8, "sep": 9, "sept": 9,
           "september": 9, "oct": 10, "october": 10, "nov": 11, "november": 11, "dec": 12, "december": 12}
_NAMES = "|".join(sorted(_MONTHS, key=len, reverse=True))
_MON = rf"(?<![a-z])(?P<mon>{_NAMES})(?![a-z])\.?"
_MON_NOT_MAY = rf"(?<![a-z])(?!may(?![a-z]))(?P<mon>{_NAMES})(?![a-z])\.?"
_DAY = r"(?<![\d.,])(?P<d>\d{1,2})(?:st|nd|rd|th)?(?![\d])"
_YEAR = r"(?<![\d.,])(?P<y>\d{4})(?![\d])"
_TIME = r"(?:[ t]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?"
_SEP = r"(?:\s*,\s*|\s+)"
#: After a number or a numeric date: no more digits, nor a dotted part ("1.2.3", "10.0.0.1": a version,
#: a section, an address are no numbers; a full stop after it ends a sentence).
_NO_MORE = r"(?![\d]|\.\d)"
#: Date forms, tried in this order; a later form never reads inside a span an earlier one took.
_DATES: tuple[tuple[str, re.Pattern[str]], ...] = tuple((kind, re.compile(pattern)) for kind, pattern in (
    ("ymd", r"(?<![\d.])(?P<y>\d{4})\s*[年년]\s*(?P<m>\d{1,2})\s*[月월](?:\s*(?P<d>\d{1,2})\s*[日号號일])?"),
    ("ymd", r"(?<![\d.])(?P<m>\d{1,2})\s*[月월]\s*(?P<d>\d{1,2})\s*[日号號일]"),
    ("ymd", r"(?<![\d.,])(?P<y>\d{4})(?P<s>[-/.])(?P<m>\d{1,2})(?P=s)(?P<d>\d{1,2})" + _NO_MORE + _TIME),
    ("either", r"(?<![\d.,])(?P<a>\d{1,2})(?P<s>[-/.])(?P<b>\d{1,2})(?P=s)(?P<y>\d{4})" + _NO_MORE + _TIME),
    ("ymd", _MON + r"\s*" + _DAY + _SEP + _YEAR),
    ("ymd", _DAY + r"\s+(?:of\s+)?" + _MON + _SEP + "?" + _YEAR),
    ("ymd", _MON + _SEP + _YEAR),
    ("ymd", _MON_NOT_MAY + r"\s*" + _DAY),
    ("ymd", _DAY + r"\s+(?:of\s+)?" + _MON_NOT_MAY),
))
_NUMBER = re.compile(r"(?<![a-z0-9_])(?<!\d[.,])(?P<sign>[-\u2212])?(?P<int>\d{1,3}(?:,\d{3})+|\d+)"
                     r"(?P<frac>\.\d+)?" + _NO_MORE)


@dataclass(frozen=True, slots=True)
class ValueMention:
    """A date or a number a text names: its span in the text, its words as written (normalised), and
    its value: ``dates`` (the readings of a date; two for ``1/7/2024``) or ``number``."""

    start: int
    end: int
    text: str
    dates: frozenset[DateReading] = frozenset()
    number: Decimal | None = None


def _valid(year: int | None, month: int, day: int | None) -> bool:
    try:
        datetime.date(year if year is not None else 2000, month, day if day is not None else 1)  # 2000: a leap year
    except ValueError:
        return False
    return True


def _readings(kind: str, found: re.Match[str]) -> frozenset[DateReading]:
    parts = found.groupdict()
    year = int(parts["y"]) if parts.get("y") else None
    if kind == "either":
        a, b = int(parts["a"]), int(parts["b"])
        both = {(year, a, b), (year, b, a)}  # month first, day first
        return frozenset(r for r in both if _valid(*r))
    month = _MONTHS[parts["mon"]] if parts.get("mon") else int(parts["m"])
    day = int(parts["d"]) if parts.get("d") else None
    return frozenset({(year, month, day)}) if _valid(year, month, day) else frozenset()


@functools.lru_cache(maxsize=8192)  # a sheet's cells repeat their texts; each row is asked of every question
def value_mentions(text: str) -> tuple[ValueMention, ...]:
    """The dates, then the numbers outside them, that ``text`` names, in text order (spans in ``text``:
    normalisation keeps one character per character)."""
    norm = normalize(text)
    taken: list[tuple[int, int]] = []
    out: list[ValueMention] = []
    for kind, pattern in _DATES:
        for found in pattern.finditer(norm):
            s, e = found.span()
            if any(s < hi and lo < e for lo, hi in taken):
                continue
            dates = _readings(kind, found)
            if dates:
                taken.append((s, e))
                out.append(ValueMention(s, e, norm[s:e], dates=dates))
    for found in _NUMBER.finditer(norm):
        s, e = found.span()
        if any(s < hi and lo < e for lo, hi in taken):
            continue
        try:
            number = Decimal(found.group("int").replace(",", "") + (found.group("frac") or ""))
        except InvalidOperation:  # pragma: no cover - the pattern only takes digits
            continue
        out.append(ValueMention(s, e, norm[s:e], number=-number if found.group("sign") else number))
    return tuple(sorted(out, key=lambda m: m.start))


def _meet(a: DateReading, b: DateReading) -> bool:
    return all(x is None or y is None or x == y for x, y in zip(a, b, strict=True))


def same_value(a: ValueMention, b: ValueMention) -> bool:
    """Whether ``a`` and ``b`` name one value: two numbers equal (``12,155`` and ``12155``), or two dates
    with a reading in common (``2024年1月7日`` and ``2024-01-07 00:00:00``; ``1月7日`` and any year's 7 January)."""
    if a.number is not None or b.number is not None:
        return a.number is not None and a.number == b.number
    return any(_meet(x, y) for x in a.dates for y in b.dates)


def without_dates(text: str) -> str:
    """``text`` with the dates it names blanked (the same length): its other words, for a caller that
    compares the dates as values and the rest as words."""
    out = list(text)
    for m in value_mentions(text):
        if m.dates:
            out[m.start:m.end] = " " * (m.end - m.start)
    return "".join(out)
