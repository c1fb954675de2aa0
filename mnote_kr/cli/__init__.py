"""The ``mnote-kr`` command line, one face of the host; ``main`` is the console script.

``main`` defines the group, the error boundary and the short commands; ``extra`` adds the
long-running ones (``watch``, ``serve``), whose modules load only when they run.
"""

import sys
import types

# httpx's package import also imports its own command line (rich, pygments, click: about half
# of httpx's import time), which mnote-kr never runs. httpx guards that import with
# ``except ImportError``; a placeholder without ``main`` takes that path. CLI process only.
if "httpx" not in sys.modules:
    sys.modules.setdefault("httpx._main", types.ModuleType("httpx._main"))

from mnote_kr.cli import extra  # noqa: E402
from mnote_kr.cli.main import cli, main  # noqa: E402

extra.register(cli)

__all__ = ["cli", "main"]
