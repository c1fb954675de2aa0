"""Long-running commands: ``watch``, ``serve`` and ``mcp`` (their modules load only when used)."""

from __future__ import annotations

import click

from mnote_kr.cli.reports import Ctx

pass_ctx = click.make_pass_decorator(Ctx)


def register(cli: click.Group) -> None:
    """Add ``watch``, ``serve`` and ``mcp`` to the group (once)."""
    if "watch" in cli.commands:
        return

    @cli.command()
    @click.option("--debounce", type=float, default=1.0, show_default=True, help="Quiet seconds before acting.")
    @click.option("--no-reconcile", is_flag=True, help="Skip the start-up reconcile with the disk.")
    @pass_ctx
    def watch(obj: Ctx, debounce: float, no_reconcile: bool) -> None:
        """Watch the indexed roots and keep the index in sync until Ctrl-C."""
        from mnote_kr.sync.watchcli import run_watch

        run_watch(obj.host(progress=True), debounce_s=debounce, reconcile=not no_reconcile)

    @cli.command()
    @click.option("--port", type=int, default=0, help="Port (default: a free one).")
    @click.option("--host", "bind", default="127.0.0.1", show_default=True, help="Address to bind.")
    @click.option("--allow-non-loopback", is_flag=True, help="Really bind a non-loopback address.")
    @click.option("--cors-origin", multiple=True, help="Origin allowed by CORS (repeatable).")
    @pass_ctx
    def serve(obj: Ctx, port: int, bind: str, allow_non_loopback: bool, cors_origin: tuple[str, ...]) -> None:
        """Serve the loopback HTTP API for desktop shells."""
        from mnote_kr.server.app import run_server

        run_server(obj.host(), port=port, bind=bind, allow_non_loopback=allow_non_loopback,
                   cors_origins=list(cors_origin))

    @cli.command()
    @click.option("--http", "use_http", is_flag=True, help="Streamable HTTP on 127.0.0.1 instead of stdio.")
    @click.option("--port", type=int, default=0, help="Port for --http (default: a free one).")
    @click.option("--allow-writes", is_flag=True, help="Also offer ingest, delete and prune as agent tools.")
    @pass_ctx
    def mcp(obj: Ctx, use_http: bool, port: int, allow_writes: bool) -> None:
        """Serve the knowledge tools to agents over MCP (stdio by default)."""
        from pathlib import Path

        from mnote_kr.agents.library import agent_workspace
        from mnote_kr.agents.mcp_server import run_http, run_stdio
        from mnote_kr.app.host import Host

        host = Host(agent_workspace(obj.workspace, Path.cwd()))
        try:
            if use_http:
                run_http(host, port=port, allow_writes=allow_writes)
            else:
                run_stdio(host, allow_writes=allow_writes)
        except KeyboardInterrupt:  # Ctrl-C is how a server is stopped: exit 0, as 'serve' and 'watch' do
            pass
