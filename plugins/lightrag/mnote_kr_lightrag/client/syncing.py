"""The bounded status bridge: follow LightRAG documents and retry queued work.

One round lists LightRAG's documents (all pages) and then, per entry:

* ``submitted``/``processing``: the document row decides (``processed`` with chunk ids
  and time, ``failed`` with LightRAG's error, ``duplicate`` for a ``dup-`` row, except that a
  duplicate of a document we are deleting, or that is gone, is sent again once: a moved file
  scanned before its old name's delete finished). A link
  still waiting at the top of the input dir gets another scan; a vanished link is
  re-placed (``pending``/``ingest``).
* ``pending`` with ``pending_action`` ``ingest``/``reindex``: re-link and scan again once
  due (``next_retry_at_ms``); ``delete``: send the delete again.
* ``delete_submitted``: ``delete_completed`` once LightRAG no longer lists the doc; a
  doc still listed gets its delete sent once more per call (idempotent).

Rounds repeat with short sleeps until every entry is terminal or ``wait_s`` is spent
(``wait_s=0`` is one look). A waiting call's updates of documents still in flight carry what
LightRAG is doing with them (``activity``: stage, since when, step, chunks), from its last
listing and one pipeline-status read per call at most (``activity.PIPELINE_EVERY_S``).
Older documents of the same source (left by a busy delete) are deleted once per call.

While LightRAG has documents in flight (a waiting call, ``wait_s > 0``), a round first asks
for the status counts (one small answer) and lists every document only when they changed,
at most every few seconds (paced by how long a listing takes): a listing is a page per 200
documents, each sorted by the server on the event loop that is indexing. Work LightRAG would
refuse while busy (a scan, a delete) waits until the counts show it idle, or unchanged for
``_STALL_S`` (a pipeline stopped with documents pending is restarted only by a scan).

A followed document LightRAG lists in flight, unchanged for a while, beside an idle pipeline (the pipeline
status read fresh) is one an engine stop interrupted (``interrupted``): a scan sends it again, and a wait
says so until LightRAG has taken it up anew (``_resent``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from mnote_kr.plugin_api import (
    EntryUpdate,
    ProviderActivity,
    ProviderBusyError,
    ProviderError,
    SourceEntry,
    SourceFile,
)

from . import activity as _activity
from . import busywait, links, naming
from . import fallback as _fallback
from . import interrupted as _interrupted
from . import parsedtext as _parsedtext
from . import provider as _p
from .docrows import DocIndex
from .http import ProviderHTTPError, ProviderUnavailableError

_RESCAN_EVERY_S = 2.0
#: Statuses of documents LightRAG has taken and not finished: its pipeline is working.
_IN_FLIGHT = ("pending", "parsing", "analyzing", "processing", "preprocessed")
_STALL_S = 10.0
_BUSY_POLL_S = 0.5
_LIST_MIN_S = 2.0
_LIST_COST = 5.0  # while busy, listings take at most about 1/5 of the time
# Per server (URL and key): the counts last seen and since when, and when the last listing
# ended, how long it took and the counts it saw. Pacing only, kept across the host's short
# sync calls; every decision about an entry is still made on a listing.
_Server = tuple[str, str | None, int]
_seen: dict[_Server, tuple[dict[str, int], float]] = {}
_listed: dict[_Server, tuple[float, float, dict[str, int] | None]] = {}
# The last listing's rows and the last pipeline status read (with when): progress only.
_rows: dict[_Server, DocIndex] = {}
_pipeline: dict[_Server, tuple[float, dict[str, Any] | None]] = {}
# While that pipeline is busy, the last /health read (its model calls done: ``activity.pulse_of``), with when: read
# on its own clock, since ``_resend_interrupted`` reads the pipeline status too, each listing round while a followed
# row stands still (a minutes-long flush: the first real run of this read /health twice in a 90 s wait, then never).
_health: dict[_Server, tuple[float, dict[str, Any] | None]] = {}
# Documents sent again after an engine stop (their names), with when: a wait says so until LightRAG takes them up.
_resent: dict[_Server, dict[str, float]] = {}


def _source_of(entry: SourceEntry) -> SourceFile:
    # A queued entry keeps the name of the version it replaces (host ingest): a renamed file's kept
    # document is deleted with the new version's send, even when that send waited for LightRAG.
    return SourceFile(path=entry.source_path, rel_path=entry.source_root_relative_path, source_id=entry.source_id,
                      sha256=entry.source_hash, size=entry.size, mtime_ns=entry.mtime_ns,
                      previous_name=entry.light_rag_file_path)


def _merge(entry: SourceEntry, update: EntryUpdate | None) -> tuple[str, str | None, str | None]:
    """(status, pending_action, light_rag_file_path) as of the latest update."""
    if update is None:
        return entry.status, entry.pending_action, entry.light_rag_file_path
    return update.status, update.pending_action, update.light_rag_file_path or entry.light_rag_file_path


def run_sync(prov: _p.LightRagProvider, entries: list[SourceEntry], wait_s: float) -> list[EntryUpdate]:
    """Follow and retry ``entries`` for at most ``wait_s`` seconds; one update per entry.

    ``failed`` and ``refused`` entries are not followed: what LightRAG still holds of them is
    deleted (``clean_held``)."""
    server, began = (prov.settings.url, prov.settings.api_key, id(prov.ctx.transport)), _p.now_s()
    held = [e for e in entries if e.status in HELD]
    entries = [e for e in entries if e.status not in HELD]
    if not held and not entries:
        out = clean_orphans(prov)
    else:
        out = (_follow(prov, entries, wait_s) if entries else []) + (clean_held(prov, held, wait_s) if held else [])
    # The parsed text of documents LightRAG no longer holds (deleted, or a file's earlier version) leaves the disk.
    # A listing this call took serves (none older: a document sent since would read as gone).
    _parsedtext.sweep(prov, _rows.get(server) if _listed.get(server, (0.0,))[0] >= began else None)
    return out


#: Registry statuses whose documents LightRAG must not keep (the registry never cites them).
HELD = frozenset({"failed", "refused"})
#: How long ``clean_held`` waits for a pipeline it cancelled to stop (its own documents only).
CANCEL_WAIT_S = 30.0


def clean_held(prov: _p.LightRagProvider, held: list[SourceEntry], wait_s: float) -> list[EntryUpdate]:
    """Delete what LightRAG holds of entries the registry says failed or refused (its document
    processing, processed or failed there; ``delete_file=false``) and remove their links, so
    no later scan takes them and no restart loads them. Each entry keeps its status.

    A pipeline busy with nothing but these documents (a huge file sent before budgets were
    checked) is cancelled first, since LightRAG refuses a delete while it runs; a pipeline
    busy with other documents is left alone, and the next ``sync`` tries again."""
    unchanged = [EntryUpdate(source_root_relative_path=e.source_root_relative_path, status=e.status,
                             last_error=e.last_error) for e in held]
    try:
        docs = prov.documents()
        input_dir = prov.input_dir()
    except (ProviderUnavailableError, ProviderBusyError, ProviderHTTPError) as exc:
        if isinstance(exc, ProviderHTTPError) and not exc.transient:
            raise
        return unchanged
    rows: list[dict[str, object]] = []
    for entry in held:
        name = entry.light_rag_file_path
        doc_id = entry.light_rag_doc_id or (naming.doc_id_for(name) if name else None)
        row = (docs.by_id.get(doc_id) if doc_id else None) or (docs.find(name) if name else None)
        if row is not None:
            rows.append(row)
        if name and input_dir is not None and input_dir.is_dir():
            links.remove_ours(input_dir, name)
    if not rows:
        return unchanged
    ours = {str(r.get("id")) for r in rows}
    in_flight = {str(r.get("id")) for r in docs.rows if str(r.get("status", "")).lower() in _IN_FLIGHT}
    if in_flight & ours:
        if in_flight - ours:
            prov.ctx.progress(_kept_for_now("is indexing other documents", len(ours)))
            return unchanged
        _cancel_and_wait(prov, max(wait_s, CANCEL_WAIT_S))
    outcome, _ = prov.delete_ids(sorted(ours))
    if outcome != "started":
        prov.ctx.progress(_kept_for_now("is busy", len(ours)))
    return unchanged


def _kept_for_now(why: str, count: int) -> str:
    """The one line of a sync whose delete of failed or refused files' documents LightRAG did not take now: what
    happens and that nothing is to be done (nc28c read "... are deleted by a later sync" after an engine stop and
    could not tell whether to act)."""
    return (f"LightRAG {why}, so it keeps the documents of {count} failed or refused file(s) for now: they are never "
            "cited, and a later 'mnote-kr sync' deletes them (nothing to do)")


def clean_orphans(prov: _p.LightRagProvider) -> list[EntryUpdate]:
    """Delete this workspace's documents no entry records whose links we removed (a renamed file's
    old document whose delete LightRAG refused while busy): one listing, nothing waited for."""
    try:
        docs = prov.documents()
        orphans = prov.holders.unheld_orphans(docs, prov.input_dir(), prov.ws)
    except (ProviderUnavailableError, ProviderBusyError, ProviderHTTPError) as exc:
        if isinstance(exc, ProviderHTTPError) and not exc.transient:
            raise
        return []
    if orphans:
        prov.delete_ids(orphans, retries=0)
    return []


def _cancel_and_wait(prov: _p.LightRagProvider, wait_s: float) -> None:
    """Cancel LightRAG's pipeline and wait (at most ``wait_s``) until it says it is idle."""
    try:
        prov.client.cancel_pipeline()
    except ProviderError:
        return
    deadline = _p.now_s() + wait_s
    while _p.now_s() < deadline:
        try:
            if not prov.client.pipeline_status().get("busy"):
                return
        except ProviderError:
            return
        _p.sleep(0.5)


