"""What the citation ID store keeps of a citation, and the place an ID stands for.

A record holds only what ``open`` (the open plan and its ``issued`` check), the viewer (its places,
quotes and "back to results") and MCP's ``open_reference`` read: no ``rawQuote``, diagnostics, score,
absolute path or provider file name. Records are msgpack, deflated with a preset dictionary of the field
names (:data:`_ZDICT_V1`, never to change). Two formats, told apart by the first byte:

* ``\x02`` (this version): one search's records are packed together (:func:`pack`: up to
  :data:`PACK_MAX` records a pack, deflated as one) and an ID's row holds ``\x02`` and its index in
  the pack; the store hands the row back followed by the pack (``idstore``: ``batches``). One
  search's records repeat each other (a file's places are also its citations' alternatives, the
  places of one passage share its context quote, query, file, hash and source map), so deflating
  them together stores each once: the records take 0.68 of the bytes deflated one by one on a real
  store of 657 IDs, 0.57 on the benchmark's, and the whole file 0.59 and 0.44 (small rows leave no
  slack in the pages; ``benchmarks/citation_ids.py`` measures both in one run, ``--real`` a store).
  An earlier version finds no record in such a row: its IDs are unknown there, never wrong.
* ``\x01`` (earlier versions): one record deflated alone, still read.

:func:`place_of` is what "the same place" means for an ID: the provider, the file (its source id and
path) and the place inside it with its claim (``claims.place_anchor``: page and box or paragraph,
exact or approximate, a file citation's known page). An issued ID is never given to another place.

Each search that printed an ID keeps the places it showed there (:class:`Issue`: its alternatives and its
locator, stored only where they differ from the latest's), so the viewer opens a search's ``viewerUrl``
(``?issue=``, ``render.ids.issue_key``) on that search's places, not the newest search's (:func:`issue_for`).
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Sequence

import msgspec

from mnote_kr.citations.render.claims import place_anchor
from mnote_kr.citations.render.ids import issue_key
from mnote_kr.models import Citation, CitationDiagnostics, IssuedQuote, Locator, Place

__all__ = ["MAX_ISSUES", "PACK_MAX", "ZLIB_LEVEL", "Issue", "Record", "decode", "encode", "history", "issue_for",
           "issue_of", "issues", "key_of", "pack", "place_of", "plain", "record_of", "searched", "to_citation"]


class Issue(IssuedQuote, frozen=True, kw_only=True, omit_defaults=True):
    """One search that printed an ID, with the places it showed there (``places``: kept; an issue written
    before this version has none). As a record stores an earlier issue, ``alternatives`` and ``locator`` None
    mean the record's own (the latest's); as :func:`issues` gives them, they are whole. ``issue`` (the search's
    key) is kept only when it is not its query's own (another mode, a scope: :func:`key_of`)."""

    places: bool = False
    alternatives: list[Place] | None = None
    locator: Locator | None = None


class Record(msgspec.Struct, kw_only=True, rename="camel", omit_defaults=True):
    """One issued ID's citation, as the store keeps it (new fields get defaults: older readers skip them)."""

    id: str
    provider: str
    rel: str
    locator: Locator = Locator()
    source_id: str | None = None
    source_hash: str = ""  # the file's content hash in the registry when the ID was issued
    light_rag_doc_id: str | None = None
    light_rag_chunk_id: str | None = None
    block_id: str | None = None
    heading_path: list[str] = []
    display_quote: str | None = None
    context_quote: str | None = None
    locator_evidence_text: str | None = None
    search_query: str = ""
    citation_url: str = ""
    citation_markdown: str = ""
    alternatives: list[Place] = []
    source_map_path: str | None = None
    issued_at: str = ""  # when this search printed the ID (UTC, ISO 8601)
    issue: str | None = None  # its issue key when not its query's own (another mode or a scope: ``own_key``)
    search_mode: str | None = None  # and then that search's mode and scope (``searched``)
    search_scope: list[str] | None = None
    earlier: list[Issue] = []  # the searches that printed the ID before it, newest first (``history``)


