"""The data contracts of mnote-kr, as msgspec Structs.

Wire names are camelCase (``rename="camel"``); Python names are snake_case. Persisted
envelopes carry a ``version``; every field added later has a default, and unknown
fields are ignored so an older reader can open a newer file.

Flow of data (one way)::

    SourceFile --ingest--> SourceEntry (registry)
    ProviderReference --map_reference--> MappedReference --clean_text--> CitationTextBundle
        --locate--> Locator --> Citation --> SearchResults / AgentQueryResult / OpenPlan

Every contract is imported from here; the registry's records live in ``registry.py`` beside this
file, what ingest takes and reports in ``ingest.py``, the document view a viewer shows in
``document.py``, and the two bases in ``base.py``.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from mnote_kr.models.base import Base, Frozen
from mnote_kr.models.document import (  # noqa: F401  (the contracts are imported from mnote_kr.models)
    DocumentModel,
    ModelCell,
    ModelParagraph,
    ModelShape,
    ModelSheet,
    ModelSlide,
    PageSize,
)
from mnote_kr.models.ingest import (  # noqa: F401
    EntryUpdate,
    IngestItem,
    IngestReport,
    ProviderActivity,
    SkippedPath,
    SourceFile,
    WaitTimeout,
    WordsOnlyFiles,
)
from mnote_kr.models.issued import IssuedQuote
from mnote_kr.models.registry import (  # noqa: F401
    INDEXED_STATUSES,
    REGISTRY_SCHEMA_VERSION,
    EntryColumns,
    EntryStatus,
    IndexedRoot,
    ReadingCheck,
    RegistrySnapshot,
    SourceEntry,
)

SEARCH_RESULTS_SCHEMA = "mnote.knowledge_rag.search_results.v1"
AGENT_QUERY_RESULT_SCHEMA = "mnote.knowledge_rag.agent_query_result.v1"
CITATION_SCHEMA = "mnote.knowledge_rag.citation.v1"
OPEN_PLAN_SCHEMA = "mnote.knowledge_rag.open_plan.v1"

LocatorPrecision = Literal["bbox", "paragraph", "slide", "cell", "file"]


# --------------------------------------------------------------------------- query


class SidecarPosition(msgspec.Struct, frozen=True, kw_only=True):
    """A position in a LightRAG sidecar block (``paraid``, ``bbox`` or ``heading``)."""

    type: str
    anchor: str | None = None
    range: list[Any] | None = None
    origin: str | None = None  # per-position override of the meta's bbox_attributes.origin (Docling)


class SidecarBlock(msgspec.Struct, frozen=True, kw_only=True):
    """One content row of a LightRAG ``blocks.jsonl`` sidecar (snake_case as written)."""

    blockid: str
    content: str = ""
    heading: str | None = None
    parent_headings: list[str] = []
    level: int = 0
    session_type: str | None = None
    positions: list[SidecarPosition] = []
    format: str | None = None


class SidecarMeta(msgspec.Struct, frozen=True, kw_only=True):
    """The meta line of a ``blocks.jsonl`` sidecar."""

    document_name: str | None = None
    document_format: str | None = None
    doc_id: str | None = None
    parse_engine: str | None = None
    bbox_attributes: dict[str, Any] | None = None


class ProviderReference(Frozen, frozen=True, kw_only=True):
    """A reference as the provider returned it (LightRAG: basename only)."""

    provider: str
    file_path: str
    reference_id: str | None = None
    chunk_id: str | None = None
    doc_id: str | None = None
    content: str | None = None
    rank: int = 0
    score: float | None = None
    #: the chunk's place among its document's chunks when the provider knows it (0: the first, which starts
    #: where the document does, on a whole word); None: not known (a chunk may then start inside a word)
    chunk_order: int | None = None
    #: passed on from deeper in the provider's list than the references it was asked for: the host ranks it
    #: only when its meaning earns a place (``mnote_kr.citations.rank.deeper``)
    deeper: bool = False


class ProviderQueryResult(Base, kw_only=True):
    """What the provider's ``query`` hook returns."""

    provider: str
    references: list[ProviderReference] = []
    answer: str | None = None
    llm_generated: bool = False
    raw_status: str | None = None
    notes: list[str] = []
    rerank_requested: bool = False
    rerank_enabled: bool | None = None  # the provider's own rerank configuration, as it reports it
    rerank_model: str | None = None
    #: The provider's own account of the search (camelCase keys), added to the search's
    #: ``diagnostics`` beside the host's (a key the host sets itself stays the host's).
    diagnostics: dict[str, Any] = {}


