"""Files being re-indexed, named in every search (``notIndexed``) until their new version is indexed.

A changed file is re-indexed by deleting its old document and sending the new version (docs/sync.md).
From the sync that does it until the provider has indexed the new version, the file is out of the
index: LightRAG has no document of it to answer from (or only the old one, whose name no entry holds
any more), so a search cannot cite it, and the stat of cited files that names a file changed since
indexed (``core/ondisk``) has nothing to stat. Such an entry is queued or sent (``pending``,
``submitted``, ``processing``) and records when its earlier version was indexed (``indexed_at_ms``,
kept by ``HostIngest._send``); a new file never indexed has none and is not named (new files are not
searched until they are ingested). Every search names these files, as it names the files a
``--no-follow`` root left behind: the first :data:`SHOWN`, all counted in ``diagnostics.reindexing``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mnote_kr.core import registry_format as fmt
from mnote_kr.core.pending import CHANGED_SINCE_INDEXED
from mnote_kr.core.registry import Registry
from mnote_kr.core.workspace import under
from mnote_kr.models import NotIndexed

#: How many files being re-indexed a search names (all are counted).
SHOWN = 50
_ON_THE_WAY = frozenset({"pending", "submitted", "processing"})


def _why(status: str, last_error: str | None, watched: bool) -> str:
    if status == "pending":  # not sent: the provider was busy or down
        queued = f" ({last_error})" if last_error else ""
        # with a watcher running, it sends the file itself: running sync is not the person's to do (nc18b P6)
        who = "the running 'mnote-kr watch' sends it" if watched else "'mnote-kr sync' sends it"
        return (f"{CHANGED_SINCE_INDEXED}: being re-indexed, its new version not sent yet{queued}; "
                f"{who} (not cited until it is re-indexed)")
    return (f"{CHANGED_SINCE_INDEXED}: being re-indexed, its new version sent and not indexed yet; "
            "'mnote-kr sync --wait 60' follows it (not cited until it is re-indexed)")


def reindexing(reg: Registry, scope_rels: list[str], cited: set[str], diagnostics: dict[str, Any],
               watched: Callable[[], bool] = lambda: False) -> list[NotIndexed]:
    """The files in the search's scope (none: the workspace) whose earlier version was indexed and whose
    new version is not yet, without those ``cited`` (the provider answers from the new version already),
    each with where it is and what finishes it; counted in ``diagnostics``. ``watched``: whether a watcher
    runs for the workspace (``core.watchmark``), asked only when a file waits to be sent."""
    # Only entries on their way (by their tags) are decoded, not the registry.
    entries = reg.select(lambda tag: not tag & fmt.STALE and fmt.tag_status(tag) in _ON_THE_WAY)
    found = [e for e in entries if e.indexed_at_ms is not None and e.pending_action != "delete"
             and e.source_root_relative_path not in cited
             and (not scope_rels or any(under(e.source_root_relative_path, s) for s in scope_rels))]
    if not found:
        return []
    found.sort(key=lambda e: e.source_root_relative_path)
    diagnostics["reindexing"] = {"count": len(found), "paths": [e.source_root_relative_path for e in found[:SHOWN]]}
    by_watch = any(e.status == "pending" for e in found[:SHOWN]) and watched()
    return [NotIndexed(source_path=e.source_root_relative_path, status=e.status,
                       reason=_why(e.status, e.last_error, by_watch)) for e in found[:SHOWN]]
