"""Idf-weighted recall of an evidence anchor's words by a document's paragraphs (``textmatch``).

The matcher asks, for every anchor (a line or a query window of the evidence), how much of
its word weight each paragraph holds. On a long document a line shares a word or two with
thousands of paragraphs; this module finds the ones that can matter without walking them
all, and gives exactly the recalls a full walk would give for those.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from operator import add
from typing import Protocol


class _Paragraph(Protocol):
    @property
    def tokens(self) -> frozenset[str]: ...


class Postings(Protocol):
    """What ``recalls`` reads of a document (``textmatch.TextDocument``)."""

    @property
    def paragraphs(self) -> Sequence[_Paragraph]: ...

    postings: dict[str, list[int]]
    posting_sets: dict[str, frozenset[int]]

__all__ = ["FLOOR", "recalls"]

#: Recall below which a paragraph counts for nothing: its selection score (recall x weight
#: <= recall) falls under the 0.15 every candidate needs, and its confidence under any
#: threshold. ``recalls`` drops such paragraphs early (never one within 0.03 of the best,
#: so the lines an evidence line "came from" stay the same): a long document's mid-frequency
#: words otherwise put thousands of paragraphs through the common-word pass.
FLOOR = 0.15

_SCALE = 1 << 24  # idf weights as integers: sums are exact, whatever order the words come in


def recalls(doc: Postings, toks: frozenset[str], idf: dict[str, float]) -> tuple[dict[int, float], float]:
    """idf-weighted recall of ``toks`` by every paragraph that shares a token and can matter.

    Very common tokens are checked only on paragraphs a rarer token already found, so a
    long document does not walk huge posting lists (they weigh little anyway). Paragraphs
    whose recall stays under ``FLOOR`` and 0.03 below the best are left out: they change no
    outcome. Most of them are found without walking their postings: a paragraph that holds
    none of the anchor's heavier words cannot reach ``FLOOR`` on the light ones alone, so
    only the heavy words' postings are walked and the light words are checked on the
    paragraphs found (the MaxScore idea of search engines). Weights are summed as integers,
    so a recall never depends on the order of a set (hash seed) or of the walk.
    """
    w = {t: round(idf[t] * _SCALE) for t in toks}
    total = sum(w.values())
    rare: list[str] = []
    common: list[str] = []
    limit = max(50, len(doc.paragraphs) // 20)
    postings = doc.postings
    for t in sorted(toks):
        post = postings.get(t)
        if post:
            (common if len(post) > limit else rare).append(t)
    if total <= 0:
        return {}, 0.0
    acc = _recalls_pruned(doc, rare, common, w, total) if rare else None
    if acc is None:
        acc = {}
        for t in rare:
            _add_to(acc, postings[t], w[t])
        if common:
            if not acc:  # only common words: fall back to the full walk
                for t in common:
                    _add_to(acc, postings[t], w[t])
            else:
                # a paragraph that cannot reach the cut-off even with every common word is
                # dropped before the common words are checked on it
                cut = min(FLOOR * total, max(acc.values()) - 0.03 * total) - sum(w[t] for t in common)
                acc = {i: v for i, v in acc.items() if v >= cut}
                _add_common(doc, acc, common, w)
    if not acc:
        return {}, total / _SCALE
    keep = min(FLOOR * total, max(acc.values()) - 0.03 * total)
    return {i: v / total for i, v in acc.items() if v >= keep}, total / _SCALE


def _add_common(doc: Postings, acc: dict[int, int], common: list[str], w: dict[str, int]) -> None:
    """Add the common words' weights to the paragraphs already in ``acc``."""
    keys = acc.keys()
    sets = doc.posting_sets
    for t in common:
        ps = sets.get(t)
        if ps is None:
            ps = sets[t] = frozenset(doc.postings[t])
        hit = keys & ps  # the intersection runs in C
        acc.update(zip(hit, map(add, map(acc.__getitem__, hit), repeat(w[t])), strict=True))  # += w[t], in C


def _add_to(acc: dict[int, int], post: list[int] | set[int], wt: int) -> None:
    """``acc[i] += wt`` (from 0) for every ``i`` of ``post`` (distinct), looped in C: a long
    document's posting lists hold thousands of paragraphs."""
    acc.update(zip(post, map(add, map(acc.get, post, repeat(0)), repeat(wt)), strict=True))


def _recalls_pruned(
    doc: Postings, rare: list[str], common: list[str], w: dict[str, int], total: int
) -> dict[int, int] | None:
    """Summed weights of the paragraphs holding one of the heavy words, with every paragraph
    under ``FLOOR`` dropped; None when the shortcut cannot be exact (the caller then walks
    every posting): nothing light to skip, or a best recall too low for ``FLOOR`` to be the
    cut-off."""
    budget = FLOOR * total - sum(w[t] for t in common)
    light: set[str] = set()
    spent = 0
    for t in sorted(rare, key=lambda t: (w[t], t)):  # lightest first
        if spent + w[t] >= budget:
            break
        spent += w[t]
        light.add(t)
    heavy = [t for t in rare if t not in light]
    if not light or not heavy:
        return None
    found: set[int] = set()
    for t in heavy:
        found.update(doc.postings[t])
    paras = doc.paragraphs
    rset = frozenset(rare)
    acc = {i: sum([w[t] for t in paras[i].tokens & rset]) for i in found}
    if common:
        _add_common(doc, acc, common, w)
    if max(acc.values()) < (FLOOR + 0.03) * total:
        return None
    keep = FLOOR * total
    return {i: v for i, v in acc.items() if v >= keep}