class CitationTextBundle(Frozen, frozen=True, kw_only=True):
    """The single cleaning step's output (``mnote_kr.citations.cleaning``)."""

    raw_quote: str
    display_quote: str
    locator_evidence_text: str
    search_query: str
    normalized_fingerprint: str
    locator_text_source: str = "chunk"  # sidecar | chunk | fallback
    display_cleaned: bool = False


class Highlight(Frozen, frozen=True, kw_only=True):
    """A character span to highlight inside the located paragraph."""

    start: int
    end: int


class Rect(Frozen, frozen=True, kw_only=True):
    """A rectangle on a page, PDF points, top-left origin."""

    page: int
    bbox: list[float]


class Locator(Frozen, frozen=True, kw_only=True):
    """Where a citation lands in its source file, with its precision declared.

    ``page`` is 1-based. ``bbox`` is ``[x0, y0, x1, y1]`` in PDF points, top-left origin.
    ``locatorDegraded`` is the one field that says how sure a place is: false only when the
    cited block holds the evidence that answered; true for a passage box or an approximate
    paragraph (and always for ``file``); see ``mnote_kr.citations.render.precision``.
    ``paragraphIndex`` counts every ``w:p`` under ``w:body`` in document order (table
    cells included, a ``w:p`` nested in another ``w:p`` skipped); in Markdown and text
    files it is the 0-based index of the blank-line-separated block (a heading line or a
    fenced code block is one block; see ``mnote_kr.default_plugins.text_locator``).
    """

    locator_precision: LocatorPrecision = "file"
    locator_degraded: bool = True
    page: int | None = None
    bbox: list[float] | None = None
    bbox_unit: str = "pt"
    bbox_origin: str = "top-left"
    rects: list[Rect] = []
    paragraph_index: int | None = None
    para_id: str | None = None
    block_id: str | None = None
    highlight: Highlight | None = None
    score: float | None = None
    locator_plugin: str | None = None
    reason: str | None = None
    #: Why the locator landed where it did, for people (``locatorReason`` on the wire):
    #: an exact evidence match, the query's words, a semantic match, or why it degraded.
    locator_reason: str | None = None
    #: Lines of the source near the located passage that are page furniture, not content
    #: (running headers, footers, page numbers), as the source writes them (``quoteOmit``
    #: on the wire). Quotes leave out a line of the chunk that is one of them, so a
    #: passage that crosses a page break reads straight through. Empty when none is known.
    quote_omit: list[str] = []
    #: The words at the place as the locator reads them, when the provider's chunk does not show
    #: them as the source does (OCR: the lines the box covers, the found line first and those after it
    #: that finish its sentence, never the image wrapper's heading or markup; a PDF heading that is only the query,
    #: with the text layer's sentence after it): the citation's ``displayQuote``,
    #: while its ``contextQuote`` stays the chunk. None: quoted from the chunk.
    quote: str | None = None
    #: The words of the located paragraph or boxed lines as the locator reads them: the host takes
    #: the chunk's sentences that stand there as the ``displayQuote`` (``cleaning.quote.place_quote``)
    #: and clears this field before a citation carries the locator (null in a citation; ``mnote-kr locate``
    #: shows it). A lead-in paragraph ending with a colon has the paragraphs it introduces after it, one a
    #: line (``placing.lead_in_text``): its quote shows the list.
    place_text: str | None = None
    #: The headings the located paragraph sits under as the locator reads the file (its own text
    #: when it is a heading): the citation's ``headingPath``, which the provider's block (a whole
    #: section, or the next one's) only approximates. None: not known, the block's are used.
    #: Cleared before a citation carries the locator (null in a citation; ``mnote-kr locate`` shows it).
    place_headings: list[str] | None = None
    #: The passage's next best places, best first (each a whole locator, approximate): the host
    #: shows them behind the file's other places (``Citation.alternatives``) and clears this field
    #: before a citation carries the locator (empty on the wire).
    runners_up: list[Locator] = []
    # ``slide`` precision (PPTX): ``slide`` is 1-based; the shape's ``cNvPr`` id and name; the
    # paragraph inside the shape is ``paragraphIndex``; ``bbox`` is the shape's box in EMU
    # (``bboxUnit="emu"``, top-left origin of the slide) and ``bboxFraction`` the same box as
    # fractions of the slide's width and height. ``speakerNotes``: cited from the slide's notes.
    slide: int | None = None
    shape_id: int | None = None
    shape_name: str | None = None
    bbox_fraction: list[float] | None = None
    speaker_notes: bool = False
    # ``cell`` precision (XLSX): the sheet's name, the cited cell or range in A1 notation
    # (``C12``, ``B7:D7``), the table's header texts over the range's columns, the sheet row
    # they sit on, and the cited row's label (its first text cell left of the range). A DOCX table cell
    # (``paragraph`` precision) gives ``headers`` and ``row_label`` of its row too (``quote``: the row).
    sheet: str | None = None
    range: str | None = None
    header_row: int | None = None
    headers: list[str] = []
    row_label: str | None = None
    #: Cosine of the query with the cited paragraph by multilingual-e5-small (``meaningScore``);
    #: None while the file's paragraphs have no vectors (placed by words alone).
    meaning_score: float | None = None
    #: ``file`` precision only (``pageHint``): the 1-based page the locator knew the evidence is on
    #: without finding its place there (``page`` stays absent for ``file``). A hint the viewer opens
    #: at, marked "page known, place not found"; never a cited place.
    page_hint: int | None = None


