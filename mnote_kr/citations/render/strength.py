"""Which source cards a person reads whole: the one rule the CLI's plain ``search`` and ``ask`` and the
web search page share (``--json`` and the HTTP API keep every card whole, with its ``relevanceScore``)."""

from __future__ import annotations

from mnote_kr.models import Citation

#: A card scoring under this share of the best card's is listed short: one line (ID, file, place), under
#: "Weaker matches". Over the retrieval benchmark's tuning questions (last run's dump), 0.25 leaves 409 of
#: 922 cards whole; the answering file's card is listed short in 12 of 165.
FULL_SHARE = 0.25


def by_strength(cards: list[Citation], *, weak: bool = False) -> tuple[list[Citation], list[Citation]]:
    """The cards shown whole (the first, any without a score, and any scoring at least ``FULL_SHARE`` of the
    best) and the weaker ones, each in its order. A person reads the few that match; the nearest-by-meaning
    tail of a search (the provider always returns its nearest chunks) stays one line each.

    ``weak`` (``SearchResults.weak``: nothing found seems to answer the query): none is whole. An off-topic
    question ("how do I bake sourdough bread" over engineering papers) had printed a screen of whole cards,
    quotes and alternatives, under one warning line; they read as answers."""
    if weak:
        return [], list(cards)
    top = max((c.relevance_score or 0.0 for c in cards), default=0.0)
    if top <= 0.0:
        return list(cards), []
    whole = [c for i, c in enumerate(cards) if i == 0 or c.relevance_score is None
             or c.relevance_score >= FULL_SHARE * top]
    return whole, [c for c in cards if not any(c is w for w in whole)]
