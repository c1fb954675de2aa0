"""``viewerUrl`` in citations: the browser viewer's address while ``mnote-kr serve`` runs.

A citation's ``citationUrl`` (``mnote-kr://open?...``) needs a handler that ordinary browsers and
MCP clients do not have. While a ``serve`` of the workspace runs (its ``server.json`` names a live
process, ``records.live_record``), the CLI's ``--json``, the HTTP API and the MCP tools also give
each citation and each of its places ``viewerUrl``: ``http://127.0.0.1:PORT/view/ID?issue=KEY``. ``issue`` names
the search that printed it (``render.ids.issue_key`` of its query): another search citing the same place
re-issues the ID with its own places, and the URL still opens this search's places and its way back.

The URL is the bare viewer path: it carries no token and no sign-in code, so it may be logged,
pasted or shown to an agent. A browser that already holds the server's session opens it at once;
one that does not is asked to sign in (``docs/http-api.md``). No serve: ``viewerUrl`` is null.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from mnote_kr.core import paths
from mnote_kr.server import records
from mnote_kr.viewer.webpages import issue_param, view_url

if TYPE_CHECKING:
    from mnote_kr.app.host import Host
    from mnote_kr.models import AgentQueryResult, Citation, OpenPlan, SearchResults

__all__ = ["answer_with_viewer_urls", "plan_with_viewer_urls", "search_with_viewer_urls", "serve_url",
           "with_viewer_urls"]


def serve_url(host: Host) -> str | None:
    """``http://127.0.0.1:PORT`` of the live ``mnote-kr serve`` of ``host``'s workspace, or None."""
    record = records.live_record(paths.state_dir(), host.root)
    if record is None or not record.url.startswith("http://"):
        return None
    return record.url.rstrip("/")


def with_viewer_urls(citations: list[Citation], base: str | None) -> list[Citation]:
    """``citations`` with ``viewerUrl`` set on each and on its places (unchanged when ``base`` is None)."""
    if not base:
        return citations
    replace = msgspec.structs.replace
    return [replace(c, viewer_url=base + view_url(c.citation_id, **issue_param(c)),
                    alternatives=[replace(a, viewer_url=base + view_url(a.citation_id, **issue_param(c)))
                                  for a in c.alternatives])
            for c in citations]


def search_with_viewer_urls(results: SearchResults, base: str | None) -> SearchResults:
    """Search results whose citations carry ``viewerUrl`` (the same object when ``base`` is None)."""
    if base:
        results.results = with_viewer_urls(results.results, base)
    return results


def plan_with_viewer_urls(plan: OpenPlan, base: str | None) -> OpenPlan:
    """An open plan whose ``issues`` each carry ``viewerUrl``: the ID as that search showed it (its ``issue``),
    so a shell or a note opens an older search's places, not only the latest's (the same plan when no ``base``)."""
    if not base:
        return plan
    replace = msgspec.structs.replace
    return replace(plan, issues=[replace(i, viewer_url=base + view_url(plan.citation_id, **issue_param(i)))
                                 for i in plan.issues])


def answer_with_viewer_urls(result: AgentQueryResult, base: str | None) -> AgentQueryResult:
    """An ``ask`` answer whose citations carry ``viewerUrl`` (the same object when ``base`` is None)."""
    if base:
        result.citations = with_viewer_urls(result.citations, base)
    return result
