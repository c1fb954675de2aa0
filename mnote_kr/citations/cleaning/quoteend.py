"""A quote's end: never a dangling word that reads as complete.

A place's words can stop mid-sentence: a PDF box at a column's or page's end (nc26b Q7 quoted "... to accommodate
a fiber locking collar. This"), a chunk the chunker cut. A sentence of Latin script that ends on a word no sentence
ends on (an article, a determiner, a preposition, a conjunction: :data:`GOES_ON`) without a stop is unfinished.
:func:`settled_end` drops such a last sentence when finished ones come before it and it holds none of the query's
words (the quote ends at its last full stop), else marks it as going on with "…". A quote ending on any other word
(a caption's "Self-locking nuts", a label, a heading, a row's value) or in CJK (no word list tells) is left as it is.
"""

from __future__ import annotations

import re

from mnote_kr.citations.cleaning.sentences import sentences

__all__ = ["GOES_ON", "settled_end"]

#: Words an English sentence does not end on: after one, the sentence goes on elsewhere. (Not the particles a
#: label may end on: "Log in", "Turn on", "Sign up", "Stand by".)
GOES_ON = frozenset(
    "a an the this these those that its their his her our your my whose which "
    "of to for with from into onto upon than via between among "
    "and or but nor because although whereas if".split()
)
_LAST_WORD_RE = re.compile(r"(?<!\w)([A-Za-z]+)\s*$")  # a word of its own: not the "a" of "2a"


def settled_end(quote: str, query: str) -> str:
    """``quote`` without a last sentence that stops on a word of :data:`GOES_ON`, when finished sentences come
    before it and it holds none of ``query``'s words; with "…" after it, when it is the quote's only sentence
    or holds the query's words; else ``quote``."""
    last = _LAST_WORD_RE.search(quote)
    if last is None or last.group(1).lower() not in GOES_ON:
        return quote
    spans = sentences(quote)
    if len(spans) > 1 and not _holds_query(quote[spans[-1][0]:spans[-1][1]], query):
        return quote[:spans[-2][1]]
    return quote.rstrip() + "…"


def _holds_query(sentence: str, query: str) -> bool:
    from mnote_kr.citations.rank.ranking import _bm25_terms  # noqa: PLC0415 - loaded with the pipeline

    return bool(set(_bm25_terms(query)).intersection(_bm25_terms(sentence)))
