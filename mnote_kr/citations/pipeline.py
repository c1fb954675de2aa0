"""The citation pipeline: provider references → map → clean → classify → locate → cite.

Only references that map to a live registry entry become citations (a citation never points nowhere);
sources deleted or changed on disk since indexing are dropped here before the watcher notices, and named
(``changedSinceIndexed``, ``missingSinceIndexed``; ``notIndexed``). Every drop is counted."""

from __future__ import annotations

import dataclasses
import os
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from mnote_kr.citations.caches import answercache, libwords
from mnote_kr.citations.caches.citecache import remember_shown
from mnote_kr.citations.caches.memo import Memo
from mnote_kr.citations.cleaning.copyable import has_whole_word, join_cjk_gaps, mostly_glyphs, trim_chunk_edges
from mnote_kr.citations.cleaning.furniture import drop_furniture, without_furniture
from mnote_kr.citations.cleaning.headlead import heading_lead
from mnote_kr.citations.cleaning.listquote import list_quote
from mnote_kr.citations.cleaning.quote import ByMeaning, answer_quote, lead_in_quote, paragraph_quote, place_quote
from mnote_kr.citations.cleaning.quoteend import settled_end
from mnote_kr.citations.cleaning.textlayer import unreadable_layer
from mnote_kr.citations.hostview import HostView as Host
from mnote_kr.citations.locate.quotemark import agreeing
from mnote_kr.citations.map import heldwords
from mnote_kr.citations.map.notindexed import absent_scope, uncitable
from mnote_kr.citations.map.request import StartedQuery, check_query_text, retrieval_depth, start_query  # noqa: F401 - the checks lived here
from mnote_kr.citations.map.sidecar import located_headings
from mnote_kr.citations.rank import deeper, deeperslot, meaning, wordsonly
from mnote_kr.citations.rank.ranking import Candidate, relevance, where
from mnote_kr.citations.render import placechunk
from mnote_kr.citations.render.claims import honest, id_anchor, not_another_numbered, place_key
from mnote_kr.citations.render.folding import behind_by_meaning, fold_places, runner_citations
from mnote_kr.citations.render.ids import citation_id, citation_markdown, citation_url, dedupe_key
from mnote_kr.citations.render.kindclaims import without_unstated_kind
from mnote_kr.citations.render.noresults import weak_reason, why_no_results
from mnote_kr.citations.render.thinclaims import without_thin_claim
from mnote_kr.citations.render.weakabsent import held_reason
from mnote_kr.citations.text.textnorm import compile_patterns, iter_tokens, normalize
from mnote_kr.core.ondisk import changed_since_indexed
from mnote_kr.core.registry import Registry
from mnote_kr.core.registry_format import entry_tag, is_citable_tag
from mnote_kr.core.workspace import excluded_reason, under
from mnote_kr.errors import LocatorError
from mnote_kr.models import (
    Citation,
    CitationDiagnostics,
    CitationTextBundle,
    LocateRequest,
    Locator,
    ProviderQueryResult,
    RerankInfo,
    SearchResults,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from mnote_kr.citations.caches.libwords import LibraryWords
    from mnote_kr.plugins import Plugins

#: Locator and cleaning answers kept per plugin set (warm searches skip redoing the same passage).
LOCATOR_MEMO_MAX = 4096
#: Cite the places behind each passage's best (``Locator.runners_up``) as the file's last places
#: (False: a file's places are its passages' best alone, as before; ``benchmarks/retrieval.py``).
RUNNERS_UP = True
_meta_encoder = msgspec.json.Encoder()
#: Quote a shown place by meaning where the query's words single out none of its sentences (False: by
#: words alone, as before; ``benchmarks/search.py --quote-cost`` measures what it costs a search).
QUOTE_BY_MEANING = True
#: The places of a search whose words do not anchor their quote: citation ID -> (located locator, context).
Unanchored = dict[str, tuple[Locator, str]]


def _scope_rels(host: Host, scope: list[str]) -> list[str]:
    return [host.workspace.resolve(s)[1] for s in scope]


def _in_scope(rel: str, scope: list[str]) -> bool:
    return not scope or any(under(rel, s) for s in scope)


_locator_memo: Memo[Locator] = Memo(LOCATOR_MEMO_MAX)
_clean_memo: Memo[CitationTextBundle] = Memo(LOCATOR_MEMO_MAX)


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
        request.passage, meaning.generation() if request.passage else 0,
    )
    hit = _locator_memo.get(plugins, key)
    if hit is not None:
        return hit
    # A fresh process: the same answer from disk, without loading the document or its parser.
    try:
        identity = answercache.plugin_identity(plugins, Path(request.file).suffix)
    except Exception:  # noqa: BLE001 - e.g. a configured locator not loaded: plugins.locate says why
        identity = None
    stored = answercache.entry_name(identity, key) if identity is not None else None
    hit = answercache.get(stored) if stored is not None else None
    if hit is not None:
        _locator_memo.put(plugins, key, hit)
        return hit
    try:
        locator = plugins.locate(request)
    except LocatorError as exc:
        # Not remembered: a locator failure may be transient (file being written).
        return _failed_locator(request, exc.message)
    except Exception as exc:  # noqa: BLE001 - any locator failure costs one citation, never the search
        # A plugin bug or a hostile file (PluginError wrapping RecursionError, MemoryError,
        # a third-party locator's own exception): this citation is cited at file
        # precision with the reason, and the search returns its other citations.
        return _failed_locator(request, f"{type(exc).__name__}: {exc}")
    _locator_memo.put(plugins, key, locator)
    if stored is not None:
        answercache.put(stored, locator)
    return locator


