"""The answer side of the citation pipeline: LightRAG's answer with its citations (``ask``), each
sentence marked with the place that supports it (``ground_answer``).

Built on ``pipeline`` (the citation set ``search`` returns, which ``ask`` shares): its helpers are
called through the module, so what a test or a benchmark sets there is what runs here.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import msgspec

from mnote_kr.citations import pipeline as _pl
from mnote_kr.citations.caches.citecache import Search, remember_grounded, remember_shown
from mnote_kr.citations.hostview import HostView as Host
from mnote_kr.citations.locate.quotemark import agreeing
from mnote_kr.citations.map.notindexed import uncitable
from mnote_kr.citations.map.request import StartedQuery
from mnote_kr.citations.map.sidecar import located_headings
from mnote_kr.citations.rank.grounding import UNSUPPORTED, WRITTEN_SCORE, ground, placed, same_place, sentence_locator
from mnote_kr.citations.render.alsoasked import held_note
from mnote_kr.citations.render.claims import id_anchor, place_key
from mnote_kr.citations.render.ids import citation_id, citation_markdown, citation_url
from mnote_kr.citations.render.noresults import more_left_behind, more_skipped
from mnote_kr.models import AgentQueryResult, Citation, GroundedSentence, LocateRequest

#: The references list LightRAG appends to an answer (``ask`` drops it: each sentence gets its place's ID).
_REFERENCES_TAIL_RE = re.compile(
    r"\n+(?:#+\s*)?(?:References|Sources|参考文献|参考资料)\s*:?\s*\n(?:\s*[-*]?\s*\[\d+\].*\n?)*\s*$", re.IGNORECASE
)


def ask(host: Host, query: str, *, scope: list[str], top_k: int = 20, mode: str = "mix",
        rerank: bool | None = None, started: StartedQuery | None = None) -> AgentQueryResult:
    """LightRAG's answer with the citation set; ``started`` as for ``search``."""
    return ask_with_diagnostics(host, query, scope=scope, top_k=top_k, mode=mode, rerank=rerank,
                                started=started)[0]


def ask_with_diagnostics(host: Host, query: str, *, scope: list[str], top_k: int = 20, mode: str = "mix",
                         rerank: bool | None = None,
                         started: StartedQuery | None = None) -> tuple[AgentQueryResult, dict[str, Any]]:
    """``ask``, plus what ``search`` reports in its diagnostics (dropped references by reason)."""
    scope_rels = _pl._scope_rels(host, scope)
    pending = _pl._started(host, query, top_k=top_k, mode=mode, rerank=rerank, want_answer=True, started=started)
    reg = host.registry()
    _pl._prepare_locating(host)
    result = pending.result()
    citations, diagnostics, unanchored = _pl.build_citations(host, result, reg, query, scope_rels)
    citations, rerank_note = _pl.rerank_places(host, query, citations, diagnostics)
    every = citations  # every passage's place: an answer's sentence may come from one not shown
    citations, folded, weak = _pl._finish(citations, diagnostics, top_k,
                                      lambda c: _pl._settled(host.plugins, c, query, unanchored), query,
                                      lambda: _pl.libwords.for_search(host.workspace.index_dir,
                                                                      reg.counts().get("processed", 0)))
    search = (mode, scope_rels)  # this search's mode and scope: its IDs keep them, viewer links name its key
    citations, folded = remember_shown(host, citations, folded, reg, search)  # as issued (an ID held elsewhere: new)
    answer: str | None = None
    sentences: list[GroundedSentence] = []
    if result.answer is not None:  # each sentence marked with the place that supports it
        shown = citations + folded
        ids = {c.citation_id for c in shown}
        # and every passage's best place (not the places behind them that were not shown: unquoted)
        more = [c for c in every if c.citation_id not in ids and c.display_quote is not None]
        answer, sentences = ground_answer(host, _REFERENCES_TAIL_RE.sub("", result.answer), shown + more, search)
    notes = list(result.notes) + ([rerank_note] if rerank_note else [])
    if any(not s.supported for s in sentences):
        notes.append(f"{sum(not s.supported for s in sentences)} sentence(s) of the answer are supported by no "
                     f"cited place (marked {UNSUPPORTED}).")
    if not citations:
        notes.append("No citable source matched; the answer (if any) is not backed by your files.")
    elif weak:
        notes.append(f"Weak result: {weak}.")
    missing = uncitable(host, reg, query, scope_rels, {c.source_root_relative_path for c in citations}, diagnostics)
    notes += filter(None, [more_left_behind(diagnostics), more_skipped(diagnostics),
                           held_note(diagnostics, weak if citations else None)])
    return AgentQueryResult(query=" ".join(query.split()), mode=mode, answer=answer, citations=citations, notes=notes,
                            not_indexed=missing, weak=weak is not None, weak_reason=weak,
                            sentences=sentences), diagnostics


def ground_answer(host: Host, answer: str, places: list[Citation],
                  search: Search | None = None) -> tuple[str, list[GroundedSentence]]:
    """``grounding.ground`` with the files' own locators: a sentence lands on the paragraph or block
    of its place's chunk that holds it; a place no citation of the search had gets its own ID (remembered)."""
    taken = {c.citation_id for c in places}
    minted: dict[str, Citation] = {}
    versions = {rel: e.source_hash for rel, e in host.registry().entries.items()}  # the IDs' file versions

    def locate(c: Citation, sentence: str) -> Citation:
        try:
            st = os.stat(c.source_path)
        except OSError:
            return c
        located = sentence_locator(c, sentence,
                                   lambda request: _pl._locate(host.plugins, request, st, c.source_map_path))
        shown, _ = _pl._place_quote(host.plugins, located, c.context_quote or c.display_quote or "", sentence,
                                    path=c.source_path)
        headings = located_headings(located, otherwise=c.heading_path)
        locator = _pl._without_place_text(agreeing(located, shown))
        if not placed(locator) or not place_key(locator):
            return c  # the sentence is supported by the place's passage, found nowhere more precise
        for p in (c, *places):
            if p.source_root_relative_path == c.source_root_relative_path and same_place(p.locator, locator):
                return p
        anchor = id_anchor(c.block_id or c.light_rag_chunk_id or "", versions.get(c.source_root_relative_path, ""),
                           locator)
        if anchor not in minted:
            cid = citation_id(c.provider, c.source_id or "", anchor, 0, taken=taken)
            url = citation_url(c.source_root_relative_path, locator)
            minted[anchor] = msgspec.structs.replace(
                c, citation_id=cid, locator=locator, locator_precision=locator.locator_precision,
                block_id=locator.block_id, locator_degraded=locator.locator_degraded, citation_url=url, alternatives=[],
                citation_markdown=citation_markdown(Path(c.source_root_relative_path).name, locator, url),
                display_quote=shown, heading_path=headings)
        return minted[anchor]

    def written(c: Citation, sentence: str) -> Citation | None:
        try:
            st = os.stat(c.source_path)
        except OSError:
            return None
        request = LocateRequest(file=c.source_path, evidence=sentence, query=sentence, passage="")
        found = _pl._locate(host.plugins, request, st, c.source_map_path)
        if found.locator_degraded or (found.score or 0.0) < WRITTEN_SCORE or not place_key(found):
            return None
        return locate(c, sentence)

    marked, sentences = ground(answer, places, locate, written)
    cited = [c for c in places if c.citation_id in {s.citation_id for s in sentences}] + list(minted.values())
    return remember_grounded(host, cited, marked, sentences, search)  # as issued: an ID held elsewhere is renamed
