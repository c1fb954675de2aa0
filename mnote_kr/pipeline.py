"""The citation pipeline: provider references → map → clean → classify → locate → cite.

Only references that map to a live registry entry become citations (principle 5);
sources deleted or changed on disk since indexing are dropped here even before the
watcher notices (principle 6). Every dropped reference is counted in diagnostics.
"""

from __future__ import annotations

import os
import re
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import filelock
import msgspec

from .citations import citation_id, citation_markdown, citation_url, dedupe_key, score
from .errors import LocatorError, NotFoundError, UsageError
from .models import (
    AgentQueryResult,
    Citation,
    CitationDiagnostics,
    Locator,
    LocateRequest,
    NotIndexed,
    OpenActionParams,
    OpenPlan,
    ProviderQueryResult,
    QueryRequest,
    RerankInfo,
    SearchResults,
)
from .registry import Registry
from .sidecar import heading_path

if TYPE_CHECKING:
    from .host import Host

CITATION_CACHE = "citations.json"
CITATION_CACHE_MAX = 5000

_KINDS = {
    ".pdf": "pdf",
    ".docx": "office", ".doc": "office", ".pptx": "office", ".xlsx": "office", ".odt": "office",
    ".md": "markdown", ".markdown": "markdown",
    ".png": "image", ".jpg": "image", ".jpeg": "image", ".gif": "image", ".webp": "image",
    ".tif": "image", ".tiff": "image", ".bmp": "image",
}


class _CitationCache(msgspec.Struct, kw_only=True):
    version: int = 1
    citations: dict[str, Citation] = {}


_cache_decoder = msgspec.json.Decoder(_CitationCache)
_cache_encoder = msgspec.json.Encoder()


def resource_kind(path: str) -> str:
    return _KINDS.get(Path(path).suffix.lower(), "text")


def _scope_rels(host: Host, scope: list[str]) -> list[str]:
    return [host.workspace.resolve(s)[1] for s in scope]


def _in_scope(rel: str, scope: list[str]) -> bool:
    return not scope or any(not s or rel == s or rel.startswith(s + "/") for s in scope)


def _honest(locator: Locator, cap: str) -> Locator:
    """A paragraph claim needs a sidecar block behind it (seed 000: no sidecar → file)."""
    if locator.locator_precision == "paragraph" and cap == "file":
        return msgspec.structs.replace(
            locator,
            locator_precision="file",
            locator_degraded=True,
            paragraph_index=None,
            para_id=None,
            highlight=None,
            reason="no sidecar block confirms the paragraph",
        )
    return locator


