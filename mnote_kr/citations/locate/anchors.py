"""Anchors: the pieces of a citation's evidence the matcher (``textmatch``) looks for.

Evidence is cut into lines, and long lines into sentence runs (``segments``); each becomes an
anchor weighted by how close it sits to an occurrence of the query, and each occurrence of the
query adds a window of the evidence around it (a ``qwin`` anchor). A ``#`` heading line is an
anchor of its own kind, used as context only.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from mnote_kr.citations.text.textnorm import normalize, query_occurrences, token_set

__all__ = ["MIN_ANCHOR_TOKENS", "Anchor", "build_anchors", "reliability", "segments"]

WINDOW = 90  # characters each side of a query occurrence
FOCUS_DECAY = 120.0  # characters over which a segment's focus falls by 1/e
MIN_ANCHOR_TOKENS = 3
_SENTENCE_END = re.compile(r"(?<=[。！？；.!?;])\s*")
_HEADING_LINE = re.compile(r"^\s{0,3}#{1,6}\s+")


@dataclass(slots=True)
class Anchor:
    """A piece of evidence with its tokens and how much it should count."""

    kind: str  # qwin | seg | heading
    start: int
    end: int
    tokens: frozenset[str]
    weight: float



def segments(ev: str) -> list[tuple[int, int, bool]]:
    """Split evidence into lines, and long lines into sentence runs: ``(start, end, is_heading)``."""
    out: list[tuple[int, int, bool]] = []
    pos = 0
    for line in ev.split("\n"):
        start, end = pos, pos + len(line)
        pos = end + 1
        if not line.strip():
            continue
        hm = _HEADING_LINE.match(line)
        if hm:
            out.append((start + hm.end(), end, True))
            continue
        if len(line) <= 160:
            out.append((start, end, False))
            continue
        seg_start = start
        for m in _SENTENCE_END.finditer(line):
            cut = start + m.end()
            if cut - seg_start >= 40 and cut < end:
                out.append((seg_start, cut, False))
                seg_start = cut
        if end > seg_start:
            out.append((seg_start, end, False))
    return out


def build_anchors(
    ev: str, query: str, heading: str | None, *, prefer_standalone: bool | None = None
) -> tuple[list[Anchor], list[tuple[int, float]]]:
    """Anchors over normalised evidence; also returns the query occurrences used for focus."""
    anchors: list[Anchor] = []
    occ = query_occurrences(ev, query, prefer_standalone=prefer_standalone, edges=False)
    segs = segments(ev)
    for start, end, is_heading in segs:
        toks = token_set(ev[start:end])
        if not toks:
            continue
        if occ:
            dist = min(0 if start <= p < end else min(abs(p - start), abs(p - end)) for p, _ in occ)
            focus = max(w for p, w in occ if (0 if start <= p < end else min(abs(p - start), abs(p - end))) == dist)
            focus *= math.exp(-dist / FOCUS_DECAY) * (1.0 if dist == 0 else 0.7)
        else:
            focus = 1.0
        kind = "heading" if is_heading else "seg"
        weight = (0.55 + 0.45 * focus) * (0.6 if is_heading else 1.0)
        anchors.append(Anchor(kind, start, end, toks, weight))
    for p, w in occ:
        # clip the window to the evidence line holding the occurrence when that line is long enough
        line_start = ev.rfind("\n", 0, p) + 1
        line_end = ev.find("\n", p)
        line_end = len(ev) if line_end < 0 else line_end
        lo, hi = max(0, p - WINDOW), min(len(ev), p + len(query) + WINDOW)
        if line_end - line_start >= 30:
            lo, hi = max(lo, line_start), min(hi, line_end)
        toks = token_set(ev[lo:hi])
        if len(toks) >= MIN_ANCHOR_TOKENS:
            anchors.append(Anchor("qwin", lo, hi, toks, 1.0 * (0.6 + 0.4 * w)))
    if heading:
        htoks = token_set(normalize(heading))
        if htoks and not any(a.kind == "heading" for a in anchors):
            anchors.append(Anchor("heading", 0, 0, htoks, 0.6))
    return anchors, occ


def reliability(n_tokens: int) -> float:
    return min(1.0, n_tokens / 8.0) ** 0.5


