"""Files only the user can read: what mnote-kr writes outside the user's own documents.

Tokens, the citation log (every query and quote), the engine's records: created 0600 whatever
the process's umask, and an existing file found wider is narrowed when it is opened again.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import BinaryIO

PRIVATE_FILE = 0o600
PRIVATE_DIR = 0o700


def write_private(path: Path, data: str | bytes) -> None:
    """Write ``path`` atomically (temp file + rename) with mode 0600."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
    try:
        with contextlib.suppress(AttributeError):
            os.fchmod(fd, PRIVATE_FILE)  # an old temp file of the same name keeps its mode otherwise
        os.write(fd, data.encode("utf-8") if isinstance(data, str) else data)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def open_private_append(path: Path) -> BinaryIO:
    """``path`` opened for appending bytes, created 0600 (an existing wider file is narrowed)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, PRIVATE_FILE)
    with contextlib.suppress(OSError, AttributeError):
        if os.fstat(fd).st_mode & 0o077:
            os.fchmod(fd, PRIVATE_FILE)
    return os.fdopen(fd, "ab")