def build_citations(
    host: Host, result: ProviderQueryResult, reg: Registry, query: str, scope: list[str]
) -> tuple[list[Citation], dict[str, Any]]:
    """Turn provider references into de-duplicated, ranked citations."""
    ctx = host.context()
    entries = reg.by_provider_name()
    dropped: Counter[str] = Counter()
    taken: set[str] = set()
    seen: set[tuple[Any, ...]] = set()
    occurrences: Counter[tuple[str, str]] = Counter()
    scored: list[tuple[float, int, Citation]] = []
    total = len(result.references)
    timings: Counter[str] = Counter()
    for ref in result.references:
        t0 = time.perf_counter()
        mapped = host.plugins.map_reference(ctx, ref, entries, query)
        timings["mapMs"] += (time.perf_counter() - t0) * 1000
        if mapped is None:
            dropped["unmapped"] += 1
            continue
        entry = reg.entries.get(mapped.entry.source_root_relative_path)
        if entry is None or entry.stale or entry.status != "processed":
            dropped["notLive"] += 1
            continue
        rel = entry.source_root_relative_path
        if not _in_scope(rel, scope):
            dropped["outOfScope"] += 1
            continue
        abs_path = host.workspace.rel_to_abs(rel)
        try:
            st = abs_path.stat()
        except OSError:
            dropped["missingOnDisk"] += 1
            continue
        if st.st_size != entry.size or st.st_mtime_ns != entry.mtime_ns:
            dropped["changedOnDisk"] += 1
            continue
        block = mapped.block
        t0 = time.perf_counter()
        bundle = host.plugins.clean_text(ref.content or "", query, block.content if block else None)
        timings["cleanMs"] += (time.perf_counter() - t0) * 1000
        block_id = block.blockid if block else None
        key = dedupe_key(entry.source_id, block_id, ref.chunk_id, bundle.normalized_fingerprint)
        if key in seen:
            dropped["duplicate"] += 1
            continue
        seen.add(key)
        cap = host.plugins.classify_locator(block, mapped.meta)
        t0 = time.perf_counter()
        if entry.kind == "image":
            locator = Locator(locator_precision="file", locator_degraded=True, block_id=block_id,
                              reason="image: opens the picture")
        else:
            request = LocateRequest(file=str(abs_path), evidence=bundle.locator_evidence_text, query=query,
                                    block=block, block_id=block_id, sidecar_meta=mapped.meta)
            try:
                locator = host.plugins.locate(request)
            except LocatorError as exc:
                locator = Locator(locator_precision="file", locator_degraded=True, block_id=block_id,
                                  reason=f"locator failed: {exc.message}")
        locator = _honest(locator, cap)
        timings["locateMs"] += (time.perf_counter() - t0) * 1000
        anchor = block_id or ref.chunk_id or bundle.normalized_fingerprint
        occurrence = occurrences[(entry.source_id, anchor)]
        occurrences[(entry.source_id, anchor)] += 1
        cid = citation_id(ref.provider, entry.source_id, anchor, occurrence, image=entry.kind == "image", taken=taken)
        url = citation_url(rel, locator)
        value, parts = score(ref.rank, total, Path(rel).name, bundle.display_quote, query)
        citation = Citation(
            provider=ref.provider,
            citation_id=cid,
            source_id=entry.source_id,
            source_path=str(abs_path),
            source_root_relative_path=rel,
            light_rag_doc_id=entry.light_rag_doc_id,
            light_rag_file_path=ref.file_path,
            light_rag_chunk_id=ref.chunk_id,
            block_id=block_id,
            heading_path=heading_path(block) if block else [],
            raw_quote=bundle.raw_quote,
            display_quote=bundle.display_quote,
            locator_evidence_text=bundle.locator_evidence_text,
            quote_source="sidecar" if block else "chunk",
            search_query=bundle.search_query,
            locator_precision=locator.locator_precision,
            locator_degraded=locator.locator_degraded,
            locator=locator,
            citation_url=url,
            citation_markdown=citation_markdown(Path(rel).name, locator, url),
            relevance_score=round(value, 6),
            source_map_path=mapped.sidecar_path,
            diagnostics=CitationDiagnostics(
                quote_source="sidecar" if block else "chunk",
                raw_reference_mapped=True,
                sidecar_block_mapped=block is not None,
                display_cleaned=bundle.display_cleaned,
                locator_text_source=bundle.locator_text_source,
                provider_rank=ref.rank,
                score_parts=parts,
            ),
        )
        scored.append((value, len(scored), citation))
    scored.sort(key=lambda item: (-item[0], item[1]))
    diagnostics = {
        "providerReferences": total,
        "dropped": dict(dropped),
        "timingsMs": {k: round(v, 2) for k, v in timings.items()},
    }
    return [c for _, _, c in scored], diagnostics


_FILENAME_RE = re.compile(r"[\w\u00c0-\uffff.\-]+\.[A-Za-z0-9]{1,5}\b")


def not_indexed(host: Host, reg: Registry, query: str) -> list[NotIndexed]:
    """Files the query names that are in the workspace but not citable, and why."""
    names = {m.group(0).lower() for m in _FILENAME_RE.finditer(query)}
    if not names:
        return []
    out: list[NotIndexed] = []
    found: set[str] = set()
    for entry in reg.entries.values():
        name = Path(entry.source_root_relative_path).name.lower()
        if name not in names or (entry.status == "processed" and not entry.stale):
            found.add(name)
            continue
        found.add(name)
        status = "stale" if entry.stale else entry.status
        reason = entry.stale_reason or entry.last_error or {
            "pending": "waiting to be sent to the provider",
            "submitted": "sent, not indexed yet",
            "processing": "being indexed",
            "failed": "indexing failed",
            "duplicate": "identical content is indexed under another file",
            "delete_submitted": "deleted from the knowledge base",
            "delete_completed": "deleted from the knowledge base",
        }.get(entry.status, entry.status)
        out.append(NotIndexed(source_path=entry.source_root_relative_path, status=status, reason=reason))
    missing = names - found
    if missing:
        for root in reg.roots.values():
            base = host.workspace.rel_to_abs(root.root_relative_path)
            walker = os.walk(base) if root.recursive else [(str(base), [], os.listdir(base) if base.is_dir() else [])]
            for folder, dirs, files in walker:
                dirs[:] = [d for d in dirs if d not in (".mnote", ".git", "node_modules", "__parsed__", ".venv")]
                for f in files:
                    if f.lower() in missing:
                        rel = Path(folder, f).relative_to(host.root).as_posix()
                        pattern = host.workspace._excluded(rel, root.exclude_patterns)
                        status, reason = (("excluded", f"excluded by pattern {pattern!r}") if pattern
                                          else ("not_indexed", "in an indexed root but not ingested yet"))
                        out.append(NotIndexed(source_path=rel, status=status, reason=reason))
    return out


def _query(host: Host, query: str, *, top_k: int, mode: str, rerank: bool | None,
           want_answer: bool) -> ProviderQueryResult:
    query = " ".join(query.split())
    if not query:
        raise UsageError("The query is empty")
    if not 1 <= top_k <= 200:
        raise UsageError("--top-k must be between 1 and 200")
    request = QueryRequest(query=query, mode=mode, top_k=top_k, want_answer=want_answer, enable_rerank=rerank)
    return host.plugins.query(host.context(), request)