def _failed_locator(request: LocateRequest, message: str) -> Locator:
    reason = f"locator failed: {message[:300]}"
    return Locator(locator_precision="file", locator_degraded=True, block_id=request.block_id,
                   reason=reason, locator_reason=reason)


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


def _display_quote(plugins: Plugins, bundle: CitationTextBundle, raw: str, query: str, block_text: str | None,
                   locator: Locator, size: int | None = None, first: bool = False) -> str:
    """The cleaned quote without the page furniture the locator found (``quoteOmit``) or its form tells
    (``furniture``: a journal's header, "Corresponding author", a copyright line; one holding the query's words
    stays), without a word the provider's chunk cut in half at either end; a chunk as long as its file (``size``
    bytes: a small text file is one chunk) and a file's ``first`` chunk (the provider's ``chunk_order`` 0)
    start where the file does, on a whole word ("boot ok"); a later chunk's window may start mid-word."""
    display = bundle.display_quote
    part = size is None or size > len(raw.encode("utf-8")) + 64  # a window of its file: cut at both ends
    start_cut = not first and part
    kept = without_furniture(raw, query, locator.quote_omit)
    if kept != raw:  # cleaned again: the lines around a dropped header join as one passage
        display = _clean(plugins, kept, query, block_text).display_quote
        # the chunk's cut first line was furniture: the quote now starts on a whole line
        start_cut = start_cut and kept.splitlines()[:1] == raw.splitlines()[:1]
    return trim_chunk_edges(display, raw, query, start_cut=start_cut, mark_end=part)


def _place_quote(plugins: Plugins, locator: Locator, context: str, query: str,
                 by_meaning: ByMeaning | None = None, *, path: str | None = None) -> tuple[str, str | None]:
    """:func:`_quote_at` with its end settled: never a dangling word that reads as complete (``quoteend``)."""
    shown, own = _quote_at(plugins, locator, context, query, by_meaning, path=path)
    return settled_end(shown, query), own


