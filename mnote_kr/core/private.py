"""Files only the user can read, appended to (the citation log of earlier versions held every query and quote).

Created 0600 whatever the process's umask; an existing file found wider is narrowed when it is
opened again. Whole-file writes go through :func:`mnote_kr.core.atomic.write_private`.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import BinaryIO

PRIVATE_FILE = 0o600
PRIVATE_DIR = 0o700


def open_private_append(path: Path) -> BinaryIO:
    """``path`` opened for appending bytes, created 0600 (an existing wider file is narrowed)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, PRIVATE_FILE)
    with contextlib.suppress(OSError, AttributeError):
        if os.fstat(fd).st_mode & 0o077:
            os.fchmod(fd, PRIVATE_FILE)
    return os.fdopen(fd, "ab")
