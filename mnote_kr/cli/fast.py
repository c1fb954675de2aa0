"""``status`` and ``roots list`` in their plain spelling, run without importing click.

Importing click costs a fresh process about as much as the interpreter's own start, and these
two reports are what shells and desktop shells poll. Only these argument lists take this path
(``WS`` a plain folder name that does not start with ``-``)::

    [-w WS | --workspace WS | --workspace=WS] status [--json]
    [-w WS | --workspace WS | --workspace=WS] roots list [--json]

Anything else (``--help`` anywhere, another spelling, a repeated option, a workspace that is a
file, a stream click would re-encode) goes to the click command line, which gives the same
output and every usage error. The reports themselves are shared (``reports``), and so is the
error boundary (``boundary``).
"""

from __future__ import annotations

import codecs
import os
import sys
from collections.abc import Callable

from mnote_kr.cli.boundary import echo, guarded
from mnote_kr.cli.reports import Ctx, roots_report, status_report

_COMMANDS: dict[tuple[str, ...], tuple[str, Callable[[Ctx, bool], None]]] = {
    ("status",): ("mnote-kr status", status_report),
    ("roots", "list"): ("mnote-kr roots list", roots_report),
}


def parse(argv: list[str]) -> tuple[str | None, tuple[str, ...], bool] | None:
    """``(workspace, command words, --json)`` when ``argv`` is one of the plain spellings, else None."""
    args = list(argv)
    workspace: str | None = None
    if args and args[0] in ("-w", "--workspace") and len(args) > 1:
        workspace = args[1]
        del args[:2]
    elif args and args[0].startswith("--workspace="):
        workspace = args.pop(0).partition("=")[2]
    if workspace is not None and (not workspace or workspace.startswith("-") or os.path.isfile(workspace)):
        return None  # click's own checks and messages (a file is not a workspace folder)
    as_json = bool(args) and args[-1] == "--json"
    words = tuple(args[:-1] if as_json else args)
    if words not in _COMMANDS:
        return None
    return workspace, words, as_json


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


def run(argv: list[str] | None = None) -> int | None:
    """The exit code of a plain ``status`` or ``roots list``, or None: not one, use click."""
    parsed = parse(list(sys.argv[1:] if argv is None else argv))
    if parsed is None or not _plain_streams():
        return None
    workspace, words, as_json = parsed
    command, report = _COMMANDS[words]

    def call() -> int:
        try:
            report(Ctx(workspace), as_json)
        except KeyboardInterrupt:  # what click does with Ctrl-C: a new line, then "Aborted."
            echo("", err=True)
            echo("Aborted.", err=True)
            return 1
        return 0

    return guarded(call, lambda: command)