def _quote_at(plugins: Plugins, locator: Locator, context: str, query: str,
              by_meaning: ByMeaning | None = None, *, path: str | None = None) -> tuple[str, str | None]:
    """The citation's ``displayQuote``: the locator's own quote (``Locator.quote``: OCR lines); else
    the sentences of the cleaned chunk ``context`` that stand at the place the locator found
    (``Locator.place_text``: the words of that paragraph or boxed lines) and answer ``query``, or
    those words themselves, cleaned as a chunk is, when the chunk does not hold them (then also
    returned, second; else None); the chunk's answering sentences without a place.

    A located paragraph (``paragraph`` precision: the place is a whole paragraph of the file) is
    quoted from the chunk only when the chunk holds all of it (``paragraph_quote``); a paragraph the
    chunk's window cut at either end is quoted in its own words, whole sentences (still the passage's);
    a lead-in ending with a colon, with the list after it (``lead_in_quote``); a PDF box in its text layer's words
    (a provider's text damages maths: O(!2) for O(ω²); mojibake aside: ``textlayer``), a bullet with the siblings
    asked about (``list_quote``). ``by_meaning``: the sentence nearest the query leads (``answer_quote``). A DOCX
    list item's quote keeps the label Word draws before it (``_labelled``: the file at ``path``)."""
    if locator.quote:
        return locator.quote, None
    if place := drop_furniture(locator.place_text or "", query):  # a block's header line is no answer
        # a heading that is only the query goes on with what it opens; a paragraph of the body (a list item
        # "写保护跳线") is the answer in its own words: what follows it is other paragraphs (nc23b problem 5)
        if _heads(locator, place) and (lead := heading_lead(place, context, query)) is not None:
            return lead, None
        whole = locator.locator_precision == "paragraph"
        layer = locator.locator_precision == "bbox" and not unreadable_layer(place)
        at = (lead_in_quote(place, context) or paragraph_quote(
            context, place, query, headings=locator.place_headings or (), by_meaning=by_meaning)) if whole \
            else None if layer else place_quote(context, place, query, by_meaning=by_meaning)
        if at is not None:
            return (_labelled(plugins, path, locator, place, at) if whole else list_quote(at, context, query)), None
        text = _clean(plugins, place, query, None).display_quote or place
        held = (whole or layer) and place_quote(context, place, query) is not None
        shown = answer_quote(text, query, by_meaning=by_meaning)
        return (_labelled(plugins, path, locator, place, shown) if whole else list_quote(shown, context, query)), \
            None if held else text
    return answer_quote(context, query), None


def _labelled(plugins: Plugins, path: str | None, locator: Locator, place: str, quote: str) -> str:
    """``quote`` with the label the file draws before its list item and the item's text leaves out (``ModelParagraph
    .label``: a DOCX list's "c)", from numbering.xml) when it opens at the item's first words without it: the chunk
    it came from was cut right after the label (nc24c: behind "a) 机械设备：…" stood "仪控设备：…", its "c)" lost).
    Else ``quote``: a Markdown item's "2." is in its own text."""
    head = place.lstrip()[:6]
    if not path or locator.paragraph_index is None or not head or not quote.startswith(head):
        return quote
    model = plugins.document_model(path)
    para = next((p for p in (model.paragraphs if model else None) or () if p.index == locator.paragraph_index), None)
    if para is None or not para.label or para.list_level is None or para.text.lstrip().startswith(para.label):
        return quote
    return f"{para.label} {quote}"


def _heads(locator: Locator, place: str) -> bool:
    """Whether the place may be a heading: a located paragraph is one only when its headings
    (``Locator.place_headings``, shown with their numbers: "3 术语和定义") end with it; a box, a slide's shape or a
    cell may be (their locators give no headings)."""
    headings = locator.place_headings
    if locator.locator_precision != "paragraph" or headings is None:
        return True
    own = " ".join(place.split())
    return bool(headings) and bool(own) and " ".join(headings[-1].split()).endswith(own)


