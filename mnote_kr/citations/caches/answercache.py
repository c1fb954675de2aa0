"""Locate answers kept on disk: a fresh process answers a passage it answered before as a warm
process does from its memo, without loading the cited document or its locator's parser.

The key is everything the answer depends on: the locator plugin chosen for the file (name,
version and a stamp of its code: a hash of the sizes and modification times of its package's
modules and of every host ``citations`` module; and the same of each plugin recognising text the locate
falls back to, OCR for a scanned PDF's lines), the file's path and version (size, mtime,
inode), the request (evidence, query, sidecar block and its metadata) and the ``Locator``
type's fields, hashed. An edited file, another plugin or changed plugin or host code is a miss.

Entries are JSON ``Locator`` values under ``<cache>/locate/answers/`` (so emptying the
locate cache empties them too, and ``MNOTE_KR_LOCATE_CACHE=0`` turns them off with it),
written to a temp file and renamed into place; one that does not decode is a miss. The
folder is trimmed to ``MAX_ENTRIES``, oldest first, after one write in ``_TRIM_EVERY`` (at
random, ``filecache.one_in``: a trim scans the whole folder).
"""

from __future__ import annotations

import atexit
import hashlib
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from mnote_kr.core.atomic import write_atomic
from mnote_kr.models import Locator

if TYPE_CHECKING:
    from mnote_kr.plugins import Plugins

FOLDER = "answers"
VERSION = b"1"
MAX_ENTRIES = 20000
_TRIM_EVERY = MAX_ENTRIES // 8  # on average, one write in this many trims the folder (see filecache.one_in)

_decoder = msgspec.json.Decoder(Locator)
_encoder = msgspec.json.Encoder()
_SHAPE = repr(Locator.__struct_fields__).encode()
_stamps: dict[tuple[str, str], str] = {}
_stamp_lock = threading.Lock()


def _enabled() -> bool:
    from mnote_kr.citations.caches.filecache import _disk_enabled

    return _disk_enabled()


def _folder() -> Path:
    from mnote_kr.core.paths import cache_dir

    return cache_dir() / "locate" / FOLDER


def _stamped_files(module_file: str) -> list[str]:
    """The modules whose code shapes an answer: those beside ``module_file`` (a plugin package's
    code) and every module of the host's ``citations`` tree, which locators call through the
    plugin API to match text, pick and clean places and quotes (``textmatch``, ``queryterms``,
    ``cleaning.copyable``'s ``mostly_glyphs``...), its stage packages found on disk so a new one
    counts without a list to keep. Raises OSError when a folder cannot be read."""
    citations = os.path.dirname(os.path.dirname(__file__))  # caches/ is one of its stage packages
    files = [e.path for e in os.scandir(os.path.dirname(module_file)) if e.name.endswith(".py")]
    for folder, dirs, names in os.walk(citations):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        files.extend(os.path.join(folder, n) for n in names if n.endswith(".py"))
    return sorted(files)


def _file_state(path: str) -> str:
    """What the stamp reads of one module: its path, size and modification time."""
    st = os.stat(path)
    return f"{path}:{st.st_size}:{st.st_mtime_ns}"


def _code_stamp(module_file: str) -> str:
    """A hash of every stamped module's path, size and mtime (``_stamped_files``): a change to
    any of them, one put back to an older copy included, must not answer from an old entry."""
    h = hashlib.blake2b(digest_size=10)
    try:
        for path in _stamped_files(module_file):
            h.update(_file_state(path).encode("utf-8", "surrogatepass") + b"\0")
    except OSError:
        return ""
    return h.hexdigest()


def plugin_identity(plugins: Plugins, extension: str) -> str | None:
    """``name version stamp`` of the locator plugin that answers ``extension``, then of each plugin recognising
    text that ``Plugins.locate`` asks when that one finds no place (``locate_recognized``: OCR, for a scanned
    PDF's lines: its code shapes those answers too); None when the locator plugin has no module file."""
    name = plugins.locator_plugin(extension) or "file_locator"
    own = _identity(plugins, name, plugins.pm.get_plugin(name))
    if own is None:
        return None
    others = sorted(f" + {found}" for impl in plugins.pm.hook.locate_recognized.get_hookimpls()
                    if impl.plugin_name != name and (found := _identity(plugins, impl.plugin_name, impl.plugin)))
    return own + "".join(others)


def _identity(plugins: Plugins, name: str, plugin: object) -> str | None:
    """``name version stamp`` of one plugin (None: no module file to stamp)."""
    module_file = getattr(plugin, "__file__", None)
    if plugin is None or not module_file:
        return None
    info = plugins.infos.get(name)
    version = info.version if info is not None else None
    with _stamp_lock:
        stamp = _stamps.get((name, module_file))
        if stamp is None:
            stamp = _stamps[(name, module_file)] = _code_stamp(module_file)
    return f"{name} {version} {stamp}"


