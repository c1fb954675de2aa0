"""One managed engine, many workspaces: a LightRAG storage namespace per workspace.

LightRAG 1.5.7 keys every storage (documents, chunks, vectors, graph, doc status) and its input
dir by ``WORKSPACE``, but one ``lightrag-server`` process serves one workspace: the
``LIGHTRAG-WORKSPACE`` request header is read only by ``/health``; the document and query
routes are bound to the single ``LightRAG`` instance built at start-up. And it de-duplicates by
content hash across everything it stores, so one namespace cannot hold the same file for two
workspaces. So the managed engine runs one server per mnote-kr workspace, started on demand
the first time the workspace needs it, sharing the engine's working and input dirs (each under
its own ``<dir>/mnote_<tag>/``). ``mnote-kr engine start`` starts the engine's own server;
``engine stop`` stops it and every workspace's. See docs/workspaces.md.

A workspace's server starts on demand only while the shared engine runs: never once a stop has begun on
it (:func:`shared_now`), so work that was under way when the user stopped the engine ends with one line
saying so and starts nothing behind their back. What tells the two apart is the stop's own record
(``engine/managed.py``: STOPPED_FILE), written before the stop signals anything and removed by the next start.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from mnote_kr.plugin_api import ProviderContext

from ..engine.managed import (
    EngineInfo,
    engine_status,
    read_state,
    start_engine,
    stop_engine,
    stopped_record,
    workspace_state_dir,
)
from . import links, naming
from .enginegone import engine_not_running
from .http import EngineNotStartedError, EngineStoppedError, LightRagClient

#: While this workspace's LightRAG server starts, a line says for how long this often (it took 6.6 s on a
#: loaded machine with nothing said: nc18a).
START_HEARTBEAT_S = 4.0

#: LightRAG sanitises a workspace name to ``[A-Za-z0-9_]``; ours already is.
PREFIX = "mnote_"


def lightrag_workspace(ctx: ProviderContext) -> str:
    """The LightRAG ``WORKSPACE`` of this mnote-kr workspace: ``mnote_<8 hex>``."""
    return PREFIX + naming.workspace_tag(ctx.workspace_root)


def workspace_engine(ctx: ProviderContext, shared: EngineInfo) -> EngineInfo:
    """This workspace's engine: the running one, else started now with the shared engine's models
    (``EngineNotStartedError`` instead when the context may not start it).

    Its server uses the shared engine's offline model service when that one serves the same
    embedder (``engine/modelshare.py``); one left on a model service that is no longer the shared
    engine's is stopped and started again (``engine_status`` already stops one whose service died).
    On the first start, documents this workspace indexed in the shared namespace before
    namespaces existed are carried over without re-embedding (:func:`migrate_legacy`).
    """
    name = lightrag_workspace(ctx)
    state_dir = workspace_state_dir(ctx.state_dir, name)
    info = _current(state_dir, shared)
    if info is not None and info.healthy:
        return info
    if not ctx.may_start:  # a report (status of a workspace with no files): ~0.5 GB is no price for it
        raise EngineNotStartedError()
    from filelock import FileLock  # only to start one: a running engine is the common case

    with FileLock(str(Path(ctx.state_dir) / f"{name}.migrate.lock"), timeout=120):
        info = _current(state_dir, shared)
        if info is not None and info.healthy:
            return info
        shared = shared_now(ctx, shared)
        kept = prepare_legacy(shared, name, Path(ctx.workspace_root))
        info = _start(ctx, shared, name, state_dir)
        if kept is not None:
            drop_foreign_documents(ctx, info, kept)
        return info


def shared_now(ctx: ProviderContext, shared: EngineInfo) -> EngineInfo:
    """The shared engine as recorded now, for this workspace's server to start beside it (``shared``: as the
    caller found it a moment ago). Raises ``EngineStoppedError`` when a stop has begun on it or ended it (a
    stop the user asked for wins over work that was under way), else the settings' error when none runs."""
    now = read_state(ctx.state_dir)
    stopped = stopped_record(ctx.state_dir)
    if stopped is not None and (now is None or stopped.get("startedAt") == now.started_at):
        ours = stopped.get("startedAt") == shared.started_at  # the very engine this work started with
        raise EngineStoppedError(stopped, "this work" if ours else None)
    if now is None:
        raise engine_not_running(ctx)
    return now