def passage_of(locator: Locator, context: str) -> str:
    """The citation's ``contextQuote``: the cleaned chunk ``context``, or the slide place's own quote when the chunk
    does not hold its words (a slide the query names, another than the chunk's: slide 2's notes reached through
    slide 3's chunk, nc21a). A slide's quote is the deck's words (``Locator.quote``); a cell's reading ("Revenue,
    2023: 4,100") and OCR lines are not the provider's text, so theirs keep the chunk."""
    quote = locator.quote
    if locator.locator_precision != "slide" or not quote or not context:
        return context
    held = {tok for tok, _, _ in iter_tokens(normalize(context))}
    return context if all(tok in held for tok, _, _ in iter_tokens(normalize(quote))) else quote


def _by_meaning(query: str) -> ByMeaning | None:
    """The query's cosine with each of a shown place's sentences (``meaning.sentence_cosines``)."""
    return (lambda texts: meaning.sentence_cosines(texts, query)) if QUOTE_BY_MEANING else None


def _asked(unanchored: list[bool]) -> ByMeaning:
    """A ``by_meaning`` that only notes it was asked (no sentence of the place holds the query's words):
    the place is quoted by meaning once it is shown (``_settled``), not for every passage of a search."""
    return lambda texts: unanchored.append(True)


def _without_place_text(locator: Locator) -> Locator:
    """The locator a citation carries: ``place_text`` read (into the quote) and cleared, and its
    ``runners_up`` (cited as places of their own) cleared."""
    if locator.place_text is None and locator.place_headings is None and not locator.runners_up:
        return locator
    return msgspec.structs.replace(locator, place_text=None, place_headings=None, runners_up=[])


def _settled(plugins: Plugins, c: Citation, query: str, unanchored: Unanchored | None = None) -> Citation:
    """``c`` with its quote read at its place, when it is a place behind a passage's best still
    carrying its words or its locator's own quote (``folding.runner_citations``: quoted only when
    shown; a slide's shape, a sheet's row, a DOCX table row: ``Locator.quote``). A place outside the
    passage it came with (the file's nearest by meaning) gets its own words as ``rawQuote`` and
    ``contextQuote``: that passage is not where it stands. A passage's place whose sentences hold none of
    the query's words (``unanchored``: its located locator and context by citation ID) is quoted again,
    the sentence nearest the query by meaning first: only the places shown are embedded."""
    if unanchored and QUOTE_BY_MEANING and c.citation_id in unanchored:
        located, context = unanchored[c.citation_id]
        quote = _place_quote(plugins, located, context, query, _by_meaning(query), path=c.source_path)[0]
        marked = msgspec.structs.replace(c.locator, highlight=agreeing(located, quote).highlight)
        return msgspec.structs.replace(c, display_quote=quote, locator=marked)
    if c.display_quote is not None or (c.locator.place_text is None and not c.locator.quote):
        return c
    words = c.locator.place_text or c.locator.quote
    shown, own = _place_quote(plugins, c.locator, c.context_quote or "", query, _by_meaning(query),
                              path=c.source_path)
    c = msgspec.structs.replace(c, display_quote=shown, locator=_without_place_text(agreeing(c.locator, shown)))
    return c if own is None else msgspec.structs.replace(c, raw_quote=words, context_quote=own)


def build_citations(
    host: Host, result: ProviderQueryResult, reg: Registry, query: str, scope: list[str]
) -> tuple[list[Citation], dict[str, Any], Unanchored]:
    """Provider references as de-duplicated, ranked citations; and their places whose sentences hold none of the
    query's words (``_settled`` quotes them by meaning). A place two chunks reach carries the one holding most of it."""
    return placechunk.holder_first(lambda res, holders: _built(host, res, reg, query, scope, holders), result)


