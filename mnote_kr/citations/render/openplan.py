"""Open reference: a citation ID becomes an open plan (file, kind, locator, open-action parameters)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from mnote_kr.core.registry_format import entry_tag, is_citable_tag
from mnote_kr.errors import NotFoundError, UsageError
from mnote_kr.models import (
    Citation,
    OpenActionParams,
    OpenPlan,
)

if TYPE_CHECKING:
    pass
from mnote_kr.citations.caches import citecache
from mnote_kr.citations.hostview import HostView as Host

_KINDS = {
    ".pdf": "pdf",
    ".docx": "office", ".doc": "office", ".pptx": "office", ".xlsx": "office", ".odt": "office",
    ".md": "markdown", ".markdown": "markdown",
    ".png": "image", ".jpg": "image", ".jpeg": "image", ".gif": "image", ".webp": "image",
    ".tif": "image", ".tiff": "image", ".bmp": "image",
}


def resource_kind(path: str) -> str:
    return _KINDS.get(Path(path).suffix.lower(), "text")



def normalize_citation_id(raw: str) -> str:
    raw = raw.strip()
    if not raw:
        raise UsageError("Give a citation ID such as [a3z1]")
    return raw if raw.startswith("[") else f"[{raw.strip('[]')}]"


def find_citation(host: Host, raw_id: str) -> Citation | None:
    """The issued citation with this ID (``[a3z1]`` or ``a3z1``), or None: no liveness check."""
    return citecache.find(host, normalize_citation_id(raw_id))


def open_plan(host: Host, raw_id: str) -> OpenPlan:
    cid = normalize_citation_id(raw_id)
    citation = find_citation(host, cid)
    if citation is None:
        raise NotFoundError(f"Unknown citation {cid}", hint="citation IDs come from 'mnote-kr search' or 'ask'")
    entry = host.registry().entries.get(citation.source_root_relative_path)
    if entry is None or not is_citable_tag(entry_tag(entry)):  # the rule search cites by
        reason = (entry.stale_reason if entry else None) or "no longer in the knowledge base"
        raise NotFoundError(f"Citation {cid} points to a source that is not citable any more: {reason}",
                            hint="search again")
    abs_path, _ = host.workspace.resolve(citation.source_root_relative_path, base=host.root)
    if not abs_path.is_file():
        raise NotFoundError(f"The source of {cid} is missing on disk: {citation.source_root_relative_path}",
                            hint="run 'mnote-kr sync'")
    return OpenPlan(
        citation_id=cid,
        resource_path=str(abs_path),
        resource_root_relative_path=citation.source_root_relative_path,
        resource_kind=resource_kind(citation.source_root_relative_path),
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
    )
