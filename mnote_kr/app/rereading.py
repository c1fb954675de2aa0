"""Files indexed by an older reading: counted by ``status``, read again by ``sync`` and ``watch``'s start.

How a file is read for the index changes between versions (a DOCX's notes read at their marks, a deck's
tables, a workbook's comments, a scanned page's OCR), while ``sync`` sends a file again only when its
bytes change. Each registry entry keeps the reading that produced what the provider indexed
(``SourceEntry.reading``, set by the provider when it sends the file), and the provider says which
entries were read by an older reading (``check_readings``). docs/sync.md, "Files indexed by an older
reading", gives the decision and its cost:

* ``sync`` (and ``watch`` when it starts) re-reads the files the provider finds read differently now,
  through ``ingest --force``'s path (the old document deleted, the file sent again), never touching the
  file; a file indexed before readings were recorded is checked once by what cheaply tells how it was
  read (no text, no OCR), and the reading of one read the same way is recorded without sending it;
* the files such a check cannot tell (a PDF's scanned pages, an image's text) are only counted: their
  re-read is left to ``mnote-kr sync --reread`` (or ``ingest --force``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mnote_kr.app.host_ingest import HostIngest
from mnote_kr.core.readings import INSTALL, REREAD, SYNC, decide, indexed, part
from mnote_kr.errors import ProviderError

if TYPE_CHECKING:
    from mnote_kr.core.registry import Registry
    from mnote_kr.models import ReadingCheck


def reading_status(host: HostIngest, reg: Registry) -> dict[str, Any] | None:
    """``status``'s ``readings``: the indexed files ``sync`` re-reads or checks (``older``) and those only
    ``sync --reread`` re-reads (``unknown``), each with its command; None when the provider keeps no
    readings. No file is read."""
    check = host.plugins.check_readings(host.context(), indexed(reg), look=False)
    if check is None:
        return None
    return {"older": part(check.older, SYNC), "unknown": part(check.unknown, REREAD), **missing(check)}


def missing(check: ReadingCheck) -> dict[str, Any]:
    """``readerMissing`` when some indexed file's reader is not installed now (a plugin), else nothing."""
    return {"readerMissing": part(check.reader_missing, INSTALL)} if check.reader_missing else {}


def reread(host: HostIngest, *, everything: bool = False) -> dict[str, Any]:
    """Record the readings the provider found current, then send again the files read differently now
    (``decide``) through ``ingest --force``'s path, with progress. The summary ``sync --json`` prints as
    ``reread``; {} when the provider keeps no readings."""
    reg = host.registry()
    entries = indexed(reg)
    del reg
    try:
        check = host.plugins.check_readings(host.context(), entries, look=True)
    except ProviderError as exc:  # down: checked by the next sync; the rest of this one goes on
        return {"error": exc.message}
    if check is None:
        return {}
    if check.record:
        with host.store.transaction() as reg_w:
            for rel, reading in check.record.items():
                entry = reg_w.entries.get(rel)
                if entry is not None and entry.reading != reading:
                    reg_w.update(rel, reading=reading)
    chosen = decide(check, everything)
    out: dict[str, Any] = {"recorded": len(check.record), "sent": part(chosen, SYNC),
                           "unknown": part({} if everything else check.unknown, REREAD), **missing(check)}
    if not chosen:
        return out
    host.progress(f"re-reading {len(chosen)} file(s) indexed by an older reading")
    try:
        report = host.ingest([host.workspace.rel_to_abs(rel) for rel in chosen], force=True)
    except ProviderError as exc:  # queued in the registry: the next sync sends them
        out["error"] = exc.message
        return out
    out["counts"] = report.counts
    out["failed"] = {i.source_path: i.reason or "indexing failed" for i in report.items if i.status == "failed"}
    return out
