"""Find evidence in a document's compact text and turn the match into line boxes.

Alignment is seed-and-vote: every k-gram of the compact evidence looks up its
positions in the document's k-gram index, each hit votes for a diagonal
(``doc_pos - evidence_pos``), and the densest band of diagonals (wide enough to
absorb small insertions and deletions) is the match. Coverage is the share of the
evidence's k-grams that fall in that band; below ``MIN_COVERAGE`` nothing is
returned, so foreign evidence never gets a box.

The query only narrows a long match: its occurrences are searched inside the
matched span (a whole word preferred), never across the document, so a short
query that also sits inside a longer word elsewhere cannot pull the box away.
"""

from __future__ import annotations

from dataclasses import dataclass

from .pdftext import KGRAM, KGRAM_CAP, Box, DocumentText, TextView, compact_with_map, fold_char

MIN_COVERAGE = 0.5
MIN_EVIDENCE = 8  # compact characters; shorter evidence is too ambiguous to box
NARROW_ABOVE = 1000  # a match longer than this (a whole chunk) is narrowed around the query
WINDOW = 500  # compact characters kept around the query when narrowing


@dataclass(frozen=True)
class Match:
    """A span of one view's compact text that the evidence aligned to."""

    view: TextView
    start: int
    end: int  # exclusive
    coverage: float
    focus_start: int
    focus_end: int
    query_found: bool
    query_start: int = -1
    query_end: int = -1


@dataclass(frozen=True)
class Span:
    """A rectangle on one page (locator frame) covering some matched lines."""

    page: int  # 1-based
    box: Box


