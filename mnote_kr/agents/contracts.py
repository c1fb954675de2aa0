"""What an agent sends and sees: compact msgspec shapes, and JSON Schemas generated from them.

The agent never sees LightRAG's raw chunk text (only the host's cleaned quote reaches it): a citation here
carries its ``displayQuote`` and nothing of ``rawQuote`` or ``locatorEvidenceText``; the open
plan drops ``openAction.evidenceText``. The query result is the compact
``mnote.knowledge_rag.agent_query_result.v1`` shape: citations first, then the answer, then notes.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from mnote_kr.citations.map.request import MAX_QUERY_CHARS
from mnote_kr.citations.render.precision import page_hint
from mnote_kr.models import (
    AGENT_QUERY_RESULT_SCHEMA,
    Citation,
    Highlight,
    IngestReport,
    LocatorPrecision,
    NotIndexed,
    OpenPlan,
    Place,
)

AGENT_STATUS_SCHEMA = "mnote.knowledge_rag.agent_status.v1"

Mode = Literal["mix", "hybrid", "naive", "local", "global"]
SourcePath = Annotated[str, msgspec.Meta(min_length=1, max_length=4096)]


class ToolInput(msgspec.Struct, kw_only=True, rename="camel", forbid_unknown_fields=True, frozen=True):
    """Base of tool arguments: an unknown argument is refused, so a typo is not silently ignored."""


class StatusInput(ToolInput, kw_only=True, frozen=True):
    """mnote_knowledge_rag_status takes no arguments."""


class QueryInput(ToolInput, kw_only=True, frozen=True):
    """mnote_knowledge_rag_query: search the knowledge base, optionally with an answer."""

    query: Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_QUERY_CHARS,
                                       description="The question or phrase to look up.")]
    mode: Annotated[Mode, msgspec.Meta(description="LightRAG query mode; 'hybrid' is an alias of 'mix'.")] = "mix"
    top_k: Annotated[int, msgspec.Meta(ge=1, le=200, description="How many files to cite, best first.")] = 10
    source_paths: Annotated[list[SourcePath], msgspec.Meta(
        max_length=200,
        description="Limit citations to these files or folders (relative to the workspace root)."),
    ] = []
    want_answer: Annotated[bool, msgspec.Meta(
        description="Also return LightRAG's generated answer (citations come either way).")] = False


class OpenReferenceInput(ToolInput, kw_only=True, frozen=True):
    """mnote_knowledge_rag_open_reference: how to open one citation."""

    citation_id: Annotated[str, msgspec.Meta(min_length=1, max_length=64,
                                             description="A citation ID from a query result, such as [a3z1].")]


class IngestInput(ToolInput, kw_only=True, frozen=True):
    """mnote_knowledge_rag_ingest (only with --allow-writes): index files in place."""

    source_paths: Annotated[list[SourcePath], msgspec.Meta(min_length=1, max_length=200,
                                                           description="Files or folders inside the workspace.")]
    force: bool = False
    wait_s: Annotated[float, msgspec.Meta(ge=0, le=300, description="Seconds to wait for indexing; 0: return at once.")
                      ] = msgspec.field(default=0.0, name="waitS")


class DeleteInput(ToolInput, kw_only=True, frozen=True):
    """mnote_knowledge_rag_delete (only with --allow-writes): the index only, never the files."""

    source_paths: Annotated[list[SourcePath], msgspec.Meta(min_length=1, max_length=200,
                                                           description="Files or folders inside the workspace.")]


class PruneInput(ToolInput, kw_only=True, frozen=True):
    """mnote_knowledge_rag_prune (only with --allow-writes): drop the records no file is cited by."""

    keep_failed: Annotated[bool, msgspec.Meta(
        description="Keep the records of files that failed to index; without it they go, and the next sync "
                    "sends those files again.")] = False


# ----------------------------------------------------------------------------- outputs


class Out(msgspec.Struct, kw_only=True, rename="camel", frozen=True):
    """Base of tool results (camelCase, every field always present)."""


#: How sure a place is, one field for every surface (``mnote_kr.citations.render.precision``).
Degraded = Annotated[bool, msgspec.Meta(description=(
    "false: the cited block holds the evidence that answered (an exact place); true: the box or paragraph is "
    "the passage the evidence came from, an approximate place (say so), or there is no place (file)."))]
#: A file citation's page, known without a place on it: a hint, never a cited page.
PageHint = Annotated[int | None, msgspec.Meta(description=(
    "file precision only: the 1-based page the evidence was found on, its place on the page not found. A hint "
    "where to look (the viewer opens there), not a cited page: page stays null."))]


class AgentPlace(Out, kw_only=True, frozen=True):
    """Another place of the cited file, behind the citation's own: where, what it says, its own ID."""

    citation_id: str
    locator_precision: LocatorPrecision
    locator_degraded: Degraded
    page: int | None
    page_hint: PageHint
    bbox: list[float] | None
    paragraph_index: int | None
    highlight: Highlight | None
    display_quote: str | None
    citation_url: str
    relevance_score: float | None
    viewer_url: str | None  # http://127.0.0.1:PORT/view/ID while 'mnote-kr serve' runs


