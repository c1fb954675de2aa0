"""The command line's error boundary and output, without click.

Both faces of the command line use it: the click commands (``main``) and the few read-only
commands that run without click (``fast``). An error becomes one line ``Error: <message>
(<hint>)`` on stderr, with exit code 1 (runtime) or 2 (usage). With ``--json`` the error is also
one JSON object on stdout, the HTTP API's shape ``{"error": {"code", "message", "hint"}}``, unless the
command already printed its own report there (``ingest``/``sync`` print it, then fail): a script
reads one object either way. Ctrl-C during a command prints "Aborted." and exits 1, as click does; a
closed pipe (``| head``) also exits 1, as click does.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from typing import Any

from mnote_kr.errors import (
    ConfigError,
    DocumentError,
    LocatorError,
    MissingSecretError,
    MnoteKrError,
    NotFoundError,
    PathNotAllowedError,
    PluginError,
    ProviderError,
    RegistryError,
    UsageError,
)

_ANSI_RE = re.compile(r"\033\[[;?0-9]*[a-zA-Z]")  # click's own pattern (click._compat)


def echo(text: str, *, err: bool = False) -> None:
    """One line to stdout (or stderr), flushed: what ``click.echo`` does with plain text,
    including dropping terminal escapes (e.g. from a folder's name) when not writing to a terminal."""
    stream = sys.stderr if err else sys.stdout
    if "\033" in text and not stream.isatty():
        text = _ANSI_RE.sub("", text)
    stream.write(text + "\n")
    stream.flush()


#: Whether this process printed a JSON report (``emit_json``): a failing ``--json`` command then adds no error object.
_emitted = False


def emit_json(value: Any) -> None:
    """Print ``value`` as one line of JSON (msgspec loads here: ``--help`` never pays for it)."""
    import msgspec

    global _emitted
    _emitted = True
    sys.stdout.write(msgspec.json.encode(value).decode("utf-8") + "\n")
    sys.stdout.flush()


# A hint for errors raised without one, by error type (most specific first in the MRO walk).
DEFAULT_HINTS: dict[type[MnoteKrError], str] = {
    PathNotAllowedError: "give a path inside the workspace",
    UsageError: "see '{command} --help'",
    NotFoundError: "check the name or ID; 'mnote-kr status' lists what the workspace knows",
    DocumentError: "the file is broken, encrypted or not what its extension says; open it in its own application",
    LocatorError: "check that the file and sidecar exist and are readable",
    ProviderError: "'mnote-kr status' shows the provider's health",
    RegistryError: "'mnote-kr registry restore' puts the previous generation back",
    PluginError: "'mnote-kr plugins --all' shows every plugin and its load error",
    ConfigError: "fix the configuration file",
    MissingSecretError: "see 'mnote-kr secrets --help'",
    MnoteKrError: "run the command with --help",
}


def _message_hint(exc: MnoteKrError, command: str) -> tuple[str, str]:
    """The error's message and its hint (the error's own, else the default for its type)."""
    if exc.hint:
        return exc.message, exc.hint
    hint = next((DEFAULT_HINTS[k] for k in type(exc).__mro__ if k in DEFAULT_HINTS), "")
    return exc.message, hint.replace("{command}", command)


def error_line(exc: MnoteKrError, command: str = "mnote-kr") -> str:
    """The one line an error becomes: ``Error: <message> (<hint>)``, a hint always present.

    ``command`` is the command that ran (``mnote-kr search``), named in default hints.
    """
    message, hint = _message_hint(exc, command)
    text = f"{message} ({hint})" if hint else message
    return "Error: " + " ".join(text.split())


def json_error(code: str, message: str, hint: str | None) -> None:
    """A ``--json`` command's error as one JSON object on stdout, nothing when it printed its report:
    ``{"error": {"code", "message", "hint"}}`` as the HTTP API and MCP send it, with the words of the
    ``Error:`` line on stderr, so that a script reads what a person reads."""
    if not _emitted:
        emit_json({"error": {"code": code, "message": " ".join(message.split()),
                             "hint": " ".join(hint.split()) if hint else None}})


def wants_json(argv: list[str]) -> bool:
    """Whether the command line asks for ``--json`` (before a ``--``, after which words are arguments)."""
    words = argv[: argv.index("--")] if "--" in argv else argv
    return "--json" in words


def guarded(run: Callable[[], int | None], command: Callable[[], str], *, as_json: bool = False) -> int:
    """Run a command: its exit code (0 when it returns None), or one error line and the code.

    ``command`` names the command for default hints (called only when an error needs it).
    Unexpected exceptions also become one line (the traceback only with ``MNOTE_KR_DEBUG=1``).
    ``as_json``: an ``MnoteKrError`` is also one JSON object on stdout (``json_error``).
    """
    global _emitted
    _emitted = False  # a command run in-process after another (tests, embedders) starts with nothing printed
    try:
        code = run()
    except MnoteKrError as exc:
        said = command()
        echo(error_line(exc, said), err=True)
        if as_json:
            json_error(exc.code, *_message_hint(exc, said))
        return exc.exit_code
    except KeyboardInterrupt:
        echo("Interrupted.", err=True)
        return 130
    except BrokenPipeError:
        # The reader went away (``| head``): nothing more to say, and no complaint at exit when
        # Python flushes stdout again; exit 1 as click does.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: a bug still gets one line, not a traceback
        if os.environ.get("MNOTE_KR_DEBUG"):
            raise
        if isinstance(exc, OSError):
            from mnote_kr.core.diskfull import is_disk_full, write_failure

            if is_disk_full(exc):  # not a bug: say what is full, where, and how much is left
                from pathlib import Path

                message, hint = write_failure("", Path(exc.filename or "."), exc)
                echo("Error: " + " ".join(f"{message} ({hint})".split()), err=True)
                return 1
        detail = " ".join(str(exc).split())[:300]
        echo(f"Error: unexpected {type(exc).__name__}: {detail} "
             "(this is a bug: rerun with MNOTE_KR_DEBUG=1 for the traceback and report it)", err=True)
        return 1
    return 0 if code is None else code
