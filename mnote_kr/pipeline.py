"""The citation pipeline: provider references → map → clean → classify → locate → cite.

Only references that map to a live registry entry become citations (principle 5);
sources deleted or changed on disk since indexing are dropped here even before the
watcher notices (principle 6). Every dropped reference is counted in diagnostics.
"""

from __future__ import annotations

import os
import re
import threading
import time
import weakref
from collections import Counter, OrderedDict, defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import filelock
import msgspec

from .citations import citation_id, citation_markdown, citation_url, dedupe_key, score
from .errors import LocatorError, NotFoundError, UsageError
from .models import (
    AgentQueryResult,
    Citation,
    CitationDiagnostics,
    CitationTextBundle,
    LocateRequest,
    Locator,
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
    from .plugins import Plugins

#: Issued citations, one JSON object a line, appended by every search (``open`` reads it).
CITATION_CACHE = "citations.jsonl"
#: The whole-file JSON cache of earlier versions; ``open`` still reads it.
LEGACY_CITATION_CACHE = "citations.json"
CITATION_CACHE_MAX = 5000
#: Locator and cleaning answers kept per plugin set (warm searches skip redoing the same passage).
LOCATOR_MEMO_MAX = 4096

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
_citation_decoder = msgspec.json.Decoder(Citation)
_citation_encoder = msgspec.json.Encoder()
_meta_encoder = msgspec.json.Encoder()


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


V = TypeVar("V")


class _Memo(Generic[V]):
    """A bounded LRU of answers, one per plugin set (another configuration answers anew)."""

    def __init__(self, max_items: int = LOCATOR_MEMO_MAX) -> None:
        self._by_plugins: weakref.WeakKeyDictionary[Plugins, OrderedDict[Any, V]] = weakref.WeakKeyDictionary()
        self._max = max_items
        self._lock = threading.Lock()

    def get(self, plugins: Plugins, key: Any) -> V | None:
        with self._lock:
            memo = self._by_plugins.get(plugins)
            hit = memo.get(key) if memo is not None else None
            if hit is not None and memo is not None:
                memo.move_to_end(key)
            return hit

    def put(self, plugins: Plugins, key: Any, value: V) -> None:
        with self._lock:
            memo = self._by_plugins.setdefault(plugins, OrderedDict())
            memo[key] = value
            while len(memo) > self._max:
                memo.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._by_plugins.clear()


_locator_memo: _Memo[Locator] = _Memo()
_clean_memo: _Memo[CitationTextBundle] = _Memo()


def _locate(plugins: Plugins, request: LocateRequest, st: os.stat_result, sidecar_path: str | None) -> Locator:
    """``plugins.locate`` remembered per file version, evidence, query and sidecar block.

    A passage found again by the same query on an unchanged file gets the same answer.
    The key holds the file's size and mtime, so an edited file is located afresh.
    """
    block = request.block
    key = (
        request.file, st.st_size, st.st_mtime_ns, st.st_ino, request.evidence, request.query, request.block_id,
        block.content if block is not None else None, sidecar_path,
        _meta_encoder.encode(request.sidecar_meta) if request.sidecar_meta is not None else None,
    )
    hit = _locator_memo.get(plugins, key)
    if hit is not None:
        return hit
    try:
        locator = plugins.locate(request)
    except LocatorError as exc:
        # Not remembered: a locator failure may be transient (file being written).
        return Locator(locator_precision="file", locator_degraded=True, block_id=request.block_id,
                       reason=f"locator failed: {exc.message}")
    _locator_memo.put(plugins, key, locator)
    return locator


def _clean(plugins: Plugins, raw: str, query: str, block_text: str | None) -> CitationTextBundle:
    """``plugins.clean_text`` remembered per (chunk, query, block): cleaning is a pure function
    of these, and a warm search meets the same chunks again."""
    key = (raw, query, block_text)
    hit = _clean_memo.get(plugins, key)
    if hit is not None:
        return hit
    bundle = plugins.clean_text(raw, query, block_text)
    _clean_memo.put(plugins, key, bundle)
    return bundle


def clear_memos() -> None:
    """Forget remembered locator and cleaning answers (tests; after changing plugins' configuration)."""
    _locator_memo.clear()
    _clean_memo.clear()


def _place(locator: Locator) -> str:
    """Where a locator points inside its file, as a short stable string ('' for file level)."""
    if locator.locator_precision == "paragraph" and locator.paragraph_index is not None:
        return f"p{locator.paragraph_index}"
    if locator.locator_precision == "bbox" and locator.page is not None and locator.bbox:
        return f"b{locator.page}:" + ",".join(f"{v:.0f}" for v in locator.bbox)
    return ""


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
    timings: defaultdict[str, float] = defaultdict(float)
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
        block_id = block.blockid if block else None
        t0 = time.perf_counter()
        block_text = None
        if block is not None:  # the part of the block this chunk came from, when the mapper knows it
            span = mapped.block_span
            block_text = block.content[span[0]:span[1]] if span and span[0] < span[1] else block.content
        bundle = _clean(host.plugins, ref.content or "", query, block_text)
        timings["cleanMs"] += (time.perf_counter() - t0) * 1000
        if not block_id:  # without a block: same chunk and same text is the same citation
            key = dedupe_key(entry.source_id, None, ref.chunk_id, bundle.normalized_fingerprint)
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
            locator = _locate(host.plugins, request, st, mapped.sidecar_path)
        locator = _honest(locator, cap)
        timings["locateMs"] += (time.perf_counter() - t0) * 1000
        place = _place(locator)
        if block_id:
            # Same block, same place: one citation. LightRAG's native DOCX blocks can span a whole
            # section, so distinct paragraphs (or boxes) found inside one block stay apart.
            key = (*dedupe_key(entry.source_id, block_id, None, ""), place)
            if key in seen:
                dropped["duplicate"] += 1
                continue
            seen.add(key)
        anchor = (block_id + (f"@{place}" if place else "")) if block_id else (
            ref.chunk_id or bundle.normalized_fingerprint)
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
        status: str = "stale" if entry.stale else entry.status
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
        rerank=RerankInfo(requested=bool(rerank), enabled=result.rerank_enabled, model=result.rerank_model),
        results=citations,
        not_indexed=not_indexed(host, reg, query),
        diagnostics=diagnostics,
    )


