"""``status``, ``roots list`` and ``search`` in their plain spelling, run without importing click.

Importing click costs a fresh process about as much as the interpreter's own start, and these
commands are what shells and desktop shells run most. Only these argument lists take this path::

    [-w WS | --workspace WS | --workspace=WS] status [--json]
    [-w WS | --workspace WS | --workspace=WS] roots list [--json]
    [-w WS | --workspace WS | --workspace=WS] search QUERY [--scope S]... [--top-k N] [--mode M]
                                                           [--rerank | --no-rerank] [--json]

each option at most once (``--scope`` repeatable), spelled ``--name value``; ``WS``, ``QUERY``
and every value not starting with ``-``; ``N`` plain digits; ``M`` one of the modes. Anything
else (``--help`` anywhere, another spelling, a workspace that is a file, a stream click would
re-encode) goes to the click command line, which gives the same output and every usage
error. What the commands print is shared (``reports``), and so is the error boundary
(``boundary``).
"""

from __future__ import annotations

import codecs
import os
import sys
from collections.abc import Callable
from typing import Any, NamedTuple, NoReturn

from mnote_kr.cli.boundary import echo, guarded
from mnote_kr.cli.reports import Ctx, roots_report, search_report, status_report

MODES = ("mix", "hybrid", "naive", "local", "global")  # click.Choice of ``search --mode``


class _Spec(NamedTuple):
    command: str  # as error hints name it
    report: Callable[..., None]
    argument: str | None  # the one positional argument's keyword, if any
    options: dict[str, tuple[str, str]]  # spelling -> (keyword, kind: flag-on/flag-off/text/multi/int/mode)
    defaults: dict[str, Any]


_SEARCH_OPTIONS = {"--scope": ("scope", "multi"), "--top-k": ("top_k", "int"), "--mode": ("mode", "mode"),
                   "--rerank": ("rerank", "flag-on"), "--no-rerank": ("rerank", "flag-off")}
_SPECS: dict[tuple[str, ...], _Spec] = {
    ("status",): _Spec("mnote-kr status", status_report, None, {}, {}),
    ("roots", "list"): _Spec("mnote-kr roots list", roots_report, None, {}, {}),
    ("search",): _Spec("mnote-kr search", search_report, "query", _SEARCH_OPTIONS,
                       {"scope": (), "top_k": 20, "mode": "mix", "rerank": None}),
}


def parse(argv: list[str]) -> tuple[str | None, tuple[str, ...], bool, dict[str, Any]] | None:
    """``(workspace, command words, --json, keyword arguments)`` for a plain spelling, else None."""
    args = list(argv)
    workspace: str | None = None
    if args and args[0] in ("-w", "--workspace") and len(args) > 1:
        workspace = args[1]
        del args[:2]
    elif args and args[0].startswith("--workspace="):
        workspace = args.pop(0).partition("=")[2]
    if workspace is not None and (not workspace or workspace.startswith("-") or os.path.isfile(workspace)
                                  or (os.path.exists(workspace) and not os.access(workspace, os.R_OK))):
        return None  # click's own checks and messages (a file, an unreadable folder)
    words = tuple(args[:2]) if tuple(args[:2]) in _SPECS else tuple(args[:1])
    spec = _SPECS.get(words)
    if spec is None:
        return None
    kwargs = dict(spec.defaults)
    seen: set[str] = set()
    positional: list[str] = []
    as_json = False
    rest = args[len(words):]
    while rest:
        token = rest.pop(0)
        if not token.startswith("-"):
            positional.append(token)
            continue
        if token == "--json" and not as_json:
            as_json = True
            continue
        keyword, kind = spec.options.get(token, ("", ""))
        if not keyword or (keyword in seen and kind != "multi"):
            return None  # unknown, repeated, --help, --name=value...: click decides
        seen.add(keyword)
        if kind.startswith("flag"):
            kwargs[keyword] = kind == "flag-on"
            continue
        if not rest or rest[0].startswith("-"):
            return None
        value = rest.pop(0)
        if kind == "multi":
            kwargs[keyword] = (*kwargs[keyword], value)
        elif kind == "int" and value.isascii() and value.isdigit() and len(value) <= 9:
            kwargs[keyword] = int(value)
        elif kind == "mode" and value in MODES:
            kwargs[keyword] = value
        else:
            return None
    if spec.argument is None and positional:
        return None
    if spec.argument is not None:
        if len(positional) != 1:
            return None
        kwargs[spec.argument] = positional[0]
    return workspace, words, as_json, kwargs


def _plain_streams() -> bool:
    """click re-encodes a stream whose encoding is ASCII; those go through click."""
    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None)
        try:
            if not encoding or codecs.lookup(encoding).name == "ascii":
                return False
        except LookupError:
            return False
    return True


def _msgspec_without_typing_extensions() -> None:
    """Import msgspec the way it runs where ``typing_extensions`` is not installed.

    msgspec imports ``typing_extensions`` only for ``get_type_hints``, ``Required`` and
    ``NotRequired``, and falls back to ``typing``'s own when the import fails; from Python 3.11
    those are the same for the types mnote-kr encodes. ``typing_extensions`` alone costs a fresh
    process about half as much as the interpreter's start. Only in this process, only while
    msgspec loads: anything imported later gets the real ``typing_extensions``.
    """
    if sys.version_info < (3, 11) or "msgspec" in sys.modules or "typing_extensions" in sys.modules:
        return
    sys.modules["typing_extensions"] = None  # type: ignore[assignment]  # "import" raises ImportError
    try:
        import msgspec  # noqa: F401
    finally:
        del sys.modules["typing_extensions"]


def run(argv: list[str] | None = None) -> int | None:
    """The exit code of a plain ``status``, ``roots list`` or ``search``, or None: use click."""
    parsed = parse(list(sys.argv[1:] if argv is None else argv))
    if parsed is None or not _plain_streams():
        return None
    workspace, words, as_json, kwargs = parsed
    spec = _SPECS[words]
    _msgspec_without_typing_extensions()

    def call() -> int:
        try:
            spec.report(Ctx(workspace), as_json, **kwargs)
        except KeyboardInterrupt:  # what click does with Ctrl-C: a new line, then "Aborted."
            echo("", err=True)
            echo("Aborted.", err=True)
            return 1
        return 0

    return guarded(call, lambda: spec.command, as_json=as_json)


def exit_now(code: int) -> NoReturn:
    """End the process after a plain command without tearing the interpreter down.

    A normal exit frees every module and object one by one, which for a process that loaded
    the host, msgspec, pluggy and a provider costs about half of the interpreter's own start,
    for nothing: the operating system reclaims the memory and closes the files anyway. What the
    teardown does that matters is done here first: stdout and stderr are flushed and the
    ``atexit`` functions run (none of them is skipped). The usual exit is taken instead while
    another non-daemon thread runs (the interpreter would wait for it) or when a flush fails
    (Python reports that its own way). Console script only: an embedder's ``main`` returns.
    """
    import atexit

    threading = sys.modules.get("threading")
    others = threading is not None and any(
        t is not threading.main_thread() and not t.daemon and t.is_alive() for t in threading.enumerate())
    run_exitfuncs = getattr(atexit, "_run_exitfuncs", None)  # CPython's own, called by a normal exit
    if others or run_exitfuncs is None:
        sys.exit(code)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        sys.exit(code)
    run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        sys.exit(code)
    os._exit(code)
