"""``inFile``: ordering a file's own passages among the places (scores) they hold, moving no file.

:func:`mnote_kr.citations.rank.ranking.relevance` scores the citations of a search; a file's citations then
fill the scores they hold in the order of a key the ranking builds from its in-file cues (a notice, the answer
type asked, the place nearest the query by meaning, the query as written: the ranking's docstring, ``inFile``).
This module holds the mechanics those cues share: whether a place holds the query as written
(:func:`written`), the meaning cue scaled over a file's citations (:func:`meaning_in_file`), a score with the
word match ``farInMeaning`` took back given again (:func:`with_words`), and the reordering itself
(:func:`order_within_files`). The weights stay the ranking's (``MEANING_IN_FILE``, ``WRITTEN_IN_FILE``, ...).
Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol

__all__ = ["meaning_in_file", "order_within_files", "with_words", "written"]


class Candidate(Protocol):
    """What is read of :class:`mnote_kr.citations.rank.ranking.Candidate` (imported from there: a cycle)."""

    @property
    def file_name(self) -> str: ...
    @property
    def meaning(self) -> float | None: ...


def written(q: str, text: str) -> bool:
    """Whether ``text`` holds the folded query ``q`` as written: a Latin query's ends on a word's ends
    ("ion" is not written in "cation"); CJK, which has no spaces, anywhere."""
    at = text.find(q)
    while at >= 0:
        before, after = text[at - 1:at], text[at + len(q):at + len(q) + 1]
        if not (_latin(q[0]) and _latin(before)) and not (_latin(q[-1]) and _latin(after)):
            return True
        at = text.find(q, at + 1)
    return False


def _latin(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def with_words(score: float, parts: dict[str, float], apparatus_factor: float) -> float:
    """``score`` with the word match ``farInMeaning`` took back given again (scaled by ``apparatus_factor`` when
    the apparatus cue scaled it)."""
    far = parts.get("farInMeaning", 0.0)
    return score - far * (apparatus_factor if "apparatus" in parts else 1.0) if far else score


def meaning_in_file(candidates: Sequence[Candidate], weight: float) -> list[float]:
    """``weight`` times each citation's cosine scaled over its file's citations (0 for the
    file's least meant place, the weight for its best); 0 where a citation has no cosine."""
    by_file: dict[str, list[float]] = {}
    for c in candidates:
        if c.meaning is not None:
            by_file.setdefault(c.file_name, []).append(c.meaning)
    out = []
    for c in candidates:
        cos = by_file.get(c.file_name, [])
        lo, hi = min(cos, default=0.0), max(cos, default=0.0)
        out.append(weight * (c.meaning - lo) / (hi - lo) if c.meaning is not None and hi - lo > 1e-9 else 0.0)
    return out


def order_within_files(out: list[tuple[float, dict[str, float]]], files: Sequence[str], key: Sequence[float]) -> None:
    """In place: each file's citations fill the places (scores) they hold in the order of ``key``
    (highest first; their order so far on ties); every place keeps its file, so no file moves."""
    order = sorted(range(len(out)), key=lambda i: (-out[i][0], i))  # the host's order: score, then input order
    position = {i: k for k, i in enumerate(order)}
    by_file: dict[str, list[int]] = {}
    for i in order:
        by_file.setdefault(files[i], []).append(i)
    for mine in by_file.values():
        places = [out[i][0] for i in mine]
        previous = math.inf
        for place, i in zip(places, sorted(mine, key=lambda i: (-key[i], position[i])), strict=True):
            # strictly below the passage placed before it: an equal score would let input order undo the move
            value = place if place < previous else math.nextafter(previous, -math.inf)
            total, parts = out[i]
            if value != total:
                parts["inFile"] = value - total
            out[i] = (value, parts)
            previous = value