def _built(host: Host, result: ProviderQueryResult, reg: Registry, query: str, scope: list[str],
           holders: placechunk.Holders) -> tuple[list[Citation], dict[str, Any], Unanchored]:
    ctx = host.context()
    by_words = heldwords.held_files(host, reg, result, query, scope)  # named, never cited
    entries = reg.by_provider_name()
    dropped: Counter[str] = Counter()
    since: dict[str, set[str]] = {}  # files changed or gone on disk since they were indexed, no sync seen
    taken: set[str] = set()
    seen: set[tuple[Any, ...]] = set()
    occurrences: Counter[tuple[str, str]] = Counter()
    scored: list[tuple[float, int, Citation]] = []
    candidates: list[Candidate] = []
    runners: list[list[Citation]] = []  # the places behind each scored citation, in its passage
    rows: list[deeper.Row] = []  # each scored citation's file, rank and meaning: which deeper files take a place
    unanchored: Unanchored = {}
    total = len(result.references)
    timings: defaultdict[str, float] = defaultdict(float)
    excluding = any(r.exclude_patterns for r in reg.roots.values())
    for at, ref in enumerate(result.references):
        t0 = time.perf_counter()
        mapped = host.plugins.map_reference(ctx, ref, entries, query)
        timings["mapMs"] += (time.perf_counter() - t0) * 1000
        if mapped is None:
            dropped["unmapped"] += 1
            continue
        entry = reg.entries.get(mapped.entry.source_root_relative_path)
        if entry is None or not is_citable_tag(entry_tag(entry)):  # stale, failed, queued, deleted
            dropped["notLive"] += 1
            continue
        rel = entry.source_root_relative_path
        if not _in_scope(rel, scope):
            dropped["outOfScope"] += 1
            continue
        if excluding and excluded_reason(rel, reg.roots):  # its root's rules left it out after it was indexed
            dropped["excludedByRoot"] += 1
            continue
        abs_path = host.workspace.rel_to_abs(rel)
        try:
            st: os.stat_result | None = abs_path.stat()
        except OSError:
            st = None
        if st is None or changed_since_indexed(entry, abs_path, st):  # a stat; a touched file's hash (once)
            how = "missing" if st is None else "changed"
            dropped[f"{how}OnDisk"] += 1
            since.setdefault(f"{how}SinceIndexed", set()).add(rel)  # named in notIndexed (``uncitable``)
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
        if not has_whole_word(bundle.display_quote, query):  # a chunk of page furniture, a word cut at its edge
            dropped["noWords"] += 1
            continue
        if not block_id:  # without a block: same chunk and same text is the same citation
            key = dedupe_key(entry.source_id, None, ref.chunk_id, bundle.normalized_fingerprint)
            if key in seen:
                dropped["duplicate"] += 1
                continue
            seen.add(key)
        cap = host.plugins.classify_locator(block, mapped.meta)
        t0 = time.perf_counter()
        request = LocateRequest(file=str(abs_path), evidence=bundle.locator_evidence_text, query=query,
                                block=block, block_id=block_id, sidecar_meta=mapped.meta,
                                passage=ref.content or "")
        locator = wordsonly.located(host, rel, _locate, host.plugins, request, st, mapped.sidecar_path)
        if entry.kind == "image" and locator.locator_plugin in (None, "file_locator"):
            # no plugin reads images (OCR off): the picture opens as a whole
            locator = Locator(locator_precision="file", locator_degraded=True, block_id=block_id,
                              reason="image: opens the picture")
        # a place claimed exact for a question asking an amount, a date, a count holds one, and more of the question
        # than a number or its file's name, whichever locator chose it (the passage read as cleaned, without its page
        # furniture: a running header's "(2024)" states no date the question asks)
        told = without_furniture(ref.content or "", query, locator.quote_omit)
        locator = without_thin_claim(without_unstated_kind(not_another_numbered(honest(locator, cap), query), query,
                                                           told), query, rel)
        timings["locateMs"] += (time.perf_counter() - t0) * 1000
        place = place_key(locator)
        # One citation per place: two chunks or blocks landing on one paragraph or PDF box are one citation (the
        # best-ranked, unless a later one holds more of it: ``placechunk``). LightRAG's native DOCX blocks can span
        # a whole section, so distinct places inside one block stay apart.
        same_block = (*dedupe_key(entry.source_id, block_id, None, ""), place) if block_id else None
        same_place = ("place", entry.source_id, place) if place else None
        if same_block in seen or same_place in seen:
            dropped["duplicate" if same_block in seen else "samePlace"] += 1
            holders.again((same_block, same_place), at, ref.content or "")
            continue
        seen.update(k for k in (same_block, same_place) if k is not None)
        # The place and its claim are the anchor: an ID handed out once opens that place, as sure as it
        # said, whichever chunk or block of whichever search reached it (``claims.id_anchor``).
        anchor = id_anchor(block_id or ref.chunk_id or bundle.normalized_fingerprint, entry.source_hash, locator)
        occurrence = occurrences[(entry.source_id, anchor)]
        occurrences[(entry.source_id, anchor)] += 1
        cid = citation_id(ref.provider, entry.source_id, anchor, occurrence, image=entry.kind == "image", taken=taken)
        url = citation_url(rel, locator)
        # Scored on the text the citation lands on (the query-centred evidence), not the whole chunk.
        headings = located_headings(locator, block)
        context = _display_quote(host.plugins, bundle, ref.content or "", query, block_text, locator, st.st_size,
                                 first=ref.chunk_order == 0)
        context = passage_of(locator, context)
        asked: list[bool] = []
        shown, _ = _place_quote(host.plugins, locator, context, query, _asked(asked), path=str(abs_path))
        holders.keep((same_block, same_place), at, shown, ref.content or "")
        if mostly_glyphs(shown):  # a figure's labels read through a font without letters: nothing to quote
            dropped["noWords"] += 1
            continue
        located, locator = locator, _without_place_text(agreeing(locator, shown))
        if asked:
            unanchored[cid] = (located, context)
        cosines = [m for m in (located.meaning_score, *(r.meaning_score for r in located.runners_up)) if m is not None]
        # ranked on the words as they read ("无 湘 不 成 军", a PDF text layer's spaced glyphs, is 无湘不成军)
        candidates.append(Candidate(ref.rank, Path(rel).name, join_cjk_gaps(bundle.locator_evidence_text
                                    or bundle.display_quote), tuple(headings), locator.meaning_score, **where(locator),
                                    place=join_cjk_gaps(located.place_text or located.quote or shown or ""),
                                    nearest=max(cosines, default=None)))
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
            heading_path=headings,
            raw_quote=bundle.raw_quote,
            display_quote=shown,
            context_quote=context,
            locator_evidence_text=bundle.locator_evidence_text,
            quote_source="sidecar" if block else "chunk",
            search_query=bundle.search_query,
            locator_precision=locator.locator_precision,
            locator_degraded=locator.locator_degraded,
            locator=locator,
            citation_url=url,
            citation_markdown=citation_markdown(Path(rel).name, locator, url),
            relevance_score=None,  # set below, when every candidate of this search is known
            source_map_path=mapped.sidecar_path,
            diagnostics=CitationDiagnostics(
                quote_source="sidecar" if block else "chunk",
                raw_reference_mapped=True,
                sidecar_block_mapped=block is not None,
                display_cleaned=bundle.display_cleaned,
                locator_text_source=bundle.locator_text_source,
                provider_rank=ref.rank,
            ),
        )
        scored.append((0.0, len(scored), citation))
        rows.append(deeper.Row(rel, ref.rank, ref.deeper, max(cosines, default=None), candidates[-1].text))
        runners.append(runner_citations(citation, located, block_id or ref.chunk_id or bundle.normalized_fingerprint,
                                        taken, entry.source_hash) if RUNNERS_UP else [])
    candidates, scored, runners = _admitted(query, rows, candidates, scored, runners, dropped)
    # The passage that answers first: the provider's order plus a lexical score of the query over
    # the passages of this search (mnote_kr.citations.rank.ranking).
    for i, (value, parts) in enumerate(relevance(query, candidates, total)):
        citation = scored[i][2]
        scored[i] = (value, i, msgspec.structs.replace(
            citation, relevance_score=round(value, 6),
            diagnostics=msgspec.structs.replace(citation.diagnostics, score_parts=parts)))
    scored.sort(key=lambda item: (-item[0], item[1]))
    # The places behind each passage's best (``runner_citations``, scored just below it; none where a place
    # is held already) join their file's places, which ``behind_by_meaning`` orders behind its first.
    held = {(c.source_id, place_key(c.locator)) for _, _, c in scored}
    behind = []
    for value, i, c in scored:
        for k, r in enumerate(r for r in runners[i] if (r.source_id, place_key(r.locator)) not in held):
            held.add((r.source_id, place_key(r.locator)))
            behind.append(msgspec.structs.replace(r, relevance_score=round(value * (1 - 0.01 * (k + 1)), 6),
                                                  diagnostics=c.diagnostics))
    diagnostics = {"providerReferences": total, "dropped": dict(dropped),
                   "timingsMs": {k: round(v, 2) for k, v in timings.items()},
                   **{key: {"count": len(rels), "paths": sorted(rels)} for key, rels in since.items()},
                   **({"heldWords": by_words} if by_words is not None else {})}
    return behind_by_meaning([c for _, _, c in scored] + behind), diagnostics, unanchored