def entry_name(identity: str, key: tuple[Any, ...]) -> str:
    """The file name of the answer for ``key`` from the plugin ``identity``."""
    h = hashlib.blake2b(VERSION + b"\0" + identity.encode("utf-8", "surrogatepass"), digest_size=20)
    h.update(_SHAPE)  # a Locator with new fields (e.g. quoteOmit) never reads an answer stored without them
    h.update(msgspec.json.encode([str(k) if isinstance(k, bytes) else k for k in key]))
    return "a-" + h.hexdigest()


def get(name: str) -> Locator | None:
    """The stored answer, or None (missing, torn or not a Locator); one put and not written yet is read as
    written."""
    if not _enabled():
        return None
    path = _folder() / name
    with _pending_lock:
        waiting = _pending.get(path)
    try:
        return _decoder.decode(waiting if waiting is not None else path.read_bytes())
    except (OSError, msgspec.DecodeError):
        return None


#: Answers are written by a thread of their own once the search that found them has its result (False: by the
#: search, as each is found, as before round 30): round 29's profile measured the writes at 1.1 s of 40 warm
#: searches that ranking by meaning added (``benchmarks/search_cost.py --profile``: ~20 locates a search, one write
#: each, ~1.3 ms apiece at load 10; words alone write none). Not while the search runs: a thread writing beside it
#: takes the interpreter's lock from it at each answer, and on a loaded machine each hand-over waits for the
#: scheduler. A
#: process at its end writes those left (``atexit``: :func:`flush`), so a fresh process finds them as before.
WRITE_BEHIND = True
#: Answers put and not written yet, by their file (:func:`get` reads them); past this many the writer starts.
HELD_MOST = 256
_pending: dict[Path, bytes] = {}  # encoded when put: one that cannot be written is never held
_pending_lock = threading.Lock()
_work = threading.Condition(_pending_lock)
_writer: threading.Thread | None = None
_due = False  # the writer writes while answers are pending


def put(name: str, locator: Locator) -> None:
    """Store an answer (best effort: a cache that cannot write is only slower): written once the search has its
    result (:func:`write_behind`, ``WRITE_BEHIND``)."""
    if not _enabled():
        return
    folder = _folder()
    try:
        data = _encoder.encode(locator)
    except (UnicodeEncodeError, msgspec.EncodeError):  # a locator holding a lone surrogate (a plugin's text) is
        return  # not stored: the search goes on
    if not WRITE_BEHIND:
        _write(folder, name, data)
        return
    with _work:
        _pending[folder / name] = data
        if len(_pending) >= HELD_MOST:
            _wake()


def write_behind() -> None:
    """Start writing the answers put (the search that found them has its result), in the writer thread."""
    with _work:
        if _pending:
            _wake()


def _wake() -> None:
    """The writer thread started or woken (``_work`` held)."""
    global _writer, _due
    _due = True
    if _writer is None or not _writer.is_alive():
        _writer = threading.Thread(target=_write_pending, name="mnote-kr-answers", daemon=True)
        _writer.start()
    _work.notify_all()


def _write_pending() -> None:
    """The writer thread: each answer put, oldest first, until none is left (then it waits to be woken)."""
    global _due
    while True:
        with _work:
            while not (_pending and _due):
                _due = _due and bool(_pending)
                _work.notify_all()  # flush() waits for an empty queue
                _work.wait()
            path, data = next(iter(_pending.items()))
        _write(path.parent, path.name, data)
        with _work:
            if _pending.get(path) is data:  # put again meanwhile: the newer one is written next
                del _pending[path]


def flush(timeout: float | None = 30.0) -> bool:
    """Write every answer put, waiting at most ``timeout`` seconds; whether none is left."""
    with _work:
        if _pending:
            _wake()
        return _work.wait_for(lambda: not _pending or _writer is None or not _writer.is_alive(), timeout) \
            and not _pending


atexit.register(flush)


def _write(folder: Path, name: str, data: bytes) -> None:
    """Write one encoded answer under ``folder`` now (then, once in ``_TRIM_EVERY``, trim the folder)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_atomic(folder / name, data)  # a reader sees the old answer or the new
    except OSError:  # the temporary file is removed again: the search goes on
        return
    from mnote_kr.citations.caches.filecache import one_in

    if one_in(_TRIM_EVERY):
        trim(folder)


def trim(folder: Path, max_entries: int = MAX_ENTRIES) -> None:
    """Keep at most ``max_entries`` answers, dropping the least recently written."""
    try:
        entries = [(e.stat().st_mtime_ns, e.path) for e in os.scandir(folder) if e.name.startswith("a-")]
    except OSError:
        return
    if len(entries) <= max_entries:
        return
    entries.sort()
    for _, path in entries[: len(entries) - max_entries]:
        try:
            os.unlink(path)
        except OSError:
            pass
