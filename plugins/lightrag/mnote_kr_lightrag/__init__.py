"""mnote-kr provider plugin for LightRAG 1.5.x over HTTP.

Registered through the ``mnote_kr`` entry-point group as ``lightrag``. The hooks are
thin: the work lives in ``provider`` (ingest, delete), ``statusreport`` (status), ``syncing`` (the status
bridge), ``querying`` (query and streaming answers) and ``mapping`` (reference → entry
→ sidecar block). ``engine`` runs a managed local LightRAG.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec

from mnote_kr.plugin_api import (
    EntryUpdate,
    MappedReference,
    ProviderContext,
    ProviderError,
    ProviderQueryResult,
    ProviderReference,
    ProviderStatus,
    QueryRequest,
    ReadingCheck,
    SourceEntry,
    SourceFile,
    hookimpl,
)

# The work modules load inside the hooks that need them: `mnote-kr --help` and
# `roots list` load this plugin (for its commands) without httpx or the mapping code.

__all__ = ["PROVIDER", "StreamEvent", "stream_answer"]


def __getattr__(name: str) -> Any:
    if name in ("StreamEvent", "stream_answer"):
        from .client import querying

        return getattr(querying, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

PROVIDER = "lightrag"
_INPUT_DIR_TTL_S = 10.0
_input_dirs: dict[tuple[str, str, str, int], tuple[float, Path | None]] = {}


def _mine(ctx: ProviderContext) -> bool:
    return ctx.provider == PROVIDER


@hookimpl
def provider_names() -> list[str]:
    """This plugin provides ``lightrag``."""
    return [PROVIDER]


@hookimpl
def ingest(ctx: ProviderContext, sources: list[SourceFile], force: bool) -> list[EntryUpdate] | None:
    """Symlink sources into LightRAG's input dir under unique names and scan; see ``provider``."""
    from .client import provider as _provider

    if not _mine(ctx):
        return None
    from mnote_kr.plugin_api import crosslang

    crosslang.prepare()  # the dictionary of questions in another language, parsed before a search needs it
    with _provider.LightRagProvider(ctx) as prov:
        return prov.ingest(sources, force)


@hookimpl
def unindexable(ctx: ProviderContext, paths: list[str]) -> dict[str, str] | None:
    """Files LightRAG does not index, by suffix: its scan's types, plus images (wrapped)."""
    from .client import filetypes

    if not _mine(ctx):
        return None
    return filetypes.unindexable(ctx, paths)


@hookimpl
def sync(ctx: ProviderContext, entries: list[SourceEntry], wait_s: float) -> list[EntryUpdate] | None:
    """Follow submitted work and retry pending work for at most ``wait_s`` seconds."""
    from .client import provider as _provider
    from .client import syncing as _syncing

    if not _mine(ctx):
        return None
    with _provider.LightRagProvider(ctx) as prov:
        return _syncing.run_sync(prov, entries, wait_s)


@hookimpl
def delete(ctx: ProviderContext, entries: list[SourceEntry]) -> list[EntryUpdate] | None:
    """Delete LightRAG's index for these entries (``delete_file=false``) and our links."""
    from .client import provider as _provider

    if not _mine(ctx):
        return None
    with _provider.LightRagProvider(ctx) as prov:
        return prov.delete(entries)


@hookimpl
def check_readings(ctx: ProviderContext, entries: list[SourceEntry], look: bool) -> ReadingCheck | None:
    """Which indexed files LightRAG holds by an older reading than mnote-kr sends now (``client/readings.py``)."""
    from .client import provider as _provider
    from .client import readings

    if not _mine(ctx):
        return None
    missing = readings.reader_missing(ctx, entries)  # a plugin's type whose plugin is gone: said, not re-read
    entries = [e for e in entries if e.source_root_relative_path not in missing] if missing else entries
    if not look and not readings.asks_server(entries):
        found = readings.check(None, entries, look, False)  # a report the server's answer cannot change
        return msgspec.structs.replace(found, reader_missing=missing) if missing else found
    try:
        with _provider.LightRagProvider(ctx) as prov:
            found = readings.check(prov, entries, look, readings.engine_reads_notes(prov),
                                   readings.engine_reads_comments(prov))
    except ProviderError:
        if look:
            raise
        # Not reachable for a report: counted from the records alone, as with a server that reads no notes.
        found = readings.check(None, entries, look, False)
    return msgspec.structs.replace(found, reader_missing=missing) if missing else found


