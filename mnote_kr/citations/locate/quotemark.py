"""A paragraph's highlight that agrees with its quote.

A located paragraph carries two pointers into it: ``highlight``, the span of the paragraph the
provider's chunk aligned with (its densest run of the evidence's words), and ``displayQuote``, the
sentences that answer the query (``cleaning.quote``: the one holding most of the query's words, or
the one nearest it by meaning when none does). They are chosen apart, so in a long paragraph the
viewer (and a shell drawing ``highlight``) could mark one sentence while the card quotes another.

:func:`agreeing` keeps the highlight when it lies inside the quoted sentences (its words are in the quote: a
Markdown paragraph of several lines, a tight list, is quoted with its lines joined), and otherwise moves it
onto them: what the reader is shown marked is what the card quotes.
"""

from __future__ import annotations

import re

import msgspec

from mnote_kr.models import Highlight, Locator

__all__ = ["agreeing", "quote_span"]

#: Sentence ends a quote's first sentence is cut at when the whole quote is not in the paragraph.
_SENTENCE_END = re.compile(r"(?<=[.!?。！？；;])\s*")


#: Find a quote's characters in a text by dropping both's white space and searching the rest (False: by a
#: pattern compiled for each quote, as before round 30: the same spans, ~6 ms a pattern of a few hundred
#: characters to compile, 4.5 s of 40 warm searches, ``benchmarks/search_cost.py --profile``).
BY_FIND = True


def _pattern(quote: str) -> re.Pattern[str] | None:
    """``quote``'s characters in order, any run of white space between them (a chunk's cleaning joins
    lines and CJK gaps); ``…`` at either end (a cut) left out."""
    chars = _chars(quote)
    if len(chars) < 2:
        return None
    return re.compile(r"\s*".join(re.escape(ch) for ch in chars))


def _chars(quote: str) -> str:
    """``quote``'s characters but white space, ``…`` at either end (a cut) left out."""
    return "".join(ch for ch in quote.strip().strip("…").strip() if not ch.isspace())


def spaced_span(text: str, quote: str) -> tuple[int, int] | None:
    """The first span of ``text`` holding ``quote``'s characters in order with only white space (``str.isspace``,
    as ``re``'s ``\\s``) between them, ``…`` at either end of ``quote`` left out: what :func:`_pattern` finds,
    found without compiling it; None when not held or when ``quote`` has fewer than two such characters."""
    if not BY_FIND:
        pattern = _pattern(quote)
        m = pattern.search(text) if pattern is not None else None
        return (m.start(), m.end()) if m else None
    needle = _chars(quote)
    if len(needle) < 2:
        return None
    at = [i for i, ch in enumerate(text) if not ch.isspace()]
    k = "".join(text[i] for i in at).find(needle)
    return None if k < 0 else (at[k], at[k + len(needle) - 1] + 1)


def quote_span(text: str, quote: str) -> tuple[int, int] | None:
    """The span of ``text`` the quote stands on: the whole quote, else its first sentence (a quote
    that runs past the paragraph, into a lead-in's list), else None."""
    for part in (quote, _SENTENCE_END.split(quote.strip().strip("…").strip(), maxsplit=1)[0]):
        if (span := spaced_span(text, part)) is not None:
            return span
    return None


def agreeing(locator: Locator, quote: str | None) -> Locator:
    """``locator`` with its ``highlight`` inside ``quote``: unchanged when it is already there, when the
    locator is not a paragraph with its own words (``place_text``), or when the quote is not found in
    that paragraph; else moved onto the quote's span. A paragraph without a highlight (placed by meaning,
    none of the query's words in it) gets the quote's span when the quote is a part of it."""
    h, text = locator.highlight, locator.place_text
    if not quote or not text or locator.locator_precision != "paragraph":
        return locator
    if h is not None and 0 <= h.start < h.end <= len(text) and spaced_span(quote, text[h.start:h.end]) is not None:
        return locator  # the quote holds the marked words: a list item of a paragraph quoted whole (nc20b Q13)
    own = text.split("\n", 1)[0] if "\n" in text else text  # a lead-in's place text: its own line first
    span = quote_span(own, quote)
    if span is None or (h is not None and span[0] <= h.start and h.end <= span[1]):
        return locator
    if h is None and not any(ch.isalnum() for ch in own[:span[0]] + own[span[1]:]):
        return locator  # the quote is the whole paragraph (its closing stop aside): marked as it is
    return msgspec.structs.replace(locator, highlight=Highlight(start=span[0], end=span[1]))
