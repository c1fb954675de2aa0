"""The ``mnote-kr`` command line, one face of the host; ``main`` is the console script.

``main`` (in ``main.py``) defines the click group, the short commands and the error boundary;
``extra`` adds the long-running ones (``watch``, ``serve``, ``mcp``), whose modules load only
when they run. The plainest ``status`` and ``roots list`` run without importing click at all
(``fast``); ``cli`` (the click group) is imported on first use.
"""

from __future__ import annotations

import sys
import types
from typing import Any, NoReturn

# httpx's package import also imports its own command line (rich, pygments, click: about half
# of httpx's import time), which mnote-kr never runs. httpx guards that import with
# ``except ImportError``; a placeholder without ``main`` takes that path. CLI process only.
if "httpx" not in sys.modules:
    sys.modules.setdefault("httpx._main", types.ModuleType("httpx._main"))


def main(argv: list[str] | None = None) -> int:
    """Run the command line (``argv`` defaults to ``sys.argv[1:]``) and return its exit code."""
    from mnote_kr.cli import fast

    code = fast.run(argv)
    if code is not None:
        return code
    return _click_main(argv)


_MAIN = main


def console() -> NoReturn:
    """The ``mnote-kr`` console script (and ``python -m mnote_kr``): ``main``, then the exit.

    After a read-only command of the plain path (``fast``: ``status``, ``roots list``,
    ``search``) the process ends without tearing the interpreter down (``fast.exit_now``):
    freeing every module and object of a process that is about to vanish costs a fresh
    ``status`` about half of the interpreter's own start (``benchmarks/cli_cold.py``). Only when this process is
    the command's own (``_outermost``): under ``python -m cProfile``, ``pdb``, ``runpy`` or an
    in-process script runner the exit stays a ``SystemExit`` they can catch. Every other command,
    and ``main`` called by an embedder, exits the usual way.

    The process's files are the user's only (umask 077): the registry, logs, tokens and the
    citation ID store hold names and quotes of the user's documents.
    """
    import os

    os.umask(0o077)
    from mnote_kr.cli import fast

    code = fast.run()
    if code is not None:
        if _outermost(sys._getframe(1)):
            fast.exit_now(code)
        sys.exit(code)
    sys.exit(_click_main(None))


def _outermost(caller: types.FrameType) -> bool:
    """Whether ``caller`` (the frame that called ``console``) is the process's own entry: a
    console script's module code (nothing below it), or ``__main__`` run by ``python -m``
    (CPython calls ``runpy._run_module_as_main`` → ``_run_code`` → the module)."""
    below = caller.f_back
    if below is None:
        return True
    runner = below.f_back
    return (below.f_code.co_name == "_run_code" and runner is not None
            and runner.f_code.co_name == "_run_module_as_main" and runner.f_back is None)


def _click_main(argv: list[str] | None) -> int:
    from mnote_kr.cli.main import main as click_main

    _keep_main()
    return click_main(argv)


def _keep_main() -> None:
    """Importing the submodule ``mnote_kr.cli.main`` binds the package attribute ``main`` to
    that module; the package's ``main`` stays the function (embedders call it more than once)."""
    globals()["main"] = _MAIN


def __getattr__(name: str) -> Any:
    if name == "cli":  # the click group, for embedding and tests
        from mnote_kr.cli.main import cli

        _keep_main()
        return cli
    raise AttributeError(f"module 'mnote_kr.cli' has no attribute {name!r}")


__all__ = ["cli", "console", "main"]
