"""CLI commands this plugin adds to ``mnote-kr``: ``engine start|stop|status|reembed`` and ``demo``.

They arrive through the host's ``register_commands`` hook, so the host itself knows
nothing about LightRAG or its managed engine.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import click
import msgspec

from mnote_kr.plugin_api import MnoteKrError, emit_json, load_config, paths

DEMO_QUERIES = ("capacity of cell B2", "吡咯烷", "blade heating power loss", "morpholine storage")


def _engine_config() -> dict[str, Any]:
    section = load_config(None).get("providers", {}).get("lightrag", {})
    engine = section.get("engine", {}) if isinstance(section, dict) else {}
    return engine if isinstance(engine, dict) else {}


def _public(info: Any) -> dict[str, Any]:
    """Engine info for ``--json``: camelCase keys, as everywhere on the wire, and no API key."""
    data = msgspec.to_builtins(info)
    data.pop("api_key", None)
    return {_camel(key): value for key, value in data.items()}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def start(quiet: bool = False) -> Any:
    from .engine.managed import default_engine_dirs, engine_status, start_engine
    from .engine.tiktoken_cache import REQUIRED, is_valid

    cfg = _engine_config()
    dirs = default_engine_dirs()
    if not quiet and engine_status(dirs["state_dir"]) is None:
        # Say "builds the tokenizer cache" only when this start will build it.
        building = not is_valid(Path(dirs["cache_dir"]) / "tiktoken", REQUIRED)
        click.echo("Starting the managed LightRAG engine"
                   + (" (first start: building the tokenizer cache)" if building else "") + "...", err=True)
    return start_engine(data_dir=dirs["data_dir"], state_dir=dirs["state_dir"], cache_dir=dirs["cache_dir"],
                        llm=cfg.get("llm"), embedding=cfg.get("embedding"), port=cfg.get("port"),
                        embedder=cfg.get("embedder"))


def engine_status_text(info: Any) -> str:
    """``engine status`` for people: where it runs, whether it answers, its processes (no Python values)."""
    health = "healthy" if info.healthy else "not answering /health (see its log: " + (info.server_log or "?") + ")"
    processes = ", ".join(f"{role} pid {pid}" for role, pid in sorted(info.pids.items()))
    models = "offline model service" if info.offline_models else "configured endpoints"
    return f"Running at {info.url} ({models}), {health}; processes: {processes or 'none recorded'}"


def left_running_text(left: list[Any]) -> str:
    """``engine status`` when the shared server is not running but workspaces' servers are (``left``)."""
    servers = "; ".join(f"{Path(w.run_dir).parent.name} at {w.url} (" +
                        ", ".join(f"{role} pid {pid}" for role, pid in sorted(w.pids.items())) + ")" for w in left)
    return (f"The managed engine's shared server is not running, but {len(left)} workspace server(s) it started "
            f"still run: {servers}; 'mnote-kr engine stop' stops them")


def _workspace_server_line(workspace: str | None) -> str | None:
    """Where this workspace's own LightRAG server runs (each workspace gets one on first use), or
    that it starts on first use; None outside a workspace."""
    from mnote_kr.plugin_api import MNOTE_DIR, find_workspace

    from .client import naming
    from .client.workspaces import PREFIX
    from .engine.managed import engine_status, workspace_state_dir

    try:
        root = Path(workspace).expanduser().resolve() if workspace else find_workspace()
    except (OSError, MnoteKrError):
        return None
    if not (root / MNOTE_DIR).is_dir():
        return None
    name = PREFIX + naming.workspace_tag(root)
    own = engine_status(workspace_state_dir(paths.state_dir(), name))
    if own is None:
        return f"This workspace ({root}): its own server starts on first use (ingest, search, status)"
    models = (" (on the engine's model service)" if own.shared_models_pid
              else f" (model service pid {own.pids['models']})" if own.pids.get("models") else "")
    return f"This workspace ({root}): its own server at {own.url}{models}, " + ("healthy" if own.healthy else
                                                                               "not answering /health")


