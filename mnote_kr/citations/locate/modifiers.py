"""A place lacking the word that tells the asked thing from its neighbours is approximate.

"How much compensation does an underground uranium miner get under RECA?" over a budget document whose
amendments paragraph reads "new categories of beneficiaries (above-ground uranium miners, ...) who receive
$100,000 in compensation" was cited exact (nc20a Q13): the paragraph holds "compensation", "uranium",
"miners" and "RECA", a fair share of the query's weight, and the matched-evidence rule claims such a paragraph.
It lacks the one word that says which miners are asked about, and an earlier paragraph of the same file holds
it where the question does: "underground uranium miners, who receive $100,000". The place is about other
miners with the same dollar figure.

The rule, format-free, over Latin words: a query word written right before another of its content words (a
modifier and its head: "underground" before "uranium") distinguishes when the place holds the head and not the
modifier, while another body paragraph of the document holds the two together as the query writes them and
nearly as much of the query as the place does (``HOLDS_SHARE``). Such a place is approximate, and that paragraph
is the first place behind it. A paragraph holding much less of the query is no better answer: "How many days of
annual leave do new employees get?" keeps "New employees are entitled to 20 days of paid leave" exact beside
"Annual leave must be booked two weeks in advance". Chinese queries are left alone: their terms are overlapping
bigrams, whose neighbours are no modifier and head.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from mnote_kr.citations.locate.textdoc import P, TextDocument, TextParagraph
from mnote_kr.citations.locate.textmatch import SEMANTIC, Match
from mnote_kr.citations.text.cjkwords import query_words
from mnote_kr.citations.text.queryterms import INFLECTED_WEIGHT, QueryTerms
from mnote_kr.citations.text.textnorm import is_word_char, iter_tokens, normalize

__all__ = ["ADJACENT_GAP", "HOLDS_SHARE", "MODIFIERS_APPROXIMATE", "without_unasked_claim"]

#: A place lacking a query word that another paragraph holds right before a word the place holds is approximate
#: (False: claimed by its share of the query's weight, as before round 20).
MODIFIERS_APPROXIMATE = True
#: The share of the place's query score (``QueryTerms.score``) the paragraph holding the modifier must reach to
#: take the place's exactness: the synthetic RECA case of tests/test_modifier_claim.py reaches 0.95 (the place
#: adds the Act's name), the answer beside "Annual leave must be booked ..." reaches 0.44 (it lacks "new
#: employees" and "days").
HOLDS_SHARE = 0.8
#: What may stand between a modifier and its head for them to be written together: spaces and hyphens.
ADJACENT_GAP = re.compile(r"[\s\-‐‑–]{1,3}")


def _pairs(q: str, qt: QueryTerms) -> list[tuple[int, int]]:
    """``(modifier, head)`` term numbers: two Latin content words the query writes next to each other."""
    number = {t.word: k for k, t in enumerate(qt.terms) if not t.cjk and t.word}
    toks = [(tok, s, e) for tok, s, e in iter_tokens(q) if tok.isascii()]
    out = []
    for (a, _sa, ea), (b, sb, _eb) in zip(toks, toks[1:], strict=False):
        if a in number and b in number and a != b and ADJACENT_GAP.fullmatch(q[ea:sb]) \
                and qt.weights[number[a]] > 0 and qt.weights[number[b]] > 0:
            out.append((number[a], number[b]))
    return out


def _word_end(norm: str, pos: int) -> int:
    while pos < len(norm) and is_word_char(norm[pos]):
        pos += 1
    return pos


def _together(qt: QueryTerms, norm: str, modifier: int, head: int) -> bool:
    """Whether ``norm`` writes the modifier term right before the head term."""
    hits = qt.hits(norm)
    heads = [pos for k, pos, _w in hits if k == head]
    for k, pos, w in hits:
        if k == modifier and w >= INFLECTED_WEIGHT:
            end = _word_end(norm, pos)
            if any(h > end and ADJACENT_GAP.fullmatch(norm[end:h]) for h in heads):
                return True
    return False


def _body(para: TextParagraph) -> bool:
    return bool(para.tokens) and not para.in_toc and not para.heading_level


def without_unasked_claim(doc: TextDocument[P], match: Match, query: str,
                          cosines: Callable[[list[int]], dict[int, float] | None] | None = None) -> Match:
    """``match`` made approximate when its paragraph lacks a modifier the query writes before a word the
    paragraph holds, while another body paragraph holds the two together (module docstring); that paragraph
    becomes the first place behind it, with its cosine with the query (``cosines(indices)``; the host orders a
    file's places by it, and one without sank below every other, unseen: nc24d), the one nearest the place where
    several do (a file repeating its text). Unchanged when already approximate or holding the query as written."""
    para = match.paragraph
    q = normalize(query or "").strip()
    if not MODIFIERS_APPROXIMATE or para is None or not q or match.reason.startswith(SEMANTIC) or q in para.norm:
        return match
    qt = QueryTerms(q, doc.df, len(doc.paragraphs), getattr(doc, "defined", ()), query_words(q))
    if not qt:
        return match
    held = {k for k, _pos, _w in qt.hits(para.norm)}
    pairs = [(m, h) for m, h in _pairs(q, qt) if m not in held and h in held]
    if not pairs:
        return match
    own = qt.score(para.norm)
    for modifier, head in pairs:
        word, stem = qt.terms[modifier].word, qt.terms[modifier].text  # the stem: cheap test before the hits
        other = min((p for p in doc.paragraphs if p.index != para.index and _body(p) and stem in p.norm
                     and _together(qt, p.norm, modifier, head) and qt.score(p.norm) >= HOLDS_SHARE * own),
                    key=lambda p: (abs(p.index - para.index), p.index), default=None)
        if other is None:
            continue
        noun = qt.terms[head].word
        cos = (cosines([other.index]) if cosines is not None else None) or {}
        behind = Match(other, match.score, qt.span(other.norm),
                       f"{SEMANTIC}: it holds the query's \"{word} {noun}\" the cited place lacks", match.anchor,
                       cos.get(other.index))
        runners = (behind, *(r for r in match.runners_up
                             if r.paragraph is None or r.paragraph.index != other.index))
        return dataclasses.replace(
            match, reason=f"{SEMANTIC}: it holds \"{noun}\" but not the query's \"{word}\", which paragraph "
                          f"{other.index + 1} holds with it", runners_up=runners)
    return match
