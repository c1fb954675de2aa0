"""A file stepping over the files right above it: what ``exactAhead`` and ``meaningAhead`` share.

Both rules read each file at its first place (its best score), walk the files in score order, and let a file that
qualifies pass each file right above it that it may pass, up to the first it may not; its first place is then
scored just above the highest it passes (``parts[key]`` says by how much), its other places stay. The rules differ
only in which file may lead (:mod:`.exactahead`: an exact one; :mod:`.meaningahead`: one nearer by meaning) and
which it may pass. Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Protocol

__all__ = ["Candidate", "step_over"]

Scored = list[tuple[float, dict[str, float]]]


class Candidate(Protocol):
    """What the rules read of :class:`mnote_kr.citations.rank.ranking.Candidate` (imported from there: a cycle)."""

    @property
    def file_name(self) -> str: ...
    @property
    def approximate(self) -> bool: ...
    @property
    def meaning(self) -> float | None: ...
    @property
    def place(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def unplaced(self) -> bool: ...


def step_over(out: Scored, candidates: Sequence[Candidate], key: str, leads: Callable[[int], bool],
              passes: Callable[[int, int], bool]) -> None:
    """In place: each file read at its first place, a file whose first place ``i`` ``leads`` steps over the files
    right above it whose first place ``j`` it ``passes(j, i)``, up to the first it may not pass. Both read ``out``
    as it stands, a file stepped ahead before included."""
    firsts: dict[str, int] = {}
    for i, c in enumerate(candidates):
        if c.file_name not in firsts or out[i][0] > out[firsts[c.file_name]][0]:
            firsts[c.file_name] = i
    order = sorted(firsts.values(), key=lambda i: (-out[i][0], i))
    for k, i in enumerate(order):
        if not leads(i):
            continue
        passed = None
        for j in reversed(order[:k]):
            if not passes(j, i):
                break
            passed = j
        if passed is not None:
            total, parts = out[i]
            value = math.nextafter(out[passed][0], math.inf)
            parts[key] = value - total
            out[i] = (value, parts)
