"""Open reference: a citation ID becomes an open plan (file, kind, locator, open-action parameters)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from mnote_kr.core.ondisk import changed_since_indexed
from mnote_kr.core.pending import (
    PROVISIONAL_CHANGED,
    PROVISIONAL_MISSING,
    REASON_CHANGED,
    REASON_MISSING,
    USER_DELETED,
)
from mnote_kr.core.registry_format import entry_tag, is_citable_tag
from mnote_kr.errors import NotFoundError, UsageError
from mnote_kr.models import (
    Citation,
    Locator,
    OpenActionParams,
    OpenPlan,
)

if TYPE_CHECKING:
    from mnote_kr.models.registry import SourceEntry
from mnote_kr.citations.caches import citecache
from mnote_kr.citations.hostview import HostView as Host
from mnote_kr.citations.map.notindexed import STATUS_WHY
from mnote_kr.citations.render.ids import URL_SCHEME, citation_url
from mnote_kr.citations.render.moved import moved_note, moved_target

_SINCE = " since this citation was issued"
#: What ``open`` says of a citation whose file's version was never recorded (``unverified``).
UNVERIFIED_NOTE = ("the place could not be verified: this citation was issued before mnote-kr recorded which version "
                   "of the file it cites, and the file at its path may have been replaced since; the file is opened "
                   "at its start, nothing is marked (search again for the exact place)")
#: What to do about an ID that is unknown or expired (``open``, the viewer, MCP say the same).
UNKNOWN_HINT = "search again: 'mnote-kr search' or 'ask' issues a current ID"

_KINDS = {
    ".pdf": "pdf",
    ".docx": "office", ".doc": "office", ".pptx": "office", ".xlsx": "office", ".xlsm": "office", ".odt": "office",
    ".md": "markdown", ".markdown": "markdown",
    ".png": "image", ".jpg": "image", ".jpeg": "image", ".gif": "image", ".webp": "image",
    ".tif": "image", ".tiff": "image", ".bmp": "image",
}


def resource_kind(path: str) -> str:
    return _KINDS.get(Path(path).suffix.lower(), "text")



#: A citation ID as every surface reads it (the viewer's ``shell.js`` and routes too): an optional ``[``,
#: 1-40 letters, digits or ``-``, an optional ``]``. Issued IDs are ``[a3z1]`` or ``[IMG-p4f2]``.
_ID_SYNTAX = re.compile(r"\[?([A-Za-z0-9-]{1,40})\]?")


def normalize_citation_id(raw: str) -> str:
    """``[a3z1]`` for ``a3z1``, ``[a3z1]`` or `` [a3z1 ``; ``UsageError`` for what is no ID at all (a
    sentence, a path), which no lookup could find: the caller's mistake (exit 2, HTTP 400), not an
    unknown citation (``NotFoundError``, 404), as the viewer's locate answers ``bad_request``."""
    raw = raw.strip()
    if not raw:
        raise UsageError("Give a citation ID such as [a3z1]")
    found = _ID_SYNTAX.fullmatch(raw)
    if found is None:
        shown = raw if len(raw) <= 60 else raw[:57] + "..."
        if raw.lower().startswith(URL_SCHEME + "://"):  # a citation's citationUrl, which names no ID
            raise UsageError(f"Not a citation ID: {shown!r} is a citation URL, for a desktop shell's "
                             f"{URL_SCHEME}:// handler; give the citation's ID, such as [a3z1]",
                             hint="the ID is the [a3z1] beside the citation in 'mnote-kr search' or 'ask'")
        raise UsageError(f"Not a citation ID: {shown!r}",
                         hint="a citation ID looks like [a3z1]; take it from 'mnote-kr search' or 'ask'")
    return f"[{found.group(1)}]"


def unknown_message(host: Host, cid: str) -> str:
    """Why ``cid`` (normalised) opens nothing, in one line: expired (issued, then evicted), or unknown."""
    if citecache.expired(host, cid):
        kept = citecache.keep(host, strict=False)
        return f"Citation {cid} has expired: it was issued more than {kept:,} citations ago and is no longer kept"
    return f"Unknown citation {cid}: never issued in this workspace, or expired"


def find_citation(host: Host, raw_id: str) -> Citation | None:
    """The issued citation with this ID (``[a3z1]`` or ``a3z1``), or None: no liveness check."""
    return citecache.find(host, normalize_citation_id(raw_id))


def changed_since_issued(citation: Citation, issued_hash: str, entry: SourceEntry) -> str | None:
    """Why ``entry`` (the registry's, now) is not the version of the file ``citation`` was issued from
    (its content hash then: ``issued_hash``), or None. The place it names may have moved or gone, so
    its citations stop (DESIGN.md, "Stale, not silent"). A citation logged before the hash was kept
    is compared by the provider's document, which is new for each content."""
    if issued_hash and entry.source_hash:
        changed = issued_hash != entry.source_hash
    else:
        changed = bool(citation.light_rag_doc_id and entry.light_rag_doc_id
                       and citation.light_rag_doc_id != entry.light_rag_doc_id)
    return f"{citation.source_root_relative_path} changed since this citation was issued" if changed else None


def unverified(citation: Citation, issued_hash: str) -> Citation | None:
    """``citation`` as a citation of its whole file when the version of the file it was issued from is not
    known (logged before the hash was kept: ``issued_hash`` ""), else None. Its provider document id only
    tells a change when the provider names documents by content; one that names them by path keeps the
    id for a new file at the same path, whose paragraph N is not the cited one. The file opens (what a
    note's link is for), at no place: DESIGN.md, "Never fake precision"."""
    if issued_hash:
        return None
    locator = Locator(locator_precision="file", locator_degraded=True, locator_reason=UNVERIFIED_NOTE)
    return msgspec.structs.replace(citation, locator=locator, locator_precision="file", locator_degraded=True,
                                   citation_url=citation_url(citation.source_root_relative_path, locator),
                                   alternatives=[])


def changed_on_disk(entry: SourceEntry, path: Path, st: os.stat_result) -> bool:
    """The file is not the version that was indexed (no sync has seen the change yet): its size differs, or
    its time and its bytes do (a touched file is the same version: ``core.ondisk``)."""
    return changed_since_indexed(entry, path, st)


def why_not_citable(host: Host, rel: str, entry: SourceEntry | None) -> str:
    """What happened to a cited file that is not citable any more, in a person's words (``open`` and
    the viewer say the same): never a registry status such as ``delete_completed``. The disk is
    asked when the record does not say: a file missing from its path was deleted (or moved away)."""
    if entry is None:
        return "the file is no longer in the knowledge base"
    reason = entry.stale_reason if entry.stale else None
    if reason == USER_DELETED:
        return "the file was deleted from the knowledge base" + _SINCE
    if reason and reason.startswith("moved to "):
        return f"the file was {reason}" + _SINCE
    if reason in (REASON_MISSING, PROVISIONAL_MISSING) or (entry.stale and not _on_disk(host, rel)):
        return "the file was deleted from disk" + _SINCE + " (or moved out of the indexed roots)"
    if reason in (REASON_CHANGED, PROVISIONAL_CHANGED):
        return "the file changed on disk" + _SINCE
    if reason:
        return reason  # e.g. "excluded by pattern 'drafts'": the words the roots' rules gave it
    why = entry.last_error if entry.status in ("failed", "refused") and entry.last_error else None
    return why or STATUS_WHY.get(entry.status, "it is not indexed")


def _on_disk(host: Host, rel: str) -> bool:
    try:
        return host.workspace.rel_to_abs(rel).is_file()
    except (OSError, ValueError):
        return False


def open_plan(host: Host, raw_id: str) -> OpenPlan:
    """How to open the citation ``raw_id``: refused (``NotFoundError``, one line and what to do) when it
    is unknown, its file is not citable any more, or the file is not the version it was issued from."""
    cid = normalize_citation_id(raw_id)
    found = citecache.issued_history(host, cid)
    if found is None:
        raise NotFoundError(unknown_message(host, cid), hint=UNKNOWN_HINT)
    citation, issued_hash, issues = found
    rel = citation.source_root_relative_path
    reg = host.registry()
    entry = reg.entries.get(rel)
    moved_from = None
    if (target := moved_target(reg, entry, rel, host.workspace.index_dir)) is not None:  # same bytes, new path
        moved_from, (rel, entry) = rel, target
        # the URL a shell or an agent follows names the file where it is now, at the same place
        citation = msgspec.structs.replace(citation, source_root_relative_path=rel,
                                           citation_url=citation_url(rel, citation.locator))
    if entry is None or not is_citable_tag(entry_tag(entry)):  # the rule search cites by
        raise NotFoundError(f"Citation {cid} points to a source that is not citable any more: "
                            f"{why_not_citable(host, rel, entry)}", hint="search again")
    if changed := changed_since_issued(citation, issued_hash, entry):
        raise NotFoundError(f"Citation {cid} points to a source that is not citable any more: {changed}",
                            hint="search again")
    abs_path, _ = host.workspace.resolve(rel, base=host.root)
    try:
        st = abs_path.stat()
    except OSError:
        st = None
    if st is None or not abs_path.is_file():
        raise NotFoundError(f"The source of {cid} is missing on disk: {rel}", hint="run 'mnote-kr sync'")
    if changed_on_disk(entry, abs_path, st):
        raise NotFoundError(f"The source of {cid} changed since it was indexed: {rel}",
                            hint="run 'mnote-kr sync', then search again")
    notes = [moved_note(moved_from, rel)] if moved_from else []
    if (whole := unverified(citation, issued_hash)) is not None:
        citation = whole
        notes.append(UNVERIFIED_NOTE)
    return OpenPlan(
        citation_id=cid,
        resource_path=str(abs_path),
        resource_root_relative_path=rel,
        resource_kind=resource_kind(rel),
        locator=citation.locator,
        citation_url=citation.citation_url,
        source_map_path=citation.source_map_path,
        open_action=OpenActionParams(
            provider=citation.provider,
            chunk_id=citation.light_rag_chunk_id,
            search_query=citation.search_query,
            evidence_text=citation.locator_evidence_text,
            display_quote=citation.display_quote,
        ),
        moved_from=moved_from,
        note="; ".join(notes) or None,
        issues=issues,  # every search that printed the ID, each with its own quote: openAction is the latest's
    )