def _follow(prov: _p.LightRagProvider, entries: list[SourceEntry], wait_s: float) -> list[EntryUpdate]:
    """Follow and retry non-terminal ``entries`` for at most ``wait_s`` seconds."""
    by_rel = {e.source_root_relative_path: e for e in entries}
    current: dict[str, EntryUpdate] = {}
    due_ms = {rel: e.next_retry_at_ms for rel, e in by_rel.items()}
    deadline = _p.now_s() + max(0.0, wait_s)
    resent: set[str] = set()
    #: Fallback entries now processed: LightRAG's failed row of the original link is removed after
    #: the loop (a delete is refused while the pipeline is busy, and the pipeline is idle by then).
    replaced: dict[str, str] = {}
    orphans_done = False
    last_scan = 0.0
    poll = 0.25
    suffixes: set[str] | None = None
    server = (prov.settings.url, prov.settings.api_key, id(prov.ctx.transport))
    # A waiting call sends a file LightRAG refused as busy once its pipeline says idle (busywait).
    waiter = busywait.BusyWait(prov, _p.now_s(), wait_s) if wait_s > 0 else None
    held: list[str] = []  # the files refused as busy that the last round kept back (LightRAG still busy)
    while True:
        busy = False
        if waiter is not None:
            waiter.new_round()
            if held and waiter.busy():  # only the pipeline status is asked until it is idle
                remaining = deadline - _p.now_s()
                if remaining <= 0:
                    break
                waiter.note(len(held), _p.now_s())
                _p.sleep(min(busywait.POLL_S, remaining))
                continue
        held = []
        counts = _probe(prov) if wait_s > 0 else None
        if counts is not None:
            busy = _busy(server, counts)
            ended, took, listed = _listed.get(server, (0.0, 0.0, None))
            since_listed = _p.now_s() - ended
            if busy and 0 <= since_listed and (counts == listed or since_listed < max(_LIST_MIN_S, _LIST_COST * took)):
                remaining = deadline - _p.now_s()
                if remaining <= 0:
                    break
                _p.sleep(min(_BUSY_POLL_S, remaining))
                continue
        try:
            started = _p.now_s()
            docs = prov.documents()
            _listed[server] = (_p.now_s(), _p.now_s() - started, counts)
            _rows[server] = docs
            input_dir = prov.input_dir()
        except (ProviderUnavailableError, ProviderBusyError, ProviderHTTPError) as exc:
            if isinstance(exc, ProviderHTTPError) and not exc.transient:
                raise
            for rel, entry in by_rel.items():
                if rel not in current:
                    current[rel] = EntryUpdate(source_root_relative_path=rel, status=entry.status,
                                               pending_action=entry.pending_action,
                                               last_error=_fallback.transient_note(entry, exc.message),
                                               retry_after_s=_p.backoff_s(entry.retry_count) if entry.pending_action
                                               else None)
            break
        now_ms = int(_p.now_s() * 1000)
        ingest: list[SourceFile] = []
        reindex: set[str] = set()
        deletes: list[SourceEntry] = []
        wants_scan = False
        stopped: list[str] = []  # followed documents LightRAG lists in flight, unchanged for a while
        for rel, entry in by_rel.items():
            status, action, name = _merge(entry, current.get(rel))
            if status in _p.TERMINAL:
                continue
            doc_id = entry.light_rag_doc_id or (naming.doc_id_for(name) if name else None)
            if status == "delete_submitted":
                row = (docs.by_id.get(doc_id) if doc_id else None) or (docs.find(name) if name else None)
                if row is None:
                    current[rel] = EntryUpdate(source_root_relative_path=rel, status="delete_completed")
                elif rel not in resent and not busy:
                    resent.add(rel)
                    deletes.append(entry)
                continue
            if status == "pending":
                if busy:
                    continue  # a busy LightRAG would refuse the scan or delete
                if waiter is not None and busywait.refused_busy(status, action, (current.get(rel) or entry).last_error):
                    if waiter.busy():
                        held.append(rel)
                        continue
                    # refused while LightRAG was busy, and it is idle now: sent now, not after the backoff
                elif due_ms.get(rel, 0) > now_ms:
                    continue
                if action == "delete":
                    deletes.append(entry)
                else:
                    if action == "reindex":
                        reindex.add(rel)
                    ingest.append(_source_of(entry))
                continue
            # submitted / processing: what does LightRAG say?
            row = docs.find(name) if name else None
            if row is not None:
                now = current.get(rel)
                kind_now = (now.kind if now is not None and now.kind else None) or entry.kind
                wrapper = (now.wrapper_path if now is not None and now.wrapper_path else None) or entry.wrapper_path
                update = _p.update_from_row(rel, name or "", row, kind=kind_now if kind_now != "document" else None,
                                            wrapper_path=wrapper)
                if (update.status == "duplicate" and update.duplicate_of != entry.duplicate_of
                        and prov.orphaned_duplicate(docs, row, input_dir)):
                    # A duplicate of a document we are deleting (a move scanned too early): not
                    # final. Re-sent by _link_and_scan, which clears the duplicate record first;
                    # ``duplicate_of`` remembers the original, so this happens once per original.
                    update = EntryUpdate(source_root_relative_path=rel, status="pending", pending_action="ingest",
                                         light_rag_file_path=name, duplicate_of=update.duplicate_of,
                                         retry_after_s=1.0,
                                         last_error="taken as a duplicate of a document being deleted; sent again")
                    due_ms[rel] = now_ms + 1000
                elif kind_now == _fallback.KIND:
                    update = _fallback.keep_note(update, (now or entry).last_error,
                                                 lambda e=entry: _fallback.own_note(prov, _source_of(e)))
                    if update.status == "processed" and name:
                        replaced[rel] = name
                elif update.status == "failed":
                    update = _fallback.try_fallback(prov, entry, update, row, input_dir) or update
                elif update.status == "processed" and kind_now == "document":
                    update = _fallback.try_thin(prov, entry, update, row, input_dir) or update
                elif update.status in ("submitted", "processing") and _interrupted.stopped(row, _p.now_s()):
                    stopped.append(rel)
                current[rel] = update
                continue
            if busy or input_dir is None or not input_dir.is_dir():
                continue  # busy: followed by a later round; else an uploaded copy or a remote input dir
            state = links.link_state(input_dir, name) if name else "missing"
            if state == "top":
                wants_scan = True  # not picked up yet
            else:
                ingest.append(_source_of(entry))
        if not orphans_done and not busy:
            orphans_done = True
            live = [r for r, e in by_rel.items() if _merge(e, current.get(r))[0] not in ("delete_submitted",
                                                                                         "delete_completed")]
            old_ids = [str(row["id"]) for rel in live
                       for row in prov.old_versions(docs, rel, _merge(by_rel[rel], current.get(rel))[2], input_dir)]
            old_ids += prov.holders.unheld_orphans(docs, input_dir, prov.ws)
            if old_ids:
                prov.delete_ids(sorted(set(old_ids)), retries=0)
        if deletes:
            for update in prov.delete(deletes):
                current[update.source_root_relative_path] = _after_retry(update, due_ms, now_ms)
        if stopped and _resend_interrupted(prov, server, stopped, current, by_rel, scan=not ingest):
            last_scan = _p.now_s()
        if ingest and input_dir is not None:
            if suffixes is None:
                suffixes = prov.supported_suffixes()
            counts = {s.rel_path: by_rel[s.rel_path].retry_count for s in ingest}
            for update in prov._link_and_scan(ingest, Path(input_dir), docs, force=False, down=None,
                                              suffixes=suffixes, retry_counts=counts, reindex=frozenset(reindex)):
                current[update.source_root_relative_path] = _after_retry(update, due_ms, now_ms)
            last_scan = _p.now_s()
        elif wants_scan and _p.now_s() - last_scan >= _RESCAN_EVERY_S:
            prov.scan()
            last_scan = _p.now_s()
        if all(_merge(e, current.get(r))[0] in _p.TERMINAL for r, e in by_rel.items()):
            break
        remaining = deadline - _p.now_s()
        if remaining <= 0 or _nothing_due(by_rel, current, due_ms, held, deadline):
            break
        if held and waiter is not None:
            waiter.note(len(held), _p.now_s())
            _p.sleep(min(busywait.POLL_S, remaining))
            continue
        if busy:
            _p.sleep(min(_BUSY_POLL_S, remaining))
            continue
        _p.sleep(min(poll, remaining))
        poll = min(poll * 2, 2.0)
    if replaced:
        _fallback.remove_failed_originals(prov, replaced)
    out = [current.get(rel) or EntryUpdate(source_root_relative_path=rel, status=e.status,
                                           pending_action=e.pending_action, last_error=e.last_error)
           for rel, e in by_rel.items()]
    return _with_activity(prov, server, out, by_rel) if wait_s > 0 else out


