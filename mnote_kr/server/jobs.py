"""Background jobs of the HTTP API: long work (``ingest`` with ``wait``) that a client polls.

A job runs in its own daemon thread and records one progress line per step of the
host's work. Clients read it at ``GET /api/jobs/{id}`` (a snapshot) or follow it at
``GET /api/jobs/{id}/events`` (server-sent events, resumable with ``Last-Event-ID``).
Finished jobs are kept, the oldest dropped first, so memory stays bounded.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any, Literal

import msgspec

from mnote_kr.errors import MnoteKrError, ProviderLostError

log = logging.getLogger("mnote_kr.server.app")

JobState = Literal["queued", "running", "succeeded", "failed"]

#: A job's work: it receives a progress callback and returns a msgspec-encodable result.
Work = Callable[[Callable[[str], None]], Any]


class ApiErrorBody(msgspec.Struct, kw_only=True, frozen=True):
    """The one error shape of the API: a stable code, a message, and how to fix it."""

    code: str
    message: str
    hint: str | None = None


class ProgressLine(msgspec.Struct, kw_only=True, frozen=True, rename="camel", omit_defaults=True):
    """One step of a job's work; ``seq`` counts from 1 and is the SSE event id. ``detail``, on the
    lines of an ingest's wait only, holds the line's facts as data (``app/waitprogress.py``):
    ``step: "wait"``, ``elapsedS``, ``indexed``, ``total``, ``waiting`` (every file not indexed
    yet), ``working`` (``path``, ``stage``, ``forS``, and ``step``, ``chunksDone``,
    ``chunksTotal`` when the provider says, ``batchedWith`` when a far larger file processed beside it holds
    it), ``heartbeat`` (nothing new since the last line), and ``done`` on the last; an embedding line's are
    ``step: "embed"``, ``done``, ``total``, ``elapsedS``, and ``leftS`` or ``finishing`` once its pace is known
    (the long places' quote sentences after them: ``part: "sentences"``, ``done`` and ``total`` counting places)."""

    seq: int
    at_ms: int
    line: str
    detail: dict[str, Any] | None = None


class JobView(msgspec.Struct, kw_only=True, rename="camel"):
    """A snapshot of a job, as ``GET /api/jobs/{id}`` returns it.

    ``result`` has the same shape as the synchronous call's answer (for ingest, an
    ``IngestReport``); ``error`` is set when the job failed. A failed job's ``result`` is None, but for an
    ingest whose provider stopped answering during its wait: its ``IngestReport`` (``providerError`` set)
    says which files were indexed before it stopped.
    """

    id: str
    kind: str
    status: JobState
    created_at_ms: int
    started_at_ms: int | None = None
    finished_at_ms: int | None = None
    progress: list[ProgressLine] = []
    dropped_progress: int = 0
    result: Any = None
    error: ApiErrorBody | None = None


def error_body(exc: BaseException) -> ApiErrorBody:
    """The API error body for an exception; unexpected ones never leak their text."""
    if isinstance(exc, MnoteKrError):
        return ApiErrorBody(code=exc.code, message=exc.message, hint=exc.hint)
    return ApiErrorBody(code="internal", message="Internal error", hint="see the server's log for details")


def _now_ms() -> int:
    return int(time.time() * 1000)


class Job:
    """One background job. All fields are guarded by the manager's condition."""

    def __init__(self, job_id: str, kind: str, max_lines: int) -> None:
        self.id = job_id
        self.kind = kind
        self.status: JobState = "queued"
        self.created_at_ms = _now_ms()
        self.started_at_ms: int | None = None
        self.finished_at_ms: int | None = None
        self.lines: list[ProgressLine] = []
        self.seq = 0
        self.max_lines = max_lines
        self.result: Any = None
        self.error: ApiErrorBody | None = None

    @property
    def done(self) -> bool:
        return self.status in ("succeeded", "failed")

    def view(self, *, since: int = 0) -> JobView:
        lines = [p for p in self.lines if p.seq > since]
        first_kept = self.lines[0].seq if self.lines else self.seq + 1
        return JobView(
            id=self.id,
            kind=self.kind,
            status=self.status,
            created_at_ms=self.created_at_ms,
            started_at_ms=self.started_at_ms,
            finished_at_ms=self.finished_at_ms,
            progress=lines,
            dropped_progress=max(0, first_kept - 1 - since),
            result=self.result,
            error=self.error,
        )


class JobLimitError(MnoteKrError):
    """Too many jobs are running; the client should poll them and retry later."""

    code = "too_many_jobs"
    http_status = 429


class JobManager:
    """Starts, tracks and reports background jobs (thread-safe)."""

    def __init__(self, *, max_running: int = 4, keep_finished: int = 100, max_lines: int = 1000) -> None:
        self.max_running = max_running
        self.keep_finished = keep_finished
        self.max_lines = max_lines
        self._jobs: dict[str, Job] = {}
        self._cond = threading.Condition()
        self._closed = False

    def submit(self, kind: str, work: Work) -> JobView:
        """Start ``work`` in a daemon thread; returns the queued job's snapshot."""
        with self._cond:
            running = sum(1 for j in self._jobs.values() if not j.done)
            if running >= self.max_running:
                raise JobLimitError(
                    f"{running} jobs are still running", hint="poll GET /api/jobs/{id} and retry when one finishes"
                )
            job = Job(secrets.token_hex(8), kind, self.max_lines)
            self._jobs[job.id] = job
            self._evict()
            view = job.view()
        thread = threading.Thread(target=self._run, args=(job, work), name=f"mnote-kr-job-{job.id}", daemon=True)
        thread.start()
        return view

    def _evict(self) -> None:
        finished = [j for j in self._jobs.values() if j.done]
        for job in sorted(finished, key=lambda j: j.finished_at_ms or 0)[: max(0, len(finished) - self.keep_finished)]:
            del self._jobs[job.id]

    def _progress(self, job: Job) -> Callable[[str], None]:
        def write(line: str) -> None:
            with self._cond:
                job.seq += 1
                detail = getattr(line, "detail", None)  # a waitprogress.ProgressText
                job.lines.append(ProgressLine(seq=job.seq, at_ms=_now_ms(), line=str(line)[:500],
                                              detail=detail if isinstance(detail, dict) else None))
                if len(job.lines) > job.max_lines:
                    del job.lines[0]
                self._cond.notify_all()

        return write

    def _run(self, job: Job, work: Work) -> None:
        with self._cond:
            job.status = "running"
            job.started_at_ms = _now_ms()
            self._cond.notify_all()
        result: Any = None
        error: ApiErrorBody | None = None
        try:
            result = msgspec.to_builtins(work(self._progress(job)))
        except ProviderLostError as exc:  # the provider stopped mid-wait: what was done goes beside the error
            result = msgspec.to_builtins(exc.report)
            error = error_body(exc)
        except MnoteKrError as exc:
            error = error_body(exc)
        except Exception:  # noqa: BLE001 - a job must always finish; the body never leaks the text
            log.exception("job %s (%s) failed", job.id, job.kind)
            error = error_body(RuntimeError())
        with self._cond:
            job.result = result
            job.error = error
            job.status = "failed" if error is not None else "succeeded"
            job.finished_at_ms = _now_ms()
            self._evict()
            self._cond.notify_all()

    def get(self, job_id: str) -> JobView | None:
        """A snapshot of the job, or None if unknown (or evicted)."""
        with self._cond:
            job = self._jobs.get(job_id)
            return job.view() if job is not None else None

    def wait_events(self, job_id: str, since: int, timeout: float) -> tuple[list[ProgressLine], JobView | None, bool]:
        """Progress lines after ``since``, waiting up to ``timeout`` for news.

        Returns (new lines, the final snapshot if the job is done, closed) - the last is
        true when the manager is shutting down.
        """
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                job = self._jobs.get(job_id)
                if job is None:
                    return [], None, True
                lines = [p for p in job.lines if p.seq > since]
                if lines or job.done or self._closed:
                    return lines, (job.view(since=job.seq) if job.done else None), self._closed
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return [], None, False
                self._cond.wait(remaining)

    def close(self) -> None:
        """Wake every waiting event stream so the server can stop."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