#: Field names and common values, most frequent last (nearest): deflate finds them in every record.
#: Frozen: a record packed with it says ``\x01``; another dictionary would take another first byte.
_ZDICT_V1 = msgspec.msgpack.encode([
    "schema", "sourcePath", "lightRagFilePath", "rawQuote", "quoteSource", "relevanceScore", "diagnostics",
    "viewerUrl", "shapeName", "bboxFraction", "speakerNotes", "sheet", "range", "headerRow", "headers",
    "rowLabel", "pageHint", "slide", "shapeId", "placeText", "placeHeadings", "runnersUp", "quoteOmit",
    "quote", "meaningScore", "rects", "paraId", "page", "bbox", "start", "end", "highlight", "score",
    "locatorPlugin", "pdf_bbox", "docx_locator", "pptx_locator", "xlsx_locator", "text_locator", "reason",
    "locatorReason", "semantic match: placed by meaning and query terms among the passage's paragraphs",
    "exact evidence match", "bboxUnit", "pt", "bboxOrigin", "top-left", "paragraphIndex", "blockId",
    "headingPath", "displayQuote", "contextQuote", "locatorEvidenceText", "searchQuery", "sourceMapPath",
    "__parsed__", "alternatives", "citationId", "citationUrl", "citationMarkdown", "mnote-kr://open?path=",
    "&precision=paragraph&paragraph=", "&precision=bbox&page=", "&bbox=", "&block=", " (approximate location)",
    "locatorPrecision", "paragraph", "file", "locatorDegraded", "lightRagChunkId", "chunk-", "lightRagDocId",
    "doc-", "sourceId", "sourceHash", "sha256:", "provider", "lightrag", "rel", "locator", "id",
])
_FORMAT_V1 = b"\x01"
_FORMAT_PACKED = b"\x02"
#: Records in one pack at most (one ``remember``'s citations make several packs when there are more): an
#: ``open`` inflates its ID's whole pack, and deflate finds repeats only within 32 KB (~6 records).
PACK_MAX = 32
#: zlib's level for a pack (``benchmarks/citation_ids.py --levels``): 9 gives the same bytes as 6 within
#: 0.3% and takes half as long again; 4 gives 3% more, 1 gives 15% more.
ZLIB_LEVEL = 6

_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(Record)
_pack_decoder = msgspec.msgpack.Decoder(list[msgspec.Raw])
#: The last pack inflated (its bytes, its records undecoded): ``load`` reads a pack's IDs one after another.
_last_pack: list[tuple[bytes, list[msgspec.Raw]]] = []


def place_of(c: Citation) -> int:
    """The place ``c``'s ID opens, as a signed 64-bit number (SQLite's INTEGER): provider, file and place
    with its claim. Two citations of one place with other quotes or queries are the same place."""
    where = place_anchor("", c.locator)  # "@p5", "@b1:72,62,330,74~", "@~p5", or "" (the whole file)
    material = f"{c.provider}\x1f{c.source_id or ''}\x1f{c.source_root_relative_path}\x1f{where}".encode()
    return int.from_bytes(hashlib.sha256(material).digest()[:8], "big", signed=True)


#: The searches an ID's record names at most (the latest and those before it): an ID a place keeps for
#: months is printed by many searches; the oldest beyond these are forgotten, never another search's quote.
MAX_ISSUES = 8


def issue_of(c: Citation, issued_at: str = "") -> Issue:
    """What the search that issued ``c`` showed under its ID: its query, quote, places, issue key, and its mode
    and scope when they are not the default's (its key says those)."""
    key = _stored_key(c.issue, c.search_query)
    return Issue(search_query=c.search_query, display_quote=c.display_quote, issued_at=issued_at, places=True,
                 alternatives=_bare(c.alternatives), locator=c.locator, issue=key,
                 search_mode=c.search_mode if key else None, search_scope=c.search_scope if key else None)


def key_of(issue: IssuedQuote) -> str:
    """The issue key of the search ``issue`` stands for: its own, else its query's (an issue of the default mode
    and no scope, or one written before keys told modes and scopes apart: round 28's links still open)."""
    return issue.issue or issue_key(issue.search_query)


