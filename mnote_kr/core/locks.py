"""An exclusive lock on a lock file, without importing filelock where the OS offers ``flock``.

filelock's import (its state machinery, ``logging``, ``secrets``) costs a fresh ``search``
process more than the few appends it guards. On POSIX the lock is ``fcntl.flock`` on the lock
file, which is what filelock's own Unix lock takes: both interlock on the same file, so
processes of either kind exclude each other. The file stays in place (as with filelock), so
every waiter locks the same inode. Elsewhere, or on a file system without ``flock``, filelock
itself does the work.
"""

from __future__ import annotations

import contextlib
import errno
import os
import time
from collections.abc import Iterator

_POLL_S = 0.02


@contextlib.contextmanager
def exclusive(path: str, timeout: float) -> Iterator[None]:
    """Hold the lock on ``path`` (created when missing) for the ``with`` block.

    Raises ``filelock.Timeout`` when another process holds it for ``timeout`` seconds, as
    ``filelock.FileLock`` does.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        fcntl = None  # type: ignore[assignment]
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600) if fcntl is not None else -1
    try:
        if fd >= 0 and _acquire(fd, path, timeout):
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
            return
    finally:
        if fd >= 0:
            os.close(fd)
    import filelock  # no flock here: filelock chooses (Windows lock, or its soft lock)

    with filelock.FileLock(path, timeout=timeout):
        yield


def _acquire(fd: int, path: str, timeout: float) -> bool:
    """True once ``flock`` is held; False when this file system has no ``flock``."""
    import fcntl

    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
                return False  # ENOSYS, EOPNOTSUPP...: not a lock held by someone else
        if time.monotonic() >= deadline:
            import filelock

            raise filelock.Timeout(path)
        time.sleep(_POLL_S)
