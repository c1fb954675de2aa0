"""A plain ``mnote-kr sync`` that found the provider busy: wait for it, send, and say what happened.

A changed file is re-indexed by deleting its old document and sending the new version; LightRAG
refuses the send (the scan) while its pipeline is busy, with that very delete or with other work.
The file is then queued (``pending``), and before this step a plain sync ended there: nothing retried
it until the next sync, while its report counted it among the files "still being re-indexed".

After the provider step of a sync that was not asked to wait, :func:`send_refused` follows the files
still queued to be sent for at most :data:`BUSY_WAIT_S`: the provider waits for its pipeline to be idle
(polling its status, with progress lines), sends them, and follows them until indexed (so the registry
is not left behind LightRAG). A provider that is down ends the step at once. Whatever is still queued
after it is named in ``provider.notSent`` with its reason, and the report says it was not sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mnote_kr.core.registry_format import STALE, tag_status

if TYPE_CHECKING:
    from mnote_kr.app.host import Host

#: Seconds a plain sync waits at most for a busy provider to take the files it could not send.
BUSY_WAIT_S = 120.0
#: The queued actions that send a file (a ``delete`` waits for the next sync, as before).
SENDS = ("ingest", "reindex")


def queued_sends(host: Host) -> list[str]:
    """The files the registry holds queued to be sent (not stale): the provider did not take them."""
    entries = host.registry().select(lambda tag: tag_status(tag) == "pending" and not tag & STALE)
    return [e.source_root_relative_path for e in entries if e.pending_action in SENDS]


def send_refused(host: Host, result: dict[str, Any], *, asked_wait_s: float = 0.0,
                 wait_s: float | None = None) -> None:
    """Follow the files a sync left queued to be sent, then record in ``result["provider"]`` what the
    step did (``busyWait``: seconds allowed, files followed) and which files are still not sent
    (``notSent``: path and reason). A sync asked to wait (``asked_wait_s``) has waited already."""
    provider = result["provider"]
    wait_s = BUSY_WAIT_S if wait_s is None else wait_s
    queued = queued_sends(host)
    if queued and asked_wait_s <= 0 and wait_s > 0:
        host.progress(f"{len(queued)} file(s) not sent yet (the provider was busy or down): waiting up to "
                      f"{wait_s:g} s for it to take them")
        followed = host.sync(wait_s=wait_s, only=set(queued))
        provider["busyWait"] = {"seconds": wait_s, "files": queued}
        provider["after"], provider["movedFollowed"] = followed["after"], followed["movedFollowed"]
        provider["failed"] = [*provider.get("failed", []), *followed["failed"]]
        queued = queued_sends(host)
    entries = host.registry().entries
    provider["notSent"] = [{"path": rel, "reason": entries[rel].last_error or "queued to send"} for rel in queued]
