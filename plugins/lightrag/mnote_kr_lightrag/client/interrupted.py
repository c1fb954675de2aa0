"""Documents an engine stopped in the middle of: not being indexed, whatever their row says.

LightRAG 1.5.7 writes a document's status as its pipeline takes it (``pending`` → ``parsing`` →
``analyzing`` → ``processing`` → ``processed``). When its process ends mid-run (``mnote-kr engine stop``
while an ingest waits, a crash, a reboot), the row keeps the status it had, and the server started again
sits idle beside it (``Documents: 1 processing``, pipeline ``busy: false``): nothing resumes it until its
pipeline runs again (nc26c: the 872-page handbook stayed "processing" for good, and every message said it
was still being indexed). Any run does: its first snapshot takes the ``pending``, ``parsing``,
``analyzing`` and ``processing`` rows too (``_AUTO_RESUME_DOC_STATUSES``), purges what the dead run stored
of such a document ("[resume] doc-…: purging 482 chunk(s) … before rebuilding") and indexes it anew. A
``/documents/scan`` starts such a run even with nothing new in the input dir; that is how ``sync`` sends an
interrupted document again (the user's file is not read by us, and the link LightRAG moved into
``__parsed__`` stays where it is).

So a document LightRAG lists in flight while its pipeline is idle (not ``busy``, not ``scanning``, no
``pending_enqueues``) is *interrupted*. A row changed in the last :data:`GRACE_S` is not called so: a scan
just sent lists its documents ``pending`` a moment before the pipeline says it is busy.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .docrows import _ms

#: LightRAG statuses of a document its pipeline has taken and not finished.
IN_FLIGHT = frozenset({"pending", "parsing", "analyzing", "processing", "preprocessed"})
#: A row this recent (seconds) may be one a run is taking up right now.
GRACE_S = 5.0
#: What ``status`` and a search say of such a file (the host's words are its own; this is the provider's).
NOTE = "interrupted: the engine stopped while indexing it; 'mnote-kr sync' indexes it again"
#: The reason a file sent again carries until LightRAG has indexed it.
SENT_AGAIN = "the engine stopped while indexing it; sent again: LightRAG indexes it anew"


def idle(pipeline: Mapping[str, Any] | None) -> bool:
    """Whether a pipeline status (``/documents/pipeline_status``) or ``/health`` answer says LightRAG's
    pipeline is idle: not busy, not scanning, nothing waiting to enter it. No answer: not known, False."""
    if not pipeline:
        return False
    busy = pipeline.get("busy", pipeline.get("pipeline_busy"))
    scanning = pipeline.get("scanning", pipeline.get("pipeline_scanning"))
    enqueues = pipeline.get("pending_enqueues", pipeline.get("pipeline_pending_enqueues"))
    return busy is False and not scanning and not enqueues


def in_flight(row: Mapping[str, Any] | None) -> bool:
    """Whether LightRAG lists the document of ``row`` as taken and not finished."""
    return row is not None and str(row.get("status") or "").lower() in IN_FLIGHT


def stopped(row: Mapping[str, Any] | None, now_s: float) -> bool:
    """Whether ``row`` is in flight and has not changed for :data:`GRACE_S` (its time unknown: it has not).
    Only means *interrupted* beside an :func:`idle` pipeline."""
    if not in_flight(row):
        return False
    changed = _ms(row.get("updated_at")) if row is not None else None
    return changed is None or now_s * 1000 - changed >= GRACE_S * 1000


def interrupted(rows: Iterable[Mapping[str, Any]], pipeline: Mapping[str, Any] | None,
                now_s: float) -> list[Mapping[str, Any]]:
    """The rows of documents an engine stopped in the middle of: in flight, unchanged for a while, beside an
    idle pipeline (none when the pipeline works or did not say)."""
    if not idle(pipeline):
        return []
    return [row for row in rows if stopped(row, now_s)]
