"""The error of work that finds no managed engine: stopped while this process worked with it, stopped, or died.

Shared by ``settings`` (which resolves the engine for each call) and ``workspaces`` (which starts a workspace's
server only beside a running engine); ``USED`` is what tells a stop this process's work met from one before it.
"""

from __future__ import annotations

from mnote_kr.plugin_api import ProviderContext, ProviderError

from .http import EngineNotRunningError, EngineStoppedError

#: The managed engine (its ``started_at``) this process last worked with, by state dir: once a stop
#: has ended it, this process's work says that it was stopped, not that none runs (``engine_not_running``).
USED: dict[str, float] = {}


def engine_not_running(ctx: ProviderContext) -> ProviderError:
    """The error when no URL is configured and the managed engine does not run: stopped while this process
    worked with it, stopped, or died?"""
    start = "start it with 'mnote-kr engine start' (or set [providers.lightrag] url to your own LightRAG)"
    try:
        from ..engine.managed import died_record, stopped_record
    except ImportError:
        died = stopped = None
    else:
        died = died_record(ctx.state_dir)
        stopped = stopped_record(ctx.state_dir)
    if stopped is not None and stopped.get("startedAt") == USED.get(str(ctx.state_dir)):
        return EngineStoppedError(stopped)
    if died is not None:
        log = died.get("serverLog") or "the engine's server.out"
        return ProviderError(f"The managed LightRAG engine died: its server process {died.get('pid')} at "
                             f"{died.get('url')} exited without 'mnote-kr engine stop'",
                             hint=f"{start}; its last log is {log}")
    return EngineNotRunningError("The managed LightRAG engine is not running and no LightRAG URL is configured",
                                 hint=start)