class LocateRequest(Frozen, frozen=True, kw_only=True):
    """Input of the ``locate`` hook and of ``mnote-kr locate``."""

    file: str
    evidence: str = ""
    query: str = ""
    block: SidecarBlock | None = None
    block_id: str | None = None
    sidecar_meta: SidecarMeta | None = None
    #: The whole passage (the provider's chunk) the evidence was cut from: a locator may place
    #: the citation on whichever of its paragraphs answers the query (by words and meaning).
    passage: str = ""


# --------------------------------------------------------------------------- citations


class CitationDiagnostics(Frozen, frozen=True, kw_only=True):
    quote_source: str
    raw_reference_mapped: bool
    sidecar_block_mapped: bool
    display_cleaned: bool
    locator_text_source: str
    provider_rank: int = 0
    score_parts: dict[str, float] = {}


class Place(Frozen, frozen=True, kw_only=True):
    """Another place of a cited file, behind the citation's own (``Citation.alternatives``).

    The same locator shape as the citation's (``locatorPrecision``, ``locator`` with its page and
    box or paragraph index), the place's own ``displayQuote`` and ``relevanceScore``, and its own
    ``citationId``: ``mnote-kr open ID`` and the viewer open it like any citation.
    """

    citation_id: str
    locator_precision: LocatorPrecision = "file"
    locator_degraded: bool = True
    locator: Locator = Locator()
    display_quote: str | None = None
    heading_path: list[str] = []
    relevance_score: float | None = None
    citation_url: str = ""
    #: ``http://127.0.0.1:PORT/view/ID`` while ``mnote-kr serve`` runs for the workspace (no secret in it).
    viewer_url: str | None = None


