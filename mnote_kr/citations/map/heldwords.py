"""Files holding every word of a query that the provider did not return: found by their own words, cited where
one place holds them.

LightRAG ranks chunks by their vector, and a sentence copied word for word from a file can miss that file when its
chunk is about something else: nc26b's "A software module for extracting text from binary files", the last line of
``poi__endnotes.docx``'s one chunk (233 tokens of names for Tilaka), came 73rd of the library's 593 chunks by the
query's vector (cosine 0.28; the 20th 0.32, 45 of the 72 ahead from ``pdfjs__tracemonkey.pdf``; that paragraph as a
chunk of its own would come first, 0.78), so it was in none of the 20 references of any mode; its second half,
"Apache Tika is a subproject of the Lucene", held by no other file, came first. The chunk LightRAG stored was the
file's text as read, the query was sent as typed: nothing sent was wrong, the chunk's vector is a mean.

The host knows each file's words (``caches.libwords``, kept for the weak rule). So when no passage the provider
returned in the search's scope holds every content term of a query of ``MIN_TERMS`` terms or more
(``ranking.terms``: stemmed words, CJK bigrams), the files of the library whose words hold all of them, in scope,
live and not among the files returned, are located, the query as the evidence (the file's own locator, as for any
passage: ``plugins.locate``), at most ``MAX_LOCATED`` of them, those of fewest words first (a file holding all the
words among few holds them closer together). A place the locator anchored (not approximate) that holds every term
is passed on after the provider's references, as a passage of its own (its text the place's, ranked last: the
provider did not rank it): the pipeline maps, cleans, locates and ranks it as any other, and its
words decide where it goes. Nothing else changes: a search one of whose passages holds every word is left alone.

What was found is the search's ``heldWords`` diagnostics (:func:`with_held_files`' second value): the terms, the files
holding them, those located and cited, whether a passage or a file outside the scope held them: the weak rule
(``weakabsent.held_reason``) and the no-results message (``noresults.why_no_results``) read it, so neither tells a
person that nothing in the files answers, nor sends them to a wider search, when a file holds the query's every word.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from mnote_kr.citations.caches import libwords
from mnote_kr.citations.cleaning.copyable import join_cjk_gaps
from mnote_kr.citations.rank.ranking import fold, terms
from mnote_kr.core.ondisk import changed_since_indexed
from mnote_kr.core.registry_format import entry_tag, is_citable_tag
from mnote_kr.core.workspace import excluded_reason, under
from mnote_kr.models import LocateRequest, Locator, ProviderQueryResult, ProviderReference

if TYPE_CHECKING:
    import os

    from mnote_kr.citations.hostview import HostView as Host
    from mnote_kr.core.registry import Registry
    from mnote_kr.models import SourceEntry

#: Look for files holding the query's words (False: the provider's references alone, as before round 26).
HELD_WORDS = True
#: The fewest distinct content terms a query must have: two words are held together by many a file that does not
#: say what they say.
MIN_TERMS = 3
#: The most files located for one search (fewest words first): each is one ``plugins.locate`` of the file.
MAX_LOCATED = 3
#: The most files ``heldWords`` names.
NAMED = 5

#: ``Locate``: the pipeline's remembered ``plugins.locate`` (request, the file's stat).
Locate = Callable[[LocateRequest, "os.stat_result"], Locator]


def query_terms(query: str) -> set[str]:
    """The terms a place must hold to hold the query: ``ranking.terms`` of it (stop words aside)."""
    return set(terms(query))


def _holds(text: str, wanted: set[str]) -> bool:
    """``text`` holds every term ``wanted``. Each term's first three characters are in the folded text first (a stem
    only ends otherwise than its word: "battery" of "batteries"), so most passages are not read for their terms:
    reading every passage of a search was 20 ms of the pass's 21 (tune3, 40 searches)."""
    if not text:
        return False
    joined = join_cjk_gaps(text)
    folded = fold(joined)
    return all(t[:3] in folded for t in wanted) and wanted <= set(terms(joined))