def _resend_interrupted(prov: _p.LightRagProvider, server: _Server, rels: list[str], current: dict[str, EntryUpdate],
                        by_rel: dict[str, SourceEntry], *, scan: bool) -> bool:
    """Send again the documents of ``rels`` (listed in flight, unchanged for a while) when LightRAG's
    pipeline is idle: an engine stopped in the middle of them (``interrupted``). A scan makes LightRAG
    run its pipeline, which takes them up anew; ``scan`` False: the round's own scan does. Their updates
    say so (``last_error``), and a wait's progress until LightRAG has taken them up (``_resent``). The
    pipeline status is read fresh, after the listing: the status counts' pacing (``_busy``) only guesses.
    Returns whether they were sent again."""
    try:
        pipeline = prov.client.pipeline_status()
    except (ProviderError, ValueError):
        return False
    _pipeline[server] = (_p.now_s(), pipeline)
    if not _interrupted.idle(pipeline):
        return False  # working: a run of LightRAG's takes them up (or is taking them up now)
    if scan and prov.scan()[0] == "down":
        return False
    sent = _resent.setdefault(server, {})
    for rel in rels:
        current[rel] = msgspec.structs.replace(current[rel], last_error=_interrupted.SENT_AGAIN)
        name = current[rel].light_rag_file_path or by_rel[rel].light_rag_file_path
        if name:
            sent[name] = _p.now_s()
    return True


