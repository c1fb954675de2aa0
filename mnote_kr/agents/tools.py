"""The agent tools, run against one ``Host``: names, schemas, descriptions and handlers.

Transport-free (the MCP wiring is in ``mcp_server``), so the same table can be tested and
benchmarked directly. A handler returns a msgspec Struct; bad input and every deliberate
failure raise ``MnoteKrError`` (the caller turns it into the tool's error result).

Paths an agent gives are workspace-relative (or absolute inside the workspace) and go through
``Workspace.resolve`` with the workspace root as base, whatever the server's cwd: a traversal is
``PathNotAllowedError``, never a crash and never a silent widening of the scope.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec

from mnote_kr.agents.contracts import (
    AgentFailed,
    AgentFiles,
    AgentMoves,
    AgentPendingNew,
    AgentProvider,
    AgentQueryResult,
    AgentRegistry,
    AgentSentence,
    AgentStatus,
    AgentWaiting,
    AgentWordsOnly,
    DeletedSource,
    DeleteInput,
    DeleteResult,
    IngestInput,
    IngestReport,
    OpenReferenceInput,
    PruneInput,
    PruneResult,
    QueryInput,
    StatusInput,
    agent_citation,
    agent_open_plan,
    object_schema,
)
from mnote_kr.citations.map.request import MAX_QUERY_CHARS, check_query_length, check_query_not_empty
from mnote_kr.citations.render.alsoasked import also_searched, held_note
from mnote_kr.citations.render.noresults import more_left_behind, more_skipped
from mnote_kr.errors import MnoteKrError, NotFoundError, UsageError
from mnote_kr.models import OpenPlan

if TYPE_CHECKING:
    from mnote_kr.app.host import Host

STATUS = "mnote_knowledge_rag_status"
QUERY = "mnote_knowledge_rag_query"
OPEN_REFERENCE = "mnote_knowledge_rag_open_reference"
INGEST = "mnote_knowledge_rag_ingest"
DELETE = "mnote_knowledge_rag_delete"
PRUNE = "mnote_knowledge_rag_prune"
READ_TOOLS = (STATUS, QUERY, OPEN_REFERENCE)
WRITE_TOOLS = (INGEST, DELETE, PRUNE)

PROMPT_NAME = "mnote-knowledge-rag"

#: How an agent should use the tools (the desktop shell's agent skill text), restated for MCP clients.
SKILL = """\
You answer questions about the user's own documents through the mnote-kr knowledge base.

1. Call mnote_knowledge_rag_query with the user's question (add sourcePaths to limit it to
   files or folders the user named; set wantAnswer only if a drafted answer helps you).
2. Answer ONLY from the citations that tool returned: their displayQuote is the evidence.
   Do not answer from memory, and do not treat the tool's `answer` as evidence: it is a draft
   that may only be repeated where a citation supports it.
3. Cite every claim with the citation's citationMarkdown, exactly as given (it links to the
   place in the file). Never invent or alter a citation ID, file name, page or box; a
   paragraph- or file-level citation has no page, so do not give one. A citation with
   locatorDegraded true cites the passage, not the exact place: call it approximate. A file
   citation's pageHint is where the evidence was found without its place: a hint, not a page.
4. If the tool returns no citations, say plainly that nothing citable was found in the
   knowledge base (mention its notes, e.g. files that are not indexed) instead of answering.
5. To show the user where a citation is, call mnote_knowledge_rag_open_reference with its ID.
"""


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its MCP name and description, its argument and result contracts, its handler."""

    name: str
    title: str
    description: str
    input_type: type[Any]
    output_type: type[Any]
    handler: Callable[[Host, Any], Any]
    read_only: bool = True

    @property
    def input_schema(self) -> dict[str, Any]:
        return object_schema(self.input_type)

    @property
    def output_schema(self) -> dict[str, Any]:
        return object_schema(self.output_type)


# ----------------------------------------------------------------------------- helpers

T = TypeVar("T")


def anchor(host: Host, raw: str) -> tuple[str, str]:
    """(absolute path, workspace-relative path) of a path an agent gave, checked like the CLI's."""
    if not raw.strip():
        raise UsageError("Empty path in sourcePaths", hint="give a file or folder relative to the workspace root")
    abs_path, rel = host.workspace.resolve(raw, base=host.root)
    return str(abs_path), rel


