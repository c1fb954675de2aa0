"""Files indexed by an older reading, the host's pure parts: what ``sync`` sends again, and the lines
``status`` and ``sync`` print (``mnote_kr.app.rereading`` acts on them; docs/sync.md, "Files indexed by an
older reading")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mnote_kr.core.registry_format import STALE as STALE_BIT
from mnote_kr.core.registry_format import tag_status

if TYPE_CHECKING:
    from mnote_kr.core.registry import Registry
    from mnote_kr.models import ReadingCheck, SourceEntry

#: How many paths a report lists of each kind (the counts count all).
SHOWN = 50
SYNC = "mnote-kr sync"
REREAD = "mnote-kr sync --reread"
#: What brings back a file's reader that is not installed now (``ReadingCheck.reader_missing``).
INSTALL = "install it again to cite it in place"


def indexed(reg: Registry) -> list[SourceEntry]:
    """The entries the provider's index holds for citing (processed, not stale): the only ones with a reading."""
    return reg.select(lambda tag: tag_status(tag) == "processed" and not tag & STALE_BIT)


def part(found: dict[str, str], command: str) -> dict[str, Any]:
    """A report's ``{"count", "paths", "reasons", "command"}`` of ``found`` (path -> why), the first ``SHOWN``."""
    shown = list(found)[:SHOWN]
    return {"count": len(found), "paths": shown, "reasons": {p: found[p] for p in shown}, "command": command}


def decide(check: ReadingCheck, everything: bool) -> dict[str, str]:
    """The files to send again (path -> why): those read differently now, and with ``everything``
    (``sync --reread``) those whose reading is not known as well."""
    chosen = dict(check.older)
    if everything:
        chosen.update({rel: f"re-read on request ({why})" for rel, why in check.unknown.items()})
    return chosen


def status_lines(readings: dict[str, Any] | None) -> list[str]:
    """``status``'s lines for people (none when every indexed file's reading is current)."""
    if not readings:
        return []
    lines: list[str] = []
    older, unknown = readings.get("older") or {}, readings.get("unknown") or {}
    if older.get("count"):
        first = older["paths"][0]
        lines.append(f"Reading:   {older['count']} file(s) indexed by an older reading, e.g. {first} "
                     f"({older['reasons'][first]}): '{SYNC}' re-reads those read differently now")
    if unknown.get("count"):
        first = unknown["paths"][0]
        lines.append(f"Reading:   {unknown['count']} file(s) whose reading is not known, e.g. {first} "
                     f"({unknown['reasons'][first]}): '{REREAD}' re-reads them")
    return lines + [f"Reader:    {line}" for line in _missing(readings)]


def _missing(report: dict[str, Any]) -> list[str]:
    """The line saying files lost their reader (a plugin not installed now), once, or none."""
    gone = report.get("readerMissing") or {}
    if not gone.get("count"):
        return []
    first = gone["paths"][0]
    return [f"{gone['count']} file(s) indexed through a reader that is not installed now (a plugin), e.g. {first} "
            f"({gone['reasons'][first]}): {INSTALL}"]


def sync_lines(summary: dict[str, Any] | None) -> list[str]:
    """``sync``'s lines for people: the files re-read, and those left to ``sync --reread``."""
    if not summary:
        return []
    lines: list[str] = []
    sent = summary.get("sent") or {}
    for path in sent.get("paths", [])[:20]:
        lines.append(f"{'re-read:':<24}{path} ({sent['reasons'][path]})")
    if sent.get("count", 0) > 20:
        lines.append(f"{'':<24}... and {sent['count'] - 20} more ('--json' lists {SHOWN})")
    unknown = summary.get("unknown") or {}
    if unknown.get("count"):
        lines.append(f"{unknown['count']} file(s) indexed before mnote-kr recorded how it reads a file were "
                     f"not re-read (their reading is not known without reading them whole): '{REREAD}' re-reads them")
    return lines + _missing(summary)
