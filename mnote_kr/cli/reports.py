"""The host a command works on, and what the read-only reports print (no click here).

``status``, ``roots list`` and ``search`` print through these functions whichever way they
were parsed: by click, or by the plain path in ``fast`` that skips importing click altogether.
"""

from __future__ import annotations

import re
import shutil
import sys
import time
from collections.abc import Callable
from typing import Any

from mnote_kr.cli.boundary import echo, emit_json
from mnote_kr.errors import UsageError

#: The help of every command whose text shows places (``search``, ``ask``, ``open``, ``locate``).
COUNTING = ("Text counts pages, slides and paragraphs from 1, as a reader does (paragraph 15); --json keeps the "
            "locator's own indexes: paragraphIndex from 0 (14), page and slide from 1.")

#: How a progress line that must be seen starts (``progress_writer`` never drops or overwrites it).
NOTE = "note: "
_COUNT_RE = re.compile(r"\b(\d+)/(\d+) files\b")
#: Piped, a step's line is printed at least this often while its step goes on (besides its start, tenths and end),
#: its count moving or not (a step says its time: "OCR a.pdf: 1/2 pages recognised; 52 s so far (page 2)"), and a
#: line without a count ("starting ...", "hashed big.pdf") when nothing was printed for this long: a log is never
#: silent longer than that while a producer speaks (nc18a: 53 s of ingest said nothing but OCR lines).
STEP_EVERY_S = 3.5
_STEP_RE = re.compile(r"\b(\d+)/(\d+) (?!files\b)[a-z]+")  # a preparation step's count: "120/400 paragraphs"


