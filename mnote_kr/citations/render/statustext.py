"""Human-readable ``status``: the registry, the roots, queued and failed files, the provider and the places'
models, in the words the CLI prints (the MCP status tool shares :func:`waiting_reason`). JSON output never goes
through here."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from mnote_kr.core.pending import USER_DELETED as TAKEN_OUT
from mnote_kr.core.readings import status_lines
from mnote_kr.core.workspace import rules_text


def _queue(rerank: dict[str, Any]) -> Any:
    queue = rerank.get("queue", rerank.get("queueAvailable"))
    if isinstance(queue, dict) and set(queue) == {"available"}:
        return "available" if queue["available"] else "unavailable"
    return queue


def _rerank_text(rr: dict[str, Any]) -> str:
    """LightRAG's rerank state in words: ``disabled`` or ``enabled (binding cohere, model m, queue available)``.

    A disabled rerank has no binding, model or queue worth reading ("queue unavailable" only
    restated that it is off)."""
    if not rr.get("enabled"):
        return "disabled"
    details = [f"{label} {value}" for label, value in
               (("binding", rr.get("binding")), ("model", rr.get("model")), ("queue", _queue(rr)))
               if value not in (None, "", "null")]
    return f"enabled ({', '.join(details)})" if details else "enabled"


def counts_text(counts: dict[str, Any]) -> str:
    """``{"processed": 3, "failed": 1}`` as people read it: ``3 processed, 1 failed``."""
    return ", ".join(f"{n} {status.replace('_', ' ')}" for status, n in counts.items())


#: Queued actions ``status`` names one by one (``--json`` lists every one).
WAITING_SHOWN = 20
#: Files passed over for their type that ``status`` names one by one (``--json``: the first 50).
SKIPPED_SHOWN = 20
_BUSY = re.compile(r"\bis busy\b")
#: What reasons recorded by older versions ended with: ``status`` itself prints them.
_SEE_STATUS = "; 'mnote-kr status' lists failures"


def failure_reason(reason: object) -> str:
    """Why a file failed, as ``status`` says it (without the pointer to ``status`` an ingest's note ends with)."""
    return str(reason or "indexing failed").removesuffix(_SEE_STATUS)


def waiting_reason(last_error: str | None, provider: Mapping[str, Any]) -> str | None:
    """Why a queued action waits, as ``status`` says it (the MCP status tool too): its recorded error, and
    for a busy refusal while ``provider`` (status's part) is idle now, that the next sync retries it."""
    if last_error and _BUSY.search(last_error) and provider.get("reachable") is not False \
            and provider.get("pipelineBusy") is False:  # recorded when it was tried; LightRAG has gone idle since
        detail = last_error.removeprefix("LightRAG is busy: ")
        return (f"LightRAG was busy when it was last tried ({detail}); it is idle now, so the next "
                "'mnote-kr sync' retries it")
    return last_error or None


#: A registry status in the words ``status`` and ``sync`` both say it in (the statuses are the registry's own words:
#: nc24a read "2 stale" in sync and "1 stale, 1 moved and followed" in status for the same two records).
STATUS_WORDS = {"processed": "indexed", "pending": "queued to send", "submitted": "being indexed",
                "processing": "being indexed", "delete_submitted": "being deleted", "delete_completed": "deleted"}
#: What prune does not drop (keepout-r27): the record of a file taken out with 'mnote-kr delete' while the file is on
#: disk, for that record is what keeps it out.
KEPT_OUT = " (not of a file taken out with 'mnote-kr delete' while it is on disk: that record keeps it out)"
#: The old records of moves followed, as the registry's counts say them apart from the stale ones.
MOVED_FOLLOWED = "moved and followed"


def registry_counts(by_status: Mapping[str, int], followed: int, interrupted: int = 0) -> dict[str, int]:
    """The registry's counts by status in the words people read (:data:`STATUS_WORDS`; two statuses of one word
    are one count), the old records of moves followed (stale in the registry, their files cited under the new
    path) counted apart from the stale files (nc18b: "3 stale" for two renames and a delete made three files look
    broken), and the files sent whose indexing the provider's engine stopped in the middle of (``interrupted``)
    apart from those being indexed. ``status`` and ``sync`` both say these."""
    counts: dict[str, int] = {}
    for status, n in by_status.items():
        word = STATUS_WORDS.get(status, status.replace("_", " "))
        counts[word] = counts.get(word, 0) + n
    interrupted = min(max(0, interrupted), counts.get("being indexed", 0))
    if interrupted:
        counts["being indexed"] -= interrupted
        if not counts["being indexed"]:
            del counts["being indexed"]
        counts["interrupted"] = interrupted
    followed = min(followed, counts.get("stale", 0))
    if followed:
        counts["stale"] -= followed
        if not counts["stale"]:
            del counts["stale"]
        counts[MOVED_FOLLOWED] = followed
    return counts


def places_lines(meant: Mapping[str, Any], by_status: Mapping[str, int], unrecorded: int = 0,
                 interrupted: int = 0, on_disk: int = 0, down: bool = False, not_started: bool = False) -> list[str]:
    """What a person needs of the places: how many files are citable now, how many of them are placed by
    meaning and by words only (the files whose places have no vectors: an ingest without --wait embeds none,
    and sync does), how many are still being indexed, and what to run; then the vector store, which is
    one for every workspace of this home and every version a file had (not this workspace's count).
    ``unrecorded``: sent files the provider has indexed that the registry still records as sent (it hears at the
    next sync): citable, as a search cites them, and no longer being indexed, as the provider's documents say.
    ``interrupted``: sent files whose indexing the provider's engine stopped in the middle of: not being indexed
    (their own line says so, ``interrupted_line``). ``on_disk``: of the files citable, those changed or gone on
    disk since indexed (status's ``Changed:``/``Missing:``/``Moved:``): not cited until a sync follows them.
    ``down``: the provider does not answer, so no file is citable now (``registry.citableNow`` is 0);
    ``not_started``: it does not answer because its managed engine was never started or is stopped (nothing failed).
    A workspace with no file indexed or being indexed says that, whatever the provider (nc28a F7: a fresh
    workspace read "none citable while the provider is down (0 file(s) indexed: cited again once it answers)")."""
    sent = int(by_status.get("submitted") or 0) + int(by_status.get("processing") or 0)
    unrecorded = min(max(0, unrecorded), sent)
    citable, sent = int(by_status.get("processed") or 0) + unrecorded, sent - unrecorded
    sent -= min(max(0, interrupted), sent)
    lost = meant.get("wordsOnly") or {}
    waiting = f"; {sent} file(s) still being indexed (cited once LightRAG has indexed them)" if sent else ""
    them = "it" if unrecorded == 1 else "them"
    heard = (f" ({unrecorded} indexed by LightRAG since the registry last followed {them}: 'mnote-kr sync' records "
             f"{them})" if unrecorded else "")
    indexed, on_disk = citable, min(max(0, on_disk), citable)
    citable -= on_disk
    if on_disk:
        heard += (f" ({on_disk} indexed file(s) changed or gone on disk since: not cited until 'mnote-kr sync' "
                  "follows them, see 'Changed:', 'Missing:', 'Moved:')")
    if not indexed and not sent and not meant.get("problem"):  # nothing indexed here: nothing is down or cited
        lines = ["Places:    none yet: no file of this workspace is indexed ('mnote-kr ingest FOLDER' indexes a "
                 "folder; its files are citable once LightRAG has indexed them)"]
    elif down and not_started:  # the engine is stopped, not failing: the files come back when it runs
        lines = [f"Places:    none citable while the engine is stopped ({indexed} file(s) indexed: cited again once "
                 f"it runs){waiting}"]
    elif down:  # a search fails: nothing is citable, whatever the registry holds (the store below is still said)
        lines = [f"Places:    none citable while the provider is down ({indexed} file(s) indexed: cited again once "
                 f"it answers){waiting}"]
    elif meant.get("problem"):
        return [f"Places:    {citable} file(s) citable now{heard}, placed by words only: {meant['problem']}{waiting}"]
    else:
        words = int(meant.get("wordsOnlyIndexed", lost.get("count")) or 0)
        line = f"Places:    {citable} file(s) citable now{heard}, {max(0, citable - words)} placed by words and meaning"
        if lost.get("count"):
            line += (f", {words} by words only until '{lost['command']}' embeds their places (e.g. "
                     f"{lost['paths'][0]}; an ingest without --wait, or one its engine stopped, leaves that to sync)")
        lines = [line + waiting]
    # the store's sets, not files (nc26b: "16 set(s)" for 14 files): what the others are is said
    # a workspace with nothing indexed holds none of them: they are other workspaces' (the demo's samples' sets
    # among them: content-addressed, kept for whichever workspace indexes the same text; nc28a F7)
    whose = ("none of them this workspace's: other workspaces' of this home or the demo's samples', kept by "
             "content for any workspace that indexes the same text" if not indexed and not sent and meant.get("files")
             else
             "this workspace's files: 'Places' above")
    lines.append(f"Vectors:   {meant.get('model')}; {meant.get('files', 0)} set(s) of places stored for every "
                 "workspace of this home: one per version of a file's places, and one more for a PDF's OCR lines or a "
                 f"workbook's hidden rows ({whose})"
                 + (f"; {meant['embedding']}" if meant.get("embedding") else ""))
    return lines


def interrupted_line(stopped: Mapping[str, Any]) -> str:
    """``Interrupted: kb/handbook.docx: the engine stopped while indexing it; 'mnote-kr sync' indexes it
    again``: the files sent whose indexing the provider's engine stopped in the middle of (nc26c: one read
    "still being indexed" for good beside an idle LightRAG)."""
    count, paths = int(stopped.get("count") or 0), list(stopped.get("paths") or [])
    fix = stopped.get("fix") or "mnote-kr sync"
    start = stopped.get("startFirst")  # the engine does not run now (nc27b, after 'mnote-kr engine stop')
    if start:
        one = count == 1 and paths
        return (f"Interrupted: {paths[0] if one else f'{count} file(s)'}: the engine is stopped, so nothing indexes "
                f"{'it' if one else 'them'}; '{start}' then 'mnote-kr sync' index {'it' if one else 'them'} again"
                + ("" if one else f" ({', '.join(paths[:5])}{f' and {count - 5} more' if count > 5 else ''})"))
    if count == 1 and paths:
        return f"Interrupted: {paths[0]}: the engine stopped while indexing it; '{fix}' indexes it again"
    more = f" and {count - 5} more" if count > 5 else ""
    return (f"Interrupted: {count} file(s): {', '.join(paths[:5])}{more}: the engine stopped while indexing them; "
            f"'{fix}' indexes them again")


def render_status(info: dict[str, Any]) -> str:
    reg = info["registry"]
    prov = info.get("provider", {})
    by_status = counts_text(registry_counts(reg["byStatus"], reg.get("movedFollowed") or 0,
                                            (reg.get("interrupted") or {}).get("count", 0))) \
        if reg.get("byStatus") else ""
    lines = [f"Workspace: {info['workspace']}",
             f"Registry:  {reg['entries']} entries" + (f" ({by_status})" if by_status else "")]
    behind = reg.get("behind")
    if behind:  # LightRAG is done with them, the registry has not heard: sync asks
        late = behind["paths"][0] + (f" and {behind['count'] - 1} more" if behind["count"] > 1 else "")
        lines.append(f"Behind:    {behind['count']} file(s) still recorded as being indexed ({late}), while "
                     "LightRAG is idle and done with every document: 'mnote-kr sync' brings the registry up to date")
    roots = info.get("indexedRoots")
    if roots == []:
        lines.append("Roots:     none (add a folder with 'mnote-kr roots add FOLDER')")
    elif roots:
        lines.append("Roots:     " + ", ".join(f"{r.get('rootRelativePath') or '.'} " + rules_text(
            r.get("recursive", True), r.get("runOnChange", True), r.get("excludePatterns") or []) for r in roots))
    new = info.get("pendingNew") or {}
    if new.get("count"):  # in the roots, never ingested: what indexes them
        fixes = ", ".join(f"'{part['fix']}'" for part in new.get("byRoot") or [])
        paths = new.get("paths") or []
        named = ", ".join(paths[:5]) + (f" and {new['count'] - 5} more" if new["count"] > 5 else "")
        lines.append(f"New:       {new['count']} file(s) in the roots not indexed yet"
                     + (f": {named}" if paths else "") + (f"; {fixes} indexes them" if fixes else ""))
    moving = info.get("movedSinceIndexed") or {}
    if moving.get("count"):  # a rename sync follows: one fix, not "New: ... ingest" and "Missing: ... sync"
        pairs = ", ".join(f"{m['from']} -> {m['to']}" for m in (moving.get("moves") or [])[:5])
        more = f" and {moving['count'] - 5} more" if moving["count"] > 5 else ""
        lines.append(f"Moved:     {moving['count']} file(s) renamed or moved on disk since indexed, same content: "
                     f"{pairs}{more}; {moving.get('fix', 'mnote-kr sync')}")
    for key, label, what in (("changedSinceIndexed", "Changed:", "changed on disk since indexed"),
                             ("missingSinceIndexed", "Missing:", "deleted, moved or renamed on disk since indexed")):
        part = info.get(key) or {}
        if part.get("count"):  # no sync has seen them yet; a search warns of the same files
            more = f" and {part['count'] - 5} more" if part["count"] > 5 else ""
            lines.append(f"{label:<11}{part['count']} file(s) {what}: {', '.join(part['paths'][:5])}{more}; "
                         f"{part.get('fix', 'mnote-kr sync')}")
    waiting = reg.get("waiting") or []
    if waiting:
        lines.append(f"Waiting:   {len(waiting)} queued action(s) ('mnote-kr sync --wait 60' finishes them)")
    for note in waiting[:WAITING_SHOWN]:  # each by name, with why it waits
        why = waiting_reason(note.get("lastError"), prov)
        lines.append(f"           {note['action']} {note['sourcePath']}" + (f": {why}" if why else ""))
    if len(waiting) > WAITING_SHOWN:
        lines.append(f"           (and {len(waiting) - WAITING_SHOWN} more; '--json' lists all)")
    for failed in reg.get("failed", []):
        lines.append(f"Failed:    {failed['sourcePath']}: {failure_reason(failed['reason'])}")
    for refused in reg.get("refused", []):
        lines.append(f"Refused:   {refused['sourcePath']}: {refused['reason']}")
    for note in reg.get("fallbacks", []):
        lines.append(f"Fallback:  {note['sourcePath']}: {note['reason']}")
    for name, section in (info.get("readers") or {}).items():
        label = (name.upper() if len(name) <= 4 else name.capitalize()) + ":"
        lines.append(f"{label:<11}{section.get('summary', '')}")
        for failed in section.get("failed") or []:
            lines.append(f"           failed: {failed['sourcePath']}: {failed['reason']}")
        for note in section.get("unreadable") or []:
            lines.append(f"           {note['sourcePath']}: {note['reason']}")
    stale = reg.get("staleEntries") or []
    moved = [n for n in stale if str(n.get("reason", "")).startswith("moved to ")]
    for note in moved:  # a rename followed: nothing to repair, only the old path's record left; said on its
        # own line (nc25c read a bare "Moved: OLD -> NEW" after sync as a move still to follow)
        lines.append(f"Moved:     {note['sourcePath']} -> {note['reason'][len('moved to '):]} "
                     "(followed: cited under the new path, nothing to do)")
    if moved:
        more = (reg.get("movedFollowed") or 0) - len(moved)
        lines.append("           (" + (f"and {more} more; followed: cited under the new path; " if more > 0 else "")
                     + "'mnote-kr prune' drops the old records)")
    for note in (n for n in stale if n not in moved):
        lines.append(f"Stale:     {note['sourcePath']}: {note['reason']}")
    really = reg.get("stale", 0) - max(reg.get("movedFollowed") or 0, len(moved))  # stale, not a move followed
    if really > 0:
        left = really - (len(stale) - len(moved))
        more = f"{left} more stale; " if left > 0 else ""
        taken = [n for n in stale if n not in moved and str(n.get("reason", "")).startswith(TAKEN_OUT)]
        drops = "'mnote-kr prune' drops the records" + (KEPT_OUT if taken else "")
        if taken and len(taken) == really:
            drops = "'mnote-kr prune' keeps the record of a file taken out while it is on disk (what keeps it out)"
        lines.append(f"           ({more}not cited; 'mnote-kr ingest FILE' re-indexes a changed file or adds one back,"
                     f" {drops})")
    behind = info.get("leftBehind") or {}
    for note in behind.get("files") or []:  # roots added with --no-follow: what they did not index
        lines.append(f"Not indexed: {note['sourcePath']}: {note['reason']}; {note['fix']}")
    if behind.get("count", 0) > len(behind.get("files") or []):
        lines.append(f"           (and {behind['count'] - len(behind['files'])} more left behind; '--json' lists 50)")
    lines += status_lines(info.get("readings"))  # indexed by an older reading, with the command that re-reads
    skipped = info.get("skipped") or {}
    for note in (skipped.get("files") or [])[:SKIPPED_SHOWN]:  # no provider indexes the type: never sent
        lines.append(f"Skipped:   {note['sourcePath']}: {note['reason']}")
    if skipped.get("count", 0) > min(SKIPPED_SHOWN, len(skipped.get("files") or [])):
        lines.append(f"           (and {skipped['count'] - min(SKIPPED_SHOWN, len(skipped['files']))} more skipped "
                     "for their type; '--json' lists 50)")
    dups = reg.get("duplicateEntries") or []
    for note in dups:
        lines.append(f"Duplicate: {note['sourcePath']}: {note['reason']}")
    n_dups = (reg.get("byStatus") or {}).get("duplicate", 0)
    if n_dups > len(dups):
        lines.append(f"           (and {n_dups - len(dups)} more duplicate(s))")
    if prov.get("notStarted"):  # nothing indexed yet, and status did not start it
        lines.append(f"Provider:  {prov.get('provider') or prov.get('name')}: not started: {prov['notStarted']}")
    elif prov.get("reachable") is False:
        lines.append(f"Provider:  {prov.get('name', prov.get('provider'))}: DOWN: {prov.get('error')}")
    else:
        busy = {True: " (busy indexing)", False: " (idle)"}.get(prov.get("pipelineBusy"), "")
        with_what = (prov.get("extra") or {}).get("busyWith")  # the provider's own words: "indexing 1 file: ..."
        if prov.get("pipelineBusy") and isinstance(with_what, str) and with_what:
            busy = f" (busy {with_what})"
        version = f" {prov['coreVersion']}" if prov.get("coreVersion") else ""
        lines.append(f"Provider:  {prov.get('provider')}{version} at {prov.get('url')}{busy}")
        if prov.get("error"):  # reachable but refusing, e.g. a wrong API key
            lines.append(f"Problem:   {prov['error']}")
        lines.append(f"Models:    language model {prov.get('llmModel') or 'not reported'},"
                     f" embedding {prov.get('embeddingModel') or 'not reported'}")
        lines.append("Rerank:    " + _rerank_text(prov.get("rerank") or {}))
        if prov.get("documentsByStatus"):
            docs = dict(prov["documentsByStatus"])
            total = docs.pop("all", None)
            # listed in flight by the provider, left so by a run its engine stopped: said as the Interrupted line
            stopped = 0
            for status, n in ((prov.get("extra") or {}).get("interruptedByStatus") or {}).items():
                moved = max(0, min(int(n), int(docs.get(status) or 0)))
                docs[status] = docs.get(status, 0) - moved
                stopped += moved
            if stopped:
                docs = {"interrupted": stopped, **docs}
            shown = counts_text({k: n for k, n in docs.items() if n}) or "none"
            # a full sync deletes what LightRAG held of failed files (the registry keeps them failed): not counted
            unheld = (reg.get("byStatus") or {}).get("failed", 0) - docs.get("failed", 0)
            lines.append(f"Documents: {shown}" + (f" ({total} in all)" if total is not None else "")
                         + (f"; LightRAG holds no document of {unheld} failed file{'s' if unheld > 1 else ''} "
                            "(see 'Failed:')" if unheld > 0 else ""))
        if prov.get("unmapped"):
            lines.append(f"Unmapped:  {len(prov['unmapped'])} provider document(s) match no registry entry")
    meant = info.get("meaning") or {}
    stopped = reg.get("interrupted") or {}
    if meant:
        lines += places_lines(meant, reg.get("byStatus") or {}, (reg.get("indexedUnrecorded") or {}).get("count", 0),
                              stopped.get("count", 0), int(reg.get("citableChangedOnDisk") or 0),
                              down=prov.get("reachable") is False, not_started=bool(prov.get("notStarted")))
    if stopped.get("count"):
        lines.append(interrupted_line(stopped))
    reranker = info.get("placeRerank") or {}
    if reranker.get("enabled"):
        lines.append(f"Reranker:  places of each file reranked by {reranker.get('model')} at {reranker.get('url')}")
    elif reranker.get("problem"):
        lines.append(f"Reranker:  off: {reranker['problem']}")
    for setting in prov.get("settings") or []:
        lines.append(f"Setting:   {setting}")
    for warning in prov.get("warnings") or []:
        lines.append(f"Warning:   {warning}")
    for failed in info.get("plugins", {}).get("failed", []):
        lines.append(f"Plugin failed: {failed['name']}: {failed['error']}")
    return "\n".join(lines)
