"""What a failed write says: a full disk is named as one, with the path and the space left.

``ENOSPC`` used to reach the user as "Cannot write registry ...: No space left on device
('mnote-kr registry restore' puts the previous generation back)": a restore cannot help, and
nothing was corrupt. :func:`write_failure` gives the message and hint a write error deserves.
"""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

#: Errors that mean "no room": the disk (or the user's quota) is full.
NO_SPACE = frozenset({errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)})


def free_space(path: Path) -> str:
    """The space left on the file system holding ``path`` (its nearest existing folder), or "unknown"."""
    probe = Path(path)
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        free = float(shutil.disk_usage(probe).free)
    except OSError:
        return "unknown"
    if free < 1024:
        return f"{free:.0f} bytes"
    for unit in ("KB", "MB", "GB"):
        free /= 1024
        if free < 1024 or unit == "GB":
            break
    return f"{free:.1f} {unit}"


def is_disk_full(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in NO_SPACE


def write_failure(what: str, path: Path, exc: OSError, kept: str = "") -> tuple[str, str]:
    """``(message, hint)`` for a failed write of ``what`` at ``path``; ``kept`` says what is still intact."""
    tail = f"; {kept}" if kept else ""
    target = f"{what} {path}" if what else str(path)
    if exc.errno in NO_SPACE:
        quota = exc.errno != errno.ENOSPC
        return (f"Cannot write {target}: {'the disk quota is exceeded' if quota else 'the disk is full'} "
                f"({free_space(path)} free on its file system)",
                f"free some space on that disk, then run the command again{tail}")
    return (f"Cannot write {target}: {exc.strerror or exc}",
            f"check that {path.parent} exists and is writable, then run the command again{tail}")
