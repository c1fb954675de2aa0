"""Human-readable ``ingest`` and ``sync`` reports: what was sent, changed, moved or refused, and the registry
after, in words. JSON output never goes through here."""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from typing import Any

from mnote_kr.citations.rank.wordsonly import sync_lines as words_only_lines
from mnote_kr.citations.render.statustext import MOVED_FOLLOWED, counts_text, registry_counts
from mnote_kr.core.readings import sync_lines
from mnote_kr.core.skipped import EMPTY_REASON
from mnote_kr.models import IngestItem, IngestReport


def render_ingest(report: IngestReport) -> str:
    """``mnote-kr ingest`` for people: a line per file sent, failed, refused or passed over, then the counts.

    Files not sent again because they are unchanged are one line when there are several (a folder
    ingested again would list its whole library); one is named. ``--json`` lists every file."""
    unchanged = [item for item in report.items if item.status == "already_registered"]
    shown = report.items if len(unchanged) < 2 else [item for item in report.items if item not in unchanged]
    lines = [_item_line(item, report.provider_error, report.provider_stopped) for item in shown]
    if len(unchanged) > 1:
        lines.append(f"{'unchanged':<18} {len(unchanged)} files already indexed, not sent again "
                     "(--force sends them again; --json lists them)")
    lines += [f"{'skipped':<18} {skipped.path} ({skipped.reason})" for skipped in report.skipped]
    lines.append(", ".join(f"{k}: {v}" for k, v in _counts(report).items()) or "nothing to do")
    lost = report.words_only
    if lost is not None:  # an ingest without --wait embeds no places: what does, for the files it looked at
        why = "the wait ended before its placing step" if report.provider_error else "ingest does only with --wait"
        # not "placed by words only": a file sent and not indexed yet is not placed at all (nc29b)
        lines.append(f"{lost.count} file(s) here not placed by meaning yet (their places have no vectors), e.g. "
                     f"{lost.paths[0]}: '{lost.command}' embeds their places ({why})")
    if report.next_call:
        lines.append(report.next_call)
    return "\n".join(lines)


#: Sent to the provider and not indexed yet (a ``pending`` file was not sent: it waits in the queue).
_IN_FLIGHT = frozenset({"submitted", "processing"})


def _item_line(item: IngestItem, lost: str | None, stopped: bool = False) -> str:
    """``processed          kb/a.docx``; a file not indexed when the provider stopped answering during the
    wait (``lost``) says so, not that it is being indexed (nothing is, until a sync sends it again). When the
    user stopped the engine (``stopped``), the line says that and what resumes the file (nc28c: "processing when
    the provider stopped answering" read like a failure after a deliberate 'mnote-kr engine stop')."""
    if lost and item.status in (*_IN_FLIGHT, "pending"):
        if stopped:
            state = "queued" if item.status == "pending" else "sent"
            return (f"{'not indexed':<18} {item.source_path} ({state} when the engine was stopped ('mnote-kr engine "
                    "stop'); after 'mnote-kr engine start', 'mnote-kr sync' or 'mnote-kr ingest' resumes it)")
        return f"{'not indexed':<18} {item.source_path} ({item.status} when the provider stopped answering)"
    return f"{item.status:<18} {item.source_path}" + (f" ({item.reason})" if item.reason else "")


def _counts(report: IngestReport) -> dict[str, int]:
    """The counts line's statuses; after the provider stopped answering, the files it left sent or queued are
    counted "not indexed", as their lines say (nothing works on them: "processing: 14" said otherwise)."""
    if not report.provider_error:
        return report.counts
    out: dict[str, int] = {}
    for key, n in report.counts.items():
        shown = "not indexed" if key in (*_IN_FLIGHT, "pending") else key
        out[shown] = out.get(shown, 0) + n
    return out


