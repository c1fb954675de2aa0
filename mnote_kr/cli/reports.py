"""The host a command works on, and what the read-only reports print (no click here).

``status``, ``roots list`` and ``search`` print through these functions whichever way they
were parsed: by click, or by the plain path in ``fast`` that skips importing click altogether.
"""

from __future__ import annotations

import re
import shutil
import sys
import time
import unicodedata
from collections.abc import Callable
from typing import Any

from mnote_kr.cli.boundary import echo, emit_json
from mnote_kr.errors import UsageError

#: The help of every command whose text shows places (``search``, ``ask``, ``open``, ``locate``).
COUNTING = ("Text counts pages, slides and paragraphs from 1, as a reader does (paragraph 15); --json keeps the "
            "locator's own indexes: paragraphIndex from 0 (14), page and slide from 1.")

#: How a progress line that must be seen starts (``progress_writer`` never drops or overwrites it).
NOTE = "note: "
_COUNT_RE = re.compile(r"\b(\d+)(?:/| of )(\d+) files\b")  # "of": a wait's last line when a file failed
#: Piped, a step's line is printed at least this often while its step goes on (besides its start, tenths and end),
#: its count moving or not (a step says its time: "OCR a.pdf: 1/2 pages recognised; 52 s so far (page 2)"), and a
#: line without a count ("starting ...", "hashed big.pdf") when nothing was printed for this long: a log is never
#: silent longer than that while a producer speaks (nc18a: 53 s of ingest said nothing but OCR lines).
STEP_EVERY_S = 3.5
_STEP_RE = re.compile(r"\b(\d+)/(\d+) (?!files\b)[a-z]+")  # a preparation step's count: "120/400 paragraphs"


class ProgressWriter:
    """Progress lines to stderr as the CLI prints them: a bar on a terminal (the line cut to its
    width); piped, the file counts and a preparation step's start, tenths and end (``embedding
    places: 40/400 paragraphs; 12 s so far``), one plain line each (``ingest``, ``engine
    reembed``), and any step's line or other line once ``STEP_EVERY_S`` passed since the last line
    printed (a heartbeat of a step whose count stands, what the work is doing now). A note (a line
    starting ``note: ``: something the person must know, such as a step that outlasts the wait
    asked for) is always a line of its own, on a terminal too, where the bar would overwrite it.

    On a terminal a line rewrites the one before it in place (back to the line's start, cleared to its end),
    so it is cut to the terminal's columns, counted as the terminal shows them (a CJK character takes two), with
    "…" where it is cut: a longer line wraps, and the next one would rewrite only its last row. A line before any
    count has no bar (a search's "waiting for LightRAG ..." has no count: an empty bar only took 23 columns of
    its text). :meth:`end` ends the line left open with a newline, so what comes next (a search's results, an
    error) starts a line of its own (nc22b: the results ran into the waiting line)."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.tty = sys.stderr.isatty()
        # silence counts from the writer's start: a command that fails at once says its one error line alone
        self.state: dict[str, Any] = {"bar": "", "printed": clock()}
        self.open = False  # a terminal line written without its newline yet

    def _line(self, message: str) -> None:
        self.state["printed"] = self.clock()
        sys.stderr.write(message + "\n")
        sys.stderr.flush()

    def _rewrite(self, message: str, columns: int) -> None:
        bar = f"[{self.state['bar']:.<20}] " if self.state.get("counted") else ""
        sys.stderr.write("\r\033[K" + bar + fit(message, max(16, columns - 1 - len(bar))))
        self.open = True

    def end(self) -> None:
        """The terminal line left open ended with a newline (nothing piped: every piped line is whole)."""
        if self.open:
            sys.stderr.write("\n")
            sys.stderr.flush()
            self.open = False

    def __call__(self, message: str) -> None:
        tty, state = self.tty, self.state
        if message.startswith(NOTE):
            if tty:
                sys.stderr.write("\r\033[K")
                self.open = False
            self._line(message)
            return
        counted = _COUNT_RE.search(message)
        step = None if tty or counted else _STEP_RE.search(message)
        now = self.clock()
        quiet = now - state["printed"] >= STEP_EVERY_S  # nothing printed for a while
        if step:  # piped: a step's start, each tenth of it and its end, one plain line each
            done, total = int(step.group(1)), max(1, int(step.group(2)))
            tenth = 10 * done // total
            if done and done < total and tenth <= state.get("tenth", -1) and not quiet:
                return
            state["tenth"] = -1 if done >= total else tenth
            self._line(message)
            return
        columns = max(64, shutil.get_terminal_size((124, 24)).columns) if tty else 0
        if tty and counted:
            done, total = int(counted.group(1)), max(1, int(counted.group(2)))
            state["bar"], state["counted"] = "#" * (20 * done // total), True
            self._rewrite(message, columns)
        elif not tty and not counted:
            if quiet:  # piped: what the work is doing now, when nothing was said for a while
                self._line(message)
            return
        elif tty:  # a step without a count keeps the bar where the last count left it
            self._rewrite(message, columns)
        else:
            self._line(message)
        sys.stderr.flush()


def progress_writer(*, clock: Callable[[], float] = time.monotonic) -> ProgressWriter:
    """The CLI's progress lines on stderr (:class:`ProgressWriter`)."""
    return ProgressWriter(clock=clock)


