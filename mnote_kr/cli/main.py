"""The ``mnote-kr`` command line.

Every reporting command takes ``--json``. Errors are printed as one line
``Error: <message> (<hint>)`` at exactly one boundary (``main``), with exit code 1
(runtime) or 2 (usage). The plugin manager is built only when a command needs it, so a
broken plugin never breaks ``--help``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click

from mnote_kr.cli.boundary import DEFAULT_HINTS, echo, emit_json, error_line, guarded, json_error, wants_json
from mnote_kr.cli.fast import MODES
from mnote_kr.cli.reports import (
    COUNTING,
    Ctx,
    ask_report,
    roots_report,
    search_report,
    status_report,
)
from mnote_kr.cli.wsoption import accept_after
from mnote_kr.errors import MnoteKrError, RegistryError, UsageError

__all__ = ["cli", "command_path", "emit_json", "error_line", "main"]
#: The default hint of each error type (kept under this name for the tests that read it).
_DEFAULT_HINTS = DEFAULT_HINTS


pass_ctx = click.make_pass_decorator(Ctx)
json_option = click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")


def query_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``command`` with ``--scope``, ``--top-k`` and ``--mode``, as ``search`` and ``ask`` read a query."""
    top_k = "Number of citations returned (retrieval depth is [query] retrieval_top_k in the config)."
    for option in reversed((click.option("--scope", multiple=True, help="Only these files or folders (repeatable)."),
                            click.option("--top-k", type=int, default=20, show_default=True, help=top_k),
                            click.option("--mode", default="mix", show_default=True, type=click.Choice(MODES)))):
        command = option(command)
    return command


