"""The LightRAG provider's ``status``: health, rerank configuration, document counts and what
LightRAG lists that no entry maps to (or what the registry has that LightRAG lost).

Split from ``provider`` (the lifecycle: ingest, delete): one ``LightRagProvider``'s settings and
client, read here; this module reads LightRAG and the registry's columns and changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mnote_kr.plugin_api import EntryColumns, ProviderStatus, SourceEntry

from . import crossquery, exposure, naming, searchwait
from . import interrupted as _interrupted
from . import provider as _p
from .docrows import as_dict
from .http import ProviderHTTPError
from .settings import cached_health


def provider_status(prov: _p.LightRagProvider, entries: Sequence[SourceEntry]) -> ProviderStatus:
    """Health, rerank configuration, document counts and unmapped LightRAG documents."""
    health = cached_health(prov.ctx, prov.client, refresh=True)
    warnings = exposure.probe(prov.client, id(prov.ctx.transport), remember_in=_engine_record(prov))
    configuration: dict[str, Any] = as_dict(health.get("configuration"))
    translate, translate_json = crossquery.status_line(prov.ctx, prov.settings.translate)
    try:
        rows, counts = prov.client.all_documents()
    except ProviderHTTPError as exc:
        if exc.status_code not in (401, 403):
            raise
        # Reachable, but the key is missing or wrong: report what /health said, and why.
        return ProviderStatus(provider=_p.PROVIDER, reachable=True, url=prov.settings.url, error=str(exc),
                              core_version=health.get("core_version"), api_version=health.get("api_version"),
                              pipeline_busy=health.get("pipeline_busy"),
                              webui_url=f"{prov.settings.url}/webui/" if health.get("webui_available") else None,
                              warnings=warnings, settings=[translate], extra={"translateQueries": translate_json})
    cols = _columns(entries)
    known_ids = set(cols.doc_ids)
    known_names = set(cols.names)
    # Another workspace's documents are neither ours nor "unmapped": they are only counted.
    foreign = [r for r in rows if naming.is_foreign(str(r.get("file_path") or ""), prov.ws)]
    rows = [r for r in rows if not naming.is_foreign(str(r.get("file_path") or ""), prov.ws)]
    if foreign:
        counts = {}  # LightRAG's counts include the other workspaces: count ours below
    unmapped = [{"docId": r.get("id"), "filePath": r.get("file_path"), "status": r.get("status")}
                for r in rows if r.get("id") not in known_ids and r.get("file_path") not in known_names]
    listed = {r.get("id") for r in rows}
    # Sent files LightRAG has processed while the registry, which hears it at the next sync, still records them
    # as being indexed: status counts them as the search does, citable (nc22b: "13 processed" beside "12 citable").
    done = [r for r in rows if str(r.get("status") or "").lower() == "processed"]
    done_ids, done_names = {r.get("id") for r in done}, {r.get("file_path") for r in done}
    indexed_unrecorded = [path for path, doc_id, name, live in zip(cols.paths, cols.doc_ids, cols.names, cols.live,
                                                                    strict=True)
                          if not live and ((doc_id and doc_id in done_ids) or (name and name in done_names))]
    # Sent, and left in flight by an engine that stopped mid-run: LightRAG is idle beside them (``interrupted``).
    stopped = _interrupted.interrupted(rows, health, _p.now_s())
    stopped_ids, stopped_names = {r.get("id") for r in stopped}, {r.get("file_path") for r in stopped}
    interrupted = [path for path, doc_id, name, live
                   in zip(cols.paths, cols.doc_ids, cols.names, cols.live, strict=True)
                   if not live and ((doc_id and doc_id in stopped_ids) or (name and name in stopped_names))]
    # Processed here but gone from LightRAG (e.g. a legacy name another workspace held):
    # 'mnote-kr ingest --force PATH' indexes it again.
    missing = [path for path, doc_id, live in zip(cols.paths, cols.doc_ids, cols.live, strict=True)
               if live and doc_id and doc_id not in listed]
    input_dir = prov.input_dir()
    rerank = {
        "enabled": configuration.get("enable_rerank"),
        "binding": configuration.get("rerank_binding"),
        "model": configuration.get("rerank_model"),
        "queue": health.get("rerank_queue_status", configuration.get("rerank_queue_status")),
    }
    extra: dict[str, Any] = {
        "authenticated": "configuration" in health,
        "inputDirVisible": bool(input_dir and input_dir.is_dir()),
        "pipelineActive": health.get("pipeline_active"),
        "pipelineScanning": health.get("pipeline_scanning"),
        "parserRouting": configuration.get("parser_routing"),
        "workspace": configuration.get("workspace", prov.settings.workspace),
        "managedEngine": prov.settings.from_engine,
        "workspaceTag": prov.ws,
        "otherWorkspacesDocuments": len(foreign),
        "missingFromIndex": missing[:50],
        "missingFromIndexCount": len(missing),
        "translateQueries": translate_json,
        # Of LightRAG's documents in flight, those its stopped run left so (by its status): not being indexed,
        # as the Documents line says them (nc27b read "1 processing" beside "Interrupted:" and "(idle)").
        "interruptedByStatus": _count(stopped, total=False),
    }
    if health.get("pipeline_busy"):  # what it indexes, which file of how many, since when (no ETA: none is told)
        what = prov.client.indexing()
        if what is not None:
            extra["indexing"] = searchwait.progress(what, searchwait.registry_names(cols)(what))
            extra["busyWith"] = extra["indexing"]["text"]
    return ProviderStatus(
        provider=_p.PROVIDER, reachable=True, url=prov.settings.url,
        core_version=health.get("core_version"), api_version=health.get("api_version"),
        pipeline_busy=health.get("pipeline_busy"), llm_model=configuration.get("llm_model"),
        embedding_model=configuration.get("embedding_model"), rerank=rerank,
        documents_by_status=counts or _count(rows), unmapped=unmapped,
        webui_url=f"{prov.settings.url}/webui/" if health.get("webui_available") else None,
        input_directory=str(input_dir) if input_dir else None,
        working_directory=health.get("working_directory") or prov.settings.working_dir, extra=extra,
        warnings=warnings, settings=[translate], indexed_unrecorded=indexed_unrecorded, interrupted=interrupted,
    )


def _engine_record(prov: _p.LightRagProvider) -> Path | None:
    """The managed engine's record of the server answering here (None for any other server)."""
    if not prov.settings.from_engine or prov.ctx.transport is not None or prov.settings.workspace is None:
        return None
    from ..engine.managed import STATE_FILE, workspace_state_dir

    return workspace_state_dir(prov.ctx.state_dir, prov.settings.workspace) / STATE_FILE


def _count(rows: Sequence[Mapping[str, Any]], *, total: bool = True) -> dict[str, int]:
    counts: dict[str, int] = {}
    for row in rows:
        status = str(row.get("status", "unknown"))
        counts[status] = counts.get(status, 0) + 1
    if total:
        counts["all"] = len(rows)
    return counts


def _columns(entries: Sequence[SourceEntry]) -> EntryColumns:
    """Paths, doc ids, names and liveness of every entry: from the host's columns when it
    offers them (no entry decoded), else read from the entries."""
    columns = getattr(entries, "columns", None)
    if callable(columns):
        found = columns()
        if isinstance(found, EntryColumns):
            return found
    return EntryColumns([e.source_root_relative_path for e in entries], [e.light_rag_doc_id for e in entries],
                        [e.light_rag_file_path for e in entries],
                        bytes(int(e.status == "processed" and not e.stale) for e in entries))
