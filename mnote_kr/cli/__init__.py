"""The ``mnote-kr`` command line, one face of the host; ``main`` is the console script.

``main`` defines the group, the error boundary and the short commands; ``extra`` adds the
long-running ones (``watch``, ``serve``), whose modules load only when they run.
"""

from mnote_kr.cli import extra
from mnote_kr.cli.main import cli, main

extra.register(cli)

__all__ = ["cli", "main"]