class _Group(click.Group):
    """Loads plugin-provided commands only when a command is looked up.

    ``--help`` lists them from a manifest on disk while it is current (``manifest``), so it
    loads no plugin; the manifest is rewritten whenever the plugins really register.
    """

    _plugins_added = False

    def _add_plugin_commands(self) -> None:
        if self._plugins_added:
            return
        self._plugins_added = True
        try:
            from mnote_kr.core.config import load_config
            from mnote_kr.plugins import load_plugins

            before = set(self.commands)
            load_plugins(load_config(None)).pm.hook.register_commands(cli=self)
        except Exception:  # noqa: BLE001 - plugin commands are optional; `plugins` shows failures
            return
        from mnote_kr.cli import manifest

        for name in set(self.commands) - before:
            accept_after(self.commands[name])
        manifest.write({name: cmd for name, cmd in self.commands.items() if name not in before})

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._add_plugin_commands()
        return super().list_commands(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None:
            self._add_plugin_commands()
            command = super().get_command(ctx, cmd_name)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from mnote_kr.cli import manifest

        cached = None if self._plugins_added else manifest.read()
        if cached is None:
            super().format_commands(ctx, formatter)
            return
        # The same rows click draws, with the plugin commands standing in from the manifest.
        listed: dict[str, click.Command] = {
            c["name"]: click.Command(c["name"], help=c.get("help"), short_help=c.get("short_help"),
                                     hidden=bool(c.get("hidden")))
            for c in cached
        }
        listed.update(self.commands)
        shown = [(name, listed[name]) for name in sorted(listed) if not listed[name].hidden]
        if shown:
            limit = formatter.width - 6 - max(len(name) for name, _ in shown)
            with formatter.section("Commands"):
                formatter.write_dl([(name, cmd.get_short_help_str(limit)) for name, cmd in shown])


@click.group(cls=_Group)
@click.option("--workspace", "-w", type=click.Path(file_okay=False), default=None,
              help="Workspace folder (default: nearest folder upward holding .mnote/, else the current folder).")
@click.version_option(package_name="mnote-kr")
@click.pass_context
def cli(ctx: click.Context, workspace: str | None) -> None:
    """mnote-kr: your folders as a LightRAG knowledge base, with citations that land on the exact place."""
    ctx.obj = Ctx(workspace)


# ---------------------------------------------------------------------------- plugins


@cli.command()
@click.option("--all", "show_all", is_flag=True, help="Include built-in plugins.")
@json_option
def plugins(show_all: bool, as_json: bool) -> None:
    """List plugins with version, origin, hooks and load errors."""
    from mnote_kr.cli.reports import locator_lines, plugin_line, safe_locator_table
    from mnote_kr.core.config import load_config
    from mnote_kr.plugins import load_plugins

    try:
        config = load_config(None)
    except MnoteKrError:
        config = None
    loaded = load_plugins(config)
    infos = loaded.describe(include_builtin=show_all)
    if as_json:
        emit_json({"plugins": infos, "provider": loaded.provider_name, "locators": safe_locator_table(loaded)})
        return
    click.echo("\n".join([*map(plugin_line, infos), *locator_lines(loaded)]))


# ---------------------------------------------------------------------------- roots


@cli.group(invoke_without_command=True)
@json_option
@click.pass_context
def roots(ctx: click.Context, as_json: bool) -> None:
    """Manage the indexed roots of the workspace ('roots' alone lists them, as 'roots list')."""
    if ctx.invoked_subcommand is None:  # 'roots --json', as the README lists roots among the --json commands
        roots_report(ctx.obj, as_json)
    elif as_json:  # 'roots --json add PATH': the subcommand's --json, given before its name
        ctx.default_map = {name: {"as_json": True} for name in ("add", "list", "remove")}


@roots.command("add")
@click.argument("path")
@click.option("--no-recursive", is_flag=True, help="Only the folder's own files.")
@click.option("--exclude", multiple=True, help="Glob of files or folders to leave out (repeatable).")
@click.option("--follow/--no-follow", "--run-on-change/--no-run-on-change", "follow", default=True,
              help="Follow the disk: sync and watch re-index changed files and ingest new ones (the default). "
                   "--no-follow leaves them for 'mnote-kr ingest'; status and search name what waits.")
@json_option
@pass_ctx
def roots_add(obj: Ctx, path: str, no_recursive: bool, exclude: tuple[str, ...], follow: bool,
              as_json: bool) -> None:
    """Mark a folder as part of the knowledge base."""
    from mnote_kr.app.rootscope import back_fix
    from mnote_kr.cli.reports import root_rules
    from mnote_kr.sync.reconcile import follow_waiting

    host = obj.host()
    before = {r.root_relative_path: r for r in host.roots_list()}
    root, dropped, back = host.add_root(obj.paths((path,))[0], recursive=not no_recursive, exclude=exclude,
                                        run_on_change=follow)
    # Following turned on: what waited while the root did not follow is indexed now.
    caught_up = follow_waiting(host, root.root_relative_path) if follow else {}
    if as_json:
        import msgspec

        out = msgspec.to_builtins(root)
        if dropped:  # the root's shape, plus what its new rules dropped from the index when they did
            out["droppedFromIndex"] = [{"sourcePath": rel, "reason": why} for rel, why in dropped.items()]
        if caught_up:
            out["caughtUp"] = caught_up
        if back:  # what its old excludes left out and it takes in again, not indexed yet
            out["backInScope"] = [{"sourcePath": rel, "fix": back_fix(root, rel)} for rel in back]
        emit_json(out)
        return
    name, rules, old = root.root_relative_path or ".", root_rules(root), before.get(root.root_relative_path)
    if old is None:  # the folder itself: "." or a relative path says little about which one was added
        click.echo(f"Added root {host.workspace.rel_to_abs(root.root_relative_path)} {rules}")
    elif root_rules(old) == rules:
        click.echo(f"Root {name} was indexed already, with the same rules {rules}")
    else:  # the options given replace the root's rules: say what they replaced
        click.echo(f"Updated root {name}: now {rules}, was {root_rules(old)}")
    for rel, why in dropped.items():  # ingested before the rules left it out: the index follows the rules
        click.echo(f"Dropped from the index: {rel} ({why}); no longer cited")
    for rel in back:  # indexed by the next sync, as a new root's files are
        click.echo(f"Back in the scope: {rel} (no longer excluded); {back_fix(root, rel)}")
    for key, label in (("ingested", "Sent what waited"), ("queued", "Queued what waited"), ("failed", "Failed")):
        for rel in caught_up.get(key, []):
            click.echo(f"{label}: {rel}" + (" ('mnote-kr sync' sends it once the provider answers)"
                                            if key == "queued" else ""))


@roots.command("list")
@json_option
@pass_ctx
def roots_list(obj: Ctx, as_json: bool) -> None:
    """List indexed roots."""
    roots_report(obj, as_json)


@roots.command("remove")
@click.argument("path")
@json_option
@pass_ctx
def roots_remove(obj: Ctx, path: str, as_json: bool) -> None:
    """Stop treating a folder as an indexed root (its files stay untouched)."""
    root = obj.host().roots_remove(obj.paths((path,))[0])
    if as_json:
        emit_json(root)
    else:
        click.echo(f"Removed root {root.root_relative_path or '.'}")


# ---------------------------------------------------------------------------- status / ingest


@cli.command()
@json_option
@pass_ctx
def status(obj: Ctx, as_json: bool) -> None:
    """Registry counts, provider health, rerank configuration, unmapped documents."""
    status_report(obj, as_json)


@cli.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--force", is_flag=True, help="Send again even if unchanged.")
@click.option("--wait", is_flag=True, help="Follow the documents until indexed or failed; exit 1 when one failed, "
                                          "or when the wait ended with files still being indexed.")
@click.option("--timeout", type=float, default=300.0, show_default=True,
              help="With --wait, end the wait once LightRAG reported no progress for this many seconds "
                   "(embedding places for ranking by meaning comes after).")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Send at most N files; run again for the rest.")
@json_option
@pass_ctx
def ingest(obj: Ctx, paths: tuple[str, ...], force: bool, wait: bool, timeout: float, limit: int | None,
           as_json: bool) -> None:
    """Index files or folders in place (never copied, moved or changed).

    Exits 1 when a file failed to index in this run (a broken file fails every ingest of its folder, with its
    reason), else 0: an empty file (0 bytes) or one of a type LightRAG does not index is passed over, listed
    'skipped' with its reason (and by 'mnote-kr status'), and fails nothing."""
    from mnote_kr.cli.work import ingest_run

    ingest_run(obj, paths, force=force, wait=wait, timeout=timeout, limit=limit, as_json=as_json)


@cli.command()
@click.option("--wait", "wait_s", type=float, default=0.0,
              help="Follow submitted work until nothing moved for N seconds; exit 1 when files are still being "
                   "indexed then.")
@click.option("--no-disk", is_flag=True, help="Only follow provider work; do not reconcile with the disk.")
@click.option("--reread", is_flag=True, help="Re-read indexed files whose reading is not known too (PDFs, images).")
@json_option
@pass_ctx
def sync(obj: Ctx, wait_s: float, no_disk: bool, reread: bool, as_json: bool) -> None:
    """Reconcile the registry with the disk, retry queued work, follow submitted work.

    Exit 1 when a file failed in this run or when --wait ended first; a file failed in an earlier run and
    unchanged since is named "still failing" and not sent again (exit 0 for it)."""
    from mnote_kr.cli.work import sync_run

    sync_run(obj, wait_s=wait_s, no_disk=no_disk, reread=reread, as_json=as_json)


@cli.command()
@click.argument("paths", nargs=-1, required=True)
@json_option
@pass_ctx
def delete(obj: Ctx, paths: tuple[str, ...], as_json: bool) -> None:
    """Remove sources from the index (the files themselves are never touched)."""
    # on a terminal, its progress lines too: following the delete may remove LightRAG's parsed text of the file
    entries = obj.host(progress=not as_json and sys.stderr.isatty()).delete(obj.paths(paths))
    if as_json:
        emit_json({"entries": entries})
        return
    from mnote_kr.citations.render.statustext import STATUS_WORDS

    for e in entries:  # in status's words ("being deleted", not the registry's delete_submitted: nc27c)
        click.echo(f"{STATUS_WORDS.get(e.status, e.status):<18} {e.source_root_relative_path}")
    if entries:
        click.echo("(the files themselves are untouched and stay out of the index; "
                   "'mnote-kr ingest FILE' adds one back)")


@cli.command()
@click.option("--keep-failed", is_flag=True, help="Keep the records of files that failed to index (sync does not "
                                                 "send an unchanged one again; without it, sync sends them again).")
@json_option
@pass_ctx
def prune(obj: Ctx, keep_failed: bool, as_json: bool) -> None:
    """Drop deleted, stale and failed registry records (never pending deletes, nor those of files taken out with
    'mnote-kr delete' while the file is on disk in an indexed root: they keep the file out), and say which of each
    kind."""
    host = obj.host()
    report = host.prune_report(keep_failed=keep_failed)
    if as_json:
        emit_json(report)
        return
    from mnote_kr.citations.render.synctext import render_prune

    click.echo(render_prune(report, host.plugins.provider_name))


# ---------------------------------------------------------------------------- query side


@cli.command(help=f"Search: citations only (mnote.knowledge_rag.search_results.v1).\n\n{COUNTING}")
@click.argument("query")
@query_options
@click.option("--rerank/--no-rerank", default=None, help="Ask the provider to rerank (default: provider's choice).")
@json_option
@pass_ctx
def search(obj: Ctx, query: str, scope: tuple[str, ...], top_k: int, mode: str, rerank: bool | None,
           as_json: bool) -> None:
    search_report(obj, as_json, query=query, scope=scope, top_k=top_k, mode=mode, rerank=rerank)


@cli.command(help="Answer with citations (mnote.knowledge_rag.agent_query_result.v1); an answer needs an LLM, "
                  f"without one the citations only.\n\n{COUNTING}")
@click.argument("query")
@query_options
@json_option
@pass_ctx
def ask(obj: Ctx, query: str, scope: tuple[str, ...], top_k: int, mode: str, as_json: bool) -> None:
    ask_report(obj, as_json, query=query, scope=scope, top_k=top_k, mode=mode)


@cli.command("open", help=f"Show how to open a citation: file, kind, locator, open-action parameters.\n\n{COUNTING}")
@click.argument("citation")
@click.option("--show", is_flag=True,
              help="Open the cited place in the browser's viewer (starts a short-lived server when none runs).")
@click.option("--linger", type=float, default=300.0, show_default=True,
              help="With --show: seconds the short-lived server waits idle before it stops.")
@click.option("--wait", is_flag=True,
              help="With --show: serve the viewer here even when no browser is found (open its URL yourself).")
@json_option
@pass_ctx
def open_(obj: Ctx, citation: str, show: bool, linger: float, wait: bool, as_json: bool) -> None:
    if wait and not show:
        raise UsageError("--wait goes with --show", hint=f"mnote-kr open \"{citation}\" --show --wait")
    if show:
        from mnote_kr.server.show import show as show_viewer

        show_viewer(obj.host(), citation, linger_s=linger, wait=wait)
        return
    host = obj.host()
    plan = host.open(citation)
    if as_json:
        from mnote_kr.server import viewerlinks

        emit_json(viewerlinks.plan_with_viewer_urls(plan, viewerlinks.serve_url(host)))
        return
    from mnote_kr.citations.render.cards import render_open

    click.echo(render_open(plan))


# ---------------------------------------------------------------------------- locate


@cli.command(help="Locate evidence in a file: one locator (or one per --batch line, in order). "
                   "FILE may be any readable file; it is only read: nothing is written beside it or in a "
                   "workspace. Only the per-user cache is written: what was read of FILE and the answer "
                   "(locate/, off with MNOTE_KR_LOCATE_CACHE=0), its key, the plugin list and compiled "
                   f"patterns.\n\n{COUNTING}")
@click.argument("file", required=False)
@click.option("--evidence", default="",
              help="The cleaned evidence text (locatorEvidenceText); without it, the file's place holding the most "
                   "of the query's words is the evidence, else the query's words are.")
@click.option("--query", default="", help="The user's query.")
@click.option("--sidecar", type=click.Path(dir_okay=False), help="LightRAG blocks.jsonl of the document.")
@click.option("--block-id", default=None, help="The sidecar block the evidence came from.")
@click.option("--batch", type=click.File("r", encoding="utf-8", errors="replace"),
              help="JSON Lines of requests {file, evidence, query, sidecar?, blockId?}; '-' for stdin.")
@json_option
def locate(file: str | None, evidence: str, query: str, sidecar: str | None, block_id: str | None,
           batch: Any, as_json: bool) -> None:
    from mnote_kr.citations.locate.locating import locate_batch, locate_one, plugins_for_locate

    loaded = plugins_for_locate()
    if batch is not None:
        for line in locate_batch(loaded, batch):
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
        return
    if not file:
        raise UsageError("Give a FILE or --batch REQUESTS.jsonl")
    # the query alone finds its place (the command a search names for a file holding its words: map.heldwords)
    locator = locate_one(loaded, {"file": file, "evidence": evidence, "query": query,
                                  "sidecar": sidecar, "blockId": block_id})
    if as_json:
        emit_json(locator)
    else:
        from mnote_kr.citations.render.cards import locator_text

        click.echo(locator_text(locator))
        if locator.locator_reason or locator.reason:
            click.echo(f"why: {locator.locator_reason or locator.reason}")


# ---------------------------------------------------------------------------- secrets


@cli.group()
def secrets() -> None:
    """Store secrets in the system keyring (environment variables win)."""


@secrets.command("set")
@click.argument("name")
@click.option("--value", default=None, help="The value (default: prompt without echo).")
def secrets_set(name: str, value: str | None) -> None:
    """Store a secret (e.g. lightrag-api-key)."""
    from mnote_kr.core.keys import set_secret, spec_for

    spec_for(name)
    if value is None:
        value = click.prompt(name, hide_input=True)
    set_secret(name, value)
    click.echo(f"Stored {name} in the keyring")


@secrets.command("get")
@click.argument("name")
@json_option
@pass_ctx
def secrets_get(obj: Ctx, name: str, as_json: bool) -> None:
    """Say whether a secret is set and where from (never its value)."""
    from mnote_kr.core.keys import resolve_secret

    env_file = None
    try:
        env_file = obj.host().provider_config().get("env_file")
    except MnoteKrError:
        pass
    value, source = resolve_secret(name, dotenv_path=env_file)
    if as_json:
        emit_json({"name": name, "set": value is not None, "source": source})
    else:
        click.echo(f"{name}: {'set (' + str(source) + ')' if value else 'not set'}")


@secrets.command("delete")
@click.argument("name")
def secrets_delete(name: str) -> None:
    """Remove a secret from the keyring."""
    from mnote_kr.core.keys import delete_secret

    click.echo(f"Deleted {name}" if delete_secret(name) else f"{name} was not in the keyring")


# ---------------------------------------------------------------------------- registry


@cli.group()
def registry() -> None:
    """Registry maintenance."""


@registry.command("restore")
@pass_ctx
def registry_restore(obj: Ctx) -> None:
    """Put the previous registry generation back (the corrupt file is kept as .corrupt)."""
    host = obj.host()
    host.store.restore_previous()
    click.echo(f"Restored {host.store.path} from the previous generation")


@registry.command("export")
@click.option("--output", "-o", type=click.Path(dir_okay=False), default=None,
              help="Write to this new file instead of stdout (an existing file is never overwritten).")
@pass_ctx
def registry_export(obj: Ctx, output: str | None) -> None:
    """Write the registry as JSON (version 2, camelCase fields, the first format's field names)."""
    from pathlib import Path

    host = obj.host()
    data = host.store.export_json()
    if output is None:
        sys.stdout.buffer.write(data + b"\n")
        sys.stdout.flush()
        return
    target = Path(output)
    try:
        with open(target, "xb") as fh:  # "x": never replace a file that is already there
            fh.write(data + b"\n")
    except FileExistsError as exc:
        raise UsageError(f"{target} already exists", hint="give a new file name, or delete it first") from exc
    except OSError as exc:
        raise RegistryError(f"Cannot write {target}: {exc.strerror}", path=target) from exc
    click.echo(f"Exported {host.store.path} to {target}")


@registry.command("import")
@click.argument("file", type=click.Path(dir_okay=False))
@pass_ctx
def registry_import(obj: Ctx, file: str) -> None:
    """Replace the registry with a JSON export (version 1 or 2); the replaced one is kept as .prev."""
    from pathlib import Path

    source = Path(file)
    try:
        data = source.read_bytes()
    except OSError as exc:
        raise UsageError(f"Cannot read {source}: {exc.strerror}",
                         hint="give a file written by 'mnote-kr registry export'") from exc
    host = obj.host()
    imported = host.store.import_json(data, source)
    click.echo(f"Imported {len(imported.entries)} entries and {len(imported.roots)} indexed roots from {source} "
               f"into {host.store.path} (the previous registry is {host.store.prev_path})")


def command_path(argv: list[str]) -> str:
    """``mnote-kr roots add`` for ``["-w", "x", "roots", "add", "d"]``: the (sub)commands argv names."""
    words = ["mnote-kr"]
    group: click.Command = cli
    takes_value = {"--workspace", "-w"}
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg.startswith("-"):
            skip = arg in takes_value
            continue
        if not isinstance(group, click.Group) or arg not in group.commands:
            break
        words.append(arg)
        group = group.commands[arg]
        takes_value = set()
    return " ".join(words)


def _click_error(exc: click.ClickException) -> tuple[str, str]:
    """A click error's message and hint."""
    ctx = getattr(exc, "ctx", None)
    where = ctx.command_path if ctx is not None else "mnote-kr"
    return " ".join(exc.format_message().split()), f"see '{where} --help'"


def main(argv: list[str] | None = None) -> int:
    """Entry point: the one place errors become one ``Error: ...`` line and an exit code.

    Exit codes: 0 success, 1 runtime error, 2 usage error, 130 interrupted. Unexpected
    exceptions also become one line (the traceback only with ``MNOTE_KR_DEBUG=1``).
    """

    args = list(sys.argv[1:] if argv is None else argv)
    as_json = wants_json(args)

    def run() -> int:
        try:
            cli.main(args=argv, prog_name="mnote-kr", standalone_mode=False)
        except click.exceptions.Abort:
            echo("Aborted.", err=True)
            return 1
        except click.ClickException as exc:
            message, hint = _click_error(exc)
            echo(f"Error: {message} ({hint})", err=True)
            if as_json:
                json_error("usage", message, hint)
            return exc.exit_code
        except click.exceptions.Exit as exc:
            return exc.exit_code
        return 0

    return guarded(run, lambda: command_path(args), as_json=as_json)


# The long-running commands (watch, serve, mcp) join the group here, so whoever imports the
# command line gets all of it.
from mnote_kr.cli import extra  # noqa: E402

extra.register(cli)
for _command in cli.commands.values():  # '--workspace DIR' after the command too
    accept_after(_command)
