"""A quote placed on one bullet of a list, with the sibling bullets the question asks about (nc17b P10).

A PDF's list is boxed one bullet at a time, and its quote is that bullet ("• SAFE Chelsea le 27 mai;") even
when the answer runs over its siblings ("when were Sentiers Chelsea and SAFE Chelsea met": "• Sentiers Chelsea
le 25 mai;" is the bullet before). In the chunk's cleaned words a list's bullets run together; a sibling joins
the quote when it holds a word of the question the quote lacks, or, for a question asking for a list ("what
were ...", "list ..."), every sibling; the quote is the list's words from the first bullet taken to the last,
while they fit the quote's limit (the farthest sibling dropped first). Anything else is left as it was.
"""

from __future__ import annotations

import re

from mnote_kr.citations.cleaning.quote import QUOTE_CHARS

BULLETS = "•▪◦●○■"
LIST_QUESTION = re.compile(r"\b(?:what|which) (?:are|were)\b|\blist\b|\bname (?:all|the)\b|\benumerate\b", re.I)
# a sentence's end: a Latin stop before a space, or a full-width one (Chinese and Japanese set no space after it:
# "…市场竞争加剧。" then a chart's labels in the chunk, nc24a problem 5)
_END = re.compile(r"[.!?](?=\s|$)|[。！？]")


def _items(flat: str, marker: str, at: int) -> list[tuple[int, int]] | None:
    """The bullets (start, end) of the list whose bullet starts at ``at`` in ``flat``: the run of ``marker``
    bullets, each reaching the next without a sentence's end; the last ends at its first sentence end."""
    starts = [m.start() for m in re.finditer(re.escape(marker), flat)]
    if at not in starts:
        return None
    spans = []
    for i, start in enumerate(starts):
        nxt = starts[i + 1] if i + 1 < len(starts) else len(flat)
        end = _END.search(flat, start, nxt)
        spans.append((start, end.end() if end else nxt, end is None and i + 1 < len(starts)))
    mine = starts.index(at)
    first = mine
    while first > 0 and spans[first - 1][2]:  # the bullet before runs into this one: the same list
        first -= 1
    last = mine
    while last + 1 < len(spans) and spans[last][2]:
        last += 1
    return [(a, b) for a, b, _ in spans[first:last + 1]]


def list_quote(quote: str, context: str, query: str, *, limit: int = QUOTE_CHARS) -> str:
    """``quote`` with the sibling bullets of its list in ``context`` that ``query`` asks about, or ``quote``."""
    from mnote_kr.citations.rank.ranking import _bm25_terms  # noqa: PLC0415 - loaded with the pipeline

    own = " ".join(quote.split())
    if not own or own[0] not in BULLETS:
        return quote
    flat = " ".join(context.split())
    at = flat.find(own)
    items = _items(flat, own[0], at) if at >= 0 else None
    if not items or len(items) < 2:
        return quote
    mine = next(i for i, (a, _) in enumerate(items) if a == at)
    missing = set(_bm25_terms(query)) - set(_bm25_terms(own))
    every = LIST_QUESTION.search(query) is not None
    wanted = [i for i, (a, b) in enumerate(items)
              if i != mine and (every or missing & set(_bm25_terms(flat[a:b])))]
    while wanted:
        first, last = min(wanted + [mine]), max(wanted + [mine])
        shown = flat[items[first][0]:items[last][1]].strip()
        if len(shown) <= limit:
            return shown
        wanted.remove(max(wanted, key=lambda i: abs(i - mine)))  # the farthest sibling gives way
    return quote