def with_held_files(host: Host, reg: Registry, result: ProviderQueryResult, query: str, scope: list[str],
                    locate: Locate) -> tuple[ProviderQueryResult, dict[str, Any] | None]:
    """``result`` with a reference for each file found by its words (see the module docstring), and what was found
    (``heldWords``; None when nothing was looked for: too few terms, a passage in scope holds them all, no counts)."""
    wanted = query_terms(query) if HELD_WORDS else set()
    if len(wanted) < MIN_TERMS:
        return result, None
    live = reg.by_provider_name()
    returned: set[str] = set()
    elsewhere = False
    for ref in result.references:
        entry = live.get(ref.file_path)
        rel = entry.source_root_relative_path if entry is not None else None
        inside = rel is not None and (not scope or any(under(rel, s) for s in scope))
        if inside:
            returned.add(rel or "")
        if _holds(ref.content or "", wanted):
            if inside:
                return result, None  # a passage found holds every word: the provider's order stands
            elsewhere = True
    index_dir = host.workspace.index_dir
    lib = libwords.for_search(index_dir, reg.counts().get("processed", 0))
    if lib is None:
        return result, None
    info: dict[str, Any] = {"terms": sorted(wanted), "files": [], "count": 0, "located": [], "cited": [],
                            "elsewhere": elsewhere}
    if scope:
        # the citable files searched all have their words counted: what they lack, none of them holds
        searched = [rel for rel in reg.entries if any(under(rel, s) for s in scope)]
        info["scopeCounted"] = libwords.counted(index_dir, [
            rel for rel in searched if is_citable_tag(entry_tag(reg.entries[rel]))])
    if any(not lib.df.get(t) for t in wanted):  # a word no file holds: none holds them all
        return result, info
    found = []
    outside = []  # files outside the scope holding them: a wider search would find them
    for rel, content_hash, size in libwords.holding(index_dir, wanted):
        entry = reg.entries.get(rel)
        if rel in returned or entry is None:
            continue
        # indexed by LightRAG (a file still in flight or interrupted is named by the not-indexed path instead)
        if entry.status != "processed" or not is_citable_tag(entry_tag(entry)) or excluded_reason(rel, reg.roots) \
                or (content_hash and entry.source_hash and content_hash != entry.source_hash) \
                or not entry.light_rag_file_path or live.get(entry.light_rag_file_path) is None:
            continue  # not citable now, or its words are of another version of it
        (found if not scope or any(under(rel, s) for s in scope) else outside).append((size, rel, entry))
    found.sort(key=lambda f: (f[0], f[1]))
    info["files"], info["count"] = [rel for _, rel, _ in found[:NAMED]], len(found)
    if scope:
        info["outside"] = sorted(rel for _, rel, _ in sorted(outside, key=lambda f: (f[0], f[1]))[:NAMED])
    added: list[ProviderReference] = []
    for _, rel, entry in found[:MAX_LOCATED]:
        place = _place(host, entry, query, wanted, locate)
        info["located"].append(rel)
        if place is None:
            continue
        added.append(ProviderReference(provider=result.provider, file_path=entry.light_rag_file_path or "",
                                       doc_id=entry.light_rag_doc_id, content=place,
                                       rank=len(result.references) + len(added)))
        info["cited"].append(rel)
    if not added:
        return result, info
    return msgspec.structs.replace(result, references=[*result.references, *added]), info


def _place(host: Host, entry: SourceEntry, query: str, wanted: set[str], locate: Locate) -> str | None:
    """The words of the place of ``entry``'s file its locator anchors the query on, when they hold every term
    ``wanted``; None when the file changed since it was indexed (its citations stop)."""
    path = host.workspace.rel_to_abs(entry.source_root_relative_path)
    try:
        st = Path(path).stat()
    except OSError:
        return None
    if changed_since_indexed(entry, path, st):
        return None
    loc = locate(LocateRequest(file=str(path), evidence=query, query=query), st)
    text = loc.place_text or loc.quote or ""
    if loc.locator_degraded or loc.locator_precision == "file" or not _holds(text, wanted):
        return None
    return text


def not_cited(info: dict[str, Any] | None, cited: set[str]) -> list[str]:
    """The files ``heldWords`` says hold every word of the query that no citation of ``cited`` (rel paths) is in."""
    return [rel for rel in (info or {}).get("files", []) if rel not in cited]
