"""The locator evidence window: centred on the query standing alone, or where its words cluster."""

from __future__ import annotations

import functools
import re

from mnote_kr.citations.cleaning.text import _BOUNDARY_RE, _collapse
from mnote_kr.citations.text.textnorm import free_sides

# --------------------------------------------------------------------------- locator window


@functools.lru_cache(maxsize=256)  # every cited chunk of a search asks for the same query's pattern
def _query_re(query: str) -> re.Pattern[str] | None:
    words = query.split()
    if not words:
        return None
    return re.compile(r"\s*".join(re.escape(w) for w in words), re.IGNORECASE)


def _best_hit(qre: re.Pattern[str] | None, text: str) -> tuple[int, int] | None:
    """The query occurrence to centre on: one standing alone beats one inside a longer word.

    ``吡咯烷`` inside ``N-甲基吡咯烷酮`` has letters on both sides; ``吡咯烷 是一种…`` at the start
    of a paragraph has none. Among equals the first occurrence wins.
    """
    if qre is None:
        return None
    best: tuple[int, int, int] | None = None  # (-bounded sides, start, end)
    for n, m in enumerate(qre.finditer(text)):
        key = (-free_sides(text, m.start(), m.end()), m.start(), m.end())
        if best is None or key < best:
            best = key
        if key[0] == -2 or n > 200:
            break
    return (best[1], best[2]) if best else None


def _term_centre(text: str, query: str, window: int, folded: str | None = None) -> int | None:
    """Where the query's content words cluster most densely (for queries not found verbatim).

    The words are :func:`mnote_kr.citations.rank.ranking.terms` (stop words dropped, stemmed, CJK
    bigrams), so "when was the typewriter patented" centres on "Patented ... typewriter", not
    on the nearest "the". ``folded`` is ``ranking.fold(text)`` when the caller has it.
    """
    from mnote_kr.citations.rank.ranking import find_terms

    hits = find_terms(text, query, folded=folded)
    if not hits:
        return None
    best, best_pos, lo = 0, hits[0][0], 0
    for hi in range(len(hits)):
        while hits[hi][0] - hits[lo][0] > window:
            lo += 1
        distinct = len({t for _, t in hits[lo : hi + 1]})
        if distinct > best:
            best, best_pos = distinct, (hits[lo][0] + hits[hi][0]) // 2
    return best_pos


def _window(text: str, start: int, end: int, window: int) -> str:
    """``text[start:end]`` widened by ``window`` each way, cut at sentence/line boundaries."""
    lo, hi = max(0, start - window), min(len(text), end + window)
    if lo > 0:
        b = _BOUNDARY_RE.search(text, lo, start)
        if b:
            lo = b.end()
        else:  # no sentence boundary: at least do not cut a Latin word
            sp = text.find(" ", lo, start)
            if sp >= 0 and sp - lo < 40:
                lo = sp + 1
    if hi < len(text):
        last = None
        for found in _BOUNDARY_RE.finditer(text, end, hi):
            last = found
        if last is not None:
            hi = last.end() if last.group(0) != "\n" else last.start()
        else:
            sp = text.rfind(" ", end, hi)
            if sp >= 0 and hi - sp < 40:
                hi = sp
    return text[lo:hi].strip()


def _overlap_at(block: str, chunk: str, shingle: int = 16, samples: int = 12) -> int | None:
    """Where ``block`` shares a passage with ``chunk`` (index in ``block``), or None."""
    nb = _collapse(block.casefold())
    nc = _collapse(chunk.casefold())
    if not nb.strip() or not nc.strip():
        return None
    if len(nb) <= shingle:
        return 0 if nb.strip() in nc else None
    step = max(1, (len(nb) - shingle) // samples)
    for pos in range(0, len(nb) - shingle + 1, step):
        piece = nb[pos : pos + shingle]
        if piece.strip() and piece in nc:
            return min(pos, len(block))
    return None