def dropped_notes(diagnostics: dict[str, Any]) -> list[str]:
    """One line per reason references were left out, from the pipeline's diagnostics."""
    dropped: dict[str, int] = diagnostics.get("dropped", {})
    notes = []
    gone = sum(dropped.get(k, 0) for k in ("unmapped", "notLive", "missingOnDisk", "changedOnDisk"))
    if gone:
        notes.append(f"{gone} retrieved passage(s) were dropped: their source is deleted, changed, stale or not in "
                     "this workspace's registry, so they are not citable.")
    if dropped.get("outOfScope"):
        notes.append(f"{dropped['outOfScope']} retrieved passage(s) outside sourcePaths were left out.")
    return notes


# ----------------------------------------------------------------------------- handlers


def tool_status(host: Host, args: StatusInput) -> AgentStatus:
    """The status tool: ``Host.status`` reduced to what an agent needs (no paths of LightRAG's own)."""
    raw = host.status()
    prov = raw.get("provider", {})
    reg = raw["registry"]
    rerank = prov.get("rerank") or {}
    return AgentStatus(
        workspace=raw["workspace"],
        indexed_roots=[r["rootRelativePath"] or "." for r in raw.get("indexedRoots", [])],
        registry=AgentRegistry(entries=reg["entries"], by_status=reg["byStatus"], stale=reg["stale"],
                               moved_followed=reg.get("movedFollowed", 0), waiting=len(reg["waiting"]),
                               fallbacks=len(reg.get("fallbacks") or []),
                               waiting_files=_waiting_files(reg["waiting"], prov),
                               failed_files=_failed_files(reg.get("failed") or []),
                               citable_now=int(reg.get("citableNow") or 0)),
        # roots that follow (pendingNew) and roots added with --no-follow (leftBehind): in one list each
        new_files_not_ingested=raw.get("pendingNew", {}).get("count", 0) + raw.get("leftBehind", {}).get("newCount", 0),
        provider=AgentProvider(
            name=prov.get("provider") or prov.get("name") or host.plugins.provider_name,
            reachable=bool(prov.get("reachable", False)),
            error=prov.get("error") or (f"not started: {prov['notStarted']}" if prov.get("notStarted") else None),
            core_version=prov.get("coreVersion"),
            pipeline_busy=prov.get("pipelineBusy"),
            llm_model=prov.get("llmModel"),
            embedding_model=prov.get("embeddingModel"),
            rerank_enabled=rerank.get("enabled") if isinstance(rerank, dict) else None,
            documents_by_status=prov.get("documentsByStatus") or {},
            unmapped_documents=len(prov.get("unmapped") or []),
        ),
        write_tools=False,  # set by call_tool, which knows how the server was started
        # the files status names on disk, as its --json says them (the same names, the same 50 paths)
        changed_since_indexed=_part(raw.get("changedSinceIndexed"), AgentFiles),
        missing_since_indexed=_part(raw.get("missingSinceIndexed"), AgentFiles),
        moved_since_indexed=_part(raw.get("movedSinceIndexed"), AgentMoves),
        pending_new=_part(raw.get("pendingNew"), AgentPendingNew),
        words_only=_part((raw.get("meaning") or {}).get("wordsOnly"), AgentWordsOnly),
        interrupted=_part(reg.get("interrupted"), AgentFiles),
    )


def _waiting_files(waiting: list[dict[str, Any]], provider: dict[str, Any], shown: int = 50) -> list[AgentWaiting]:
    """The queued actions (the first ``shown``), each with why it waits as ``mnote-kr status`` says it."""
    from mnote_kr.citations.render.statustext import waiting_reason

    return [AgentWaiting(source_path=w["sourcePath"], action=w["action"],
                         reason=waiting_reason(w.get("lastError"), provider)) for w in waiting[:shown]]


def _failed_files(failed: list[dict[str, Any]], shown: int = 50) -> list[AgentFailed]:
    """The failed files (the first ``shown``), each with its reason in ``mnote-kr status`` words."""
    from mnote_kr.citations.render.statustext import failure_reason

    return [AgentFailed(source_path=f["sourcePath"], reason=failure_reason(f.get("reason"))) for f in failed[:shown]]


def _part(value: Any, shape: type[T]) -> T:
    """A part of ``Host.status`` as its agent shape (its fields by their wire names); absent: empty."""
    return msgspec.convert(value or {}, shape)


