"""The routes of the HTTP API: request contracts and one handler per route.

Answers have the same shapes as the CLI's ``--json`` output (the msgspec contracts in
``mnote_kr.models``). Request bodies are msgspec Structs with camelCase names; the desktop shell's
request fields (``sourcePaths``, ``topK``, ``citationId``) are the contract. Paths in
requests are workspace-relative (or absolute inside the workspace) and go through the
same ``Workspace.resolve`` checks as the CLI: a traversal is ``403 path_not_allowed``.

The table ``ROUTES`` drives the router and the OpenAPI document alike, so a route
cannot exist without being documented.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from mnote_kr.errors import MnoteKrError, NotFoundError, UsageError
from mnote_kr.models import (
    AgentQueryResult,
    IndexedRoot,
    IngestReport,
    OpenPlan,
    PluginInfo,
    SearchResults,
    SourceEntry,
    WaitTimeout,
)
from mnote_kr.server import viewerlinks
from mnote_kr.server.jobs import JobView
from mnote_kr.server.route import Api, Route

if TYPE_CHECKING:
    from mnote_kr.app.host import Host

Mode = Literal["mix", "hybrid", "naive", "local", "global"]


class Request(msgspec.Struct, kw_only=True, rename="camel", forbid_unknown_fields=True):
    """Base of request bodies: unknown fields are refused, so a typo is not silently ignored."""


class WorkspaceBound(Request, kw_only=True):
    """Requests may name the workspace they mean; a mismatch is refused (the shell's ``workspace`` field)."""

    workspace_id: str | None = None
    root_uri: str | None = None


class IngestRequest(WorkspaceBound, kw_only=True):
    """``POST /api/knowledge-rag/ingest``. ``wait`` turns the call into a pollable job."""

    source_paths: list[str] = []
    source_path: str | None = None
    force: bool = False
    wait: bool = False
    wait_s: float = msgspec.field(default=300.0, name="waitS")
    #: Cap on files sent by this call; the answer says how many are left (``remaining``).
    limit: int | None = None


class QueryRequest(WorkspaceBound, kw_only=True):
    """``POST /api/knowledge-rag/search`` and ``/query`` (ask)."""

    query: str
    source_paths: list[str] = []
    source_path: str | None = None
    mode: Mode = "mix"
    top_k: int = 20
    rerank: bool | None = None
    # Accepted because a shell's request may carry it (LightRAG's own query field); the host always asks for
    # references and chunk content, and ``search`` never returns an answer.
    chunk_top_k: int | None = None
    include_chunk_content: bool | None = None
    include_references: bool | None = None
    answer: bool | None = None


class OpenReferenceRequest(WorkspaceBound, kw_only=True):
    """``POST /api/knowledge-rag/open-reference``."""

    citation_id: str


class DeleteSourceRequest(WorkspaceBound, kw_only=True):
    """``POST /api/knowledge-rag/delete-source``: removes the derived index, never the file."""

    source_paths: list[str] = []
    source_path: str | None = None


class PruneRequest(WorkspaceBound, kw_only=True):
    """``POST /api/knowledge-rag/prune-registry`` (an empty body is fine). ``keepFailed``: keep the records of
    files that failed to index (as ``prune --keep-failed``)."""

    keep_failed: bool = msgspec.field(default=False, name="keepFailed")


class SyncRequest(WorkspaceBound, kw_only=True):
    """``POST /api/knowledge-rag/sync``: retry queued work, follow submitted work (and deletes)."""

    wait_s: float = msgspec.field(default=0.0, name="waitS")


class RootAddRequest(WorkspaceBound, kw_only=True):
    """``POST /api/knowledge-rag/roots``."""

    root_relative_path: str
    recursive: bool = True
    exclude_patterns: list[str] = []
    run_on_change: bool = True  # following the disk is the default; false opts out


class RootRemoveRequest(WorkspaceBound, kw_only=True):
    """``POST /api/knowledge-rag/roots/remove``."""

    root_relative_path: str


class HealthResponse(msgspec.Struct, kw_only=True):
    ok: bool
    version: str


class RootsResponse(msgspec.Struct, kw_only=True, rename="camel"):
    indexed_roots: list[IndexedRoot]


class DeleteResponse(msgspec.Struct, kw_only=True):
    entries: list[SourceEntry]


class PruneResponse(msgspec.Struct, kw_only=True, rename="camel"):
    """As ``mnote-kr prune --json``: every path dropped (``removed``), the same by kind (``byKind``: ``moved``,
    ``stale``, ``failed``, ``deleted``, ``duplicate``, ``refused``), the failed records ``keepFailed`` kept and
    the deleted records kept until the provider confirms their delete, and those of files taken out with delete,
    kept while the file is on disk in an indexed root (``keptDeleted``: the record keeps the file out)."""

    removed: list[str]
    by_kind: dict[str, list[str]] = {}
    kept_failed: list[str] = []
    deletes_waiting: int = 0
    kept_deleted: list[str] = []


class SyncFailure(msgspec.Struct, kw_only=True):
    path: str
    reason: str


class StillFailed(SyncFailure, kw_only=True):
    """A file failed in an earlier run and still failed: ``unchangedSinceMs`` is the time of the version that
    failed when the file on disk is still that version (null otherwise); a sync does not send it again, and
    it is no failure of this sync."""

    unchanged_since_ms: int | None = msgspec.field(default=None, name="unchangedSinceMs")


class SyncNote(msgspec.Struct, kw_only=True):
    path: str
    note: str


class SyncProvider(msgspec.Struct, kw_only=True, rename="camel"):
    """What ``Host.sync`` answers (its keys; typed so the OpenAPI document names them): registry counts
    before and after, entries followed, the files this sync saw fail, those failed before it and still
    failed, the files still being indexed when a ``waitS`` ended (``null``: none), and, as ``mnote-kr sync
    --json`` says them, the files still queued to be sent with why (``notSent``: LightRAG refused them as
    busy, or is down; the next sync, or one with ``waitS``, sends them), and the files still being indexed with
    a new word of the provider's on them (``inFlightNotes``: e.g. sent again, its engine having stopped in the
    middle of them)."""

    before: dict[str, int]
    after: dict[str, int]
    followed: int
    failed: list[SyncFailure]
    still_failed: list[StillFailed]
    wait_timed_out: WaitTimeout | None
    not_sent: list[SyncFailure]
    #: Of ``after``'s stale records, the old paths of moves followed (cited under the new path), as status counts them.
    moved_followed: int = 0
    in_flight_notes: list[SyncNote] = []


class SyncResponse(msgspec.Struct, kw_only=True):
    """As ``mnote-kr sync --no-disk --json``."""

    provider: SyncProvider


class PluginsResponse(msgspec.Struct, kw_only=True):
    plugins: list[PluginInfo]
    provider: str
    locators: dict[str, str]


# ---------------------------------------------------------------------------- helpers


def _anchor(host: Host, raw: str) -> str:
    """Relative paths in requests are workspace-relative, whatever the server's cwd is."""
    if not isinstance(raw, str) or not raw.strip():
        raise UsageError("Empty path in request", hint="give a path relative to the workspace root")
    # Checked here too (same rules as the CLI), so an error names the path the client sent.
    abs_path, _ = host.workspace.resolve(raw, base=host.root)
    return str(abs_path)


def _paths(host: Host, many: list[str], one: str | None) -> list[str]:
    given = list(many) + ([one] if one is not None else [])
    if not given:
        raise UsageError("No sourcePaths given", hint='send {"sourcePaths": ["folder/file.pdf"]}')
    return [_anchor(host, p) for p in given]


def _check_workspace(host: Host, body: Any) -> None:
    if not isinstance(body, WorkspaceBound):
        return
    if body.workspace_id and body.workspace_id != host.workspace.workspace_id:
        raise UsageError(
            f"This server serves workspace {host.workspace.workspace_id}, not {body.workspace_id}",
            hint="send the request to the server started for that workspace, or leave out workspaceId",
        )
    if body.root_uri and body.root_uri.rstrip("/") != host.workspace.root_uri.rstrip("/"):
        raise UsageError(
            f"This server serves {host.workspace.root_uri}, not {body.root_uri}",
            hint="send the request to the server started for that workspace, or leave out rootUri",
        )


# ---------------------------------------------------------------------------- handlers


@functools.lru_cache(maxsize=1)
def _version() -> str:
    # Looked up once: importlib.metadata scans every installed distribution (about 5 ms), and
    # health is what a shell polls.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mnote-kr")
    except PackageNotFoundError:
        return "unknown"


def health(api: Api, body: None) -> tuple[int, Any]:
    return 200, HealthResponse(ok=True, version=_version())


def status(api: Api, body: None) -> tuple[int, Any]:
    return 200, api.host.status()


def ingest(api: Api, body: IngestRequest) -> tuple[int, Any]:
    _check_workspace(api.host, body)
    paths = _paths(api.host, body.source_paths, body.source_path)
    if body.wait_s < 0 or body.wait_s > 24 * 3600:
        raise UsageError("waitS must be between 0 and 86400 seconds")
    if body.limit is not None and body.limit < 1:
        raise UsageError("limit must be at least 1 (or left out for every file)")
    if not body.wait:
        return 200, api.host.ingest(paths, force=body.force, wait=False, limit=body.limit)
    # Validate the paths now, so a traversal is refused at once, not inside the job.
    for p in paths:
        api.host.workspace.resolve(p)
    base = api.host

    def work(progress: Callable[[str], None]) -> IngestReport:
        # A host of its own per job: ``progress`` is per-host state, and jobs run side by side.
        from mnote_kr.app.host import Host

        own = Host(base.root, config=base.config, plugins=base.plugins, transport=base.transport, progress=progress)
        return own.ingest(paths, force=body.force, wait=True, wait_s=body.wait_s, limit=body.limit,
                          wait_idle=False)  # the request's waitS bounds the whole wait (app.patience)

    return 202, api.jobs.submit("ingest", work)


def _query_args(api: Api, body: QueryRequest) -> dict[str, Any]:
    _check_workspace(api.host, body)
    if not body.query.strip():
        raise UsageError("Empty query", hint='send {"query": "what to look for"}')
    if not 1 <= body.top_k <= 200:
        raise UsageError("topK must be between 1 and 200")
    scope = [_anchor(api.host, p) for p in [*body.source_paths, *([body.source_path] if body.source_path else [])]]
    return {"scope": scope, "top_k": body.top_k, "mode": body.mode, "rerank": body.rerank}


def search(api: Api, body: QueryRequest) -> tuple[int, Any]:
    found = api.host.search(body.query, **_query_args(api, body))
    return 200, viewerlinks.search_with_viewer_urls(found, api.url or None)


def query(api: Api, body: QueryRequest) -> tuple[int, Any]:
    answer = api.host.ask(body.query, **_query_args(api, body))
    return 200, viewerlinks.answer_with_viewer_urls(answer, api.url or None)


def open_reference(api: Api, body: OpenReferenceRequest) -> tuple[int, Any]:
    _check_workspace(api.host, body)
    citation = body.citation_id.strip()
    if not citation:
        raise UsageError("Empty citationId")
    return 200, viewerlinks.plan_with_viewer_urls(api.host.open(citation), api.url or None)


def delete_source(api: Api, body: DeleteSourceRequest) -> tuple[int, Any]:
    _check_workspace(api.host, body)
    return 200, DeleteResponse(entries=api.host.delete(_paths(api.host, body.source_paths, body.source_path)))


def prune_registry(api: Api, body: PruneRequest) -> tuple[int, Any]:
    _check_workspace(api.host, body)
    report = api.host.prune_report(keep_failed=body.keep_failed)
    return 200, PruneResponse(removed=report["removed"], by_kind=report["byKind"], kept_failed=report["keptFailed"],
                              deletes_waiting=report["deletesWaiting"], kept_deleted=report["keptDeleted"])


def sync(api: Api, body: SyncRequest) -> tuple[int, Any]:
    _check_workspace(api.host, body)
    if not 0 <= body.wait_s <= 60:
        raise UsageError("waitS must be between 0 and 60 seconds", hint="call again to follow longer")
    from mnote_kr.sync.busy import send_refused

    result = {"provider": api.host.sync(wait_s=body.wait_s, wait_idle=False)}  # a bounded answer
    # The CLI's busy step, bounded by the request: a plain call does not block on a busy LightRAG (the
    # caller's waitS says how long it may), it names what was not sent and why.
    send_refused(api.host, result, asked_wait_s=body.wait_s, wait_s=0.0)
    return 200, SyncResponse(provider=msgspec.convert(result["provider"], SyncProvider))


def roots_list(api: Api, body: None) -> tuple[int, Any]:
    return 200, RootsResponse(indexed_roots=api.host.roots_list())


def roots_add(api: Api, body: RootAddRequest) -> tuple[int, Any]:
    _check_workspace(api.host, body)
    raw = body.root_relative_path or "."
    root = api.host.roots_add(
        _anchor(api.host, raw), recursive=body.recursive, exclude=body.exclude_patterns,
        run_on_change=body.run_on_change,
    )
    if root.run_on_change:  # following turned on: what waited is indexed now, as 'roots add' does
        from mnote_kr.sync.reconcile import follow_waiting

        follow_waiting(api.host, root.root_relative_path)
    return 200, root


def roots_remove(api: Api, body: RootRemoveRequest) -> tuple[int, Any]:
    _check_workspace(api.host, body)
    return 200, api.host.roots_remove(_anchor(api.host, body.root_relative_path or "."))


def plugins(api: Api, body: None) -> tuple[int, Any]:
    loaded = api.host.plugins
    try:
        table = loaded.locator_table()
    except MnoteKrError as exc:
        table = {"error": exc.message}
    all_plugins = "all" in api.query and api.query["all"][-1] not in ("0", "false", "")
    return 200, PluginsResponse(plugins=loaded.describe(include_builtin=all_plugins), provider=loaded.provider_name,
                                locators=table)


def job(api: Api, body: None) -> tuple[int, Any]:
    view = api.jobs.get(api.params["id"])
    if view is None:
        raise NotFoundError(f"No job {api.params['id']}", hint="jobs are kept until 100 newer ones finished")
    return 200, view


def job_events(api: Api, body: None) -> tuple[int, Any]:
    view = api.jobs.get(api.params["id"])
    if view is None:
        raise NotFoundError(f"No job {api.params['id']}", hint="jobs are kept until 100 newer ones finished")
    return 200, view  # the server streams from here on


class SignInRequest(Request, kw_only=True):
    """``POST /api/web/sign-in``: the page of the web UI the browser should land on."""

    path: str = "/"


class SignInResponse(msgspec.Struct, kw_only=True, rename="camel"):
    url: str
    expires_in_s: float


def web_sign_in(api: Api, body: SignInRequest) -> tuple[int, Any]:
    from mnote_kr.viewer import web

    if api.server is None:
        raise UsageError("No web UI on this server")
    return 200, SignInResponse(url=web.entry_url(api.server, body.path),
                               expires_in_s=web.state(api.server).codes.ttl_s)


def openapi(api: Api, body: None) -> tuple[int, Any]:
    from mnote_kr.server.openapi import openapi_document

    return 200, openapi_document(ROUTES)


ROUTES: tuple[Route, ...] = (
    Route("GET", "/api/health", health, "Liveness; the only route without the token.", response=HealthResponse,
          auth=False),
    Route("GET", "/api/openapi.json", openapi, "This OpenAPI 3.1 document.", response=dict[str, Any]),
    Route("GET", "/api/knowledge-rag/status", status,
          "Registry counts, provider health and rerank configuration, unmapped documents (as `status --json`).",
          response=dict[str, Any]),
    Route("POST", "/api/knowledge-rag/ingest", ingest,
          "Index files or folders in place. With `wait`, answers 202 and a job to poll.",
          request=IngestRequest, response=IngestReport, extra_status=(202,)),
    Route("POST", "/api/knowledge-rag/query", query, "Answer with citations (agent_query_result.v1).",
          request=QueryRequest, response=AgentQueryResult),
    Route("POST", "/api/knowledge-rag/search", search, "Citations only (search_results.v1).",
          request=QueryRequest, response=SearchResults),
    Route("POST", "/api/knowledge-rag/open-reference", open_reference, "How to open a citation.",
          request=OpenReferenceRequest, response=OpenPlan),
    Route("POST", "/api/knowledge-rag/delete-source", delete_source,
          "Remove sources' derived index (never the files).", request=DeleteSourceRequest, response=DeleteResponse),
    Route("POST", "/api/knowledge-rag/prune-registry", prune_registry,
          "Drop deleted, stale and failed registry records (never pending deletes), said by kind; a failed "
          "file still in a root is then new again and the next sync sends it again (keepFailed: keep those "
          "records).",
          request=PruneRequest, response=PruneResponse),
    Route("POST", "/api/knowledge-rag/sync", sync,
          "Retry queued work and follow submitted work and deletes (as `sync --no-disk --json`).",
          request=SyncRequest, response=SyncResponse),
    Route("GET", "/api/knowledge-rag/roots", roots_list, "List indexed roots.", response=RootsResponse),
    Route("POST", "/api/knowledge-rag/roots", roots_add, "Add (or update) an indexed root.",
          request=RootAddRequest, response=IndexedRoot),
    Route("POST", "/api/knowledge-rag/roots/remove", roots_remove,
          "Stop treating a folder as an indexed root (its files stay untouched).",
          request=RootRemoveRequest, response=IndexedRoot),
    Route("GET", "/api/plugins", plugins, "Plugins with version, origin, hooks and load errors (`?all=1`: built-ins).",
          response=PluginsResponse),
    Route("POST", "/api/web/sign-in", web_sign_in,
          "A one-time URL (single use, seconds-lived) that signs a browser in to the web UI at `path`.",
          request=SignInRequest, response=SignInResponse),
    Route("GET", "/api/jobs/{id}", job, "A background job: status, progress lines, result or error.",
          response=JobView),
    Route("GET", "/api/jobs/{id}/events", job_events,
          "A job's progress as server-sent events (`progress`, then one `done`); resumable with Last-Event-ID.",
          stream=True),
)
