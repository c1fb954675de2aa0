"""Find the paragraph a citation's evidence came from: a helper for locator-plugin authors.

A locator plugin turns its format into a ``TextDocument`` (a list of ``TextParagraph``
in the format's own paragraph order) and calls ``match_evidence``; everything here is
format-independent. The DOCX locator and the built-in Markdown/plain-text locator use it::

    from mnote_kr.citations.locate.textmatch import TextDocument, TextParagraph, match_evidence

    doc = TextDocument([TextParagraph(index=i, text=t) for i, t in enumerate(texts)])
    match = match_evidence(doc, request.evidence, request.query)
    if match.paragraph is not None:  # else: return a ``file`` locator
        index, span = match.paragraph.index, match.highlight

``TextParagraph.index`` must equal the paragraph's position in ``TextDocument.paragraphs``.
Build a document once per file and cache it: construction computes the term statistics.

Text (``normalize``, tokens). Normalisation keeps one output character per input
character, so a span found in normalised text is the same span in the original text.
Tokens: a Latin/Cyrillic/Greek/digit word is one token; a run of CJK characters gives
its character bigrams (a lone CJK character gives itself). Shingles are
order-sensitive (4 CJK characters or 3 words), so a verbatim quote can be told from a
bag of the same words.

Anchors, tried in this order:

1. query-centred windows: the evidence around each occurrence of the query;
2. heading + quote: evidence lines, with ``#`` heading lines (and the block heading)
   used as context only, never as the target of a body quote;
3. long rare terms: evidence tokens that occur in at most two paragraphs;
4. the bare query only inside a matched window: a paragraph gets the query bonus only
   when an anchor already matched it, so a short query never jumps to a longer word
   that contains it (吡咯烷 in N-甲基吡咯烷酮). Where the evidence uses the query as a
   word of its own (``吡咯烷 是一种…``), occurrences inside a longer word count little.

Scores are idf-weighted token recall of an anchor by a paragraph, in [0, 1], verified
with shingles. Table-of-contents paragraphs (``in_toc``) are penalised. Below
``THRESHOLD`` the answer is "no paragraph" (the caller returns a ``file`` locator).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

from mnote_kr.citations.locate.anchors import Anchor, build_anchors
from mnote_kr.citations.locate.anchors import reliability as _reliability
from mnote_kr.citations.locate.anchors import segments as _segments
from mnote_kr.citations.locate.leadin import holds_query
from mnote_kr.citations.locate.passages import VERIFY_FULL
from mnote_kr.citations.locate.passages import evidence_paragraphs as _evidence_paragraphs
from mnote_kr.citations.locate.passages import held as _held
from mnote_kr.citations.locate.recall import recalls as _recalls
from mnote_kr.citations.locate.textdoc import P, Scope, TextDocument, TextParagraph
from mnote_kr.citations.locate.titles import attribute_over_title
from mnote_kr.citations.text.cjkwords import query_words
from mnote_kr.citations.text.queryterms import QueryTerms
from mnote_kr.citations.text.textnorm import (
    CJK_CLASS,
    find_all,
    has_cjk,
    is_word_char,
    iter_tokens,
    normalize,
    query_occurrences,
    shingles,
    standalone_occurrence,
    token_set,
)

__all__ = [
    "CJK_CLASS",
    "THRESHOLD",
    "Anchor",
    "Match",
    "Scope",
    "TextDocument",
    "TextParagraph",
    "build_anchors",
    "has_cjk",
    "highlight_span",
    "is_word_char",
    "iter_tokens",
    "match_evidence",
    "normalize",
    "query_occurrences",
    "sections_under",
    "shingles",
    "standalone_occurrence",
    "token_set",
]

# --------------------------------------------------------------------------- matching

THRESHOLD = 0.5
#: The most the bonuses below can add to a paragraph's selection score (0.04 + 0.06 + 0.04 +
#: 0.08 + 0.05, with a margin); the other factors only lower it.
MAX_BONUS = 0.3
TOP_K = 6
ALIGNED_PER_ANCHOR = 8  # paragraphs an evidence line may have come from (repeated text)
MARGINAL = 0.7  # below this score a match must show that the evidence is really here
MIN_EVIDENCE_SHINGLES = 8
NEAR = 4  # paragraphs each side of the best one that the evidence may span
FAR = 8 * NEAR  # ... or more, up to this many, while they hold fewer characters than the evidence
EVIDENCE_HERE = 0.25  # share of the evidence's shingles found near the best paragraph
QUERY_SHARE = 0.34  # share of the query's term weight below which a match is only semantic


@dataclass(slots=True)
class Match:
    """The outcome of matching evidence against one document.

    ``paragraph`` is None below the threshold; ``highlight`` is a ``(start, end)``
    character span within ``paragraph.text``.
    """

    paragraph: TextParagraph | None
    score: float
    highlight: tuple[int, int] | None
    reason: str
    anchor: Anchor | None = None
    #: cosine of the query with ``paragraph`` (``place_by_meaning``), None without vectors
    meaning: float | None = None
    #: the passage's next best paragraphs by words and meaning, best first (``place_by_meaning``)
    runners_up: tuple[Match, ...] = ()


def match_evidence(
    doc: TextDocument[P],
    evidence: str,
    query: str = "",
    *,
    block_heading: str | None = None,
    block_content: str | None = None,
    scope: Scope | tuple[int, int] | None = None,
    threshold: float = THRESHOLD,
) -> Match:
    """Score every paragraph against anchors built from the evidence and query.

    ``block_heading``/``block_content`` come from a sidecar block when there is one
    (heading as context; content as evidence when the evidence is empty). ``scope``
    says where the evidence is known to lie (a bare ``(lo, hi)`` tuple is a strict
    ``Scope``). Returns a ``Match`` whose ``paragraph`` is None below ``threshold``.
    """
    if isinstance(scope, tuple):
        scope = Scope((scope,))
    ev = normalize(evidence or "")
    q = normalize(query or "").strip()
    if not ev.strip() and block_content:
        ev = normalize(block_content)
    if not ev.strip() and not q:
        return Match(None, 0.0, None, "no evidence text to match")
    if not doc.paragraphs:
        return Match(None, 0.0, None, "document has no paragraphs")
    # a query that stands alone somewhere in the evidence is meant there, not inside a longer word
    q_alone = bool(q) and has_cjk(q) and any(standalone_occurrence(ev, p, q, edges=False) for p in find_all(ev, q))
    anchors, occ = build_anchors(ev, q, block_heading, prefer_standalone=q_alone)
    if not anchors:
        return Match(None, 0.0, None, "evidence has no matchable words")
    idf_cache: dict[str, float] = {}
    edge_tokens = _edge_fragments(ev, doc)
    for a in anchors:
        a.tokens = a.tokens - edge_tokens or a.tokens
        for t in a.tokens:
            if t not in idf_cache:
                idf_cache[t] = doc.idf(t)
    sel: dict[int, float] = {}
    recs: list[tuple[Anchor, dict[int, float]]] = []  # each non-heading anchor's recalls, for ``raw`` below
    aligned: list[tuple[Anchor, list[tuple[int, float]]]] = []
    best_anchor: dict[int, Anchor] = {}
    heading_hits: set[int] = set()
    support: dict[int, int] = {}
    for a in anchors:
        rec, _ = _recalls(doc, a.tokens, idf_cache)
        if a.kind != "heading":
            recs.append((a, rec))
        rel_sel = min(1.0, len(a.tokens) / 4.0) ** 0.5
        for i, r in rec.items():
            if a.kind == "heading" and r >= 0.8:
                heading_hits.add(i)
            elif r >= 0.8:
                support[i] = support.get(i, 0) + 1
            s = r * a.weight * rel_sel
            if s > sel.get(i, 0.0):
                sel[i] = s
                best_anchor[i] = a
        if a.kind != "heading" and rec:
            aligned.append(_aligned(doc, a, rec))
    if not sel:
        return Match(None, 0.0, None, "no paragraph shares a word with the evidence")
    heading_norms = {normalize(block_heading).strip()} if block_heading else set()
    for line_start, line_end, is_h in _segments(ev):
        if is_h:
            heading_norms.add(ev[line_start:line_end].strip())
    block_toks = token_set(normalize(block_content)) if block_content else None
    # a query not found verbatim still says which words matter: idf-weighted coverage of its terms
    q_tokens = token_set(q) if q else frozenset()
    q_weight = math.fsum(doc.idf(t) for t in q_tokens)
    paras = doc.paragraphs
    final: dict[int, float] = {}
    kth: list[float] = []  # the TOP_K best finals so far (a min-heap)
    for i in sorted(sel, key=lambda i: (-sel[i], i)):
        s = sel[i]
        if s < 0.15:
            break
        if len(kth) == TOP_K and s + MAX_BONUS < kth[0]:
            break  # every later paragraph ends below the TOP_K already found (a long document's tail)
        p = paras[i]
        a = best_anchor[i]
        bonus = 0.0
        # long rare terms of the matching anchor (found in at most two paragraphs)
        hits = sum(
            1 for t in a.tokens if 0 < doc.df.get(t, 0) <= 2 and (len(t) >= 6 or not t.isascii()) and t in p.tokens
        )
        bonus += min(0.04, 0.01 * hits) * a.weight
        # several anchors agree; the paragraph is not much longer than the anchor (exact quotes win ties)
        bonus += 0.03 * min(2, support.get(i, 1) - 1)
        if p.tokens:
            bonus += 0.04 * len(a.tokens & p.tokens) / len(p.tokens)
        if q and s >= 0.4 and q in p.norm:
            bonus += 0.08 * max(w for _, w in query_occurrences(p.norm, q, prefer_standalone=q_alone))
        elif q_weight > 0 and s >= 0.4 and len(q_tokens) > 1:
            bonus += 0.08 * math.fsum(doc.idf(t) for t in q_tokens & p.tokens) / q_weight
        heading = p.heading
        if heading_norms and heading and normalize(heading).strip() in heading_norms and not p.heading_level:
            bonus += 0.05
        if block_toks is not None and p.tokens and len(p.tokens & block_toks) / len(p.tokens) < 0.6:
            s *= 0.85
        if p.in_toc:
            s *= 0.3
        if p.heading_level and a.kind != "heading" and i not in heading_hits:
            s *= 0.9
        if scope is not None and i not in scope:
            s *= scope.outside
        final[i] = s + bonus
        if len(kth) < TOP_K:
            heapq.heappush(kth, final[i])
        elif final[i] > kth[0]:
            heapq.heapreplace(kth, final[i])
    if not final:
        return Match(None, max(sel.values()), None, "no paragraph above confidence threshold")
    # verify the leading candidates with order-sensitive shingles: a bag of the same words is not a quote
    top = sorted(final, key=lambda i: (-final[i], i))[:TOP_K]
    # a candidate's confidence starts from its best reliability-weighted recall by a non-heading
    # anchor (the first anchor on ties); worked out for these few paragraphs only
    raw: dict[int, tuple[float, Anchor]] = {}
    for a, rec in recs:
        rel = _reliability(len(a.tokens))
        for i in top:
            got = rec.get(i)
            if got is not None and got * rel > raw.get(i, (0.0, a))[0]:
                raw[i] = (got * rel, a)
    verified: dict[int, float] = {}
    anchor_sh: dict[int, frozenset[int]] = {}
    for i in top:
        a = raw[i][1] if i in raw else best_anchor[i]
        key = id(a)
        if key not in anchor_sh:
            anchor_sh[key] = shingles(ev[a.start : a.end]) if a.end > a.start else frozenset()
        ash = anchor_sh[key]
        v = len(ash & paras[i].shingles) / len(ash) if ash else 0.0
        verified[i] = v
        final[i] *= 0.6 + 0.4 * min(1.0, v / VERIFY_FULL)
    best = max(top, key=lambda i: (final[i], -i))
    para = paras[best]
    conf = raw[best][0] if best in raw else sel[best]
    conf *= min(1.0, verified[best] / VERIFY_FULL)
    if para.in_toc:
        conf *= 0.3
    if scope is not None and best not in scope:
        conf *= scope.outside
    score = round(min(1.0, conf), 4)
    if score < threshold:
        return Match(None, score, None, "no paragraph above confidence threshold")
    if score < MARGINAL and not _evidence_is_here(doc, ev, best):
        # one sentence matched, by chance, in a document of the same vocabulary
        return Match(None, score, None, "evidence mostly absent around the best paragraph")
    anchor = best_anchor[best]
    match = Match(para, score, highlight_span(para, anchor.tokens, q), "matched evidence", anchor)
    if q and not _verbatim_query(ev, q, occ):
        return _by_query_terms(doc, match, ev, q, aligned, scope, threshold)
    return _copy_read_through(doc, match, ev, q, aligned, scope, threshold)


def _aligned(doc: TextDocument[P], a: Anchor, rec: dict[int, float]) -> tuple[Anchor, list[tuple[int, float]]]:
    """The paragraphs evidence line ``a`` most likely came from, with their reliability-weighted
    recalls (document order on ties; the closest in length among equal recalls: a line is one
    paragraph, not a longer one holding it)."""
    paras = doc.paragraphs
    rel = _reliability(len(a.tokens))
    top_r = max(rec.values())
    near = [i for i, r in rec.items() if r >= top_r - 0.02]
    if len(near) > 4 * ALIGNED_PER_ANCHOR:  # a line of common words: keep the surest, in order
        near = sorted(near, key=lambda i: (-rec[i], i))[: 4 * ALIGNED_PER_ANCHOR]
    prec = {i: len(a.tokens & paras[i].tokens) / max(1, len(paras[i].tokens)) for i in near}
    top_p = max(prec.values())
    near = sorted(i for i in near if prec[i] >= top_p - 0.1)[:ALIGNED_PER_ANCHOR]
    return a, [(i, rec[i] * rel) for i in near]


def _copy_read_through(
    doc: TextDocument[P], match: Match, ev: str, q: str, aligned: list[tuple[Anchor, list[tuple[int, float]]]],
    scope: Scope | None, threshold: float,
) -> Match:
    """When the best paragraph's text stands twice, its copy inside the passage the whole
    evidence aligns with best (most lines, fewest unquoted paragraphs, document order)."""
    assert match.paragraph is not None
    paras, best = doc.paragraphs, match.paragraph
    twins = any(i != best.index and paras[i].tokens == best.tokens for _, c in aligned for i, _ in c)
    runs = _evidence_paragraphs(doc, ev, aligned, scope, threshold) if twins and len(aligned) > 1 else []
    if len(runs) < 2:
        return match  # one passage (or no second copy among the candidates): nothing to choose
    most = max(r.lines for r in runs)
    run = min((r for r in runs if r.lines == most),
              key=lambda r: (r.gaps, -round(math.fsum(r.conf.values()), 6), min(r.conf)))
    twin = [i for i in sorted(run.conf) if paras[i].tokens == best.tokens]
    if best.index in run.conf or not twin:
        return match
    para = paras[twin[0]]
    span = highlight_span(para, match.anchor.tokens, q) if match.anchor is not None else match.highlight
    return Match(para, match.score, span, match.reason, match.anchor)


def _evidence_is_here(doc: TextDocument[P], ev: str, best: int) -> bool:
    """Does a fair share of the evidence's word order occur around paragraph ``best``?

    Evidence taken from this document shares most of its shingles with the paragraphs
    it came from; a marginal match of evidence from elsewhere shares a sentence at most.
    The paragraphs are read on across their ends, as a chunk reads them: a table row, each
    cell its own paragraph, is one line of the evidence ("18 19 20 21 22 23 [Comment ...]").
    """
    ev_sh = shingles(ev)
    if len(ev_sh) < MIN_EVIDENCE_SHINGLES:
        return True
    paras = doc.paragraphs
    lo, hi = _reach(paras, best, -1, len(ev.strip())), _reach(paras, best, 1, len(ev.strip()))
    near: set[int] = set(shingles(" ".join(paras[k].norm for k in range(lo, hi + 1))))
    for k in range(lo, hi + 1):
        near.update(paras[k].shingles)  # a paragraph too short for a shingle is one of its own
    return len(ev_sh & near) / len(ev_sh) >= EVIDENCE_HERE


def _reach(paras: list[P], best: int, step: int, chars: int) -> int:
    """How far from ``best`` (one way, ``step``) the evidence may reach: ``NEAR`` paragraphs, and on while
    they hold fewer characters than the evidence (at most ``FAR`` paragraphs): a table whose every cell is a
    paragraph ("18", "19", ...) spans many paragraphs in a few characters."""
    k, held = best, 0
    while 0 <= k + step < len(paras) and abs(k - best) < FAR and (abs(k - best) < NEAR or held < chars):
        k += step
        held += len(paras[k].norm) + 1
    return k


def _verbatim_query(ev: str, q: str, occ: list[tuple[int, float]]) -> bool:
    """The query stands in the evidence as written: the query-centred anchors decide."""
    return any(w >= 1.0 for _, w in occ) or (bool(occ) and has_cjk(q))


#: How a match's reason starts when no quoted paragraph holds the query's words (an approximate place).
SEMANTIC = "semantic match"
#: The paragraph the evidence matched is exact only when it holds the query as written or every term of it the
#: document holds (``leadin.holds_query``; False: when it holds ``QUERY_SHARE`` of their weight). Off by default:
#: ``placing.LISTS_TOGETHER`` says why.
OWN_HOLDS_ALL = False


def _by_query_terms(
    doc: TextDocument[P],
    match: Match,
    ev: str,
    q: str,
    aligned: list[tuple[Anchor, list[tuple[int, float]]]],
    scope: Scope | None,
    threshold: float,
) -> Match:
    """Among the paragraphs the evidence quotes, the one holding the query's content words.

    Terms are weighted by rarity in this document, with a bonus where they cluster
    (``queryterms``). When no quoted paragraph holds ``QUERY_SHARE`` of the query's
    weight, the evidence matched but the query did not (a semantic match): the passage
    is cited and the reason says so.
    """
    assert match.paragraph is not None
    qt = QueryTerms(q, doc.df, len(doc.paragraphs), getattr(doc, "defined", ()), query_words(q))
    if not qt:
        return match
    best = match.paragraph.index
    paras = doc.paragraphs
    runs = _evidence_paragraphs(doc, ev, aligned, scope, threshold)
    if runs:
        # the passage is the run of neighbours explaining most evidence lines; between
        # copies of one passage, the copy holding the query's words, then the copy whose
        # paragraphs follow each other as the evidence's do (the whole window aligned, not
        # its lines one by one), then the best match, then document order
        most = max(r.lines for r in runs)
        scored = [(r, max(qt.score(paras[i].norm) for i in r.conf)) for r in runs if r.lines == most]
        run = min(
            scored,
            key=lambda x: (-round(x[1], 9), x[0].gaps, -round(math.fsum(x[0].conf.values()), 6), best not in x[0].conf,
                           min(x[0].conf)),
        )[0]
        quoted, skipped = run.conf, run.skipped
    else:
        quoted, skipped = {best: match.score}, frozenset()
    if len(quoted) > 1:
        # paragraphs between two quoted ones are inside the passage too (short list items and
        # lines too short to align on their own), with the weaker neighbour's confidence; of a
        # stretch the run stepped over (a table), those the evidence holds whole, with less
        lo, hi = min(quoted), max(quoted)
        for i in range(lo + 1, hi):
            if i not in quoted and paras[i].tokens and (i not in skipped or _held(paras[i].norm, ev)):
                before = max(k for k in quoted if k < i)
                after = min(k for k in quoted if k > i)
                weaker = min(quoted[before], quoted[after])
                quoted[i] = max(threshold, weaker * VERBATIM_CONFIDENCE) if i in skipped else weaker
    _add_verbatim_neighbours(doc, quoted, ev, scope, threshold)
    qs = {i: qt.score(paras[i].norm) for i in quoted}
    top = max(qs.values())
    if best not in quoted:
        # the best single paragraph is a copy elsewhere of text the evidence quotes here
        qs[best] = -1.0
    if top < QUERY_SHARE and best not in quoted:
        best = min(quoted, key=lambda i: (-round(quoted[i], 9), i))
        match = Match(paras[best], round(min(1.0, quoted[best]), 4), None, match.reason, match.anchor)
    current = match.paragraph.index if match.paragraph is not None else -1
    if top < QUERY_SHARE and top > 0 and qs.get(current, 0.0) < top - 1e-9:
        # few of the query's words anywhere (a question in other words): the paragraph of the
        # passage holding most of them is still a better guess than the evidence's best line
        pick = min(quoted, key=lambda i: (-round(qs[i], 9), -round(quoted[i], 9), i))
        return Match(paras[pick], round(min(1.0, quoted[pick]), 4), qt.span(paras[pick].norm),
                     f"{SEMANTIC}: the passage holds few of the query's words; cited where most of them are",
                     match.anchor)
    if top < QUERY_SHARE:
        return Match(
            match.paragraph,
            match.score,
            match.highlight,
            f"{SEMANTIC}: the evidence was found here but holds few of the query's words",
            match.anchor,
        )
    # document order breaks ties, never set or dict order
    pick = best if qs[best] >= top - 1e-9 else min(quoted, key=lambda i: (-round(qs[i], 9), -round(quoted[i], 9), i))
    attribute = attribute_over_title(paras, qt, pick, quoted, qs)
    if attribute is not None:  # a title naming the topic only: the place holding the asked attribute answers
        para = paras[attribute]
        return Match(para, round(min(1.0, quoted[attribute]), 4), qt.span(para.norm),
                     "matched the query's attribute and its value in evidence, over a title naming only its topic",
                     match.anchor)
    # the evidence's words are here and a share of the query's; the place answers only when it holds them all
    # (``leadin.holds_query``: with its list when it is a lead-in, and its headings): "swimming in the lake"
    # does not answer "things not to forget when swimming in the lake" (docling's word_sample.docx)
    some = None if not OWN_HOLDS_ALL or holds_query(doc, paras[pick], q, qt) else \
        f"{SEMANTIC}: the evidence was found here and holds some of the query's words, not all"
    if pick == best:
        return Match(
            match.paragraph, match.score, match.highlight, some or "matched evidence holding the query terms",
            match.anchor
        )
    para = paras[pick]
    return Match(
        para, round(min(1.0, quoted[pick]), 4), qt.span(para.norm), some or "matched query terms in evidence",
        match.anchor
    )


#: How far past the quoted passage paragraphs the evidence holds verbatim are taken in.
VERBATIM_NEIGHBOURS = 60
VERBATIM_CONFIDENCE = 0.5


def _add_verbatim_neighbours(doc: TextDocument[P], quoted: dict[int, float], ev: str, scope: Scope | None,
                             threshold: float) -> None:
    """Take into ``quoted`` the body paragraphs right after or before it whose whole text the
    evidence holds: table cells, which a chunk joins into one line per row, so that no line
    aligns with a cell alone (the answering row was never a candidate). The walk stops at a
    heading or contents line (never the target of a body quote) and at the sidecar block's
    scope; a cell of one character ("1", "是") is in almost any evidence and is passed over."""
    paras = doc.paragraphs
    for step, edge in ((1, max(quoted)), (-1, min(quoted))):
        k = edge + step
        while 0 <= k < len(paras) and abs(k - edge) <= VERBATIM_NEIGHBOURS:
            para = paras[k]
            if para.heading_level or para.in_toc or (scope is not None and k not in scope):
                break
            if para.norm.strip() and para.norm.strip() not in ev:
                break
            if _held(para.norm, ev):  # below the aligned ones: picked for the query's words, never for confidence
                quoted.setdefault(k, max(threshold, quoted[edge] * VERBATIM_CONFIDENCE))
            k += step


def _edge_fragments(ev: str, doc: TextDocument[P]) -> frozenset[str]:
    """Word fragments cut by the evidence window's edges (absent from the document)."""
    out = set()
    toks = list(iter_tokens(ev))
    for tok, _s, _e in toks[:1] + toks[-1:]:
        if tok.isascii() and doc.df.get(tok, 0) == 0:
            out.add(tok)
    return frozenset(out)