def weak_note(weak: str) -> str:
    """The note a weak search adds for the agent: nothing clearly answers, or (the first place in another script
    than the query: ``noresults.ACROSS_LANGUAGES``) words could not check the place found by meaning, or a file not
    cited holds the query's words (``weakabsent.held_reason``), or a file in another script was found as close in
    meaning as the first (``weakscript.UNCLEAR``)."""
    from mnote_kr.citations.render.noresults import ACROSS_LANGUAGES
    from mnote_kr.citations.render.weakscript import UNCLEAR

    if weak == ACROSS_LANGUAGES:
        return (f"Weak result: {weak}. Read the first passage before using it: if it answers, say it was found "
                "by meaning in another language; if not, tell the user nothing clearly answers.")
    if weak.endswith(UNCLEAR):  # a file in another script found as close (``weakscript.across_reason``)
        return (f"Weak result: {weak}. Read the first passage and the named file's place before using either: tell "
                "the user which answers, or that neither clearly does.")
    if ": mnote-kr locate " in weak:  # a file holds every word of the query (``map.heldwords``)
        return (f"Weak result: {weak}. Do not present these passages as the answer: tell the user which file holds "
                "the query's words, that it is not cited, and the command that finds the place in it.")
    return f"Weak result: {weak}. Tell the user nothing clearly answers; do not present these as the answer."


def tool_query(host: Host, args: QueryInput) -> AgentQueryResult:
    """The query tool: ``Host.search`` (or ``ask`` with ``wantAnswer``) in the compact agent shape."""
    anchored = [anchor(host, p) for p in args.source_paths]
    scope = [a for a, _ in anchored]
    if args.want_answer:
        from mnote_kr.citations.answering import ask_with_diagnostics

        asked, diagnostics = ask_with_diagnostics(host, args.query, scope=scope, top_k=args.top_k, mode=args.mode)
        citations, answer, notes = asked.citations, asked.answer, list(asked.notes)
        weak = asked.weak_reason
        missing = list(asked.not_indexed)
        query = asked.query
        sentences = [AgentSentence(text=s.text, supported=s.supported, citation_id=s.citation_id)
                     for s in asked.sentences]
    else:
        sentences = []
        found = host.search(args.query, scope=scope, top_k=args.top_k, mode=args.mode)
        citations, answer, diagnostics = found.results, None, found.diagnostics
        notes = list(diagnostics.get("notes", []))
        # (ask's notes have them already)
        notes += filter(None, [more_left_behind(diagnostics), more_skipped(diagnostics),
                               also_searched(diagnostics, citations), held_note(diagnostics, found.weak_reason)])
        missing = list(found.not_indexed)
        query = found.query
        weak = found.weak_reason
        if weak and citations:
            notes.append(weak_note(weak))
    notes += dropped_notes(diagnostics)  # (search and ask name the scope's files that cannot be cited)
    if missing:
        notes.append(f"{len(missing)} file(s) you may be asking about cannot be cited: see notIndexed.")
    if not citations:
        notes.append("Nothing citable was found in the knowledge base for this question: say so, do not guess.")
    from mnote_kr.server.viewerlinks import serve_url, with_viewer_urls

    citations = with_viewer_urls(citations, serve_url(host))
    return AgentQueryResult(query=query, mode=args.mode, citations=[agent_citation(c) for c in citations],
                            answer=answer, notes=notes, not_indexed=missing, weak=weak is not None,
                            weak_reason=weak, sentences=sentences)


def tool_open_reference(host: Host, args: OpenReferenceInput) -> OpenPlan:
    """The open-reference tool: ``Host.open`` without the evidence text, each search's ``viewerUrl`` with it."""
    from mnote_kr.server.viewerlinks import plan_with_viewer_urls, serve_url

    return agent_open_plan(plan_with_viewer_urls(host.open(args.citation_id), serve_url(host)))


def tool_ingest(host: Host, args: IngestInput) -> IngestReport:
    """The ingest tool (``--allow-writes``): ``Host.ingest`` on workspace-rooted, checked paths."""
    paths = [anchor(host, p)[0] for p in args.source_paths]
    # an agent's call answers within its waitS: the whole wait bounded (app.patience)
    return host.ingest(paths, force=args.force, wait=args.wait_s > 0, wait_s=args.wait_s, wait_idle=False)


def tool_delete(host: Host, args: DeleteInput) -> DeleteResult:
    """The delete tool (``--allow-writes``): ``Host.delete``; the files are never touched."""
    paths = [anchor(host, p)[0] for p in args.source_paths]
    entries = host.delete(paths)
    return DeleteResult(deleted=[DeletedSource(source_path=e.source_root_relative_path, status=e.status,
                                               stale=e.stale) for e in entries])


def tool_prune(host: Host, args: PruneInput) -> PruneResult:
    """The prune tool (``--allow-writes``): ``Host.prune``."""
    report = host.prune_report(keep_failed=args.keep_failed)
    return PruneResult(removed=report["removed"], by_kind=report["byKind"], kept_failed=report["keptFailed"],
                       deletes_waiting=report["deletesWaiting"], kept_deleted=report["keptDeleted"])


