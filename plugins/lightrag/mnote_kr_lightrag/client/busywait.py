"""Waiting out a busy LightRAG before sending a file again (a ``sync`` that waits, ``wait_s > 0``).

LightRAG refuses a scan while its pipeline is busy (``scanning_skipped_pipeline_busy``): with another
document, or with the delete of the very file's old version that a re-index sends just before the
scan. The file is then queued (``pending``) with a reason that starts :data:`BUSY` and a backoff of
5 s and more. A sync that waits does not sleep out that backoff, nor list every document and scan
again to learn that LightRAG is still busy: it polls the pipeline status (one small answer) until it
says idle, saying on the progress line what LightRAG is doing, and sends the file then.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from mnote_kr.plugin_api import ProviderError


class Waiting(Protocol):
    """What a wait reads of the provider (``LightRagProvider``: its client and context), named here so that
    this module does not import the provider that imports it."""

    client: Any
    ctx: Any

#: How a queued file's reason starts when LightRAG refused it as busy (``provider._link_and_scan``).
BUSY = "LightRAG is busy"
_REFUSED = re.compile(r"^LightRAG (?:is|was) busy\b")
#: Seconds between two looks at the pipeline status while it is busy.
POLL_S = 0.5
#: Seconds between two progress lines while waiting.
PROGRESS_EVERY_S = 5.0


def refusal(error: str | None, own_delete: bool) -> str:
    """Why a scan LightRAG refused as busy left a file queued. ``own_delete``: this very call had just
    started deleting the file's old version, so LightRAG was idle a moment before (a delete is refused while
    it is busy) and it is that delete it is busy with: said in those words, not as someone else's work (a
    newcomer's watch log said "LightRAG is busy" on every single edit, nc18b problem 6)."""
    if own_delete:
        return f"{BUSY} removing this file's old version, which this re-index deleted first; the new one is sent next"
    return f"{BUSY}: {error}"


def refused_busy(status: str, action: str | None, last_error: str | None) -> bool:
    """Whether a queued send (``ingest``/``reindex``) waits only because LightRAG was busy."""
    return status == "pending" and action in ("ingest", "reindex") and bool(_REFUSED.match(last_error or ""))


class BusyWait:
    """The pipeline status, asked at most once per round of a waiting sync, and its progress lines."""

    def __init__(self, prov: Waiting, now: float, wait_s: float) -> None:
        self.prov = prov
        self.started = now
        self.wait_s = wait_s
        self._asked: bool | None = None  # this round's answer (None: not asked yet)
        self._job = ""
        self._said = -PROGRESS_EVERY_S

    def new_round(self) -> None:
        self._asked = None

    def busy(self) -> bool:
        """Is LightRAG's pipeline busy now? (Not answered: no, and the send finds out as before.)"""
        if self._asked is None:
            try:
                status = self.prov.client.pipeline_status()
            except (ProviderError, ValueError):
                status = {}
            self._asked = bool(status.get("busy"))
            self._job = str(status.get("job_name") or "")
        return self._asked

    def note(self, files: int, now: float) -> None:
        """One progress line now and then: what LightRAG is busy with, and how long this has waited."""
        if now - self._said < PROGRESS_EVERY_S:
            return
        self._said = now
        job = f" ({self._job})" if self._job else ""
        self.prov.ctx.progress(f"LightRAG is busy{job}: {files} file(s) wait to be sent; "
                               f"{now - self.started:.0f} s so far, at most {self.wait_s:g} s")

