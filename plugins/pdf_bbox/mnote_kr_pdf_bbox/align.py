"""Align evidence to a document's compact text and turn a span into line rectangles.

Alignment is seed-and-vote: every k-gram of the compact evidence looks up its
positions in the document's k-gram index, each hit votes for a diagonal
(``doc_pos - evidence_pos``), and the densest band of diagonals (wide enough to
absorb small insertions and deletions) is the match. K-grams that occur more than
``KGRAM_CAP`` times carry no position, so in a long repetitive document the band is
found by the evidence's rare k-grams alone (a sentence unique only by its number);
coverage is then measured by reading the document along the band's diagonal, not by
counting index hits, so repeated wording still counts. Below ``MIN_COVERAGE``
nothing is returned: foreign evidence never gets a box.

Which block of the span answers the query is ``answer``'s job.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from . import layout, pdftext
from .pdftext import KGRAM, KGRAM_CAP, Box, DocumentText, TextView, compact_with_map

if TYPE_CHECKING:
    from mnote_kr.plugin_api import KeyedStore

MIN_COVERAGE = 0.5
MIN_EVIDENCE = 8  # compact characters; shorter evidence is too ambiguous to box
SEEDS = 256  # rarest evidence k-grams that vote for the alignment's diagonal
#: Evidence of at most this many compact characters (a line or a sentence) is not found where the text
#: layer reads it but for one of its numbers: the same words with another number are another line
#: (a form's or a template's pages), and the line itself may lie on a scanned page (OCR's to place).
SHORT_EVIDENCE = 80
_DIGIT_RUN = re.compile(r"\d+")
MEMO_MAX = 4096  # alignments kept in memory per document (a server sees foreign evidence too)


@dataclass(frozen=True)
class Match:
    """A span of one view's compact text that the evidence aligned to."""

    view: TextView
    start: int
    end: int  # exclusive
    coverage: float


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
    slots = index.slots
    offsets = index.offsets
    # Seeds: the evidence's rarest k-grams (at most SEEDS of them, ties by position), so the
    # vote costs the same on a long repetitive document as on a short one.
    found: list[tuple[int, int, int]] = []  # (occurrences, evidence position, k-gram slot)
    for e in range(n):
        slot = slots.get(evidence[e : e + KGRAM])
        if slot is not None:
            count = offsets[slot + 1] - offsets[slot]
            if count <= KGRAM_CAP:
                found.append((count, e, slot))
    if len(found) > SEEDS:
        found.sort(key=lambda f: (f[0], f[1]))
        found = found[:SEEDS]
    positions = index.positions
    hits: list[tuple[int, int, int]] = []  # (diagonal, evidence position, doc position)
    for _, e, slot in found:
        for d in positions[offsets[slot] : offsets[slot + 1]]:
            hits.append((d - e, e, d))
    if not hits:
        return None
    hits.sort()
    tol = max(4, int(0.08 * len(evidence)))
    best = (0, 0, 0)  # count, lo index, hi index (exclusive); the first densest band wins ties
    lo = 0
    for hi in range(len(hits)):
        while hits[hi][0] - hits[lo][0] > tol:
            lo += 1
        if hi + 1 - lo > best[0]:
            best = (hi + 1 - lo, lo, hi + 1)
    count, lo, hi = best
    band = hits[lo:hi]
    diag = sorted(h[0] for h in band)[len(band) // 2]
    # Read the document along the band: every evidence k-gram found within ``tol`` of its
    # place counts, rare or not, and the span runs from the first to the last one found.
    text = view.compact
    found_lo = found_hi = -1
    got = 0
    for e in range(n):
        g = evidence[e : e + KGRAM]
        at = diag + e
        d = _nearest(text, g, at, tol)
        if d < 0:
            continue
        got += 1
        diag = d - e  # follow small insertions and deletions as the reading goes on
        if found_lo < 0:
            found_lo = d
        if d + KGRAM > found_hi:
            found_hi = d + KGRAM
    if got == 0 or found_hi <= found_lo:
        return None
    return found_lo, found_hi, min(1.0, got / n)


def _nearest(text: str, g: str, at: int, tol: int) -> int:
    """The occurrence of ``g`` nearest to ``at`` within ``tol``; -1 when there is none."""
    best = -1
    d = text.find(g, max(0, at - tol), max(0, at + tol + len(g)))
    while d >= 0:
        if best < 0 or abs(d - at) < abs(best - at):
            best = d
        if d >= at:
            break
        d = text.find(g, d + 1, max(0, at + tol + len(g)))
    return best


def find(doc: DocumentText, evidence: str) -> Match | None:
    """Align ``evidence`` (raw text) to the better of the document's two views."""
    ev, _ = compact_with_map(evidence)
    best: tuple[float, TextView, int, int] | None = None
    for view in doc.views:
        if best is not None and best[0] + 0.02 >= 1.0:
            break  # no view can beat it (coverage is at most 1): aligning again changes nothing
        got = align(view, ev)
        if got is not None and (best is None or got[2] > best[0] + 0.02):
            best = (got[2], view, got[0], got[1])
    if best is None or best[0] < MIN_COVERAGE:
        return None
    coverage, view, start, end = best
    if len(ev) <= SHORT_EVIDENCE and coverage < 1.0 and _numbers(ev) - _numbers(view.compact[start:end]):
        return None  # "... Page 2." read at "... Page 4.": a line unique by its number is not its twin
    return Match(view, start, end, coverage)


def _numbers(compact: str) -> set[str]:
    return set(_DIGIT_RUN.findall(compact))


def find_stored(doc: DocumentText, evidence: str, prepare: Callable[[str], str]) -> Match | None:
    """``find(doc, prepare(evidence))``, kept on disk (``alignments``).

    Where a chunk aligns depends on the document's text and the chunk, not on the query, so
    a new process does not align a chunk that it, or another process, aligned before: the
    key is the document's ``text_key`` and the raw evidence; ``prepare`` (dropping running
    headers) must depend on nothing else.
    """
    key = f"{text_key(doc)}:{hashlib.blake2b(evidence.encode('utf-8', 'surrogatepass'), digest_size=20).hexdigest()}"
    memo = doc.extras.setdefault("aligned", {})  # in memory too: a long-lived process, or the disk cache off
    if not isinstance(memo, dict):
        memo = doc.extras["aligned"] = {}
    if key in memo:
        return memo[key]
    if len(memo) >= MEMO_MAX:
        memo.clear()
    m = memo[key] = _find_stored(doc, key, evidence, prepare)
    return m


def _find_stored(doc: DocumentText, key: str, evidence: str, prepare: Callable[[str], str]) -> Match | None:
    """The alignment stored under ``key``, or computed and stored."""
    store = alignments()
    stored = store.get(key)
    if stored is not None:
        try:
            got = json.loads(stored)
            if got is None:
                return None
            vi, start, end, coverage = got
            return Match(doc.views[vi], int(start), int(end), float(coverage))
        except (ValueError, TypeError, IndexError):
            pass  # a value of another shape: aligned again below
    m = find(doc, prepare(evidence))
    value = None if m is None else [doc.views.index(m.view), m.start, m.end, m.coverage]
    store.put(key, json.dumps(value).encode())
    return m


def text_key(doc: DocumentText) -> str:
    """A hash of both compact views and the running headers' keys: all that an alignment of
    raw evidence in this document depends on (call ``model.furniture_keys`` first)."""
    key = doc.extras.get("text_key")
    if not isinstance(key, str):
        h = hashlib.blake2b(digest_size=20)
        for view in doc.views:
            h.update(view.compact.encode("utf-8", "surrogatepass"))
            h.update(b"\0")
        furniture = doc.extras.get("furniture_keys")
        h.update(json.dumps(furniture if isinstance(furniture, list) else None).encode("utf-8", "surrogatepass"))
        key = doc.extras["text_key"] = h.hexdigest()
    return key


_store: KeyedStore | None = None


def alignments() -> KeyedStore:
    """Alignments on disk, under a version made of the code they depend on (this module, the
    compact text's folding in ``pdftext``, running headers in ``layout``): changed code never
    reads an old alignment."""
    global _store
    if _store is None:
        from mnote_kr.plugin_api import KeyedStore

        h = hashlib.blake2b(digest_size=12)
        from mnote_kr.plugin_api import textnorm

        model = Path(__file__).with_name("model.py")  # its header keys feed alignments (not imported: a cycle)
        for module in (__file__, pdftext.__file__, layout.__file__, textnorm.__file__, str(model)):
            try:
                h.update(Path(module).read_bytes())
            except OSError:
                h.update(os.urandom(12))  # unreadable source: a version no entry has
        _store = KeyedStore("pdf-align", "align:" + h.hexdigest())
    return _store


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