class Citation(Frozen, frozen=True, kw_only=True):
    """One citable place in a user's file.

    ``displayQuote`` is the cited paragraph or block (a few sentences, the answering one first);
    ``contextQuote`` the whole cleaned chunk it came from. ``alternatives``: the file's next best
    places (up to ``MAX_ALTERNATIVES``), best first; a file appears once in a result.
    """

    schema: str = CITATION_SCHEMA
    provider: str
    citation_id: str
    source_id: str | None
    source_path: str
    source_root_relative_path: str
    light_rag_doc_id: str | None
    light_rag_file_path: str
    light_rag_chunk_id: str | None
    block_id: str | None
    heading_path: list[str]
    raw_quote: str | None
    display_quote: str | None
    locator_evidence_text: str | None
    quote_source: str
    search_query: str
    locator_precision: LocatorPrecision
    locator_degraded: bool
    locator: Locator
    citation_url: str
    citation_markdown: str
    relevance_score: float | None
    diagnostics: CitationDiagnostics
    source_map_path: str | None = None
    context_quote: str | None = None
    alternatives: list[Place] = []
    #: ``http://127.0.0.1:PORT/view/ID`` while ``mnote-kr serve`` runs for the workspace (no secret in it).
    viewer_url: str | None = None
    #: The key of the search that issued it (``render.ids.issue_key`` of its query, mode and scope): the
    #: ``issue`` of its ``viewerUrl`` and of a shell's ``mnote-kr.locate`` message. Null until issued.
    issue: str | None = None
    #: The mode and scope of that search (``IssuedQuote.search_mode``, ``search_scope``): the viewer's way back
    #: runs it again as it was. Null until issued, or not known (an ID printed before mnote-kr kept them).
    search_mode: str | None = None
    search_scope: list[str] | None = None


#: Places of a file shown behind its first one (``Citation.alternatives``).
MAX_ALTERNATIVES = 2


class NotIndexed(Frozen, frozen=True, kw_only=True):
    """A file the query names or scopes that cannot be cited. ``status``: the entry's (``pending``,
    ``failed``, ``stale``...), ``not_indexed`` (in a root, never ingested), ``excluded``, ``skipped``, or
    ``not_found`` (a document's name, as the query writes it, that no file the library indexes has)."""

    source_path: str
    status: str
    reason: str


class RerankInfo(Frozen, frozen=True, kw_only=True):
    requested: bool = False
    enabled: bool | None = None
    model: str | None = None


class SearchResults(Base, kw_only=True):
    """A search's citations, best first. ``weak``: nothing in the library seems to answer the
    query (``weakReason`` says why, in words); the citations are then the best of a poor lot."""

    schema: str = SEARCH_RESULTS_SCHEMA
    query: str
    mode: str
    provider: str
    rerank: RerankInfo = RerankInfo()
    results: list[Citation] = []
    not_indexed: list[NotIndexed] = []
    diagnostics: dict[str, Any] = {}
    weak: bool = False
    weak_reason: str | None = None


class GroundedSentence(Frozen, frozen=True, kw_only=True):
    """One sentence of an answer and the cited place that supports it (``mnote_kr.citations.rank.grounding``).

    ``supported`` False: no cited place holds its words or meaning; it then has no citation or place.
    ``citationId`` opens the place (``mnote-kr open``); ``words`` is the share of its content terms the
    place's passage holds, ``meaning`` its e5 cosine with the place (None without the model)."""

    text: str
    supported: bool
    citation_id: str | None = None
    source_root_relative_path: str | None = None
    locator: Locator | None = None
    citation_url: str | None = None
    words: float = 0.0
    meaning: float | None = None


class AgentQueryResult(Base, kw_only=True):
    """``ask``'s answer with its citations. The MCP query tool returns the same keys, its citations in
    the agent's compact view (``mnote_kr.agents.contracts``)."""

    schema: str = AGENT_QUERY_RESULT_SCHEMA
    query: str = ""
    mode: str = "mix"
    answer: str | None = None
    citations: list[Citation] = []
    notes: list[str] = []
    #: Files the question names, or of its scope, that cannot be cited, and why (as ``search``'s).
    not_indexed: list[NotIndexed] = []
    weak: bool = False
    weak_reason: str | None = None
    #: Each sentence of ``answer`` and its place (the markers in ``answer`` are theirs); empty without an answer.
    sentences: list[GroundedSentence] = []


class OpenActionParams(Frozen, frozen=True, kw_only=True):
    provider: str
    chunk_id: str | None
    search_query: str
    evidence_text: str | None
    display_quote: str | None