class AgentCitation(Out, kw_only=True, frozen=True):
    """One citable place, as an agent sees it: where it is, what it says, how to cite it.

    ``displayQuote`` is the answering sentences; ``contextQuote`` the cleaned passage around them;
    ``alternatives`` the file's next best places (up to two), best first."""

    citation_id: str
    source_root_relative_path: str
    heading_path: list[str]
    locator_precision: LocatorPrecision
    locator_degraded: Degraded
    page: int | None  # 1-based, only with bbox precision
    page_hint: PageHint
    bbox: list[float] | None  # [x0, y0, x1, y1], PDF points, top-left origin
    paragraph_index: int | None  # with slide precision: the paragraph inside the shape
    highlight: Highlight | None
    slide: int | None  # slide precision (PPTX): 1-based slide, and the shape's id and name
    shape_id: int | None
    shape_name: str | None
    speaker_notes: bool  # the slide's speaker notes are cited (no shape: shapeId and shapeName null)
    sheet: str | None  # cell precision (XLSX): the sheet, the A1 cell or range
    range: str | None
    display_quote: str | None
    citation_markdown: str
    citation_url: str
    relevance_score: float | None
    context_quote: str | None
    alternatives: list[AgentPlace]
    viewer_url: str | None  # http://127.0.0.1:PORT/view/ID while 'mnote-kr serve' runs (open it in a browser)


class AgentSentence(Out, kw_only=True, frozen=True):
    """One sentence of the answer and the citation that supports it (None: no cited place does)."""

    text: str
    supported: bool
    citation_id: str | None


class AgentQueryResult(Out, kw_only=True, frozen=True):
    """The compact agent_query_result.v1: citations first, then the answer, then notes. The same keys
    as ``ask``'s (``mnote_kr.models.AgentQueryResult``), each citation in the agent's view.

    ``weak``: nothing found holds the query's words; ``weakReason`` says so in words. ``sentences``:
    each sentence of ``answer`` and its citation, empty without an answer."""

    schema: str = AGENT_QUERY_RESULT_SCHEMA
    query: str
    mode: str
    citations: list[AgentCitation]
    answer: str | None
    notes: list[str]
    not_indexed: list[NotIndexed]
    weak: bool
    weak_reason: str | None
    sentences: list[AgentSentence] = []


class AgentProvider(Out, kw_only=True, frozen=True):
    """The retrieval engine as the agent needs to know it: reachable, healthy, what it holds."""

    name: str
    reachable: bool
    error: str | None
    core_version: str | None
    pipeline_busy: bool | None
    llm_model: str | None
    embedding_model: str | None
    rerank_enabled: bool | None
    documents_by_status: dict[str, int]
    unmapped_documents: int


class AgentWaiting(Out, kw_only=True, frozen=True):
    """One queued action (``status --json``'s ``registry.waiting``): the file, the action, and why it waits
    in ``mnote-kr status``'s words (e.g. LightRAG refused it as busy; null: nothing recorded)."""

    source_path: str
    action: str
    reason: str | None


