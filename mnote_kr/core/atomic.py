"""Files written whole or not at all: readers see the old content or the new, never half.

Every whole-file write of the host and its plugins goes through :func:`write_atomic` (or
:func:`write_private`): the data goes to a temporary file beside the target, created exclusively
under a random name and never through a symbolic link (a cache folder may be shared with
other processes and threads), and one rename puts it in place. A write that fails leaves no
temporary file behind and raises; the target keeps its old content.
"""

from __future__ import annotations

import os
from pathlib import Path

_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
          | getattr(os, "O_BINARY", 0))


def open_temp(folder: Path | str, prefix: str, mode: int = 0o600) -> tuple[int, str]:
    """A new file in ``folder`` named ``prefix`` + 64 random bits, opened for writing: (fd, path).

    As ``tempfile.mkstemp`` makes it, without importing ``tempfile``: with ``shutil``, ``bz2``,
    ``lzma`` and ``random`` that is about 10 ms of every fresh ``search`` that writes a cache entry."""
    for _ in range(100):
        path = os.path.join(folder, prefix + os.urandom(8).hex())
        try:
            return os.open(path, _FLAGS, mode), path
        except FileExistsError:
            continue  # 64 random bits taken: try another name
    raise FileExistsError(f"no free temporary name in {folder}")


def write_atomic(path: Path | str, data: str | bytes, *, private: bool = False, durable: bool = False,
                 tmp_prefix: str | None = None) -> None:
    """Write ``path`` whole or not at all (temp file beside it, then rename).

    ``private``: readable by the user only (0600), whatever the umask; otherwise the mode a new
    file gets (0666 less the umask). ``durable``: the data reaches the disk before the rename.
    ``tmp_prefix``: the temporary file's name prefix (default ``.<name>.``), for a folder whose
    trimming recognises its own temporary files.
    """
    target = Path(path)
    fd, tmp = open_temp(target.parent, tmp_prefix or f".{target.name}.", 0o600 if private else 0o666)
    try:
        if private and hasattr(os, "fchmod"):
            os.fchmod(fd, 0o600)
        view = memoryview(data.encode("utf-8") if isinstance(data, str) else data)
        while view:
            view = view[os.write(fd, view):]
        if durable:
            os.fsync(fd)
    except BaseException:
        os.close(fd)
        _unlink(tmp)
        raise
    os.close(fd)
    try:
        os.replace(tmp, target)
    except BaseException:
        _unlink(tmp)
        raise


def write_private(path: Path | str, data: str | bytes) -> None:
    """Write ``path`` atomically, readable by the user only (0600)."""
    write_atomic(path, data, private=True)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