def searched(issue: IssuedQuote | Citation) -> tuple[str | None, list[str] | None]:
    """The mode and scope of the search ``issue`` stands for: the default's (``mix``, the whole library) when its
    key is its query's own, else as kept (None, None: an issue kept before modes and scopes were)."""
    if (issue.issue or issue_key(issue.search_query)) == issue_key(issue.search_query):
        return "mix", []
    return issue.search_mode, issue.search_scope


def _stored_key(key: str | None, search_query: str) -> str | None:
    """``key`` as a record keeps it: None when it is ``search_query``'s own (the default mode, no scope)."""
    return None if key is None or key == issue_key(search_query) else key


def _bare(places: list[Place]) -> list[Place]:
    return [msgspec.structs.replace(a, viewer_url=None) if a.viewer_url is not None else a for a in places]


def plain(issued: Sequence[IssuedQuote]) -> list[IssuedQuote]:
    """``issued`` as the open plan's contract gives them: query, quote, time, issue key, mode and scope (no
    places)."""
    return [IssuedQuote(search_query=i.search_query, display_quote=i.display_quote, issued_at=i.issued_at,
                        issue=key_of(i), search_mode=searched(i)[0], search_scope=searched(i)[1]) for i in issued]


def history(latest: Issue, before: list[Issue]) -> list[Issue]:
    """The searches that printed an ID, newest first: ``latest``, then ``before`` (newest first) without the
    ones that showed the same search (its issue key: query, mode, scope) and quote again, at most :data:`MAX_ISSUES`."""
    out, seen = [latest], {(key_of(latest), latest.display_quote)}
    for issue in before:
        if (key_of(issue), issue.display_quote) not in seen and len(out) < MAX_ISSUES:
            seen.add((key_of(issue), issue.display_quote))
            out.append(issue)
    return out


def issues(record: Record) -> list[Issue]:
    """The searches that printed ``record``'s ID, newest first (its own query and quote, then ``earlier``),
    each with the places it showed (whole: a kept issue's None is the record's own)."""
    latest = Issue(search_query=record.search_query, display_quote=record.display_quote, issued_at=record.issued_at,
                   places=True, alternatives=record.alternatives, locator=record.locator, issue=record.issue,
                   search_mode=record.search_mode, search_scope=record.search_scope)
    return [latest, *(msgspec.structs.replace(
        i, alternatives=record.alternatives if i.alternatives is None else i.alternatives,
        locator=record.locator if i.locator is None else i.locator) if i.places else i for i in record.earlier)]


def issue_for(record_issues: list[Issue], key: str) -> Issue | None:
    """The newest of ``record_issues`` (:func:`issues`) whose search has ``key`` (:func:`key_of`) and whose places
    were kept; None when none is (an issue the record no longer keeps)."""
    return next((i for i in record_issues if i.places and key_of(i) == key), None)


def _compact(issue: Issue, c: Citation) -> Issue:
    """``issue`` as a record of ``c`` stores it: places equal to ``c``'s are left out (None: the record's own)."""
    if not issue.places:
        return issue
    same_alts = issue.alternatives is None or issue.alternatives == _bare(c.alternatives)
    return msgspec.structs.replace(issue, alternatives=None if same_alts else issue.alternatives,
                                   locator=None if issue.locator in (None, c.locator) else issue.locator)


def record_of(c: Citation, source_hash: str, issued: list[Issue] | None = None) -> Record:
    """What the store keeps of ``c`` (``source_hash``: its file's content hash when it was issued; ``issued``:
    the searches that printed its ID, newest first, the first ``c``'s own: :func:`history`)."""
    latest, *earlier = issued or [issue_of(c)]
    return Record(
        id=c.citation_id, provider=c.provider, rel=c.source_root_relative_path, locator=c.locator,
        source_id=c.source_id, source_hash=source_hash, light_rag_doc_id=c.light_rag_doc_id,
        light_rag_chunk_id=c.light_rag_chunk_id, block_id=c.block_id, heading_path=c.heading_path,
        display_quote=c.display_quote, context_quote=c.context_quote, locator_evidence_text=c.locator_evidence_text,
        search_query=c.search_query, citation_url=c.citation_url, citation_markdown=c.citation_markdown,
        alternatives=_bare(c.alternatives),
        source_map_path=c.source_map_path, issued_at=latest.issued_at, issue=_stored_key(latest.issue, c.search_query),
        search_mode=latest.search_mode, search_scope=latest.search_scope, earlier=[_compact(i, c) for i in earlier])


