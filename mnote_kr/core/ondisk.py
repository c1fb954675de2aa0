"""Whether a file on disk is still the version its registry entry indexed, asked where a file is cited
(search, ``open``, the viewer) before any ``sync`` has looked at it.

A stat answers almost always: the size and time the entry recorded. A file whose time changed but not its
size may only have been touched (``touch``, a backup or sync tool, ``git checkout``): it is hashed and
compared with the indexed hash, once per version of it in a process (its inode, size and time), so a
touched file is neither dropped from search nor refused by ``open`` while a same-size edit still is. A
file of another size is changed without reading it.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path

from mnote_kr.core import workspace
from mnote_kr.models import SourceEntry

#: Versions of touched files this process hashed: (path, inode, size, mtime_ns) -> ``sha256:<hex>``.
_hashed: OrderedDict[tuple[str, int, int, int], str] = OrderedDict()
_HASHED_MAX = 512
_lock = threading.Lock()


def changed_since_indexed(entry: SourceEntry, path: str | Path, st: os.stat_result) -> bool:
    """Whether the file at ``path`` (stat ``st``) is not the version ``entry`` indexed. An entry that
    recorded no size or time (0) is not compared by it; a touched file is compared by its hash."""
    size_differs = bool(entry.size and st.st_size != entry.size)
    time_differs = bool(entry.mtime_ns and st.st_mtime_ns != entry.mtime_ns)
    if size_differs or not time_differs:
        return size_differs
    if not entry.source_hash:
        return True
    key = (str(path), st.st_ino, st.st_size, st.st_mtime_ns)
    with _lock:
        digest = _hashed.get(key)
    if digest is None:
        try:
            digest = workspace.sha256_file(path)
        except OSError:
            return True
        with _lock:
            _hashed[key] = digest
            while len(_hashed) > _HASHED_MAX:
                _hashed.popitem(last=False)
    return digest != entry.source_hash
