"""A phrase searched as written is cited where the file writes it.

Exact wording is a reader's fallback when a question found the wrong place: nc24d searched a list item of the DOJ
trustee handbook word for word, "five percent of all payments received under plans", and was cited paragraph 4369,
approximate, the LightRAG passage after the one holding it; the reason even named paragraph 303 as holding the words
(``modifiers``), but as a place behind without a cosine it sank below the search's twenty other places and was not
shown. The handbook writes the item four times (its text repeats), once 17 paragraphs before the cited place.

The rule, format-free: a query of at least ``MIN_WORDS`` words that the chosen place does not hold as written, while
a body paragraph of the document does (the normalised query inside the paragraph's normalised text, spacing aside), is
cited at that paragraph, exact: the copy nearest the chosen place (the part of the file the provider's passage came
from), the former place first behind it, approximate. A question is never written in the file as asked, so only
phrases move.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from mnote_kr.citations.locate.textdoc import P, TextDocument
from mnote_kr.citations.locate.textmatch import SEMANTIC, Match
from mnote_kr.citations.text.textnorm import has_cjk, iter_tokens, normalize

__all__ = ["AS_WRITTEN_LEADS", "MIN_WORDS", "at_written_phrase"]

#: A place not holding the query as written yields to the paragraph nearest it that does (False: the place stays,
#: as before round 24).
AS_WRITTEN_LEADS = True
#: The words a query needs for the rule, two CJK characters counting as one: two words written together ("annual
#: leave", "样品纯化") are a term many paragraphs write, not a passage a reader copied.
MIN_WORDS = 3


def _words(q: str) -> float:
    """``q``'s Latin words, and its CJK characters at two a word."""
    latin = sum(1 for tok, _s, _e in iter_tokens(q) if not has_cjk(tok))
    return latin + sum(1 for ch in q if has_cjk(ch)) / 2


def at_written_phrase(doc: TextDocument[P], match: Match, query: str,
                      cosines: Callable[[list[int]], dict[int, float] | None] | None = None) -> Match:
    """``match`` moved to the paragraph nearest it holding the query as written, exact (module docstring), with
    ``cosines(indices)`` giving its cosine with the query (None: without one); unchanged when its paragraph holds
    the query, the query is short, or no paragraph of the document writes it."""
    para = match.paragraph
    q = normalize(query or "").strip()
    if not AS_WRITTEN_LEADS or para is None or not q or _words(q) < MIN_WORDS:
        return match
    # spacing aside: a file's tab ("28 U.S.C. § 586(e)\t\tTrustee Compensation") is a space where it is shown
    written = re.compile(r"\s+".join(re.escape(w) for w in q.split()))
    if written.search(para.norm):
        return match
    # a body paragraph: a heading writing the phrase names the part of the file the place may well stand in
    holders = [p for p in doc.paragraphs
               if p.tokens and not p.in_toc and not p.heading_level and written.search(p.norm)]
    if not holders:
        return match
    place = min(holders, key=lambda p: (abs(p.index - para.index), p.index))
    found = written.search(place.norm)
    assert found is not None  # a holder
    cos = cosines([place.index]) if cosines is not None else None
    copies = f", the copy nearest the passage of {len(holders)}" if len(holders) > 1 else ""
    # the former place, behind it, is approximate: the phrase searched is written elsewhere, not there
    former = match.reason if match.reason.startswith(SEMANTIC) else \
        f"{SEMANTIC}: it does not hold the query as written, which paragraph {place.index + 1} holds"
    behind = (dataclasses.replace(match, reason=former, runners_up=()),
              *(r for r in match.runners_up if r.paragraph is None or r.paragraph.index != place.index))
    return Match(place, match.score, found.span(), f"it holds the query as written{copies}",
                 match.anchor, (cos or {}).get(place.index), behind)
