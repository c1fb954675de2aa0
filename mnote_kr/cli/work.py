"""What ``ingest`` and ``sync`` run and print (no click here): the report on stdout, progress on stderr.

Progress goes to stderr as ``reports.progress_writer`` draws it: a bar on a terminal; piped, the file
counts and a wait's lines, one plain line each; none with ``--json`` (stdout is then the report alone).
``sync`` without ``--wait`` shows it on a terminal only (piped, a scheduled sync stays quiet); with
``--wait`` it says what it waits for as ``ingest --wait`` does.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from mnote_kr.cli.boundary import echo, emit_json
from mnote_kr.cli.reports import Ctx

if TYPE_CHECKING:
    from mnote_kr.models import IngestReport


def _clear_bar(as_json: bool) -> None:
    """The progress bar's line wiped before the report (a terminal only)."""
    if sys.stderr.isatty() and not as_json:
        sys.stderr.write("\r\033[K")


def ingest_run(obj: Ctx, paths: tuple[str, ...], *, force: bool, wait: bool, timeout: float, limit: int | None,
               as_json: bool) -> None:
    """``mnote-kr ingest``: the report, then the exit (``outcome``)."""
    host = obj.host(progress=not as_json)
    from mnote_kr.errors import ProviderLostError

    try:
        report = host.ingest(obj.paths(paths), force=force, wait=wait, wait_s=timeout, limit=limit)
    except ProviderLostError as exc:  # its engine stopped during the wait: what was done, then its one line
        _print_ingest(exc.report, as_json)
        raise ProviderLostError(f"{exc.message} (listed above)", report=exc.report, url=exc.url,
                                hint=exc.hint) from exc
    _print_ingest(report, as_json)
    # The report is out; when not everything made it (failed, or still being indexed when the
    # wait ended), the exit code and one line say so.
    from mnote_kr.cli.outcome import ingest_outcome

    problem = ingest_outcome(report, listed=not as_json)
    if problem is not None:
        raise problem


def _print_ingest(report: IngestReport, as_json: bool) -> None:
    """``ingest``'s report on stdout: JSON, or a line per file and the counts."""
    _clear_bar(as_json)
    if as_json:
        emit_json(report)
    else:
        from mnote_kr.citations.render.synctext import render_ingest

        echo(render_ingest(report))


def sync_run(obj: Ctx, *, wait_s: float, no_disk: bool, reread: bool, as_json: bool) -> None:
    """``mnote-kr sync``: reconcile with the disk (unless ``no_disk``), then the provider's work, the
    report, and the exit (``outcome``)."""
    host = obj.host(progress=not as_json and (wait_s > 0 or sys.stderr.isatty()))
    result: dict[str, Any] = {}
    if not no_disk:
        from mnote_kr.sync.watch import reconcile_and_apply

        result["reconcile"] = reconcile_and_apply(host, reread=reread)
    result["provider"] = host.sync(wait_s=wait_s)
    from mnote_kr.sync.busy import send_refused

    send_refused(host, result, asked_wait_s=wait_s)  # what a busy provider left queued: waited for, sent
    _clear_bar(as_json)
    from mnote_kr.cli.outcome import copies_now, sent_now, sync_outcome, sync_reasons

    entries = host.registry().entries
    sync_reasons(result, entries)
    if as_json:
        emit_json(result)
    else:
        from mnote_kr.citations.render.synctext import render_sync

        echo(render_sync(result, sent_now(result, entries), copies_now(result, entries)))
    problem = sync_outcome(result, listed=not as_json)  # as ingest: the report is out, then one line
    if problem is not None:
        raise problem