_BADGE_RE = re.compile(r"\[(\d{1,3})\]")
_REFERENCES_TAIL_RE = re.compile(
    r"\n+(?:#+\s*)?(?:References|Sources|参考文献|参考资料)\s*:?\s*\n(?:\s*[-*]?\s*\[\d+\].*\n?)*\s*$", re.IGNORECASE
)


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


#: Per cache file: (inode, size) after our last append, and the encoded lines we appended.
_written: dict[str, tuple[tuple[int, int], dict[str, bytes]]] = {}
_written_lock = threading.Lock()


def _read_lines(path: Path) -> dict[str, Citation]:
    """The cache file's citations, later lines winning; bad lines are skipped."""
    out: dict[str, Citation] = {}
    try:
        data = path.read_bytes()
    except OSError:
        return out
    for line in data.splitlines():
        if not line.strip():
            continue
        try:
            citation = _citation_decoder.decode(line)
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue  # a torn last line (crash mid-append) or a line from a newer, odd writer
        out.pop(citation.citation_id, None)
        out[citation.citation_id] = citation
    return out


def _load_cache(path: Path) -> _CitationCache:
    """Every remembered citation: the JSON Lines file over the legacy whole-file cache."""
    citations: dict[str, Citation] = {}
    legacy = path.with_name(LEGACY_CITATION_CACHE)
    try:
        citations.update(_cache_decoder.decode(legacy.read_bytes()).citations)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        pass
    citations.update(_read_lines(path))
    return _CitationCache(citations=citations)


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_size


def remember(host: Host, citations: list[Citation]) -> None:
    """Keep issued citations so ``open`` works across processes.

    Appends one line per citation under the file lock (cost grows with the result, not
    with the cache). A citation this process already appended, byte for byte, is not
    written again while nobody else has touched the file. When the file holds about
    twice ``CITATION_CACHE_MAX`` lines it is compacted to the newest
    ``CITATION_CACHE_MAX`` citations (temp file + rename).
    """
    if not citations:
        return
    path = _cache_path(host)
    key = str(path)
    lines = {c.citation_id: _citation_encoder.encode(c) for c in citations}
    with _written_lock:
        known = _written.get(key)
        if known is not None and known[0] == _identity(path):
            lines = {cid: line for cid, line in lines.items() if known[1].get(cid) != line}
            if not lines:
                return
    path.parent.mkdir(parents=True, exist_ok=True)
    with filelock.FileLock(key + ".lock", timeout=10):
        before = _identity(path)
        with open(path, "ab") as fh:
            if before is not None and before[1] > 0:
                # A previous writer may have died mid-line: start on a fresh line.
                with open(path, "rb") as rh:
                    rh.seek(-1, os.SEEK_END)
                    if rh.read(1) != b"\n":
                        fh.write(b"\n")
            fh.write(b"\n".join(lines.values()) + b"\n")
        after = _identity(path)
        mine = dict(lines)
        with _written_lock:
            known = _written.get(key)
            if known is not None and known[0] == before:
                mine = {**known[1], **lines}
        if after is not None and after[1] > _compact_threshold(mine, after[1]):
            kept = _read_lines(path)
            keep = list(kept.items())[-CITATION_CACHE_MAX:]
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(b"".join(_citation_encoder.encode(c) + b"\n" for _, c in keep))
            os.replace(tmp, path)
            after = _identity(path)
            mine = {}
        if after is not None:
            with _written_lock:
                _written[key] = (after, mine)


def _compact_threshold(mine: dict[str, bytes], size: int) -> int:
    """File size above which the cache is compacted: about 2x ``CITATION_CACHE_MAX`` average lines."""
    if not mine:
        return 1 << 62
    average = sum(len(line) + 1 for line in mine.values()) / len(mine)
    return int(average * CITATION_CACHE_MAX * 2)


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
