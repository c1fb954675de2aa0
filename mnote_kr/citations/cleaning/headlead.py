"""A place whose words are only the query's: its quote goes on with what follows it in the chunk.

A search for a heading's words ("热化学方程式") boxes that heading: the right place, whose words are the
query itself, so its quote would answer nothing. :func:`heading_lead` quotes the place's words, then the
chunk's first sentence after them (the start of what the heading opens), cut at about ``QUOTE_CHARS``;
the place stays the heading (its box or paragraph is not moved), so the claim stays honest. A place
saying more than the query (a caption "Figure 7-26. Self-locking nuts.", a table row "2 蒙牛冠益乳原味450g",
a sentence) keeps its own words: which figure, which row, is the answer there. A section number or
letter before the heading ("2.1", "A.", "三、") is not more than the query.
"""

from __future__ import annotations

import re

from mnote_kr.citations.cleaning.quote import QUOTE_CHARS, _letters, sentences

_MARKER_RE = re.compile(r"^\s*(?:(?:\d{1,3}(?:\.\d{1,3})*[.．、)）]?|[A-Za-z][.．)）])\s+"
                        r"|[一二三四五六七八九十]{1,3}[、．]\s*)")


def only_the_query(place: str, query: str) -> bool:
    """Whether ``place``'s letters and digits (a leading section marker aside) are ``query``'s."""
    wanted = _letters(query)[0]
    return bool(wanted) and _letters(_MARKER_RE.sub("", place, count=1))[0] == wanted


def heading_lead(place: str, context: str, query: str, *, limit: int = QUOTE_CHARS) -> str | None:
    """The quote of a place that is only the query (:func:`only_the_query`): its words, a line break, and
    the first sentence of ``context`` (the cleaned chunk) after them; None when the place says more than
    the query, the chunk does not hold its words, or nothing worded follows them."""
    if not only_the_query(place, query):
        return None
    seq, where = _letters(context)
    own = _letters(place)[0]
    at = seq.find(own)
    if at < 0:
        return None
    rest_at = where[at + len(own) - 1] + 1
    rest = context[rest_at:]
    spans = sentences(rest)
    if not spans:
        return None
    a, b = spans[0]
    follow = rest[a:b]
    if not any(ch.isalpha() for ch in follow):
        return None
    head = " ".join(context[where[at]:rest_at].split())
    room = max(limit - len(head), 40)
    if len(follow) > room:
        cut = follow.rfind(" ", 0, room)
        follow = follow[:cut if cut > room // 2 else room].rstrip() + "…"
    return f"{head}\n{follow}"
