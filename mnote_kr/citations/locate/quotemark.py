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


def _pattern(quote: str) -> re.Pattern[str] | None:
    """``quote``'s characters in order, any run of white space between them (a chunk's cleaning joins
    lines and CJK gaps); ``…`` at either end (a cut) left out."""
    chars = [ch for ch in quote.strip().strip("…").strip() if not ch.isspace()]
    if len(chars) < 2:
        return None
    return re.compile(r"\s*".join(re.escape(ch) for ch in chars))


def quote_span(text: str, quote: str) -> tuple[int, int] | None:
    """The span of ``text`` the quote stands on: the whole quote, else its first sentence (a quote
    that runs past the paragraph, into a lead-in's list), else None."""
    for part in (quote, _SENTENCE_END.split(quote.strip().strip("…").strip(), maxsplit=1)[0]):
        pattern = _pattern(part)
        if pattern is not None and (m := pattern.search(text)):
            return m.start(), m.end()
    return None


def agreeing(locator: Locator, quote: str | None) -> Locator:
    """``locator`` with its ``highlight`` inside ``quote``: unchanged when it is already there, when the
    locator is not a paragraph with its own words (``place_text``), or when the quote is not found in
    that paragraph; else moved onto the quote's span. A paragraph without a highlight (placed by meaning,
    none of the query's words in it) gets the quote's span when the quote is a part of it."""
    h, text = locator.highlight, locator.place_text
    if not quote or not text or locator.locator_precision != "paragraph":
        return locator
    if h is not None and 0 <= h.start < h.end <= len(text) and (marked := _pattern(text[h.start:h.end])) \
            and marked.search(quote):
        return locator  # the quote holds the marked words: a list item of a paragraph quoted whole (nc20b Q13)
    own = text.split("\n", 1)[0] if "\n" in text else text  # a lead-in's place text: its own line first
    span = quote_span(own, quote)
    if span is None or (h is not None and span[0] <= h.start and h.end <= span[1]):
        return locator
    if h is None and not any(ch.isalnum() for ch in own[:span[0]] + own[span[1]:]):
        return locator  # the quote is the whole paragraph (its closing stop aside): marked as it is
    return msgspec.structs.replace(locator, highlight=Highlight(start=span[0], end=span[1]))