class AgentFailed(Out, kw_only=True, frozen=True):
    """A file the knowledge base could not index, and why (as ``mnote-kr status`` says it)."""

    source_path: str
    reason: str


class AgentRegistry(Out, kw_only=True, frozen=True):
    """Counts from the source registry (the files of this workspace the knowledge base knows)."""

    entries: int
    by_status: dict[str, int]
    stale: int
    waiting: int
    #: Of ``stale``, the old paths' records of moves followed: those files are cited under their new path.
    moved_followed: int = 0
    #: ``status --json``'s ``registry.fallbacks``, counted: files there, indexed through the provider's fallback.
    fallbacks: int = 0
    #: The queued actions one by one (the first 50), each with why it waits.
    waiting_files: list[AgentWaiting] = []
    #: The files ``by_status`` counts as failed one by one (the first 50), each with why: the agent can name
    #: the broken file to the user as ``mnote-kr status`` does.
    failed_files: list[AgentFailed] = []
    #: ``status --json``'s ``registry.citableNow``: the files a search cites now (none while the provider is
    #: down; the indexed files changed or gone on disk since are left out until a sync follows them).
    citable_now: int = 0


class AgentFiles(Out, kw_only=True, frozen=True):
    """Files of one kind as ``status --json`` names them: how many, the first 50, the command that fixes them."""

    count: int = 0
    paths: list[str] = []
    fix: str = ""


class AgentMove(Out, kw_only=True, frozen=True):
    """An indexed file found at another path with the same content."""

    from_: str = msgspec.field(name="from")
    to: str


class AgentMoves(Out, kw_only=True, frozen=True):
    """``status --json``'s ``movedSinceIndexed``: indexed files renamed or moved on disk since (same content),
    which ``fix`` follows; they are in neither ``missingSinceIndexed`` nor ``pendingNew``."""

    count: int = 0
    moves: list[AgentMove] = []
    fix: str = ""


class AgentRootFix(Out, kw_only=True, frozen=True):
    """The new files of one indexed root, and the command that indexes them."""

    root: str
    count: int
    fix: str


class AgentPendingNew(Out, kw_only=True, frozen=True):
    """``status --json``'s ``pendingNew``: files in roots that follow the disk, never ingested."""

    count: int = 0
    paths: list[str] = []
    by_root: list[AgentRootFix] = []


class AgentWordsOnly(Out, kw_only=True, frozen=True):
    """``status --json``'s ``meaning.wordsOnly``: indexed files placed by words only until ``command``
    embeds their places (their citations' places are chosen by words, not meaning, meanwhile)."""

    count: int = 0
    paths: list[str] = []
    command: str = ""


class AgentStatus(Out, kw_only=True, frozen=True):
    """mnote_knowledge_rag_status: is the knowledge base usable, and what is in it.

    ``changedSinceIndexed``, ``missingSinceIndexed``, ``pendingNew`` and ``wordsOnly`` are the parts of
    ``mnote-kr status --json`` of the same names (``wordsOnly``: its ``meaning.wordsOnly``): files a
    search no longer cites as they are on disk, new files, files placed by words only. ``interrupted``
    (its ``registry.interrupted``): files sent whose indexing the engine stopped in the middle of, not
    being indexed until ``fix`` sends them again."""

    schema: str = AGENT_STATUS_SCHEMA
    workspace: str
    indexed_roots: list[str]
    registry: AgentRegistry
    new_files_not_ingested: int
    provider: AgentProvider
    write_tools: bool
    changed_since_indexed: AgentFiles = AgentFiles()
    missing_since_indexed: AgentFiles = AgentFiles()
    moved_since_indexed: AgentMoves = AgentMoves()
    pending_new: AgentPendingNew = AgentPendingNew()
    words_only: AgentWordsOnly = AgentWordsOnly()
    interrupted: AgentFiles = AgentFiles()


class DeletedSource(Out, kw_only=True, frozen=True):
    """One source whose index was removed (the file itself is untouched)."""

    source_path: str
    status: str
    stale: bool