def _n(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _synced(rec: dict[str, Any], now: Mapping[str, str] | None, copies: Mapping[str, str] | None = None) -> str:
    """What a sync's disk step did, in words: ``re-indexed 1 edited file, indexed 2 new files, ...``.

    ``now`` is the registry status of each file it sent, after the provider step (None: not known, so
    a file is only said to be sent); ``copies`` the sent files found copies of a document indexed already,
    with the file cited for it (``outcome.copies_now``): each is named, so every file sent is accounted for."""
    ingest = rec.get("ingest") or {}
    sent = set(ingest.get("ingested") or []) | set(ingest.get("queued") or [])
    parts: list[str] = []
    for key, one, many, done in (("changed", "edited file", "edited files", "re-indexed"),
                                 ("new", "new file", "new files", "indexed")):
        paths = [p for p in (rec.get(key) or {}).get("paths") or [] if p in sent]
        if now is None:
            if paths:
                parts.append(f"sent {_n(len(paths), one, many)} to be {done}")
            continue
        finished = [p for p in paths if now.get(p) == "processed"]
        going = [p for p in paths if now.get(p) in _IN_FLIGHT]
        queued = [p for p in paths if now.get(p) == "pending"]  # never reached the provider (busy or down)
        if finished:
            parts.append(f"{done} {_n(len(finished), one, many)}")
        if going:
            parts.append(f"{_n(len(going), one, many)} still being {done} ('mnote-kr status' follows them)")
        if queued:
            parts.append(f"{_n(len(queued), one, many)} NOT sent (named below; 'mnote-kr sync' retries "
                         f"{'it' if len(queued) == 1 else 'them'})")
        for p in (p for p in paths if now.get(p) == "duplicate"):
            twin = (copies or {}).get(p) or "a document indexed already"
            parts.append(f"{p} is a copy of {twin} (cited from there, not indexed twice)")
    moved = (rec.get("moved") or {}).get("count", 0)
    if moved:
        parts.append("followed " + _n(moved, "rename or move (cited under its new path)",
                                      "renames or moves (cited under their new paths)"))
    restored = (rec.get("restored") or {}).get("count", 0)
    if restored:
        parts.append(_n(restored, "file back on disk and cited again", "files back on disk and cited again"))
    missing = (rec.get("missing") or {}).get("count", 0)
    if missing:
        parts.append(f"{_n(missing, 'deleted file', 'deleted files')} no longer cited")
    return ", ".join(parts)


def not_sent_text(reason: str, waited: Mapping[str, Any] | None) -> str:
    """Why a file a sync meant to send is still queued, in one line with what sends it: LightRAG busy
    (after the sync waited for it, when it did), or its own reason (down, a move waiting for a delete)."""
    busy = _BUSY_REFUSAL.match(reason)
    if busy:
        after = f" for all of the {waited['seconds']:g} s this sync waited" if waited else ""
        detail = reason[busy.end():].lstrip(":; ").strip()
        return f"LightRAG was busy{after}{f': {detail}' if detail else ''}; 'mnote-kr sync' retries it"
    return f"{reason}; 'mnote-kr sync' retries it"


_BUSY_REFUSAL = re.compile(r"LightRAG (?:is|was) busy\b")


def _not_again(failed: Mapping[str, Any]) -> str:
    """What a ``still failing:`` line adds: the failed file is unchanged since (its version's time), so this sync
    did not send it again (no exit 1: nothing new failed), and what does."""
    since = failed.get("unchangedSinceMs")
    when = f"; unchanged since {time.strftime('%Y-%m-%d %H:%M', time.localtime(since / 1000))}" if since else ""
    return f"{when}, not sent again; an edit or 'mnote-kr ingest {failed['path']}' retries it"


def _registry_words(counts: Mapping[str, int], followed: int = 0) -> str:
    """The registry after a sync, as a person reads it: the counts and words ``status`` says
    (``registry_counts``), then what the stale records and the moves followed are, and what drops them."""
    said = registry_counts(counts, followed)
    words = counts_text(said)
    why = [*(["stale: records of files deleted, moved away or changed, not cited"] if said.get("stale") else []),
           *([f"{MOVED_FOLLOWED}: old paths' records, their files cited under the new path"]
             if said.get(MOVED_FOLLOWED) else [])]
    if why:
        # (not every stale record goes: prune keeps a file's taken out with 'mnote-kr delete' while it is on disk)
        words += f" ({'; '.join(why)}; 'mnote-kr status' names them and what 'mnote-kr prune' drops)"
    return words


def render_sync(result: dict[str, Any], now: Mapping[str, str] | None = None,
                copies: Mapping[str, str] | None = None) -> str:
    """``mnote-kr sync`` for people: what changed on disk, what the sync did about it in words, then the
    registry. ``now``: the registry status after the sync of each file it sent, ``copies`` those found
    copies of an indexed document (:func:`_synced`)."""
    lines: list[str] = []
    rec = result.get("reconcile")
    if isinstance(rec, dict):
        labels = (("changed", "changed on disk"), ("emptied", "emptied on disk"), ("moved", "moved"),
                  ("missing", "missing from disk"),
                  ("new", "new in an indexed root"), ("restored", "back on disk"))
        for key, label in labels:
            part = rec.get(key) or {}
            for path in part.get("paths", [])[:20]:
                shown = f"{path['from']} -> {path['to']}" if isinstance(path, dict) else path
                lines.append(f"{label + ':':<24}{shown}")
            if part.get("count", 0) > 20:
                lines.append(f"{'':<24}... and {part['count'] - 20} more ('--json' lists all)")
        if (rec.get("emptied") or {}).get("count"):
            lines.append(f"{rec['emptied']['count']} indexed file(s) emptied on disk (0 bytes): no longer cited, their "
                         "documents deleted from the index; indexed again once they have content")
        # Left out by its root's rules after it was ingested: no longer cited, its index deleted.
        excluded = rec.get("excluded") or {}
        for path in excluded.get("paths", [])[:20]:
            lines.append(f"{'now excluded:':<24}{path} ({(excluded.get('reasons') or {}).get(path, 'excluded')})")
        if excluded.get("count", 0) > 20:
            lines.append(f"{'':<24}... and {excluded['count'] - 20} more ('--json' lists all)")
        if excluded.get("count"):
            lines.append(f"{excluded['count']} excluded file(s) dropped from the index: no longer cited")
        # Files of types the provider cannot index, and empty ones: one line, they are found again by every pass.
        skipped = rec.get("skipped") or {}
        if skipped.get("count"):
            first, reasons = skipped["paths"][0], skipped.get("reasons") or {}
            more = f" and {skipped['count'] - 1} more" if skipped["count"] > 1 else ""
            what = "that cannot be indexed" if EMPTY_REASON in reasons.values() else "the provider cannot index"
            lines.append(f"Passed over {skipped['count']} file(s) {what}: {first} "
                         f"({reasons.get(first, 'not indexable')}){more}")
        # Not regular files (FIFO, socket, device) and names that are not UTF-8: one line each.
        passed = rec.get("passedOver") or {}
        for path in passed.get("paths", [])[:50]:
            lines.append(f"{'skipped:':<24}{path} ({(passed.get('reasons') or {}).get(path, 'skipped')})")
        if passed.get("count", 0) > 50:
            lines.append(f"{'':<24}... and {passed['count'] - 50} more ('--json' lists all)")
        follow = "'mnote-kr roots add ROOT' (with its rules) makes their root follow"
        new = rec.get("new") or {}
        if new.get("notIngested"):
            names = new["notIngested"]
            how = (f"'mnote-kr ingest {names[0]}' adds it" if len(names) == 1
                   else "'mnote-kr ingest' with their paths adds them")
            lines.append(f"{len(names)} new file(s) not ingested (root added with --no-follow): {how}; {follow}")
        # A changed file is left behind only in a root that opted out of following (--no-follow): the
        # reconcile names those; one sent and failed is said by its 'failed:' line, not blamed on the root.
        stale = list((rec.get("changed") or {}).get("notReindexed") or [])
        if stale:
            how = (f"'mnote-kr ingest {stale[0]}' re-indexes it" if len(stale) == 1
                   else "'mnote-kr ingest' with their paths re-indexes them")
            lines.append(f"{len(stale)} changed file(s) not re-indexed (root added with --no-follow): {how}; {follow}")
        lines += sync_lines(rec.get("reread"))  # indexed by an older reading: read again
        lines += words_only_lines(rec.get("wordsOnly"))  # places that lost their vectors: embedded again
        if not lines:
            lines.append(f"Disk: no changes in {rec.get('scanned', 0)} file(s)")
        synced = _synced(rec, now, copies)
        if synced:
            lines.append(f"Synced: {synced}")
    prov = result.get("provider") or {}
    if prov.get("followed"):
        lines.append(f"Followed {prov['followed']} file(s) with the provider")
    for item in (prov.get("inFlightNotes") or [])[:50]:  # still being indexed, with the provider's new word on it
        lines.append(f"{'note:':<24}{item['path']} ({item['note']})")
    for item in (prov.get("notSent") or [])[:50]:  # queued: the provider was busy (after a wait) or down
        lines.append(f"{'NOT sent:':<24}{item['path']} ({not_sent_text(item['reason'], prov.get('busyWait'))})")
    if len(prov.get("notSent") or []) > 50:
        lines.append(f"{'':<24}... and {len(prov['notSent']) - 50} more ('--json' lists all)")
    refused = ((rec if isinstance(rec, dict) else {}).get("ingest") or {}).get("failedReasons") or {}
    for path, reason in list(refused.items())[:50]:
        lines.append(f"{'failed:':<24}{path} ({reason})")
    for key, label in (("failed", "failed:"), ("stillFailed", "still failing:")):  # this run's, then earlier ones
        for failed in (prov.get(key) or [])[:50]:
            again = _not_again(failed) if key == "stillFailed" else ""
            lines.append(f"{label:<24}{failed['path']} ({failed['reason']}{again})")
        if len(prov.get(key) or []) > 50:
            lines.append(f"{'':<24}... and {len(prov[key]) - 50} more ('--json' lists all)")
    # The registry as it is now, in words: its status names (and a "before" taken between this sync's disk
    # step and its provider step) meant nothing to a person; --json keeps both counts.
    lines.append(f"Registry: {_registry_words(prov.get('after') or {}, prov.get('movedFollowed') or 0) or 'empty'}")
    return "\n".join(lines)


#: How ``prune`` names each kind of record it dropped (``Host.prune_report``'s ``byKind``).
_PRUNED = (("moved", "move followed", "moves followed", "old paths; their files cited under the new path"),
           ("stale", "stale", "stale", "not cited: deleted, moved away or changed on disk, or taken out of the index"),
           ("failed", "failed", "failed", "failed to index"),
           ("deleted", "deleted", "deleted", "taken out of the index"),
           ("duplicate", "duplicate", "duplicate", "copies of a document indexed already"),
           ("refused", "refused", "refused", "over a reader's budget"))


def _named(paths: list[str], shown: int = 5) -> str:
    return ", ".join(paths[:shown]) + (f" and {len(paths) - shown} more" if len(paths) > shown else "")


def render_prune(report: Mapping[str, Any], provider: str) -> str:
    """``mnote-kr prune`` for people: how many records it dropped, of which kind, with their paths (nc26c read
    "Pruned 6 record(s)" for 2 moves, 2 stale and, silently, 2 failed records), what becomes of the failed
    files, and the records it kept; ``provider``: its name, as ``status`` gives it."""
    kinds = report.get("byKind") or {}
    parts = [f"{len(paths)} {one if len(paths) == 1 else many} ({_named(paths)}: {what})"
             for key, one, many, what in _PRUNED if (paths := kinds.get(key))]
    removed = len(report.get("removed") or [])
    lines = [f"Pruned {removed} record(s)" + (f": {', '.join(parts)}" if parts else "")]
    failed = kinds.get("failed") or []
    if failed:
        them = "it" if len(failed) == 1 else "them"
        lines.append(f"The failed file(s) are no longer recorded: where still in a root they are new again, and "
                     f"'mnote-kr sync' sends {them} again (failing again unless fixed); "
                     "'mnote-kr prune --keep-failed' keeps failed records")
    kept = report.get("keptFailed") or []
    if kept:
        lines.append(f"Kept {len(kept)} failed record(s) (--keep-failed): {_named(kept)}; 'mnote-kr status' lists "
                     "them, and sync does not send an unchanged one again")
    waiting = int(report.get("deletesWaiting") or 0)
    if waiting:
        lines.append(f"Kept {waiting} deleted record(s): {provider} has not confirmed the delete yet "
                     "('mnote-kr sync' asks it; prune again after)")
    out = report.get("keptDeleted") or []
    if out:
        lines.append(f"Kept {len(out)} record(s) of files taken out with 'mnote-kr delete' ({_named(out)}): they "
                     "keep the files out of the knowledge base while they are on disk in an indexed root ('mnote-kr "
                     "ingest FILE' takes one back)")
    return "\n".join(lines)