def _nothing_due(by_rel: dict[str, SourceEntry], current: dict[str, EntryUpdate], due_ms: dict[str, int],
                 held: list[str], deadline: float) -> bool:
    """Whether a waiting call has nothing left to do before its deadline: every entry not done is
    queued (nothing in LightRAG's hands to follow), none waits for a busy LightRAG, and none is due
    before the deadline (e.g. a retry after LightRAG was down, minutes away)."""
    if held:
        return False
    for rel, entry in by_rel.items():
        status = _merge(entry, current.get(rel))[0]
        if status in _p.TERMINAL:
            continue
        if status != "pending" or due_ms.get(rel, 0) <= deadline * 1000:
            return False
    return True


def _with_activity(prov: _p.LightRagProvider, server: _Server, updates: list[EntryUpdate],
                   by_rel: dict[str, SourceEntry]) -> list[EntryUpdate]:
    """``updates`` with what LightRAG is doing with each document still in flight (``activity``),
    from the last listing's rows and the pipeline status (read once per ``PIPELINE_EVERY_S``); a document
    sent again after an engine stop is said to be that until LightRAG has taken it up anew (its row still
    tells the stage and the time the stopped run left it with: nc26c read "processing for 3m 17s")."""
    docs = _rows.get(server)
    if docs is None:
        return updates
    named: dict[str, dict[str, Any]] = {}
    for update in updates:
        name = update.light_rag_file_path or by_rel[update.source_root_relative_path].light_rag_file_path
        row = docs.find(name) if name and update.status in ("submitted", "processing") else None
        if row is not None and str(row.get("status", "")).lower() in _activity.STAGES:
            named[update.source_root_relative_path] = row
    if not named:
        return updates
    at, pipeline = _pipeline.get(server, (-_activity.PIPELINE_EVERY_S, None))
    if not 0 <= _p.now_s() - at < _activity.PIPELINE_EVERY_S:
        try:
            pipeline = prov.client.pipeline_status()
        except (ProviderError, ValueError):
            pipeline = None
        _pipeline[server] = (_p.now_s(), pipeline)
    health_at, health = _health.get(server, (-_activity.PIPELINE_EVERY_S, None))
    if not (pipeline and pipeline.get("busy")):
        health = None
    elif not 0 <= _p.now_s() - health_at < _activity.PIPELINE_EVERY_S:
        health = _model_calls_read(prov)
        _health[server] = (_p.now_s(), health)
    ids_by_name = {str(r.get("file_path", "")): str(r.get("id", "")) for r in named.values()}
    beside = _activity.working_beside(docs.rows, prov.ws, ids_by_name.values())  # its model calls may be theirs
    steps = _activity.read_steps(pipeline, ids_by_name, health, shared=bool(beside), beside=beside)
    sent = _resent.get(server, {})
    out = []
    for u in updates:
        row = named.get(u.source_root_relative_path)
        if row is None:
            out.append(u)
            continue
        act, name = _activity.activity_of(row, steps), str(row.get("file_path", ""))
        if act is not None and name in sent:
            if act.since_ms is None or act.since_ms < sent[name] * 1000:  # not taken up anew yet
                act = ProviderActivity(stage=_activity.INTERRUPTED, since_ms=int(sent[name] * 1000))
            else:
                del sent[name]
        out.append(msgspec.structs.replace(u, activity=act))
    return out


