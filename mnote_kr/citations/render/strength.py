"""Which source cards a person reads whole: the one rule the CLI's plain ``search`` and ``ask`` and the
web search page share (``--json`` and the HTTP API keep every card whole, with its ``relevanceScore``)."""

from __future__ import annotations

from mnote_kr.models import Citation

#: A card scoring under this share of the best card's is listed short: one line (ID, file, place), under
#: "Weaker matches". Over the retrieval benchmark's tuning questions (last run's dump), 0.25 leaves 409 of
#: 922 cards whole; the answering file's card is listed short in 12 of 165.
FULL_SHARE = 0.25
#: ... and a card after the first scored by LightRAG's rank alone (none of the query's words, no name: every other
#: part of its ``scoreParts`` nil) is listed short when the first card holds the query's words at least this well
#: (its ``lexical`` part, a share of the best's BM25): nc24d's "Widget C revenue on 7 Jan 2024" printed a handbook
#: paragraph whole under the sales row, its 0.25 the provider's rank 3. Over the tuning questions of round 21's
#: floor dump (heldouts left out), 6 of the 247 later cards shown whole become short, none of the labelled file's;
#: with no bar, 35, 4 of them the labelled file's (a first card barely holding the words: 0.01 to 0.14); with the
#: bar on any card rather than the first, 13, 2 of them the labelled file's (the first card itself rank-only).
WORDED = 0.2


def by_strength(cards: list[Citation], *, weak: bool = False) -> tuple[list[Citation], list[Citation]]:
    """The cards shown whole (the first, any without a score, and any scoring at least ``FULL_SHARE`` of the
    best) and the weaker ones, each in its order. A person reads the few that match; the nearest-by-meaning
    tail of a search (the provider always returns its nearest chunks) stays one line each.

    ``weak`` (``SearchResults.weak``: nothing found seems to answer the query): none is whole. An off-topic
    question ("how do I bake sourdough bread" over engineering papers) had printed a screen of whole cards,
    quotes and alternatives, under one warning line; they read as answers. A card held up by the provider's rank
    alone is short when the first holds the query's words (``WORDED``)."""
    if weak:
        return [], list(cards)
    top = max((c.relevance_score or 0.0 for c in cards), default=0.0)
    if top <= 0.0:
        return list(cards), []
    worded = cards[0].diagnostics.score_parts.get("lexical", 0.0) >= WORDED
    whole = [c for i, c in enumerate(cards) if i == 0 or c.relevance_score is None
             or (c.relevance_score >= FULL_SHARE * top and not (worded and _rank_only(c)))]
    return whole, [c for c in cards if not any(c is w for w in whole)]


def _rank_only(c: Citation) -> bool:
    """Whether the card's score is the provider's rank alone: its other ``scoreParts`` add up to nothing."""
    parts = c.diagnostics.score_parts
    return "provider" in parts and sum(v for k, v in parts.items() if k != "provider") <= 1e-9