def highlight_span(para: TextParagraph, tokens: frozenset[str], query: str = "") -> tuple[int, int] | None:
    """The densest run of anchor tokens in the paragraph text, as a character span."""
    spans: list[list[int]] = []
    for tok, s, e in iter_tokens(para.norm):
        if tok in tokens:
            if spans and s - spans[-1][1] <= 8:
                spans[-1][1] = max(spans[-1][1], e)
                spans[-1][2] += 1
            else:
                spans.append([s, e, 1])
    if not spans:
        if query:
            i = para.norm.find(query)
            if i >= 0:
                return i, i + len(query)
        return (0, len(para.text)) if para.text else None
    s, e, _ = max(spans, key=lambda x: (x[2], x[1] - x[0]))
    return s, e


def sections_under(doc: TextDocument[P], heading: str) -> tuple[tuple[int, int], ...]:
    """Inclusive index ranges of the sections whose heading text is ``heading``.

    A section runs from its heading paragraph to the paragraph before the next heading
    of the same or a higher level. Headings compare normalised, with ``#`` marks and
    surrounding space removed.
    """
    want = _heading_key(heading)
    if not want:
        return ()
    paras = doc.paragraphs
    out: list[tuple[int, int]] = []
    for i, p in enumerate(paras):
        if not p.heading_level or p.heading is None or _heading_key(p.heading) != want:
            continue
        end = len(paras) - 1
        for j in range(i + 1, len(paras)):
            if paras[j].heading_level and paras[j].heading_level <= p.heading_level:
                end = j - 1
                break
        out.append((i, end))
    return tuple(out)


def _heading_key(text: str) -> str:
    return " ".join(normalize(text).strip().strip("#").split())


