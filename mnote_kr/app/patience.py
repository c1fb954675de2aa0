"""How long a wait for the provider goes on (``ingest --wait --timeout S``, ``sync --wait S``).

The CLI's bound is time *without progress*, not the whole wait: nc25c's ``ingest . --wait`` on a loaded
machine exited 1 after 300 s with 6 of 14 files left, while LightRAG worked through them steadily (a person
reads exit 1 as failure). So each round the wait notes what the provider says of the files it follows
(:func:`moves`): a file done or failed (it leaves the waiting list), a status moving on (queued, sent, being
indexed), a stage or step begun, a chunk count moving, the provider's ``pulse`` (LightRAG: a model call of an
ingestion done, a pipeline message: nc27b's wait ended "no progress" while LightRAG embedded 482 chunks in one
write that said nothing for 5 minutes). Any change starts the bound again; a LightRAG hung on
one file (the same chunk of the same step round after round) moves nothing, and the wait ends after the
bound with the same error as before. The pulse is of this workspace's documents only: a search's model calls,
or another workspace's document worked on by the same LightRAG, move no pulse (review r28; the plugin's
``client/activity.py`` says how), so such a wait still ends while others search or ingest. A caller that must
answer within a bound (the HTTP API, an agent's tool call) asks for the whole wait bounded instead (``idle=False``).

The clock is injected: tests drive a wait round by round without sleeping.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Iterable, Mapping

from mnote_kr.models import ProviderActivity, SourceEntry


def moves(entries: Iterable[SourceEntry], activity: Mapping[str, ProviderActivity]) -> Hashable:
    """What, of the files a wait follows, tells whether indexing moved: each file not finished with its
    status and action, and what the provider said of it (stage, step, chunks done of how many, its pulse). Not
    the times: a stage's clock running is no progress."""
    out = []
    for e in entries:
        rel = e.source_root_relative_path
        act = activity.get(rel)
        said = (act.stage, act.step, act.chunks_done, act.chunks_total, act.pulse) if act is not None else None
        out.append((rel, e.status, e.pending_action, said))
    return tuple(out)


class Patience:
    """The bound of one wait: ``limit_s`` since the last round that saw something move (``idle``), or since
    the wait began (``idle=False``)."""

    def __init__(self, limit_s: float, *, idle: bool = True, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit_s = limit_s
        self.idle = idle
        self.clock = clock
        self.started = self.moved_at = clock()
        self._last: Hashable = None

    def saw(self, state: Hashable) -> None:
        """Note this round's :func:`moves`; a change from the last round is progress."""
        if self._last is not None and state != self._last:
            self.moved_at = self.clock()
        self._last = state

    def remaining(self) -> float:
        """Seconds left before the wait ends (0 or less: it is over)."""
        since = self.moved_at if self.idle else self.started
        return since + self.limit_s - self.clock()