def fit(text: str, columns: int) -> str:
    """``text`` cut to ``columns`` terminal columns (East Asian wide and full-width characters take two), its
    last one "…" where it is cut."""
    widths = [2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text]
    if sum(widths) <= columns:
        return text
    used = 0
    for i, width in enumerate(widths):
        if used + width > columns - 1:
            return text[:i] + "…"
        used += width
    return text


def end_progress(host: Any) -> None:
    """The progress line a command left open on a terminal ended, before its report or error (``end``)."""
    end = getattr(getattr(host, "progress", None), "end", None)
    if callable(end):
        end()


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


def plugin_line(info: Any) -> str:
    """One plugin in plain ``plugins``: name, version, origin, and its hooks or why it does not run."""
    state = "BLOCKED" if info.blocked else ("FAILED: " + info.error if info.error else ", ".join(info.hooks))
    return f"{info.name} {info.version or '?'} [{info.origin}] {state}"


def safe_locator_table(loaded: Any) -> dict[str, str]:
    """``plugins --json``'s ``locators``: file type -> locator, or the error that kept the table from being made."""
    from mnote_kr.errors import MnoteKrError

    try:
        table: dict[str, str] = loaded.locator_table()
        return table
    except MnoteKrError as exc:
        return {"error": exc.message}


def locator_lines(loaded: Any) -> list[str]:
    """What plain ``plugins`` adds after the list: which locator places citations in each file type (``--json``'s
    ``locators``), and each type a third-party plugin took from one of mnote-kr's (nc29a: .txt, silently)."""
    from mnote_kr.errors import MnoteKrError

    try:
        claims = loaded.locator_claims()
    except MnoteKrError as exc:  # a configured locator not loaded
        return [f"Locators: {exc.message}"]
    width = max((len(ext) for ext in claims), default=0)
    lines = ["", "Locators (file type: the plugin that places citations in it):"]
    for ext, (serving, passed) in claims.items():
        took = f"  (takes it from {', '.join(passed)})" if passed else ""
        lines.append(f"  {ext:<{width}}  {serving}{took}")
    if any(passed for _, passed in claims.values()):
        lines.append("A third-party plugin claiming a type comes before mnote-kr's own; to choose, set it under "
                     "[locators] in the config (docs/plugins.md).")
    return lines


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
    try:
        result = host.search(query, scope=scope, top_k=top_k, mode=mode, rerank=rerank)
    finally:  # a terminal's waiting line ends before the results or the error
        end_progress(host)
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
    try:
        result = host.ask(query, scope=scope, top_k=top_k, mode=mode)
    finally:  # a terminal's waiting line ends before the answer or the error
        end_progress(host)
    if as_json:
        import msgspec

        from mnote_kr.server import viewerlinks

        if warned:  # the answer's notes (no new key)
            result = msgspec.structs.replace(result, notes=[*result.notes, *warned])
        emit_json(viewerlinks.answer_with_viewer_urls(result, viewerlinks.serve_url(host)))
        return
    from mnote_kr.citations.render.cards import render_answer

    echo(render_answer(result))
