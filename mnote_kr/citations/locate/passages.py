"""The paragraphs a citation's evidence quotes, grouped into passages (runs of neighbours).

A chunk holds several neighbouring paragraphs; ``textmatch`` aligns each evidence line with the
paragraphs it most likely came from. Text repeated elsewhere in the document (boilerplate, a
repeated form) also aligns, so the quoted paragraphs are grouped into runs of neighbours, one per
copy of the passage. A run may also step over a stretch of paragraphs no evidence line aligns
with (a table the provider's parser keeps apart from the body text, or renders one line per
row): the lines after the stretch go on with the evidence where the lines before it stopped
(``Run.skipped``). Of such a stretch, only the paragraphs the evidence holds whole (``held``) are
in the passage.
"""

from __future__ import annotations

from typing import NamedTuple

from mnote_kr.citations.locate.anchors import MIN_ANCHOR_TOKENS, Anchor
from mnote_kr.citations.locate.anchors import reliability as _reliability
from mnote_kr.citations.locate.textdoc import P, Scope, TextDocument
from mnote_kr.citations.text.textnorm import shingles

__all__ = ["EVIDENCE_PARAGRAPHS", "RUN_GAP", "VERIFY_FULL", "Run", "evidence_paragraphs", "held"]

VERIFY_FULL = 0.5  # shingle containment at which an anchor counts as quoted verbatim
EVIDENCE_PARAGRAPHS = 40  # paragraphs of one evidence text checked for the query's terms
RUN_GAP = 2  # paragraphs with words between two that still count as one passage


class Run(NamedTuple):
    """One passage of quoted paragraphs, in document order."""

    #: quoted paragraph index -> confidence
    conf: dict[int, float]
    #: how many evidence lines its paragraphs explain
    lines: int
    #: paragraphs with words inside it that the evidence does not quote (a copy read straight
    #: through has none, a copy pieced together from scattered repeats has some); ``skipped`` not counted
    gaps: int
    #: paragraphs with words inside it on a stretch it stepped over (between two quoted ones, no
    #: evidence line aligned with them): in the passage only where the evidence holds them (``held``)
    skipped: frozenset[int] = frozenset()

    def inside(self, doc: TextDocument[P], ev: str) -> list[int]:
        """Its paragraphs with words from the first quoted to the last; of a stretch it stepped
        over, those the (normalised) evidence ``ev`` holds whole."""
        lo, hi = min(self.conf), max(self.conf)
        paras = doc.paragraphs
        return [i for i in range(lo, hi + 1)
                if i in self.conf or paras[i].tokens and (i not in self.skipped or held(paras[i].norm, ev))]


def held(norm: str, ev: str) -> bool:
    """Does the evidence hold this paragraph's whole (normalised) text? A text of one character
    ("1", "是") is in almost any evidence and does not count."""
    norm = norm.strip()
    return len(norm) > 1 and norm in ev


def evidence_paragraphs(
    doc: TextDocument[P],
    ev: str,
    aligned: list[tuple[Anchor, list[tuple[int, float]]]],
    scope: Scope | None,
    threshold: float,
) -> list[Run]:
    """The paragraphs the evidence quotes, with their confidence (at or above ``threshold``),
    in runs of neighbours, in document order.

    Each evidence line (``aligned``: an anchor and the paragraphs it most likely came from) is
    verified with shingles. Neighbours have at most ``RUN_GAP`` paragraphs with words between
    them; a second copy of a paragraph already in the run, explaining no new evidence line,
    starts the next copy of the passage. Two runs in a row join across any stretch without a
    heading when the later one goes on with the evidence where the earlier one stopped: it
    explains no line the earlier one does, and its lines come after the earlier one's.
    """
    paras = doc.paragraphs
    conf: dict[int, float] = {}
    lines_of: dict[int, set[int]] = {}
    sh_cache: dict[int, frozenset[int]] = {}
    for k, (a, cands) in enumerate(aligned):
        ash = sh_cache.get(id(a))
        if ash is None:
            ash = sh_cache[id(a)] = shingles(ev[a.start : a.end]) if a.end > a.start else frozenset()
        short = len(a.tokens) < MIN_ANCHOR_TOKENS  # too short for shingles: its recall decides
        for i, r in cands:
            if short:
                r = r / _reliability(len(a.tokens)) if a.tokens else 0.0
            if r < threshold:
                continue
            v = len(ash & paras[i].shingles) / len(ash) if ash and not short else 1.0 if short else 0.0
            c = r * min(1.0, v / VERIFY_FULL)
            if paras[i].in_toc:
                c *= 0.3
            if scope is not None and i not in scope:
                c *= scope.outside
            if c >= threshold:
                conf[i] = max(conf.get(i, 0.0), c)
                lines_of.setdefault(i, set()).add(k)
    if len(conf) > EVIDENCE_PARAGRAPHS:
        keep = sorted(conf, key=lambda i: (-conf[i], i))[:EVIDENCE_PARAGRAPHS]
        conf = {i: conf[i] for i in keep}
    runs: list[list[int]] = []
    covered: set[int] = set()  # evidence lines the current run explains
    for i in sorted(conf):
        # neighbours: at most RUN_GAP paragraphs with words between (empty ones do not count);
        # a second copy of a paragraph already in the run, explaining no new evidence line,
        # starts the next copy of the passage
        if (
            runs
            and i - runs[-1][-1] <= 1 + RUN_GAP * 4
            and sum(1 for k in range(runs[-1][-1] + 1, i) if paras[k].tokens) <= RUN_GAP
            and not (lines_of[i] <= covered and any(paras[j].tokens == paras[i].tokens for j in runs[-1]))
        ):
            runs[-1].append(i)
            covered |= lines_of[i]
        else:
            runs.append([i])
            covered = set(lines_of[i])
    starts = [a.start for a, _ in aligned]
    out: list[Run] = []
    for run in runs:
        lines = set().union(*(lines_of[i] for i in run))
        gaps = sum(1 for k in range(run[0], run[-1] + 1) if k not in conf and paras[k].tokens)
        if out and _goes_on(doc, out[-1], run, lines, starts, lines_of):
            prev = out.pop()
            skipped = prev.skipped | frozenset(k for k in range(max(prev.conf) + 1, run[0]) if paras[k].tokens)
            lines |= set().union(*(lines_of[i] for i in prev.conf))
            out.append(Run({**prev.conf, **{i: conf[i] for i in run}}, len(lines), prev.gaps + gaps, skipped))
        else:
            out.append(Run({i: conf[i] for i in run}, len(lines), gaps))
    return out


def _goes_on(doc: TextDocument[P], prev: Run, run: list[int], lines: set[int], starts: list[int],
             lines_of: dict[int, set[int]]) -> bool:
    """Does ``run`` continue the evidence of the run before it, across paragraphs the chunk left out?

    The chunk is one stretch of the document's text: when the later run's lines all follow the
    earlier run's in the evidence and none is explained by both (a second copy of the passage
    explains the same lines again), the paragraphs between were not in the chunk. A heading
    between them starts another section, which the chunk would have quoted: no join then."""
    before = set().union(*(lines_of[i] for i in prev.conf))
    if lines & before or max(starts[k] for k in before) >= min(starts[k] for k in lines):
        return False
    return not any(doc.paragraphs[k].heading_level for k in range(max(prev.conf) + 1, run[0]))
