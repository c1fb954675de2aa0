"""The place inside a retrieved passage that answers, and the locator a match becomes.

``textmatch`` finds the paragraph a citation's evidence came from; here that match is moved to
the paragraph of the whole passage (the provider's chunk) that answers the question by words and
meaning together (``place_by_meaning``, ``with_meaning``), and turned into the honest locator a
locator plugin returns (``locator_from_match``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

from mnote_kr.citations.locate.anchors import build_anchors
from mnote_kr.citations.locate.recall import recalls as _recalls
from mnote_kr.citations.locate.textdoc import P, Scope, TextDocument
from mnote_kr.citations.locate.textmatch import SEMANTIC, THRESHOLD, Match, _aligned, _evidence_paragraphs
from mnote_kr.citations.text.queryterms import QueryTerms
from mnote_kr.citations.text.textnorm import normalize
from mnote_kr.models import Highlight, Locator

__all__ = ["locator_from_match", "passage_paragraphs", "place_by_meaning", "queue_places", "with_meaning"]


def passage_paragraphs(doc: TextDocument[P], passage: str, scope: Scope | None = None,
                       threshold: float = THRESHOLD) -> list[int]:
    """The paragraphs a whole passage (a provider's chunk) quotes, in document order: the run of
    neighbours explaining most of its lines, with the unaligned paragraphs inside the run
    (short list items, table cells). Empty when no run is found."""
    ev = normalize(passage or "")
    anchors, _ = build_anchors(ev, "", None)
    idf_cache: dict[str, float] = {}
    aligned = []
    for a in anchors:
        if a.kind == "heading":
            continue
        for t in a.tokens:
            if t not in idf_cache:
                idf_cache[t] = doc.idf(t)
        rec, _ = _recalls(doc, a.tokens, idf_cache)
        if rec:
            aligned.append(_aligned(doc, a, rec))
    runs = _evidence_paragraphs(doc, ev, aligned, scope, threshold)
    if not runs:
        return []
    most = max(n for _, n, _ in runs)
    run = min((r for r in runs if r[1] == most), key=lambda r: (r[2], -round(math.fsum(r[0].values()), 6), min(r[0])))
    lo, hi = min(run[0]), max(run[0])
    return [i for i in range(lo, hi + 1) if i in run[0] or doc.paragraphs[i].tokens]


def place_by_meaning(doc: TextDocument[P], match: Match, passage: str, query: str,
                     cosines: Callable[[list[int]], dict[int, float] | None],
                     scope: Scope | None = None) -> Match:
    """``match`` moved to the paragraph of the passage that answers by words and meaning together.

    The candidates are the paragraphs the whole ``passage`` quotes (:func:`passage_paragraphs`)
    and the matched one; ``cosines(indices)`` gives the query's cosine with them (None: no
    vectors, the match stands). Each is scored by ``meaning.combine``: its share of the
    query's terms (``QueryTerms``) plus ``meaning.MEANING_WEIGHT`` times its meaning; a
    paragraph holding every term still wins. A match on the query as written is kept."""
    from mnote_kr.citations.rank.meaning import combine

    q = normalize(query or "").strip()
    if match.paragraph is None or not q or match.reason.startswith("matched evidence") and q in match.paragraph.norm:
        return match
    paras = doc.paragraphs
    cands = sorted(set(passage_paragraphs(doc, passage, scope)) | {match.paragraph.index})
    cands = [i for i in cands if paras[i].tokens and not paras[i].in_toc and not paras[i].heading_level]
    if len(cands) < 2:
        return match
    cos = cosines(cands)
    if not cos:
        return match
    qt = QueryTerms(q, doc.df, len(paras))
    words = {i: qt.score(paras[i].norm) if qt else 0.0 for i in cands}
    score = combine(words, cos)
    pick = min(cands, key=lambda i: (-round(score[i], 9), i))
    if pick == match.paragraph.index:
        return dataclasses.replace(match, meaning=cos.get(pick))
    para = paras[pick]
    return Match(para, match.score, qt.span(para.norm) if qt else None,
                 "placed by meaning and query terms among the passage's paragraphs", match.anchor, cos.get(pick))


def with_meaning(doc: TextDocument[P], match: Match, passage: str, query: str, scope: Scope | None = None) -> Match:
    """:func:`place_by_meaning` with the vectors ingest stored for this document's paragraphs
    (``mnote_kr.citations.rank.meaning``); the match unchanged while they do not exist."""
    if not passage or match.paragraph is None:
        return match
    from mnote_kr.citations.rank import meaning

    key = meaning.places_key([p.text for p in doc.paragraphs])
    return place_by_meaning(doc, match, passage, query, lambda idx: meaning.cosines(key, query, idx), scope)


def queue_places(doc: TextDocument[P]) -> None:
    """Ask ingest to embed this document's paragraphs (a locator's ``prepare_locate``)."""
    from mnote_kr.citations.rank import meaning

    meaning.queue([p.text for p in doc.paragraphs])



def locator_from_match(match: Match, *, plugin: str, block_id: str | None, detail: str = "") -> Locator:
    """The honest locator for a match: ``paragraph`` with its span, or ``file`` below the threshold."""
    if match.paragraph is not None:
        para = match.paragraph
        reason = f"{match.reason}{detail} ({match.anchor.kind if match.anchor else 'anchor'})"
        return Locator(
            locator_precision="paragraph",
            # one rule with the PDF locator (citations.precision): a paragraph that holds few of the
            # query's words is the passage's, not the answer's: an approximate place
            locator_degraded=match.reason.startswith(SEMANTIC),
            paragraph_index=para.index,
            para_id=para.para_id,
            block_id=block_id,
            highlight=Highlight(start=match.highlight[0], end=match.highlight[1]) if match.highlight else None,
            score=match.score,
            locator_plugin=plugin,
            reason=reason,
            locator_reason=reason,
            meaning_score=round(match.meaning, 6) if match.meaning is not None else None,
            # the paragraph's own words: the quote shows the place the reader is taken to, not
            # another sentence of the chunk that holds more of the query's words
            place_text=para.text if para.text.strip() else None,
        )
    why = match.reason if match.reason != "matched evidence" else "no paragraph above confidence threshold"
    return Locator(
        locator_precision="file",
        locator_degraded=True,
        block_id=block_id,
        score=match.score,
        locator_plugin=plugin,
        reason=why,
        locator_reason=why,
    )
