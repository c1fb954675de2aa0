"""New files sent to the provider and not indexed yet, named by every search (``notIndexed``) while it indexes them.

``ingest`` without ``--wait`` returns once its files are sent: the registry records them ``submitted`` (then
``processing`` once followed) until ``status``, ``sync`` or ``watch`` follows them. A search sent meanwhile
cannot cite what LightRAG has not indexed, and used to say nothing of it (nc22a: a new DOCX, a search
answered in 3 s with ``notIndexed: []``). Every search in their scope (none: the workspace) now names them,
as it names files being re-indexed (``reindexing``, which keeps those whose earlier version was indexed).

The registry may lag behind the provider: a file it records as sent may be indexed already. So the request
carries their provider names (``QueryRequest.sent_files``, empty when there are none: no provider call
then), the provider looks at its own work and says what it knows in ``diagnostics["indexing"]``:
``{"busy": false}`` (idle: it is done with every file sent, nothing is named) or ``{"busy": true,
"done": [names finished in this run or processed in an earlier one], ...}`` (those done are not named; a search
never writes the registry: ``status`` and ``sync`` follow them). A provider that says nothing
leaves the registry's word standing. A file cited by this search is never named (its answer came).

An idle provider may also say that its engine stopped in the middle of some of them (``{"busy": false,
"interrupted": [names]}``): nothing indexes those until a sync sends them again, so they are named as
:data:`INTERRUPTED` (nc26c: no search named the handbook an engine stop left "processing"), counted in
``diagnostics["interrupted"]``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mnote_kr.core import registry_format as fmt
from mnote_kr.core.registry import Registry
from mnote_kr.core.workspace import under
from mnote_kr.models import NotIndexed, SourceEntry

#: How many such files a search names (all are counted in ``diagnostics["stillIndexing"]``).
SHOWN = 50
SENT = frozenset({"submitted", "processing"})
#: The reason each one gets (``--json``); the text says the files in one line (``cards``).
REASON = "sent to the provider, not indexed yet: not cited until it is (a search cites it once it is)"
#: The status and reason of a file sent whose indexing the provider's engine stopped in the middle of.
INTERRUPTED = ("interrupted", "the engine stopped while indexing it; 'mnote-kr sync' indexes it again")


def sent_entries(reg: Registry) -> list[SourceEntry]:
    """The entries sent and not indexed yet (by their tags: only those are decoded), stale ones left out."""
    return reg.select(lambda tag: not tag & fmt.STALE and fmt.tag_status(tag) in SENT)


def sent_files(reg: Registry) -> tuple[str, ...]:
    """The provider's names of the files sent and not indexed yet (``QueryRequest.sent_files``)."""
    return tuple(e.light_rag_file_path for e in sent_entries(reg) if e.light_rag_file_path)


def still_indexing(reg: Registry, scope_rels: list[str], cited: set[str], diagnostics: dict[str, Any]
                   ) -> list[NotIndexed]:
    """The new files of the scope (none: the workspace) sent and not indexed yet, as the provider's
    ``diagnostics["indexing"]`` leaves them; counted in ``diagnostics["stillIndexing"]``."""
    said = diagnostics.get("indexing")
    if isinstance(said, dict) and said.get("busy") is False:
        # the provider is idle: it is done with them, whatever the registry has not heard yet, but for those its
        # engine stopped in the middle of
        return _interrupted(reg, scope_rels, cited, set(said.get("interrupted") or []), diagnostics)
    done = set(said.get("done") or []) if isinstance(said, dict) else set()
    found = _sent_in_scope(reg, scope_rels, cited, lambda name: name not in done)
    if not found:
        return []
    found.sort(key=lambda e: e.source_root_relative_path)
    diagnostics["stillIndexing"] = {"count": len(found), "paths": [e.source_root_relative_path for e in found[:SHOWN]]}
    return [NotIndexed(source_path=e.source_root_relative_path, status=e.status, reason=REASON) for e in found[:SHOWN]]


def _sent_in_scope(reg: Registry, scope_rels: list[str], cited: set[str],
                   named: Callable[[str | None], bool]) -> list[SourceEntry]:
    """The new files of the scope sent and not indexed yet, not cited by this search, whose provider name ``named``
    keeps."""
    return [e for e in sent_entries(reg)
            if e.indexed_at_ms is None and e.pending_action != "delete"  # re-indexed files: ``reindexing``
            and e.source_root_relative_path not in cited and named(e.light_rag_file_path)
            and (not scope_rels or any(under(e.source_root_relative_path, s) for s in scope_rels))]


def _interrupted(reg: Registry, scope_rels: list[str], cited: set[str], names: set[str],
                 diagnostics: dict[str, Any]) -> list[NotIndexed]:
    """The new files of the scope whose indexing the provider's engine stopped in the middle of (``names``: the
    provider's names of them), counted in ``diagnostics["interrupted"]``."""
    if not names:
        return []
    found = sorted(_sent_in_scope(reg, scope_rels, cited, lambda name: name in names),
                   key=lambda e: e.source_root_relative_path)
    if found:
        diagnostics["interrupted"] = {"count": len(found),
                                      "paths": [e.source_root_relative_path for e in found[:SHOWN]]}
    status, reason = INTERRUPTED
    return [NotIndexed(source_path=e.source_root_relative_path, status=status, reason=reason) for e in found[:SHOWN]]
