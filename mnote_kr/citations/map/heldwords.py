"""Files holding every word of a query that the provider did not return: named, with the command that finds the
place in them, never cited (DESIGN principle 2: LightRAG does retrieval; the host finds no file for it).

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
live and not among the files returned, are named (at most ``NAMED``, those of fewest words first), each with the
``mnote-kr locate FILE --query ...`` command that finds the place in that one file (the stateless local locator: no
retrieval; it places the query on the file's place holding the most of its terms, ``locating.place_of_words``), and
``mnote-kr sync`` for one changed since it was indexed. Round 26 cited such a file as a passage of its own, ranked
first; review r27 (finding 7) read that as a second retrieval beside LightRAG's, the lead agreed: a
citation, a card and an ``ask`` source come only from LightRAG's references, and the results are the same with this
pass on or off.

What was found is the search's ``heldWords`` diagnostics (:func:`held_files`): the terms, the files holding them,
their locate commands and the one line saying so (``note``), whether a passage or a file outside the scope held them:
the weak rule (``weakabsent.held_reason``), the no-results message (``noresults.why_no_results``) and the line under
the cards, ``ask``'s and the agent tool's notes (``alsoasked.held_note``) say it, so none tells a person that nothing
in the files answers, nor sends them to a wider search, when a file holds the query's every word.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from mnote_kr.citations.caches import libwords
from mnote_kr.citations.cleaning.copyable import join_cjk_gaps
from mnote_kr.citations.rank.ranking import fold, terms
from mnote_kr.core.ondisk import changed_since_indexed
from mnote_kr.core.pending import locate_command
from mnote_kr.core.registry_format import entry_tag, is_citable_tag
from mnote_kr.core.workspace import excluded_reason, under
from mnote_kr.models import ProviderQueryResult

if TYPE_CHECKING:
    from mnote_kr.citations.hostview import HostView as Host
    from mnote_kr.core.registry import Registry
    from mnote_kr.models import SourceEntry

#: Look for files holding the query's words (False: no ``heldWords``; the results are the same either way).
HELD_WORDS = True
#: The fewest distinct content terms a query must have: two words are held together by many a file that does not
#: say what they say.
MIN_TERMS = 3
#: The most files ``heldWords`` names.
NAMED = 5


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


def held_files(host: Host, reg: Registry, result: ProviderQueryResult, query: str,
               scope: list[str]) -> dict[str, Any] | None:
    """What the library's words say of a query no passage of ``result`` in scope holds (``heldWords``, see the module
    docstring); None when nothing was looked for: too few terms, a passage in scope holds them all, no counts."""
    wanted = query_terms(query) if HELD_WORDS else set()
    if len(wanted) < MIN_TERMS:
        return None
    live = reg.by_provider_name()
    returned: set[str] = set()
    anywhere: set[str] = set()  # every file a passage was returned of, in scope or not
    elsewhere = False
    for ref in result.references:
        entry = live.get(ref.file_path)
        rel = entry.source_root_relative_path if entry is not None else None
        inside = rel is not None and (not scope or any(under(rel, s) for s in scope))
        if inside:
            returned.add(rel or "")
        if rel is not None:
            anywhere.add(rel)
        if _holds(ref.content or "", wanted):
            if inside:
                return None  # a passage found holds every word: nothing to say
            elsewhere = True
    index_dir = host.workspace.index_dir
    lib = libwords.for_search(index_dir, reg.counts().get("processed", 0))
    if lib is None:
        return None
    info: dict[str, Any] = {"terms": sorted(wanted), "files": [], "count": 0, "elsewhere": elsewhere,
                            "locate": {}, "changed": [], "note": None}
    if scope:
        # the citable files searched all have their words counted: what they lack, none of them holds
        searched = [rel for rel in reg.entries if any(under(rel, s) for s in scope)]
        info["scopeCounted"] = libwords.counted(index_dir, [
            rel for rel in searched if is_citable_tag(entry_tag(reg.entries[rel]))])
    if any(not lib.df.get(t) for t in wanted):  # a word no file holds: none holds them all
        return info
    found: list[tuple[int, str, SourceEntry]] = []
    outside: list[tuple[int, str, SourceEntry]] = []  # files outside the scope holding them
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
    # the files LightRAG returned no passage of: the command that finds the place in each, sync for a changed one
    for rel in [*info["files"], *info.get("outside", [])]:
        if rel in anywhere:
            continue  # a passage of it was returned outside the scope: searching it cites that
        path = host.workspace.rel_to_abs(rel)
        try:
            st = Path(path).stat()
        except OSError:
            continue  # gone: nothing to locate ('notIndexed' and the dropped counts say so)
        info["locate"][rel] = locate_command(str(path), query)
        if changed_since_indexed(reg.entries[rel], path, st):
            info["changed"].append(rel)
    info["note"] = note(info, host.plugins.provider_name)
    return info


def note(info: dict[str, Any], provider: str) -> str | None:
    """The line naming the first file ``info`` (``heldWords``) gives a locate command for: it holds every word of the
    query, the ``provider`` (its name, as ``status`` gives it) returned no passage of it, and what to do, the locate
    command last, whole, to be copied (its words quoted for a shell: ``pending.locate_command``); None when there is
    none."""
    named = [rel for rel in info.get("files", []) if rel in info["locate"]]
    rel = named[0] if named else next((r for r in info.get("outside", []) if r in info["locate"]), None)
    if rel is None:
        return None
    more = int(info.get("count", 1)) - 1 if named else 0
    name = rel + (f" (and {more} more file(s))" if more > 0 else "") \
        + ("" if named else ", not among the files searched,")
    command = info["locate"][rel]
    if rel in info.get("changed", ()):
        return (f"{name} held every word of the query when it was indexed, and {provider} returned no passage of it, "
                "so it is not cited; it changed since: 'mnote-kr sync' re-indexes it, then search again, or this finds "
                f"the place in it as it is now: {command}")
    return (f"{name} holds every word of the query, and {provider} returned no passage of it, so it is not cited; "
            f"this finds the place in it: {command}")
