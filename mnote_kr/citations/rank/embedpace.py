"""The time left of ingest's embedding step (``meaning.embed_queued``), said only while it is worth saying.

The model embeds places shortest first (``e5.E5.embed`` batches texts of like length), so counting paragraphs
the first batches run fast and the last slow: nc26b's step said "about 5 s left" at 2,892/5,624 paragraphs (7 s in)
and took 46 s more. The pace is measured in the work a place costs the model (:func:`place_cost`: about its tokens,
up to the 128 it reads), not in places. Near the end no pace says more than "soon": nc26b read "about 4 s left"
for 20 s, nc26a "about 0 s left" 4 s before the end. Once the estimate is under a second, or stays a few seconds
while the clock runs past it (it no longer falls as time passes: :data:`FINISHING_S`), the line says
"finishing" and keeps saying it until the step ends.
"""

from __future__ import annotations

import math
from typing import Any

from mnote_kr.core.progresstext import elapsed_text, time_left

__all__ = ["FINISHING_S", "Pace", "place_cost"]

#: An estimate at most this many seconds that does not fall as the clock runs is said as "finishing".
FINISHING_S = 10.0
#: The most tokens of a place the model reads (``meaning.MAX_PLACE_TOKENS``), and those it adds to each.
_MOST_TOKENS = 128
_ADDED_TOKENS = 4


def place_cost(text: str) -> int:
    """About the tokens the model reads of ``text``: a token per four ASCII characters, one per other character
    (CJK), at most ``_MOST_TOKENS``, and the few it adds (``passage: ``, the ends)."""
    ascii_chars = len(text) if text.isascii() else sum(1 for ch in text if ch.isascii())
    return min(_MOST_TOKENS, math.ceil(ascii_chars / 4) + len(text) - ascii_chars) + _ADDED_TOKENS


class Pace:
    """The time left of ``total_work``: measured from the first batch's end (the model's start-up falls in it)."""

    def __init__(self, total_work: float) -> None:
        self.total_work = total_work
        self.first: tuple[float, float] | None = None
        self.said: tuple[float, float] | None = None  # the last estimate said: when, how many seconds
        self.finishing = False

    def batch(self, now: float, work_done: float) -> None:
        """A batch ended at ``now`` with ``work_done`` in all."""
        if self.first is None and work_done > 0:
            self.first = (now, work_done)

    def left(self, now: float, work_done: float) -> tuple[str, dict[str, Any]]:
        """What the line says of the time left (``, about 12 s left``, ``, finishing`` or nothing) and its data
        (``leftS`` or ``finishing``)."""
        if self.finishing:
            return ", finishing", {"finishing": True}
        left = time_left(self.first, (now, work_done), self.total_work)
        if left is None:
            return "", {}
        stuck = self.said is not None and now > self.said[0] and left > self.said[1] - (now - self.said[0]) / 2
        if left < 1.0 or (stuck and left <= FINISHING_S):
            self.finishing = True
            return ", finishing", {"finishing": True}
        self.said = (now, left)
        return f", about {elapsed_text(left)} left", {"leftS": round(left)}