def progress_writer(*, clock: Callable[[], float] = time.monotonic) -> Callable[[str], None]:
    """Progress lines to stderr as the CLI prints them: a bar on a terminal (the line cut to its
    width); piped, the file counts and a preparation step's start, tenths and end (``embedding
    places: 40/400 paragraphs; 12 s so far``), one plain line each (``ingest``, ``engine
    reembed``), and any step's line or other line once ``STEP_EVERY_S`` passed since the last line
    printed (a heartbeat of a step whose count stands, what the work is doing now). A note (a line
    starting ``note: ``: something the person must know, such as a step that outlasts the wait
    asked for) is always a line of its own, on a terminal too, where the bar would overwrite it."""
    tty = sys.stderr.isatty()
    # silence counts from the writer's start: a command that fails at once says its one error line alone
    state: dict[str, Any] = {"bar": "", "printed": clock()}

    def line(message: str) -> None:
        state["printed"] = clock()
        sys.stderr.write(message + "\n")
        sys.stderr.flush()

    def write(message: str) -> None:
        if message.startswith(NOTE):
            if tty:
                sys.stderr.write("\r\033[K")
            line(message)
            return
        counted = _COUNT_RE.search(message)
        step = None if tty or counted else _STEP_RE.search(message)
        now = clock()
        quiet = now - state["printed"] >= STEP_EVERY_S  # nothing printed for a while
        if step:  # piped: a step's start, each tenth of it and its end, one plain line each
            done, total = int(step.group(1)), max(1, int(step.group(2)))
            tenth = 10 * done // total
            if done and done < total and tenth <= state.get("tenth", -1) and not quiet:
                return
            state["tenth"] = -1 if done >= total else tenth
            line(message)
            return
        width = max(40, shutil.get_terminal_size((124, 24)).columns - 24) if tty else 0
        if tty and counted:
            done, total = int(counted.group(1)), max(1, int(counted.group(2)))
            state["bar"] = "#" * (20 * done // total)
            sys.stderr.write(f"\r\033[K[{state['bar']:.<20}] {message[:width]}")
        elif not tty and not counted:
            if quiet:  # piped: what the work is doing now, when nothing was said for a while
                line(message)
            return
        elif tty:  # a step without a count keeps the bar where the last count left it
            sys.stderr.write(f"\r\033[K[{state['bar']:.<20}] {message[:width]}")
        else:
            line(message)
        sys.stderr.flush()

    return write


class Ctx:
    """Lazily built host for the chosen workspace."""

    def __init__(self, workspace: str | None) -> None:
        self.workspace = workspace
        self._host: Any = None

    def host(self, *, progress: bool = False) -> Any:
        """The workspace's ``Host``, built at first use (with a progress writer if asked)."""
        if self._host is None:
            from mnote_kr.app.host import Host

            self._host = Host(self.workspace, progress=progress_writer() if progress else None)
        return self._host

    def paths(self, raws: tuple[str, ...]) -> tuple[str, ...]:
        """Paths as typed in a shell, their ``..`` resolved inside the workspace (``localpaths``)."""
        from mnote_kr.cli.localpaths import local_paths

        return local_paths(self.host().workspace.root, raws)


def status_report(obj: Ctx, as_json: bool) -> None:
    """``mnote-kr status``: the host's status as JSON, or rendered for a person."""
    info = obj.host().status()
    if as_json:
        emit_json(info)
        return
    from mnote_kr.citations.render.statustext import render_status

    echo(render_status(info))


def roots_report(obj: Ctx, as_json: bool) -> None:
    """``mnote-kr roots list``: the indexed roots as JSON, or one line each."""
    items = obj.host().roots_list()
    if as_json:
        emit_json({"indexedRoots": items})
        return
    if not items:
        echo("No indexed roots. Add one with 'mnote-kr roots add FOLDER'.")
    for r in items:
        echo(f"{r.root_relative_path or '.'}  {root_rules(r)}")


def root_rules(r: Any) -> str:
    """An indexed root's rules as ``roots list`` prints them: ``(recursive, no-follow) exclude=a,b``
    (following the disk is the default and goes unsaid)."""
    from mnote_kr.core.workspace import rules_text

    return rules_text(r.recursive, r.run_on_change, list(r.exclude_patterns))


def require_query(query: str, command: str) -> None:
    """A usage error for an empty query, with an example of a real one."""
    if not query.strip():
        raise UsageError("The query is empty",
                         hint=f"give the words to look for: mnote-kr {command} 'battery capacity'")


def knowledge_base(obj: Ctx, scope: tuple[str, ...] = ()) -> Any:
    """The host of the workspace a query runs in, or a usage error when it is no knowledge base.

    A folder never made one (no ``.mnote/`` here or above it, or one without a root, an ingested
    file or a configuration) has nothing to search: saying so beats starting an engine for an
    empty workspace and answering "nothing is ingested yet". A ``scope`` path that leaves the
    workspace is the more precise mistake, said first."""
    host = obj.host()
    for path in scope:
        host.workspace.resolve(path)
    reg = host.registry()
    if not reg.roots and not reg.entries and not (host.workspace.mnote_dir / "config.toml").is_file():
        hint = ("run 'mnote-kr roots add FOLDER' then 'mnote-kr ingest FOLDER' here, "
                "or pass --workspace with a folder that holds .mnote/")
        raise UsageError(f"{host.root} is not a knowledge base (no roots, nothing ingested)", hint=hint)
    return host


def failed_plugin_notes(host: Any) -> list[str]:
    """One line per plugin that failed to load (its files then go to a fallback reader or locator, so
    places may be coarser than expected), written to stderr as ``Warning:`` lines; returned for the
    answer's notes in ``--json``. Said before the search runs, so a search that fails says it too."""
    notes = [f"plugin {i.name} failed to load ({' '.join(str(i.error).split())}); 'mnote-kr plugins' lists it"
             for i in host.plugins.unsaid_failures()]
    for note in notes:
        sys.stderr.write(f"Warning: {note}\n")
    sys.stderr.flush()
    return notes


def search_report(obj: Ctx, as_json: bool, *, query: str, scope: tuple[str, ...], top_k: int, mode: str,
                  rerank: bool | None) -> None:
    """``mnote-kr search``: the search results as JSON, or as source cards for a person."""
    require_query(query, "search")
    obj.host(progress=True)  # a search LightRAG holds while it indexes says on stderr what it waits for
    scope = obj.paths(scope)
    host = knowledge_base(obj, scope)
    warned = failed_plugin_notes(host)
    result = host.search(query, scope=scope, top_k=top_k, mode=mode, rerank=rerank)
    if as_json:
        from mnote_kr.server import viewerlinks

        if warned:  # the search's notes (provider and rerank notes): no new key
            result.diagnostics["notes"] = [*result.diagnostics.get("notes", []), *warned]
        emit_json(viewerlinks.search_with_viewer_urls(result, viewerlinks.serve_url(host)))
        return
    from mnote_kr.citations.render.cards import render_search

    echo(render_search(result))


def ask_report(obj: Ctx, as_json: bool, *, query: str, scope: tuple[str, ...], top_k: int, mode: str) -> None:
    """``mnote-kr ask``: the answer with its citations as JSON, or rendered for a person."""
    require_query(query, "ask")
    obj.host(progress=True)  # a search LightRAG holds while it indexes says on stderr what it waits for
    scope = obj.paths(scope)
    host = knowledge_base(obj, scope)
    warned = failed_plugin_notes(host)
    result = host.ask(query, scope=scope, top_k=top_k, mode=mode)
    if as_json:
        import msgspec

        from mnote_kr.server import viewerlinks

        if warned:  # the answer's notes (no new key)
            result = msgspec.structs.replace(result, notes=[*result.notes, *warned])
        emit_json(viewerlinks.answer_with_viewer_urls(result, viewerlinks.serve_url(host)))
        return
    from mnote_kr.citations.render.cards import render_answer

    echo(render_answer(result))
