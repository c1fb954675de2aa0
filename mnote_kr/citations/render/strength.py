"""Which source cards a person reads whole, and which weaker ones are named: the one rule the CLI's plain ``search``
and ``ask`` and the web search page share (``--json`` and the HTTP API keep every card whole, with its
``relevanceScore``)."""

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
#: The parts of a card's ``scoreParts`` that are not its own evidence: LightRAG's rank, its own passages reordered
#: (``inFile``, ``meaningAhead``, ``exactAhead``) and a place the query names (``named``: "page 2" is in every file
#: of two pages or more; nc27a's "what does page 2 of the medical report say" printed another PDF whole for it).
#: What is left, the query's words (``lexical``, less ``farInMeaning``, ``apparatus``), the file's name (``fileName``,
#: ``fileTerms``) and the query as written (``phrase``), is what a file after the first must hold to be read whole
#: or named under "Weaker matches" without being near the query by meaning.
NOT_EVIDENCE = frozenset({"provider", "inFile", "meaningAhead", "exactAhead", "named"})
#: A card after the first holding no evidence of its own is whole, when the first holds no query word (``WORDED``),
#: only if its place's cosine with the query (``Locator.meaning_score``) is within this of the first card's.
#: nc27a's visa question printed the lorem-ipsum PDF whole, 0.053 below the form. Over the tuning questions of round
#: 26's retrieval dump (/work/scratch/r26/retrieval.json; heldout2 and heldout3 left out), cards after the first shown
#: whole go from 1.31 to 1.10 a question, the labelled file's from 44 to 41 of its 72 (those three listed short); 0.08:
#: 1.23, 43 of 72, and the lorem-ipsum PDF whole again.
WHOLE_NEAR = 0.05
#: A weaker match is named (one line) when it holds evidence of its own or its place is within this of the first
#: card's cosine (unknown counts as near), at most ``WEAKER_LINES`` of them, in order; the others are counted in one
#: line (``--json`` lists them, the page folds them). On the same questions no labelled file is among those counted
#: (0.10: one is, 0.104 away); lines a question go from 3.14 to 2.89, 0.45 counted. Over nc27a's 17 searches of a
#: 13-file folder (/tmp/nc27a-out), named lines go from 8.82 to 3.65 a search. Over round 26's floor dump
#: (/work/scratch/r26/floor.json) the tuning questions said weak keep every labelled file named (lines 184 -> 163),
#: the tuning off-topic queries 328 -> 290.
LISTED_NEAR = 0.11
#: At most this many weaker matches are named: the labelled file was the ninth card of one tuning question (five
#: named: one lost), none later.
WEAKER_LINES = 6


def by_strength(cards: list[Citation], *, weak: bool = False) -> tuple[list[Citation], list[Citation]]:
    """The cards shown whole (the first, any without a score, and any scoring at least ``FULL_SHARE`` of the
    best) and the weaker ones, each in its order. A person reads the few that match; the nearest-by-meaning
    tail of a search (the provider always returns its nearest chunks) stays one line each.

    ``weak`` (``SearchResults.weak``: nothing found seems to answer the query): none is whole. An off-topic
    question ("how do I bake sourdough bread" over engineering papers) had printed a screen of whole cards,
    quotes and alternatives, under one warning line; they read as answers. A card after the first with no evidence of
    its own (``NOT_EVIDENCE``: its rank, its places reordered, a page the query names) is short when the first holds
    the query's words (``WORDED``), else unless it is within ``WHOLE_NEAR`` of the first by meaning."""
    if weak:
        return [], list(cards)
    top = max((c.relevance_score or 0.0 for c in cards), default=0.0)
    if top <= 0.0:
        return list(cards), []
    first = cards[0]
    worded = first.diagnostics.score_parts.get("lexical", 0.0) >= WORDED
    whole = [c for i, c in enumerate(cards) if i == 0 or c.relevance_score is None
             or (c.relevance_score >= FULL_SHARE * top
                 and (_own_evidence(c) or not worded and _near(first, c, WHOLE_NEAR)))]
    return whole, [c for c in cards if not any(c is w for w in whole)]


def weaker_named(cards: list[Citation], short: list[Citation], *,
                 weak: bool = False) -> tuple[list[Citation], list[Citation]]:
    """The weaker matches (``short``, from :func:`by_strength` over ``cards``) named one line each, and those only
    counted: named when the card holds evidence of its own (``NOT_EVIDENCE``) or is within ``LISTED_NEAR`` of the
    first card by meaning, at most ``WEAKER_LINES``; a weak search (every card short) names its first too. nc27a:
    "Weaker matches" named 8 to 12 files on every search of a 13-file folder, the whole folder every time."""
    if not short:
        return [], []
    first = cards[0]
    named = [c for c in short if weak and c is first or _own_evidence(c) or _near(first, c, LISTED_NEAR)]
    named = named[:WEAKER_LINES]
    return named, [c for c in short if not any(c is n for n in named)]


def _own_evidence(c: Citation) -> bool:
    """Whether the card holds something of its own for the query: its ``scoreParts`` but ``NOT_EVIDENCE`` add up to
    more than nothing. A card with no parts (a provider that scores none) counts as holding it, as before."""
    parts = c.diagnostics.score_parts
    return "provider" not in parts or sum(v for k, v in parts.items() if k not in NOT_EVIDENCE) > 1e-9


def _near(first: Citation, c: Citation, within: float) -> bool:
    """Whether the card's place is within ``within`` of the first card's cosine with the query; unknown (no meaning
    model, or a place with no vector yet) counts as near, as before these rules: round 26's h_en12 cites its labelled
    PDF fifth, its place with no cosine and nothing else for it."""
    best, mine = first.locator.meaning_score, c.locator.meaning_score
    return best is None or mine is None or best - mine <= within