def _current(state_dir: Path, shared: EngineInfo) -> EngineInfo | None:
    """The workspace's running engine, or None; stopped first if it borrowed a model service that is
    not the shared engine's any more (the system gave the old service's PID to a new one)."""
    from ..engine.modelshare import borrows_from

    info = engine_status(state_dir)
    if info is not None and info.shared_models_pid and not borrows_from(info, shared):
        stop_engine(state_dir)
        return None
    return info


def prepare_legacy(shared: EngineInfo, name: str, root: Path) -> set[str] | None:
    """Before a workspace's first start: copy the shared namespace if it holds our documents.

    Our legacy documents are those whose link (in the shared input dir or its ``__parsed__/``)
    points inside ``root``. The shared namespace's storage files (JSON key-value stores,
    vector files, graph) are copied into ``<working_dir>/<name>/`` so their chunks and vectors
    are reused as they are; our links and sidecars move to ``<input_dir>/<name>/``. Returns the
    names kept (the caller then deletes every other document from the copy), or None when there
    is nothing to migrate (the namespace exists already, or none of the documents is ours).
    """
    working, inputs = Path(shared.working_dir), Path(shared.input_dir)
    target = working / name
    if target.exists() or not working.is_dir():
        return None
    owned: set[str] = set()
    for directory in (inputs, inputs / links.PARSED_DIR):
        try:
            candidates = [p for p in directory.iterdir() if p.is_symlink() and naming.is_our_name(p.name)
                          and naming.workspace_of(p.name) is None]
        except OSError:
            continue
        for path in candidates:
            if links.owns_legacy(inputs, path.name, root):
                owned.add(path.name)
    if not owned:
        return None
    import shutil  # only for this one-time migration: status and search run through this module

    staging = working / f".{name}.migrating"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True, mode=0o700)
    for item in working.iterdir():
        if item.is_file() and not item.name.startswith("."):
            shutil.copy2(item, staging / item.name)
    staging.rename(target)  # all or nothing: a half-copied namespace is never started
    ns_inputs = inputs / name
    for rel in ("", links.PARSED_DIR):  # links waiting at the top, and processed ones with sidecars
        (ns_inputs / rel).mkdir(parents=True, exist_ok=True, mode=0o700)
        for link in owned:
            for entry in (link, f"{link}.parsed"):
                src = inputs / rel / entry
                if src.is_symlink() or src.exists():
                    os.replace(src, ns_inputs / rel / entry)
    return owned


def drop_foreign_documents(ctx: ProviderContext, info: EngineInfo, kept: set[str]) -> None:
    """Delete from a freshly migrated namespace every document that is not ours (index only)."""
    with LightRagClient(ctx, info.url, info.api_key) as client:
        rows, _ = client.all_documents()
        foreign = [str(r["id"]) for r in rows if str(r.get("file_path") or "") not in kept and r.get("id")]
        if foreign:
            ctx.progress(f"migration: removing {len(foreign)} other workspaces' documents from this namespace")
            client.delete_documents(foreign)


def _start(ctx: ProviderContext, shared: EngineInfo, name: str, state_dir: Path) -> EngineInfo:
    section = ctx.config.get("engine")
    engine_cfg: dict[str, Any] = section if isinstance(section, dict) else {}
    ctx.progress(f"note: starting this workspace's LightRAG engine ({name}), a few seconds the first time")
    # The shared engine's data dir (working dir = <data_dir>/engine/rag_storage): same tree, own namespace.
    data_dir = Path(shared.working_dir).parent.parent if shared.working_dir else ctx.data_dir
    from mnote_kr.plugin_api import repeating

    started = time.monotonic()
    with repeating(lambda: ctx.progress(f"starting this workspace's LightRAG engine ({name}): "
                                        f"{time.monotonic() - started:.0f} s so far"), START_HEARTBEAT_S):
        info = start_engine(data_dir=data_dir, state_dir=state_dir, cache_dir=ctx.cache_dir,
                            llm=engine_cfg.get("llm"), embedding=engine_cfg.get("embedding"),
                            # the shared engine's offline embedder: one index, one embedder
                            embedder=engine_cfg.get("embedder") or (shared.embedder or {}).get("name"),
                            parser_rules=shared.parser_rules or None, workspace=name, models_from=shared,
                            # checked again under this server's lock: a stop that began meanwhile wins
                            go_ahead=lambda: shared_now(ctx, shared))
    if info.storage_note:
        ctx.progress(info.storage_note)
    return info