@hookimpl
def provider_status(ctx: ProviderContext, entries: Sequence[SourceEntry]) -> ProviderStatus | None:
    """Health, rerank, documents by status and unmapped documents; raises ``ProviderError`` when down.
    This workspace's managed engine not running, with a context that may not start it, or the managed
    engine not started at all (no URL configured): says so, as "not started" rather than down."""
    from .client import provider as _provider
    from .client.http import EngineNotRunningError, EngineNotStartedError
    from .client.statusreport import provider_status as _status

    if not _mine(ctx):
        return None
    try:
        with _provider.LightRagProvider(ctx) as prov:
            return _status(prov, entries)
    except EngineNotStartedError as exc:
        return ProviderStatus(provider=PROVIDER, reachable=False, not_started=exc.message,
                              start_command=START_COMMAND, extra={"managedEngine": True})
    except EngineNotRunningError as exc:  # ``error`` kept as before for --json readers
        return ProviderStatus(provider=PROVIDER, reachable=False, error=exc.message,
                              not_started=EngineNotRunningError.NOT_STARTED, start_command=START_COMMAND,
                              extra={"managedEngine": True})


#: What starts the managed engine (``ProviderStatus.start_command``): the files it was indexing when it stopped
#: wait for it, then for a sync (nc27b: status said "1 being indexed" after 'mnote-kr engine stop').
START_COMMAND = "mnote-kr engine start"


@hookimpl
def query(ctx: ProviderContext, request: QueryRequest) -> ProviderQueryResult | None:
    """``/query/data`` references (one per chunk) and, when asked, the ``/query`` answer."""
    from .client import querying as _querying

    if not _mine(ctx):
        return None
    return _querying.run_query(ctx, request)


@hookimpl
def start_query(ctx: ProviderContext, request: QueryRequest) -> Callable[[], ProviderQueryResult] | None:
    """``query`` with ``/query/data`` sent from a thread: the host loads its pipeline meanwhile."""
    from .client import querying as _querying

    if not _mine(ctx):
        return None
    return _querying.start_query(ctx, request)


def _input_dir_for_mapping(ctx: ProviderContext) -> Path | None:
    # Keyed by what decides the answer, not by object identity: the host builds a new
    # context for every search, and an identity key missed every time (one extra HTTP
    # client, ~20 ms of TLS set-up, per search).
    from .client.settings import effective_input_dir, open_client, recent_settings

    key = (ctx.provider, repr(sorted(ctx.config.items())), str(ctx.state_dir), id(ctx.transport))
    hit = _input_dirs.get(key)
    now = time.monotonic()
    if hit is not None and now - hit[0] < _INPUT_DIR_TTL_S:
        return hit[1]
    try:
        settings = recent_settings(ctx)  # the search's query resolved them a moment ago
        if settings.input_dir is not None and (settings.workspace is not None or settings.from_engine):
            found = effective_input_dir(ctx, settings, None)
        else:
            with open_client(ctx, settings) as client:
                found = effective_input_dir(ctx, settings, client)
    except ProviderError:
        found = None
    if len(_input_dirs) > 256:
        _input_dirs.clear()
    _input_dirs[key] = (now, found)
    return found


@hookimpl
def map_reference(ctx: ProviderContext, reference: ProviderReference, entries: Mapping[str, SourceEntry],
                  query: str) -> MappedReference | None:
    """Reference → registry entry (by LightRAG file name, then doc id) → sidecar block."""
    from .client import mapping as _mapping

    if not _mine(ctx) or reference.provider not in (PROVIDER, ""):
        return None
    if _mapping._entry_for(reference, entries) is None:
        return None
    return _mapping.map_reference(ctx, reference, entries, query, _input_dir_for_mapping(ctx))


@hookimpl
def register_commands(cli: object) -> None:
    """``mnote-kr engine start|stop|status`` and ``mnote-kr demo``."""
    from .commands import register

    register(cli)  # type: ignore[arg-type]