class DeleteResult(Out, kw_only=True, frozen=True):
    """mnote_knowledge_rag_delete: the sources whose index was removed."""

    deleted: list[DeletedSource]


class PruneResult(Out, kw_only=True, frozen=True):
    """mnote_knowledge_rag_prune: the registry records removed, the same by kind (``moved``, ``stale``,
    ``failed``, ``deleted``, ``duplicate``, ``refused``), the failed records kept, the deletes not confirmed and
    the records of files taken out with delete, kept while the file is on disk in an indexed root (they keep the file
    out)."""

    removed: list[str]
    by_kind: dict[str, list[str]] = {}
    kept_failed: list[str] = []
    deletes_waiting: int = 0
    kept_deleted: list[str] = []


# ----------------------------------------------------------------------------- conversions


def agent_citation(c: Citation) -> AgentCitation:
    """The agent's view of a citation: no raw chunk text, no provider internals."""
    loc = c.locator
    return AgentCitation(
        citation_id=c.citation_id,
        source_root_relative_path=c.source_root_relative_path,
        heading_path=list(c.heading_path),
        locator_precision=c.locator_precision,
        locator_degraded=c.locator_degraded,
        page=loc.page if c.locator_precision == "bbox" else None,
        page_hint=page_hint(loc),
        bbox=loc.bbox,
        paragraph_index=loc.paragraph_index,
        highlight=loc.highlight,
        slide=loc.slide,
        shape_id=loc.shape_id,
        shape_name=loc.shape_name,
        speaker_notes=loc.speaker_notes,
        sheet=loc.sheet,
        range=loc.range,
        display_quote=c.display_quote,
        citation_markdown=c.citation_markdown,
        citation_url=c.citation_url,
        relevance_score=c.relevance_score,
        context_quote=c.context_quote,
        alternatives=[agent_place(a) for a in c.alternatives],
        viewer_url=c.viewer_url,
    )


def agent_place(a: Place) -> AgentPlace:
    """The agent's view of an alternative place."""
    loc = a.locator
    return AgentPlace(citation_id=a.citation_id, locator_precision=a.locator_precision,
                      locator_degraded=a.locator_degraded, page=loc.page if a.locator_precision == "bbox" else None,
                      page_hint=page_hint(loc), bbox=loc.bbox,
                      paragraph_index=loc.paragraph_index, highlight=loc.highlight, display_quote=a.display_quote,
                      citation_url=a.citation_url, relevance_score=a.relevance_score, viewer_url=a.viewer_url)


def agent_open_plan(plan: OpenPlan) -> OpenPlan:
    """The open plan without the locator's evidence text (raw chunk text the agent must not see)."""
    return msgspec.structs.replace(plan, open_action=msgspec.structs.replace(plan.open_action, evidence_text=None))


# ----------------------------------------------------------------------------- schemas


def object_schema(kind: type[Any]) -> dict[str, Any]:
    """A JSON Schema for a Struct with ``type: object`` at its root, as MCP asks.

    ``msgspec.json.schema`` answers ``{"$ref": "#/$defs/X", "$defs": {...}}``; MCP wants the
    object itself at the root, so ``X`` is lifted up and the other definitions stay under
    ``$defs`` (their ``#/$defs/...`` references still resolve from the root).
    """
    schema = msgspec.json.schema(kind)
    ref = schema.get("$ref")
    if not ref:
        return schema
    defs = dict(schema.get("$defs", {}))
    root = dict(defs.pop(ref.rsplit("/", 1)[-1]))
    if defs:
        root["$defs"] = defs
    return root


__all__ = [
    "AGENT_STATUS_SCHEMA", "AgentCitation", "AgentPlace", "AgentProvider", "AgentQueryResult", "AgentRegistry",
    "AgentSentence", "AgentStatus", "DeleteInput", "DeleteResult", "DeletedSource", "IngestInput", "IngestReport",
    "OpenReferenceInput",
    "PruneInput", "PruneResult", "QueryInput", "StatusInput", "agent_citation", "agent_open_plan", "agent_place",
    "object_schema",
]