def search(host: Host, query: str, *, scope: list[str], top_k: int = 20, mode: str = "mix",
           rerank: bool | None = None) -> SearchResults:
    scope_rels = _scope_rels(host, scope)
    t0 = time.perf_counter()
    result = _query(host, query, top_k=top_k, mode=mode, rerank=rerank, want_answer=False)
    t1 = time.perf_counter()
    reg = host.registry()
    citations, diagnostics = build_citations(host, result, reg, query, scope_rels)
    diagnostics["providerMs"] = round((t1 - t0) * 1000, 2)
    diagnostics["pipelineMs"] = round((time.perf_counter() - t1) * 1000, 2)
    diagnostics["providerStatus"] = result.raw_status
    if result.notes:
        diagnostics["notes"] = result.notes
    remember(host, citations)
    return SearchResults(
        query=query,
        mode=mode,
        provider=result.provider,
        rerank=RerankInfo(requested=bool(rerank), enabled=None, model=None),
        results=citations,
        not_indexed=not_indexed(host, reg, query),
        diagnostics=diagnostics,
    )


_BADGE_RE = re.compile(r"\[(\d{1,3})\]")
_REFERENCES_TAIL_RE = re.compile(r"\n+(?:#+\s*)?(?:References|Sources|参考文献|参考资料)\s*:?\s*\n(?:\s*[-*]?\s*\[\d+\].*\n?)*\s*$",
                                 re.IGNORECASE)


def rewrite_badges(answer: str, ref_to_citation: dict[str, str]) -> str:
    """Replace the provider's ``[n]`` markers with host-issued IDs; drop the rest."""
    answer = _REFERENCES_TAIL_RE.sub("", answer)

    def swap(match: re.Match[str]) -> str:
        return ref_to_citation.get(match.group(1), "")

    return _BADGE_RE.sub(swap, answer)


def ask(host: Host, query: str, *, scope: list[str], top_k: int = 20, mode: str = "mix",
        rerank: bool | None = None) -> AgentQueryResult:
    scope_rels = _scope_rels(host, scope)
    result = _query(host, query, top_k=top_k, mode=mode, rerank=rerank, want_answer=True)
    reg = host.registry()
    citations, _ = build_citations(host, result, reg, query, scope_rels)
    remember(host, citations)
    ref_to_citation: dict[str, str] = {}
    by_file = {c.light_rag_file_path: c.citation_id for c in reversed(citations)}
    for ref in result.references:
        if ref.reference_id and ref.file_path in by_file:
            ref_to_citation.setdefault(ref.reference_id, by_file[ref.file_path])
    answer = rewrite_badges(result.answer, ref_to_citation) if result.answer is not None else None
    notes = list(result.notes)
    if not citations:
        notes.append("No citable source matched; the answer (if any) is not backed by your files.")
    return AgentQueryResult(query=" ".join(query.split()), answer=answer, citations=citations, notes=notes)


# ---------------------------------------------------------------------------- open


def _cache_path(host: Host) -> Path:
    return host.workspace.index_dir / CITATION_CACHE


def _load_cache(path: Path) -> _CitationCache:
    try:
        return _cache_decoder.decode(path.read_bytes())
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return _CitationCache()


def remember(host: Host, citations: list[Citation]) -> None:
    """Keep issued citations so ``open`` works across processes."""
    if not citations:
        return
    path = _cache_path(host)
    path.parent.mkdir(parents=True, exist_ok=True)
    with filelock.FileLock(str(path) + ".lock", timeout=10):
        cache = _load_cache(path)
        for c in citations:
            cache.citations.pop(c.citation_id, None)
            cache.citations[c.citation_id] = c
        if len(cache.citations) > CITATION_CACHE_MAX:
            keep = list(cache.citations.items())[-CITATION_CACHE_MAX:]
            cache.citations = dict(keep)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(_cache_encoder.encode(cache))
        os.replace(tmp, path)


def normalize_citation_id(raw: str) -> str:
    raw = raw.strip()
    if not raw:
        raise UsageError("Give a citation ID such as [a3z1]")
    return raw if raw.startswith("[") else f"[{raw.strip('[]')}]"


def open_plan(host: Host, raw_id: str) -> OpenPlan:
    cid = normalize_citation_id(raw_id)
    cache = _load_cache(_cache_path(host))
    citation = cache.citations.get(cid)
    if citation is None:
        raise NotFoundError(f"Unknown citation {cid}", hint="citation IDs come from 'mnote-kr search' or 'ask'")
    entry = host.registry().entries.get(citation.source_root_relative_path)
    if entry is None or entry.stale or entry.status != "processed":
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