class OpenPlan(Frozen, frozen=True, kw_only=True):
    """How a shell opens a citation: which file, what kind, where."""

    schema: str = OPEN_PLAN_SCHEMA
    citation_id: str
    resource_path: str
    resource_root_relative_path: str
    resource_kind: str  # pdf | office | markdown | image | text
    locator: Locator
    citation_url: str
    open_action: OpenActionParams
    source_map_path: str | None = None
    #: Set when the file was renamed or moved (same bytes) since the citation was issued: the path it was
    #: issued for; ``resource_path`` is the file's new path and ``note`` says so in words.
    moved_from: str | None = None
    note: str | None = None
    #: Every search that printed this ID, newest first (``openAction`` holds the first one's query and quote).
    issues: list[IssuedQuote] = []


# --------------------------------------------------------------------------- status


class ProviderStatus(Base, kw_only=True):
    """What the provider's ``provider_status`` hook reports."""

    provider: str
    reachable: bool
    url: str | None = None
    error: str | None = None
    core_version: str | None = None
    api_version: str | None = None
    pipeline_busy: bool | None = None
    llm_model: str | None = None
    embedding_model: str | None = None
    rerank: dict[str, Any] = {}
    documents_by_status: dict[str, int] = {}
    unmapped: list[dict[str, Any]] = []
    webui_url: str | None = None
    input_directory: str | None = None
    working_directory: str | None = None
    extra: dict[str, Any] = {}
    #: What the provider found unsafe about its server (e.g. answers without the key), each with the fix.
    warnings: list[str] = []
    #: One line each on a provider setting that changes what a search does (on or off, and where set).
    settings: list[str] = []
    #: Set (with ``reachable`` False) when the provider's server for this workspace does not run and a
    #: report that may not start it (``ProviderContext.may_start``) was asked: when it starts.
    not_started: str | None = None
    #: With ``not_started``: the command that starts that server (e.g. a managed engine's ``mnote-kr engine
    #: start``). The files sent and not indexed wait for it: nothing indexes them while it does not run, and a
    #: ``sync`` after it sends them again (``status`` counts them ``interrupted``, not being indexed).
    start_command: str | None = None
    #: The entries (workspace-relative paths) not recorded as indexed (``EntryColumns.live`` 0) whose documents
    #: the provider has indexed: a search cites them already, and the registry records it at the next sync.
    indexed_unrecorded: list[str] = []
    #: The entries (workspace-relative paths) sent and not indexed whose indexing the provider's engine stopped in
    #: the middle of (its process ended): the provider still lists them as in progress, and is idle. Nothing
    #: indexes them until the next ``sync`` sends them again.
    interrupted: list[str] = []


class PluginInfo(Base, kw_only=True):
    name: str
    version: str | None = None
    origin: str = "entry point"  # builtin | entry point | registered
    distribution: str | None = None
    hooks: list[str] = []
    error: str | None = None
    blocked: bool = False


def to_builtins(value: Any) -> Any:
    """Turn contracts into JSON-ready builtins (camelCase keys)."""
    return msgspec.to_builtins(value)


_json_encoder = msgspec.json.Encoder()


def dumps(value: Any) -> bytes:
    """Encode contracts as compact JSON."""
    return _json_encoder.encode(value)


class QueryRequest(Frozen, frozen=True, kw_only=True):
    """Input of the provider's ``query`` hook."""

    query: str
    mode: str = "mix"
    top_k: int = 20
    chunk_top_k: int | None = None
    want_answer: bool = False
    enable_rerank: bool | None = None  # None: not requested, passed through only when set
    #: The provider's names (``light_rag_file_path``) of the files the registry records as sent and not
    #: indexed yet (``submitted``, ``processing``): a provider busy with them may say so before it answers,
    #: and tell which it has finished (``diagnostics["indexing"]``). Empty: the provider need not look.
    sent_files: tuple[str, ...] = ()


class MappedReference(Frozen, frozen=True, kw_only=True):
    """A provider reference mapped to a live registry entry (and a sidecar block if found)."""

    reference: ProviderReference
    entry: SourceEntry
    block: SidecarBlock | None = None
    meta: SidecarMeta | None = None
    sidecar_path: str | None = None
    block_score: float = 0.0
    block_span: list[int] | None = None  # [start, end) of block.content that the chunk covers