def reembed(workspace: str | None, *, wait_s: float = 600.0,
            progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Rebuild the managed engine's index with the current embedder, then re-ingest this workspace.

    When the index was built by another embedder, the engine is stopped and its LightRAG storage
    is set aside (kept, never deleted); the input dir of links stays. Then every registered file
    of the workspace is ingested again through the normal path (``force``: LightRAG's old entry is
    deleted with ``delete_file=false`` first). The user's files are only read. ``progress`` gets
    the ingest's lines (sent, indexed, embedding places), as ``mnote-kr ingest`` prints them.
    """
    from mnote_kr.plugin_api import Host

    from .engine.indexrecord import check_index_embedder, endpoint_record, resolve_embedder, set_index_aside
    from .engine.managed import default_engine_dirs, stop_engine

    cfg = _engine_config()
    dirs = default_engine_dirs()
    record = (endpoint_record(cfg["embedding"]) if cfg.get("embedding")
              else resolve_embedder(cfg.get("embedder")).record())
    moved: Path | None = None
    try:
        check_index_embedder(dirs["data_dir"] / "engine", record)
    except MnoteKrError:
        stop_engine(dirs["state_dir"])
        moved = set_index_aside(dirs["data_dir"])
    host = Host(workspace, progress=progress)
    # An index kept in an older vector storage (storage.py) is rebuilt in the default one.
    moved = set_storage_aside(dirs["data_dir"], dirs["state_dir"], host.root) or moved
    info = start(quiet=True)
    paths_ = sorted(e.source_root_relative_path for e in host.registry().entries.values()
                    if e.status not in ("delete_submitted", "delete_completed") and not e.stale)
    report = host.ingest(paths_, force=True, wait=True, wait_s=wait_s) if paths_ else None
    return {"embedder": info.embedder, "previousIndex": str(moved) if moved else None,
            "files": len(paths_), "report": msgspec.to_builtins(report) if report else None}


def set_storage_aside(data_dir: Path, state_dir: Path, root: Path) -> Path | None:
    """Stop this workspace's engine and move its namespace aside when it does not use the default
    vector storage; return where it went (kept, never deleted), or None when nothing moved."""
    from .client import naming
    from .client.workspaces import PREFIX
    from .engine import storage
    from .engine.managed import stop_engine, workspace_state_dir

    name = PREFIX + naming.workspace_tag(root)
    space = storage.namespace_dir(Path(data_dir) / "engine" / "rag_storage", name)
    if not space.is_dir() or (storage.recorded(space) or storage.detect(space) or storage.DEFAULT) == storage.DEFAULT:
        return None
    stop_engine(workspace_state_dir(state_dir, name))
    target = Path(data_dir) / "engine" / f"{name}.replaced-{time.strftime('%Y%m%d-%H%M%S')}"
    space.rename(target)
    return target


def register(cli: click.Group) -> None:
    """Add ``engine`` and ``demo`` to the CLI group."""
    if "engine" in cli.commands:
        return

    @cli.group()
    def engine() -> None:
        """The managed local LightRAG server (offline models unless configured)."""

    @engine.command("start")
    @click.option("--json", "as_json", is_flag=True)
    @click.pass_context
    def engine_start(ctx: click.Context, as_json: bool) -> None:
        """Start it (or show the one already running)."""
        info = start(quiet=as_json)
        if as_json:
            emit_json(_public(info))
        else:
            models = "offline model service" if info.offline_models else "configured endpoints"
            # The URL is the engine's shared server: a workspace is served by a server of its own
            # (docs/workspaces.md), so say which one a folder uses, or that it starts on first use.
            click.echo(f"LightRAG engine running ({models}); shared server at {info.url}, input dir {info.input_dir}")
            click.echo(_workspace_server_line(getattr(ctx.find_root().obj, "workspace", None))
                       or "Each workspace gets a LightRAG server of its own on first use (ingest, search, status); "
                          "'mnote-kr engine status' in its folder shows it")
            if info.storage_note:
                click.echo(f"Note: {info.storage_note}", err=True)

    @engine.command("stop")
    @click.option("--json", "as_json", is_flag=True)
    def engine_stop(as_json: bool) -> None:
        """Stop the processes it started (and only those)."""
        from .engine.managed import stop_engine

        pids = stop_engine(paths.state_dir())
        if as_json:
            emit_json({"stopped": pids})
        else:
            click.echo(f"Stopped {len(pids)} process(es)" if pids else "No managed engine was running")

    @engine.command("reembed")
    @click.option("--timeout", type=float, default=600.0, show_default=True, help="Seconds to wait for indexing.")
    @click.option("--json", "as_json", is_flag=True)
    @click.pass_context
    def engine_reembed(ctx: click.Context, timeout: float, as_json: bool) -> None:
        """Embed every registered file of this workspace again with the current embedder."""
        from mnote_kr.plugin_api import progress_writer

        workspace = getattr(ctx.find_root().obj, "workspace", None)
        out = reembed(workspace, wait_s=timeout,
                      progress=None if as_json else progress_writer())
        if as_json:
            emit_json(out)
            return
        if out["previousIndex"]:
            click.echo(f"The old index was set aside at {out['previousIndex']} (delete it when satisfied)")
        from mnote_kr.plugin_api import counts_text

        counts = counts_text((out["report"] or {}).get("counts", {})) or "nothing to send"
        click.echo(f"Re-embedded {out['files']} registered file(s) with {out['embedder']['name']}: {counts}")

    @engine.command("status")
    @click.option("--json", "as_json", is_flag=True)
    @click.pass_context
    def engine_status_cmd(ctx: click.Context, as_json: bool) -> None:
        """Is it running, where, and healthy?"""
        from .engine.managed import engine_status, running_workspace_engines

        info = engine_status(paths.state_dir())
        # Never denies what runs: a workspace's server left running without the shared one is named.
        left = running_workspace_engines(paths.state_dir()) if info is None else []
        if as_json:
            emit_json({"running": info is not None, **(_public(info) if info else {}),
                       **({"workspaceServers": [_public(w) for w in left]} if left else {})})
        elif info is None:
            click.echo(left_running_text(left) if left else "No managed engine is running ('mnote-kr engine start')")
        else:
            click.echo(engine_status_text(info))
            line = _workspace_server_line(getattr(ctx.find_root().obj, "workspace", None))
            if line:
                click.echo(line)

    @cli.command()
    @click.option("--keep", is_flag=True, help="Leave the engine running and keep the demo workspace.")
    @click.option("--json", "as_json", is_flag=True)
    def demo(keep: bool, as_json: bool) -> None:
        """Offline end to end: start the engine, ingest sample files, search, show citations."""
        run_demo(keep=keep, as_json=as_json)


def run_demo(*, keep: bool = False, as_json: bool = False) -> dict[str, Any]:
    from mnote_kr.plugin_api import Host

    from .engine.managed import engine_status, stop_engine

    def say(message: str) -> None:
        if not as_json:
            click.echo(message)

    was_running = engine_status(paths.state_dir()) is not None
    workspace = Path(tempfile.mkdtemp(prefix="mnote-kr-demo-"))
    out: dict[str, Any] = {"workspace": str(workspace), "searches": []}
    try:
        samples = workspace / "samples"
        source = resources.files("mnote_kr_lightrag") / "demo_data"
        with resources.as_file(source) as src:
            shutil.copytree(src, samples)
        say(f"Demo workspace: {workspace} (sample files copied there; your own files are not used)")
        t0 = time.monotonic()
        info = start(quiet=as_json)
        say(f"Engine ready at {info.url} in {time.monotonic() - t0:.1f} s "
            f"({'offline models: no LLM, citations only' if info.offline_llm else 'configured LLM'})")
        host = Host(workspace, progress=None if as_json else (lambda m: click.echo("  " + m, err=True)))
        host.roots_add("samples")
        report = host.ingest(["samples"], wait=True, wait_s=180)
        out["ingest"] = msgspec.to_builtins(report)
        for item in report.items:
            say(f"  {item.status:<10} {item.source_path}")
        if any(item.status != "processed" for item in report.items):
            raise MnoteKrError("Demo ingest did not finish: " + ", ".join(
                f"{i.source_path}={i.status}" for i in report.items if i.status != "processed"))
        for query in DEMO_QUERIES:
            result = host.search(query, top_k=5)
            out["searches"].append(msgspec.to_builtins(result))
            say(f"\nsearch {query!r}: {len(result.results)} citation(s)")
            say(demo_search_text(result))
        if not any(s["results"] for s in out["searches"]):
            raise MnoteKrError("Demo searches returned no citations")
        if as_json:
            emit_json(out)
        else:
            click.echo(demo_finished_text())
    finally:
        if not keep and not was_running:
            stop_engine(paths.state_dir())
        if not keep:
            shutil.rmtree(workspace, ignore_errors=True)
        sys.stdout.flush()
    return out


#: What to run next, after the demo: the README's "Use" section gives the same commands in the same order
#: (``tests/test_demo_next_steps.py`` holds them together). nc30a: the demo ended without a next command.
NEXT_STEPS = (
    ("cd ~/papers", "any folder of yours"),
    ("mnote-kr engine start", "the managed local LightRAG"),
    ("mnote-kr roots add .", "mark the folder as a knowledge base"),
    ("mnote-kr ingest . --wait", "index its files"),
    ('mnote-kr search "your question"', "citations into your own files"),
)


def demo_finished_text() -> str:
    """The demo's last lines: what it showed, then the commands that index the person's own folder."""
    width = max(len(cmd) for cmd, _ in NEXT_STEPS) + 2
    steps = "\n".join(f"  {cmd:<{width}}# {why}" for cmd, why in NEXT_STEPS)
    return ("\nDemo finished: every citation above points into the sample files, with its precision."
            "\nNext, index a folder of your own:\n" + steps)


def demo_search_text(result: Any) -> str:
    """One demo search for a person, as plain ``search`` prints it (``card_split``: the cards read whole, then the
    weaker ones named one line each and the rest counted), each whole card with its locator and why. nc27a: the demo
    printed its first three citations whole, unrelated files among them with "(approximate)" places, the first
    thing a newcomer sees."""
    from mnote_kr.plugin_api import card_split, locator_text, source_card, weak_line

    whole, lines = card_split(result.results, weak=result.weak)
    out = [weak_line(result.weak_reason)] if result.weak and result.results else []
    for citation in whole:
        loc = citation.locator
        out += [source_card(citation), f"    locator: {locator_text(loc)} ({loc.reason or 'matched'})"]
    return "\n".join(out + lines)

