"""The query's words as the user typed them, for the notes that name them (a weak search's reason).

The weak rule compares stems and folded words (``ranking.terms``: "advanced" is ``advanc``, "analysis" ``analysi``,
"Huguan" ``huguan``), and its reasons named those: nc28c read "(advanc, analysi, carry, kind, programmer)" and
"diamond, huguan is in no file". :func:`as_typed` reads each back as the query holds it. ``fold`` keeps every
position, so a token found in the folded query is the same span of the query as typed.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from mnote_kr.citations.rank.ranking import _stem, fold
from mnote_kr.citations.text.queryterms import stem as _long_stem
from mnote_kr.citations.text.textnorm import TOKEN_RE, joined_words


def as_typed(words: Iterable[str], query: str) -> list[str]:
    """Each of ``words`` (the query's terms as the weak rule reads them: stemmed, folded) as ``query`` has it; a
    word it does not hold (a CJK bigram, a word of another reading) stays as it is. Order and length kept."""
    said = _typed(query)
    return [said.get(w, w) for w in words]


@functools.lru_cache(maxsize=64)
def _typed(query: str) -> dict[str, str]:
    """term -> the query's span for it: each Latin word under its fold, both stems and, for "R&D" and "U.S.",
    the joined word; the first word typed wins a term two words share."""
    folded = fold(query)
    out: dict[str, str] = {}
    for word, start in joined_words(folded):
        out.setdefault(word, query[start:start + len(word)])
    for m in TOKEN_RE.finditer(folded):
        if m.lastgroup == "cjk":
            continue
        tok, shown = m.group(0), query[m.start():m.end()]
        for key in (tok, _stem(tok), _long_stem(tok)):
            out.setdefault(key, shown)
    return out


def said(words: Iterable[str], query: str) -> str:
    """``words`` as typed (:func:`as_typed`), joined with commas: how a note lists them."""
    return ", ".join(as_typed(words, query))
