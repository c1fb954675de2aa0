"""A quote's end: never a dangling word that reads as complete.

A place's words can stop mid-sentence: a PDF box at a column's or page's end (nc26b Q7 quoted "... to accommodate
a fiber locking collar. This"), a chunk the chunker cut. A sentence of Latin script that ends on a word no sentence
ends on (an article, a determiner, a preposition, a conjunction: :data:`GOES_ON`) without a stop is unfinished.
:func:`settled_end` drops such a last sentence when finished ones come before it and it holds none of the query's
words (the quote ends at its last full stop), else marks it as going on with "…". A quote ending on any other word
(a caption's "Self-locking nuts", a label, a heading, a row's value) or in CJK (no word list tells) is left as it is,
as is one ending on a capital inside its sentence: "Blood type: A", "See Annex A" and "… vitamin A" name a label,
not the article (review r27 finding 5); a capital opening its sentence ("… collar. This") is that sentence's word.
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
#: Where a sentence opens: the quote's start, or after a stop and any closing or opening quote marks.
_OPENS_RE = re.compile(r"(?:^|[.!?。！？…][\"'”’)\]]*\s)[\"'“‘(\[]*\s*$")


def settled_end(quote: str, query: str) -> str:
    """``quote`` without a last sentence that stops on a word of :data:`GOES_ON`, when finished sentences come
    before it and it holds none of ``query``'s words; with "…" after it, when it is the quote's only sentence
    or holds the query's words; else ``quote``."""
    last = _LAST_WORD_RE.search(quote)
    if last is None or _as_written(last.group(1), quote[:last.start()]) not in GOES_ON:
        return quote
    spans = sentences(quote)
    if len(spans) > 1 and not _holds_query(quote[spans[-1][0]:spans[-1][1]], query):
        return quote[:spans[-2][1]]
    return quote.rstrip() + "…"


def _as_written(word: str, before: str) -> str:
    """``word`` as a sentence word: lowercase as written, or capitalised as its sentence's first word ("… collar.
    This"); any other capital is a label's, "" ("Blood type: A", "See Annex A", "vitamin A": no article)."""
    if word.islower():
        return word
    if word[0].isupper() and (len(word) == 1 or word[1:].islower()) and _OPENS_RE.search(before):
        return word.lower()
    return ""


def _holds_query(sentence: str, query: str) -> bool:
    from mnote_kr.citations.rank.ranking import _bm25_terms  # noqa: PLC0415 - loaded with the pipeline

    return bool(set(_bm25_terms(query)).intersection(_bm25_terms(sentence)))