def align(view: TextView, evidence: str) -> tuple[int, int, float] | None:
    """Align compact ``evidence`` to a view; ``(start, end, coverage)`` or None."""
    n = len(evidence) - KGRAM + 1
    if len(evidence) < MIN_EVIDENCE or n <= 0:
        return None
    index = view.index
    hits: list[tuple[int, int, int]] = []  # (diagonal, evidence position, doc position)
    for e in range(n):
        occ = index.get(evidence[e : e + KGRAM])
        if occ is None or len(occ) > KGRAM_CAP:
            continue
        for d in occ:
            hits.append((d - e, e, d))
    if not hits:
        return None
    hits.sort()
    tol = max(4, int(0.08 * len(evidence)))
    best = (0, 0, 0)  # count, lo index, hi index (exclusive)
    lo = 0
    for hi in range(len(hits)):
        while hits[hi][0] - hits[lo][0] > tol:
            lo += 1
        if hi + 1 - lo > best[0]:
            best = (hi + 1 - lo, lo, hi + 1)
    count, lo, hi = best
    band = hits[lo:hi]
    coverage = min(1.0, len({e for _, e, _ in band}) / n)
    # The ends come from the first and last evidence k-grams, each taken on the diagonal
    # nearest the band's median: a stray hit at the band's edge must not stretch the span.
    diag = sorted(h[0] for h in band)[len(band) // 2]
    e_min = min(e for _, e, _ in band)
    e_max = max(e for _, e, _ in band)
    start = min((h for h in band if h[1] == e_min), key=lambda h: abs(h[0] - diag))[2]
    end = min((h for h in band if h[1] == e_max), key=lambda h: abs(h[0] - diag))[2] + KGRAM
    if end <= start:
        return None
    return start, end, coverage


def _word_bounded(doc: DocumentText, view: TextView, start: int, end: int) -> bool:
    """True when compact ``[start, end)`` is a whole word in the page text (or CJK)."""
    page = doc.pages[view.compact_page[start]]
    text = page.text
    a = view.compact_char[start]
    b = view.compact_char[end - 1]
    if not text[a].isascii():
        return True  # CJK and other scripts written without spaces
    before = text[a - 1] if a > 0 else " "
    after = text[b + 1] if b + 1 < len(text) else " "
    return not (fold_char(before) and before.isascii()) and not (fold_char(after) and after.isascii())


def find(doc: DocumentText, evidence: str, query: str = "") -> Match | None:
    """Locate ``evidence`` (raw text) in ``doc``; the query narrows a long match."""
    ev, _ = compact_with_map(evidence)
    best: tuple[float, TextView, int, int] | None = None
    for view in doc.views:
        got = align(view, ev)
        if got is not None and (best is None or got[2] > best[0] + 0.02):
            best = (got[2], view, got[0], got[1])
    if best is None or best[0] < MIN_COVERAGE:
        return None
    coverage, view, start, end = best
    q, _ = compact_with_map(query)
    fs, fe, found = start, end, False
    qs = qe = -1  # where the query sits inside the match (compact offsets), when it does
    if q and len(q) >= 2:
        seg = view.compact
        occ: list[int] = []
        i = seg.find(q, start, end)
        while i >= 0:
            occ.append(i)
            i = seg.find(q, i + 1, end)
        whole = [i for i in occ if _word_bounded(doc, view, i, i + len(q))]
        picks = whole or occ
        if picks:
            pick = picks[0]
            found = True
            qs, qe = pick, pick + len(q)
            if end - start > NARROW_ABOVE:
                half = (WINDOW - len(q)) // 2
                fs = max(start, pick - half)
                fe = min(end, pick + len(q) + half)
    elif end - start > NARROW_ABOVE:
        fe = start + WINDOW
    return Match(view, start, end, coverage, fs, fe, found, qs, qe)


def spans(doc: DocumentText, view: TextView, start: int, end: int) -> list[Span]:
    """Rectangles for compact ``[start, end)``: matched lines merged per page and column.

    Lines are merged in the page's text frame (unrotated), then each rectangle is
    mapped to the locator frame.
    """
    chosen: list[tuple[int, int]] = []  # (page index, line index) in view order
    seen: set[tuple[int, int]] = set()
    for pos in range(start, end):
        pi = view.compact_page[pos]
        li = doc.pages[pi].line_of[view.compact_char[pos]]
        if li >= 0 and (pi, li) not in seen:
            seen.add((pi, li))
            chosen.append((pi, li))
    # Connected lines form one rectangle: pieces of one row split by a wide gap, or
    # consecutive rows of one column. Another column or a jump down the page starts
    # a new rectangle.
    parent = list(range(len(chosen)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(chosen)):
        for j in range(i + 1, len(chosen)):
            if chosen[i][0] == chosen[j][0] and _adjacent(
                doc.pages[chosen[i][0]].lines[chosen[i][1]], doc.pages[chosen[j][0]].lines[chosen[j][1]]
            ):
                parent[root(j)] = root(i)
    groups: list[tuple[int, list[float]]] = []
    slot: dict[int, int] = {}
    for i, (pi, li) in enumerate(chosen):
        b = doc.pages[pi].lines[li]
        r = root(i)
        if r not in slot:
            slot[r] = len(groups)
            groups.append((pi, list(b)))
            continue
        cur = groups[slot[r]][1]
        cur[0], cur[1] = min(cur[0], b[0]), min(cur[1], b[1])
        cur[2], cur[3] = max(cur[2], b[2]), max(cur[3], b[3])
    out = []
    for pi, g in groups:
        geom = doc.pages[pi].geometry
        out.append(Span(pi + 1, geom.display((g[0], g[1], g[2], g[3]))))
    return out


def _adjacent(a: Box, b: Box) -> bool:
    """True when two text-frame line boxes belong to one rectangle."""
    h = max(min(a[3] - a[1], b[3] - b[1]), 1.0)
    v_overlap = min(a[3], b[3]) - max(a[1], b[1])
    if v_overlap > 0.5 * h:  # one row (a line split by a wide gap, or table cells)
        return True
    x_overlap = min(a[2], b[2]) - max(a[0], b[0])
    return x_overlap > 0 and -v_overlap < 1.5 * h