def _deflate(data: bytes, level: int) -> bytes:
    packer = zlib.compressobj(level, zdict=_ZDICT_V1)
    return packer.compress(data) + packer.flush()


def encode(c: Citation, source_hash: str) -> bytes:
    """``c`` as a record of its own (format ``\x01``: what earlier versions wrote; tests, benchmarks)."""
    return _FORMAT_V1 + _deflate(_encoder.encode(record_of(c, source_hash)), 6)


def pack(records: list[Record], level: int = ZLIB_LEVEL) -> tuple[list[bytes], bytes]:
    """Up to :data:`PACK_MAX` records as one pack: each record's row (``\x02`` and its index) and the
    pack's bytes, stored once for all of them."""
    if not 0 < len(records) <= PACK_MAX:
        raise ValueError(f"a pack holds 1 to {PACK_MAX} records, not {len(records)}")
    return [_FORMAT_PACKED + bytes([i]) for i in range(len(records))], _deflate(_encoder.encode(records), level)


def decode(data: bytes, citation_id: str) -> Record | None:
    """The record in ``data`` (a row as the store hands it back) when it is whole and is ``citation_id``'s;
    else None (never another ID's)."""
    try:
        if data[:1] == _FORMAT_V1:
            unpacker = zlib.decompressobj(zdict=_ZDICT_V1)
            record = _decoder.decode(unpacker.decompress(data[1:]) + unpacker.flush())
            whole = unpacker.eof
        elif data[:1] == _FORMAT_PACKED and len(data) > 2:
            records = _inflated(data[2:])
            if records is None or data[1] >= len(records):
                return None
            record, whole = _decoder.decode(records[data[1]]), True
        else:
            return None  # a format this version does not know
    except (zlib.error, msgspec.DecodeError, msgspec.ValidationError):
        return None
    return record if record.id == citation_id and whole else None


def _inflated(packed: bytes) -> list[msgspec.Raw] | None:
    """A pack's records, undecoded (None: torn or damaged)."""
    if _last_pack and _last_pack[0][0] == packed:
        return _last_pack[0][1]
    unpacker = zlib.decompressobj(zdict=_ZDICT_V1)
    raw = unpacker.decompress(packed) + unpacker.flush()
    if not unpacker.eof:
        return None
    records = _pack_decoder.decode(raw)
    _last_pack[:] = [(packed, records)]
    return records


def to_citation(record: Record, source_path: str) -> Citation:
    """The citation a record stands for (``source_path``: its file's path now); fields the store does not
    keep get neutral values."""
    quote_source = "sidecar" if record.block_id else "chunk"
    key = record.issue or issue_key(record.search_query)
    mode, scope = searched(Issue(search_query=record.search_query, issue=key, search_mode=record.search_mode,
                                 search_scope=record.search_scope))
    return Citation(
        provider=record.provider, citation_id=record.id, source_id=record.source_id,
        source_path=source_path,
        source_root_relative_path=record.rel, light_rag_doc_id=record.light_rag_doc_id,
        light_rag_file_path="", light_rag_chunk_id=record.light_rag_chunk_id, block_id=record.block_id,
        heading_path=record.heading_path, raw_quote=None, display_quote=record.display_quote,
        locator_evidence_text=record.locator_evidence_text, quote_source=quote_source,
        search_query=record.search_query, locator_precision=record.locator.locator_precision,
        locator_degraded=record.locator.locator_degraded, locator=record.locator, citation_url=record.citation_url,
        citation_markdown=record.citation_markdown, relevance_score=None,
        diagnostics=CitationDiagnostics(quote_source=quote_source, raw_reference_mapped=True,
                                        sidecar_block_mapped=bool(record.block_id), display_cleaned=True,
                                        locator_text_source=quote_source),
        source_map_path=record.source_map_path, context_quote=record.context_quote,
        alternatives=record.alternatives, issue=key, search_mode=mode, search_scope=scope)