def _admitted(query: str, rows: list[deeper.Row], candidates: list[Candidate],
              scored: list[tuple[float, int, Citation]], runners: list[list[Citation]], dropped: Counter[str],
              ) -> tuple[list[Candidate], list[tuple[float, int, Citation]], list[list[Citation]]]:
    """The citations of the files the provider passed on from deeper in its list left out unless admitted by
    meaning, at the rank ``rank.deeperslot`` gives it; the others as they are."""
    ranks = deeperslot.admitted(query, rows)
    if ranks == [r.rank for r in rows]:
        return candidates, scored, runners
    keep = [i for i, rank in enumerate(ranks) if rank is not None]
    dropped["deeper"] += len(ranks) - len(keep)
    moved = [(i, ranks[i] or 0) for i in keep]
    return ([dataclasses.replace(candidates[i], provider_rank=rank) for i, rank in moved],
            [(0.0, k, msgspec.structs.replace(scored[i][2], diagnostics=msgspec.structs.replace(
                scored[i][2].diagnostics, provider_rank=rank))) for k, (i, rank) in enumerate(moved)],
            [runners[i] for i in keep])


def _finish(citations: list[Citation], diagnostics: dict[str, Any], top_k: int,
            settle: Callable[[Citation], Citation], query: str,
            library: Callable[[], LibraryWords | None] | None = None,
            ) -> tuple[list[Citation], list[Citation], str | None]:
    """The citations a search returns (one per file, with alternatives, the first ``top_k`` files),
    those folded into them, and the weak reason; ``diagnostics`` gets the counts."""
    weak = held_reason(citations, query, diagnostics.get("heldWords"), weak_reason(citations, query, library))
    diagnostics["citable"] = len(citations)
    cited, folded = fold_places(citations, settle)
    diagnostics["placesDropped"] = len(citations) - len(cited) - len(folded)
    cited = cited[:top_k]  # the user's number: files cited, best first
    shown = {a.citation_id for c in cited for a in c.alternatives}
    return cited, [f for f in folded if f.citation_id in shown], weak


