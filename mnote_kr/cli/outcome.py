"""How ``ingest`` and ``sync`` end once their report is out: exit 0, or one ``Error:`` line and exit 1.

Not everything made it when a file failed to index in this run (for ``sync``, a file failed in an earlier
run and unchanged since is not sent again and is no new failure: its report names it, ``stillFailed``, and
it exits 0 for it), or when a ``--wait`` ended with files still being indexed, nothing having moved for its
seconds (the provider goes on with them; ``sync --wait`` follows them): both commands then exit 1 with one
line naming the first file (its reason too when the report is JSON: the text report's line says it), and a
report a script can read (``--json``: ``failed`` items, ``stillFailed``,
``waitTimedOut``). No click here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnote_kr.errors import IngestFailedError, MnoteKrError, WaitTimeoutError
from mnote_kr.models import IngestReport, SourceEntry

#: How long the follow-up the timeout line suggests waits (``sync --wait``).
FOLLOW_S = 300

Failed = list[tuple[str, str | None]]

#: Report lines of files this call did not try to index (left out by a root's rules, passed over for their
#: type, unchanged, followed as a move, over a reader's budget): not counted in "N of M file(s) failed", whose
#: M is the files the wait's last line counts too (nc26c read "indexed 9 of 11" and then "2 of 12": the 12
#: counted an excluded file).
NOT_TRIED = frozenset({"excluded", "skipped", "already_registered", "moved", "refused"})


def ingest_outcome(report: IngestReport, *, listed: bool = True) -> MnoteKrError | None:
    """The error ``ingest`` ends with after its report, or None. ``listed``: the report above it is text,
    a line per failed file with its reason, which the error then does not say again (nc29b read a broken
    DOCX's reason three times); with ``--json`` it says the first file's reason."""
    failed = [(item.source_path, item.reason) for item in report.items if item.status == "failed"]
    timed_out = report.wait_timed_out
    late = (timed_out.seconds, timed_out.still_waiting) if timed_out is not None else None
    tried = sum(1 for item in report.items if item.status not in NOT_TRIED)
    return _outcome(failed, f"{len(failed)} of {tried}", late, listed=listed)


def sync_reasons(result: dict[str, Any], entries: Mapping[str, SourceEntry]) -> None:
    """Complete ``sync``'s result: the reasons of the files refused on sending in its disk step
    (``reconcile.ingest.failedReasons``), which are this run's failures, not earlier ones."""
    sent = (result.get("reconcile") or {}).get("ingest") or {}
    if not sent.get("failed"):
        return
    sent["failedReasons"] = {p: (entries[p].last_error if p in entries else None) or "indexing failed"
                             for p in sent["failed"]}
    provider = result["provider"]
    provider["stillFailed"] = [f for f in provider.get("stillFailed") or [] if f["path"] not in sent["failedReasons"]]


def sent_now(result: dict[str, Any], entries: Mapping[str, SourceEntry]) -> dict[str, str]:
    """The registry status, after the whole sync, of each file its disk step sent or queued: what the
    text report says was re-indexed or indexed, and what is still on its way."""
    sent = (result.get("reconcile") or {}).get("ingest") or {}
    return {rel: e.status for rel in (*sent.get("ingested", ()), *sent.get("queued", ()))
            if (e := entries.get(rel)) is not None}


def copies_now(result: dict[str, Any], entries: Any) -> dict[str, str]:  # noqa: ANN401 (a registry's EntryMap)
    """Each file the sync sent that the provider found a copy of a document indexed already, with the file
    of this workspace cited for it ("" when no file here holds it): the report names the copy."""
    now = sent_now(result, entries)
    docs = {rel: entries[rel].duplicate_of or "" for rel, status in now.items() if status == "duplicate"}
    if not docs:
        return {}
    cols = entries.columns()  # paths, doc ids, liveness: no entry decoded
    twins = {doc: path for path, doc, live in zip(cols.paths, cols.doc_ids, cols.live, strict=True)
             if live and doc in docs.values() and path not in docs}
    return {rel: twins.get(doc, "") for rel, doc in docs.items()}


def sync_outcome(result: dict[str, Any], *, listed: bool) -> MnoteKrError | None:
    """The error ``sync`` ends with after its report, or None: the files refused on sending, those the
    provider was followed to fail, those still failed since an earlier run (as ``ingest`` of them,
    which sends them again, fails each time), and a wait that ended first."""
    provider = result["provider"]
    sent = (result.get("reconcile") or {}).get("ingest") or {}
    named = {f["path"] for f in provider["failed"]}
    failed: Failed = [*((p, r) for p, r in (sent.get("failedReasons") or {}).items() if p not in named),
                      *((f["path"], f["reason"]) for f in provider["failed"])]
    # Failed in an earlier run and still failing (its file unchanged: not sent again) is no failure of this
    # run: the report names it, and it is counted after a new failure, but alone it exits 0, so a shell
    # polling sync tells "nothing new" from a new failure (nc26c: exit 1 on every run while a broken file
    # sat in a root).
    earlier: Failed = [(f["path"], f["reason"]) for f in provider.get("stillFailed") or []] if failed else []
    timed_out = provider.get("waitTimedOut")
    late = (timed_out["seconds"], timed_out["stillWaiting"]) if timed_out else None
    return _outcome(failed, str(len(failed)), late, listed=listed, earlier=earlier)


def _outcome(failed: Failed, count: str, late: tuple[float, list[str]] | None, *, listed: bool,
             earlier: Failed | None = None) -> MnoteKrError | None:
    """One error for what did not make it: the files that failed now (the first with its reason),
    those still failed since an earlier run, and a wait that ended first, in that order."""
    earlier = earlier or []
    parts: list[str] = []
    if failed and listed:  # each with its reason on its line of the report above
        parts.append(f"{count} file(s) failed to index: {failed[0][0]}{_more(failed)}, "
                     + ("its reason above" if len(failed) == 1 else "each with its reason above"))
    elif failed:
        parts.append(f"{count} file(s) failed to index: {failed[0][0]}: {failed[0][1]}{_more(failed)}")
    if earlier and failed:
        parts.append(f"{len(earlier)} more still failed since an earlier run")
    if late:
        parts.append(_timeout_text(*late))
    if not parts:
        return None
    message = "; ".join([parts[0], *(part[0].lower() + part[1:] for part in parts[1:])])
    follow = f"'mnote-kr sync --wait {FOLLOW_S}' follows them to the end"
    if not failed:
        return WaitTimeoutError(message, hint=f"LightRAG goes on indexing them; {follow}")
    if late:
        hint = f"fix or remove the failed ones; {follow.replace('them', 'the others')}"
    else:
        hint = "fix or remove them; 'mnote-kr status' lists every failure"
    return IngestFailedError(message, hint=hint)


def _more(files: Failed) -> str:
    return f" and {len(files) - 1} more" if len(files) > 1 else ""


def _timeout_text(seconds: float, still: list[str]) -> str:
    more = f" and {len(still) - 1} more" if len(still) > 1 else ""
    # ``seconds`` bounds the time without progress (``app.patience``): the wait ran longer while files moved
    return (f"The wait ended after {seconds:g} s in which LightRAG reported no progress, with {len(still)} "
            f"file(s) still being indexed: {still[0]}{more}")