SPECS: dict[str, ToolSpec] = {s.name: s for s in (
    ToolSpec(STATUS, "Knowledge base status",
             "Whether the user's knowledge base (mnote-kr over LightRAG) is reachable and what it holds: indexed "
             "folders, file counts by status, stale files, files changed or deleted on disk since indexed (not "
             "cited until synced), new files not indexed yet, files placed by words only, the engine's health.",
             StatusInput, AgentStatus, tool_status),
    ToolSpec(QUERY, "Search the knowledge base",
             "Search the user's own documents (PDF, DOCX, Markdown...) and get citations located in the original "
             "files: ID, file, precision (bbox = page and box, paragraph, or file; locatorDegraded true = an "
             "approximate place, the passage rather than the exact spot; pageHint = a file citation's page known "
             "without its place, a hint only), a display quote and a "
             "ready-made citationMarkdown. Answer only from these citations and cite with citationMarkdown; never "
             "invent an ID, page or box. sourcePaths limits the search to files or folders of the workspace.",
             QueryInput, AgentQueryResult, tool_query),
    ToolSpec(OPEN_REFERENCE, "Open a citation",
             "How to open one citation from a query result: the file, its kind, and the page/box or paragraph to "
             "show. Takes a citation ID such as [a3z1].",
             OpenReferenceInput, OpenPlan, tool_open_reference),
    ToolSpec(INGEST, "Index files",
             "Index files or folders of the workspace into the knowledge base, in place (never copied or changed).",
             IngestInput, IngestReport, tool_ingest, read_only=False),
    ToolSpec(DELETE, "Remove files from the index",
             "Remove files or folders from the knowledge base's index. The files themselves are never touched.",
             DeleteInput, DeleteResult, tool_delete, read_only=False),
    ToolSpec(PRUNE, "Prune the registry",
             "Drop deleted, stale and failed records from the registry (never a delete still in flight), said by "
             "kind. A failed file still in a folder of the knowledge base is then new again, and the next sync "
             "sends it again (and it fails again unless fixed); keepFailed keeps the failed records.",
             PruneInput, PruneResult, tool_prune, read_only=False),
)}


def tool_specs(allow_writes: bool = False) -> list[ToolSpec]:
    """The tools an agent may call: the three read-only ones, plus the write tools only if allowed."""
    names = READ_TOOLS + (WRITE_TOOLS if allow_writes else ())
    return [SPECS[n] for n in names]


def decode_arguments(spec: ToolSpec, arguments: dict[str, Any] | None) -> Any:
    """Arguments as the tool's input Struct; a mismatch is a ``UsageError`` naming the field."""
    query = (arguments or {}).get("query")
    if isinstance(query, str) and len(query) > MAX_QUERY_CHARS:
        check_query_length(query)  # the CLI's and HTTP's words, not msgspec's "Expected `str` of length <= ..."
    if isinstance(query, str):
        check_query_not_empty(query)  # the same words for "" (msgspec's "length >= 1") and "   "
    try:
        return msgspec.convert(arguments or {}, spec.input_type)
    except msgspec.ValidationError as exc:
        raise UsageError(f"Invalid arguments for {spec.name}: {exc}",
                         hint="see the tool's input schema") from exc


def call_tool(host: Host, name: str, arguments: dict[str, Any] | None, *, allow_writes: bool = False) -> Any:
    """Run one tool call; returns its result Struct or raises ``MnoteKrError``."""
    allowed = READ_TOOLS + (WRITE_TOOLS if allow_writes else ())
    if name not in allowed:
        hint = ("start the server with 'mnote-kr mcp --allow-writes' to allow it" if name in WRITE_TOOLS
                else f"the tools are: {', '.join(allowed)}")
        raise NotFoundError(f"Unknown tool {name!r}", hint=hint)
    spec = SPECS[name]
    result = spec.handler(host, decode_arguments(spec, arguments))
    if isinstance(result, AgentStatus):
        result = msgspec.structs.replace(result, write_tools=allow_writes)
    return result


def error_text(exc: MnoteKrError) -> str:
    """The one line an agent reads for a failed call: ``Error: message (how to fix)``."""
    return f"Error: {exc}"


def prompt_text(question: str | None = None) -> str:
    """The skill as one user message, with the question appended when given."""
    if question and question.strip():
        return f"{SKILL}\nThe user's question: {question.strip()}"
    return SKILL


__all__ = ["PROMPT_NAME", "READ_TOOLS", "SKILL", "SPECS", "WRITE_TOOLS", "ToolSpec", "call_tool", "error_text",
           "prompt_text", "tool_specs"]