def _query(host: Host, query: str, *, top_k: int, mode: str, rerank: bool | None,
           want_answer: bool) -> ProviderQueryResult:
    """The provider's answer alone, without citations (``benchmarks/cli_cold.py`` fills
    LightRAG's own query cache with it)."""
    return start_query(host, query, top_k=top_k, mode=mode, rerank=rerank, want_answer=want_answer).result()


def _started(host: Host, query: str, *, top_k: int, mode: str, rerank: bool | None, want_answer: bool,
             started: StartedQuery | None) -> StartedQuery:
    """The query the host started before loading this module, else started now."""
    if started is not None:
        return started
    return start_query(host, query, top_k=top_k, mode=mode, rerank=rerank, want_answer=want_answer)


def _prepare_locating(host: Host) -> None:
    """What locating the answer will load, loaded while the provider works (a fresh process)."""
    from mnote_kr.citations.caches import cleancache  # noqa: F401 - the built-in clean_text hook's cache

    host.plugins.prepare_search()


def search(host: Host, query: str, *, scope: list[str], top_k: int = 20, mode: str = "mix",
           rerank: bool | None = None, started: StartedQuery | None = None) -> SearchResults:
    """References located in the user's files, ranked; ``started``: the provider's query, when
    the host started it already (``request.start_query``, with the same arguments)."""
    scope_rels = _scope_rels(host, scope)
    pending = _started(host, query, top_k=top_k, mode=mode, rerank=rerank, want_answer=False, started=started)
    # While the provider works: the registry, the token pattern every ranking needs, the
    # locator plugins' code and the cleaned-chunk cache the built-in cleaner reads.
    reg = host.registry()
    compile_patterns()
    meaning.prefetch(query)
    _prepare_locating(host)
    result = pending.result()
    t1 = time.perf_counter()
    citations, diagnostics, unanchored = build_citations(host, result, reg, query, scope_rels)
    citations, rerank_note = rerank_places(host, query, citations, diagnostics)
    citations, folded, weak = _finish(citations, diagnostics, top_k,
                                      lambda c: _settled(host.plugins, c, query, unanchored), query,
                                      lambda: libwords.for_search(host.workspace.index_dir,
                                                                  reg.counts().get("processed", 0)))
    # From the query's start until the host had its answer (it overlaps the host's own loading).
    diagnostics["providerMs"] = round(pending.elapsed_ms or 0.0, 2)
    diagnostics["pipelineMs"] = round((time.perf_counter() - t1) * 1000, 2)
    diagnostics["providerStatus"] = result.raw_status
    for key, value in result.diagnostics.items():  # the provider's own account (e.g. ``translation``)
        diagnostics.setdefault(key, value)
    if result.notes or rerank_note:
        diagnostics["notes"] = [*result.notes, *([rerank_note] if rerank_note else [])]
    if not citations:
        diagnostics["noResults"] = why_no_results(reg, diagnostics.get("dropped", {}), bool(scope_rels),
                                                  absent_scope(host, reg, scope_rels), diagnostics.get("heldWords"))
    citations, folded = remember_shown(host, citations, folded, reg, (mode, scope_rels))  # as issued
    missing = uncitable(host, reg, query, scope_rels, {c.source_root_relative_path for c in citations}, diagnostics)
    answercache.write_behind()  # the locate answers it found, written now that it has its result
    return SearchResults(
        query=query,
        mode=mode,
        provider=result.provider,
        rerank=RerankInfo(requested=bool(rerank), enabled=result.rerank_enabled, model=result.rerank_model),
        results=citations,
        not_indexed=missing,
        diagnostics=diagnostics,
        weak=weak is not None,
        weak_reason=weak,
    )


def rerank_places(host: Host, query: str, citations: list[Citation],
                  diagnostics: dict[str, Any]) -> tuple[list[Citation], str | None]:
    """Each file's places in the order of the user's reranker when ``[rerank]`` names one
    (``mnote_kr.citations.rank.rerank``); the citations unchanged and a note when it gives no ranking."""
    if not isinstance(host.config.get("rerank"), dict):
        return citations, None
    from mnote_kr.citations.rank import rerank

    found = rerank.settings(host.config, host.context().secret)
    if found is None:
        return citations, None
    return rerank.rerank_places(found, query, citations, diagnostics)
