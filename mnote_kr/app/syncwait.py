"""A ``sync`` that waits (``sync --wait N``): the provider followed in short looks, with ingest's progress lines.

One call of the provider's ``sync`` hook for the whole wait said nothing until it returned, however long
LightRAG took. Here the first look hands the provider everything a sync sends (queued work to retry,
submitted work to follow, what failed files left there); each later look follows only what is still
unfinished, in looks of at most :data:`LOOK_S`, as ``ingest --wait`` does (``HostIngest._wait_for``). Between
looks the files being indexed are said as :class:`~mnote_kr.app.waitprogress.WaitProgress` says them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Protocol

from mnote_kr.app.patience import Patience, moves
from mnote_kr.app.waitprogress import WaitProgress
from mnote_kr.core.registry import NOT_TERMINAL
from mnote_kr.errors import ProviderError, ProviderLostError, ProviderStoppedError

if TYPE_CHECKING:
    from mnote_kr.context import ProviderContext
    from mnote_kr.core.registry import Registry
    from mnote_kr.models import EntryUpdate, IngestReport, ProviderActivity, SourceEntry
    from mnote_kr.plugins import Plugins

#: The statuses of a file on its way into the index (queued, sent, being indexed).
INDEXING = frozenset({"pending", "submitted", "processing"})
#: The longest single look: a progress line can follow each (the provider returns sooner once all are done).
LOOK_S = 5.0


class Follower(Protocol):
    """What :func:`follow` uses of the host (``Host``, which imports this module)."""

    progress: Callable[[str], None]
    wait_clock: Callable[[], float]

    @property
    def plugins(self) -> Plugins: ...

    def context(self) -> ProviderContext: ...

    def registry(self) -> Registry: ...

    def apply_updates(self, updates: Iterable[EntryUpdate]) -> None: ...


def unfinished(entry: SourceEntry) -> bool:
    """Whether a sync follows ``entry``: not terminal, or an action queued, unless it is a queued send of a
    file that went away (nothing to send or delete)."""
    return ((entry.status in NOT_TERMINAL or bool(entry.pending_action))
            and not (entry.stale and entry.pending_action in ("ingest", "reindex")))


def being_indexed(entry: SourceEntry) -> bool:
    """Whether ``entry`` is a file still on its way into the index (not a delete, not stale)."""
    return entry.status in INDEXING and entry.pending_action != "delete" and not entry.stale


def follow(host: Follower, entries: list[SourceEntry], wait_s: float, *, idle: bool = True) -> None:
    """Hand ``entries`` to the provider's sync, then follow the unfinished ones in looks of at most
    :data:`LOOK_S` until none is left or ``wait_s`` passes without progress (``idle``; else ``wait_s`` in
    all: :mod:`~mnote_kr.app.patience`), applying each look's updates; a progress line (``host.progress``)
    when something changed among the files being indexed, else a heartbeat."""
    rels = [e.source_root_relative_path for e in entries]
    indexing = [e.source_root_relative_path for e in entries if being_indexed(e)]
    view = WaitProgress(len(indexing), clock=host.wait_clock)
    bound = Patience(wait_s, idle=idle, clock=host.wait_clock)
    bound.saw(moves(entries, {}))  # what the first look changes (a queued file sent) is progress
    batch = entries
    activity: dict[str, ProviderActivity] = {}
    failed: dict[str, str] = {}  # not counted indexed (the integration run read "indexed 1/1 files" of a failed one)
    shown = False
    while True:
        now = {e.source_root_relative_path: e for e in batch}
        waiting = [r for r in indexing if r in now and being_indexed(now[r])]
        line = view.step(waiting, activity, failed) if waiting else None
        if line is not None:
            shown = True
            host.progress(line)
        look = max(0.0, min(bound.remaining(), LOOK_S))
        updates = list(host.plugins.sync(host.context(), batch, look) or [])
        activity = {u.source_root_relative_path: u.activity for u in updates if u.activity is not None}
        host.apply_updates(updates)
        reg = host.registry()
        failed = {r: e.last_error or "indexing failed" for r in indexing
                  if (e := reg.entries.get(r)) is not None and e.status == "failed"}
        batch = [e for r in rels if (e := reg.entries.get(r)) is not None and unfinished(e)]
        if not batch:
            if shown:
                host.progress(view.finished(failed))
            return
        bound.saw(moves(batch, activity))
        if bound.remaining() <= 0:  # the caller says so (the CLI: one line and exit 1)
            return


def lost_error(exc: ProviderError, report: IngestReport, followed: list[str]) -> ProviderLostError:
    """The error ``ingest --wait`` ends with when the provider stopped answering during its wait (its engine
    stopped): its own message, how many of the files ``followed`` were indexed, and what indexes the others.
    ``report`` (its items as the registry has them) goes with it, ``provider_error`` set: the CLI prints it
    above the error's line (and says so), the HTTP API's job returns it as its ``result``."""
    status = {item.source_path: item.status for item in report.items}
    done = sum(1 for rel in followed if status.get(rel) == "processed")
    report.provider_error = exc.message
    report.provider_stopped = isinstance(exc, ProviderStoppedError)
    sync = "'mnote-kr sync --wait 300' indexes the others"
    hint = f"{exc.hint}; then {sync}" if exc.hint else sync
    return ProviderLostError(f"{exc.message}; the wait stopped there, with {done} of {len(followed)} file(s) "
                             "indexed", report=report, url=exc.url, hint=hint)