def _model_calls_read(prov: _p.LightRagProvider) -> dict[str, Any] | None:
    """``/health`` read for the model calls LightRAG has done while it works (``activity.pulse_of``), or None."""
    try:
        return prov.client.health()
    except (ProviderError, ValueError):
        return None


def _probe(prov: _p.LightRagProvider) -> dict[str, int] | None:
    """LightRAG's status counts, or None (not offered or not answered: the round lists and
    reports the error as before)."""
    try:
        return prov.client.status_counts()
    except (ProviderError, ValueError):
        return None


def _busy(server: _Server, counts: dict[str, int]) -> bool:
    """Whether LightRAG is working: documents in flight whose counts moved within ``_STALL_S``."""
    now = _p.now_s()
    seen, since = _seen.get(server, (None, now))
    if counts != seen:
        _seen[server] = (counts, now)
        since = now
    return sum(counts.get(k, 0) for k in _IN_FLIGHT) > 0 and now - since < _STALL_S


def _after_retry(update: EntryUpdate, due_ms: dict[str, int], now_ms: int) -> EntryUpdate:
    """Within one sync call, a busy retry waits a short while (the host persists the long backoff)."""
    if update.status == "pending":
        due_ms[update.source_root_relative_path] = now_ms + int(min(2.0, update.retry_after_s or 2.0) * 1000)
    return update
