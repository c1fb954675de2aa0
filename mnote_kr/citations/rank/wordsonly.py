"""Files placed by words only because their places lost their vectors: remembered by search, embedded by sync.

Ingest embeds a file's places (paragraphs, PDF text blocks, OCR lines) and keeps the vectors by a hash of
the places' text (``meaning.places_key``). When the places a locator reads change without the file being
sent again (a new version's PDF layout cuts its blocks differently, a locator reads a file another way)
or the vector store is emptied, the key a search asks for is unknown: ``meaning.cosines`` / ``nearest`` /
``rank`` answer None and the file is placed by words alone. That is remembered here, and ``sync``,
``watch`` and ``ingest --wait`` prepare such a file again through the locator's ``prepare_locate`` (its
cached model, nothing sent to LightRAG) and embed its places; ``status`` counts them meanwhile, and an
``ingest`` without ``--wait`` (which embeds no places, its own files' neither) names those it looked at.

* **When:** the pipeline locates each passage inside :func:`located`, which names the file being located
  (a context variable: a search in another thread names its own). A lookup that finds no vectors calls
  :func:`missed` with the key; outside :func:`located` (a plugin's own call, a test) nothing happens, nor
  when the model is not installed (no file would get vectors; ``status`` says so already). Each (file,
  key) is looked at once per process, and written once: a search's cost grows by one context-variable
  set per located passage (``benchmarks/words_only_search.py``).
* **Where:** ``<state_dir>/meaning/<workspace id>/words-only.json`` (mode 0600, folders 0700), never the
  user's folder; each file with the key asked for and the content hash it had in the registry. Written
  whole (a temp file renamed) under its own lock: a crash leaves the old record or the new one; an
  unreadable record is empty (it is derived: the next search records its files again).
* **Bound:** the newest :data:`MAX_FILES` files searches met; the rest are recorded again when a search meets
  them. The files an ingest sent or left unembedded (``not_yet``) are all kept: each is a file of the library
  (one entry a path), and nothing but the record would name them again (review30 finding 2).
* **Settled:** a file ``sync`` prepared whose places hold nothing to embed (a PDF whose blocks are all
  too short) still has no vectors; it is kept aside with its key, so searches do not record it again
  (until its places change).
"""

from __future__ import annotations

import contextvars
import os
import threading
from collections.abc import Callable, Container, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, ParamSpec, Protocol, TypeVar

import msgspec

from mnote_kr.citations.rank import meaning
from mnote_kr.core.locks import exclusive
from mnote_kr.core.private import PRIVATE_DIR
from mnote_kr.errors import MnoteKrError

if TYPE_CHECKING:
    from mnote_kr.core.registry import Registry
    from mnote_kr.core.workspace import Workspace

#: Under ``paths.state_dir()``: one folder per workspace.
STATE_DIR = "meaning"
RECORD_FILE = "words-only.json"
RECORD_VERSION = 1
#: Files kept in the record (and in its settled list), newest first seen kept.
MAX_FILES = 2000
#: How many files ``status`` names (all are counted).
SHOWN = 50
#: What places them by meaning again.
COMMAND = "mnote-kr sync"

T = TypeVar("T")
P = ParamSpec("P")


class HasWorkspace(Protocol):
    @property
    def workspace(self) -> Workspace: ...

    def registry(self) -> Registry: ...


class WordsOnlyFile(msgspec.Struct, kw_only=True, rename="camel"):
    """A file a search placed by words only: the places key it asked for and the file's registry hash;
    ``not_yet``: an ingest prepared it and never embedded its places (no ``--wait``, or its engine stopped)."""

    source_path: str
    key: str
    source_hash: str = ""
    seen_at_ms: int = 0
    not_yet: bool = False


class WordsOnly(msgspec.Struct, kw_only=True, rename="camel"):
    """``words-only.json``: files waiting for their places' vectors, and those with none to make; ``audited``: the
    version of :func:`audit` this workspace's indexed files were checked by (0: never)."""

    version: int = RECORD_VERSION
    files: list[WordsOnlyFile] = []
    settled: list[WordsOnlyFile] = []
    audited: int = 0


_decoder = msgspec.json.Decoder(WordsOnly)
_encoder = msgspec.json.Encoder()
#: The file a search is locating now: (host, workspace-relative path).
_locating: contextvars.ContextVar[tuple[HasWorkspace, str] | None] = contextvars.ContextVar(
    "mnote_kr_locating", default=None)
#: (workspace id, path, key) looked at by this process: each is read and written at most once.
_noted: set[tuple[str, str, str]] = set()
_noted_lock = threading.Lock()
#: Per record path: its (mtime, size) after this process's last catch-up (``watch`` tries again on change).
_tried: dict[str, tuple[int, int]] = {}


def record_path(host: HasWorkspace, *, create: bool = False) -> Path:
    """This workspace's record (``create``: its folders made, 0700)."""
    from mnote_kr.core import paths

    folder = paths.state_dir() / STATE_DIR / host.workspace.workspace_id
    if create:
        folder.parent.mkdir(exist_ok=True, mode=PRIVATE_DIR)
        folder.mkdir(exist_ok=True, mode=PRIVATE_DIR)
    return folder / RECORD_FILE


def load(host: HasWorkspace) -> WordsOnly:
    """The record (empty when absent or unreadable)."""
    try:
        return _decoder.decode(record_path(host).read_bytes())
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return WordsOnly()


def located(host: HasWorkspace, rel: str, locate: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``locate(*args, **kwargs)`` with ``rel`` named as the file being located (for :func:`missed`)."""
    token = _locating.set((host, rel))
    try:
        return locate(*args, **kwargs)
    finally:
        _locating.reset(token)


def missed(key: str) -> None:
    """The places of ``key`` have no vectors (``meaning.cosines``/``nearest``): remember the file being
    located, once per process; best effort (a search never fails for it)."""
    current = _locating.get()
    if current is None:
        return
    host, rel = current
    ident = (host.workspace.workspace_id, rel, key)
    with _noted_lock:
        if ident in _noted:
            return
        if len(_noted) > 100_000:
            _noted.clear()
        _noted.add(ident)
    if not meaning.model_installed():
        return
    try:
        _record(host, rel, key)
    except (OSError, MnoteKrError):  # (a lock held too long is a TimeoutError, an OSError)
        pass


def _record(host: HasWorkspace, rel: str, key: str) -> None:
    from mnote_kr.core.atomic import write_private
    from mnote_kr.core.registry import now_ms

    entry = host.registry().entries.get(rel)
    source_hash = entry.source_hash if entry is not None else ""
    path = record_path(host, create=True)
    with exclusive(str(path) + ".lock", timeout=5):
        current = load(host)
        if any(f.source_path == rel and f.key == key for f in (*current.files, *current.settled)):
            return
        files = [f for f in current.files if f.source_path != rel]
        files.append(WordsOnlyFile(source_path=rel, key=key, source_hash=source_hash, seen_at_ms=now_ms()))
        write_private(path, _encoder.encode(WordsOnly(files=_bounded(files), settled=current.settled,
                                                      audited=current.audited)))


def _bounded(files: list[WordsOnlyFile]) -> list[WordsOnlyFile]:
    """``files`` within the bound: every file an ingest left (``not_yet``), and the newest :data:`MAX_FILES` of
    those searches met, in their order."""
    met = [f for f in files if not f.not_yet]
    if len(met) <= MAX_FILES:
        return files
    dropped = {id(f) for f in met[:len(met) - MAX_FILES]}
    return [f for f in files if id(f) not in dropped]


def sending(host: HasWorkspace, rels: Iterable[str]) -> None:
    """Before an ingest waits for the provider and embeds: remember every file it sent as not placed by meaning yet,
    its places key not known yet (""), in one atomic write, so that a process killed from here on (``kill -9``:
    none of its last steps run) leaves them counted by words only and embedded by the next ``sync``. The ingest
    settles the record itself when it ends (:func:`unembedded` with ``sent``). Nothing without the model."""
    todo = dict.fromkeys(rels, "")
    if todo and meaning.model_installed():
        _write_not_yet(host, todo, set())


def unembedded(host: HasWorkspace, keys: Mapping[str, list[str]], sent: Iterable[str] = ()) -> None:
    """Remember the files an ingest prepared and sent without embedding their places (no ``--wait``, or a wait
    its provider's engine stopped: nc28c, "placed by words and meaning" with no vector stored): each
    with the first places key it queued that has no vectors (``keys``: path -> keys), in one write; they
    are placed by words only until ``sync`` embeds them. The files of ``sent`` that need no more (their places
    embedded, or none queued) leave the record: the placeholder :func:`sending` wrote, or what a search recorded of
    them meanwhile (review30 finding 12: the next ``sync`` prepared them again for nothing). Nothing without the
    model."""
    if not meaning.model_installed():
        return
    todo = {rel: key for rel, ks in keys.items() if (key := next((k for k in ks if not meaning.has_vectors(k)), None))}
    done = set(sent) - set(todo)
    if todo or done:
        _write_not_yet(host, todo, done)


def _write_not_yet(host: HasWorkspace, todo: Mapping[str, str], done: set[str], audited: int | None = None) -> bool:
    """Record the files of ``todo`` (path -> places key) as not placed by meaning yet, and drop every record of
    those of ``done`` (``audited``: the record's :func:`audit` version too), in one write under the record's lock;
    best effort: False when it could not be written."""
    from mnote_kr.core.atomic import write_private
    from mnote_kr.core.registry import now_ms

    reg = host.registry()
    path = record_path(host, create=True)
    try:
        with exclusive(str(path) + ".lock", timeout=5):
            current = load(host)
            files = [f for f in current.files if f.source_path not in todo and f.source_path not in done]
            if not todo and files == current.files and audited in (None, current.audited):
                return True
            files += [WordsOnlyFile(source_path=rel, key=key, seen_at_ms=now_ms(), not_yet=True,
                                    source_hash=e.source_hash if (e := reg.entries.get(rel)) is not None else "")
                      for rel, key in todo.items()]
            write_private(path, _encoder.encode(WordsOnly(files=_bounded(files), settled=current.settled,
                                                          audited=current.audited if audited is None else audited)))
    except (OSError, MnoteKrError):  # best effort: a search records them when it meets them
        return False
    return True


#: The version of :func:`audit`: a workspace whose record says less is checked once more.
AUDIT_VERSION = 1


def audit(host: HasWorkspace, prepare: Callable[[str], object], progress: Callable[[str], None] | None = None) -> int:
    """Once per workspace (the record's ``audited``): record as not placed by meaning yet the indexed files whose
    places have no vectors that no record names, so the catch-up that calls it embeds them: an ingest from before
    :func:`sending` whose wait a stop or a kill cut left them so (nc28c's home counted 19 files "placed by words and
    meaning" with 0 vectors stored, and only ``ingest --force`` repaired it). Each is prepared again (``prepare``:
    the locator's cached model; after a reader's version changed, read again) for its places keys, with one line to
    ``progress`` first; nothing is sent, queued or embedded here. Marked done in the same write as what it found:
    a write that fails (a lock held too long) leaves it to the next catch-up. How many."""
    if not meaning.model_installed() or load(host).audited >= AUDIT_VERSION:
        return 0
    current = load(host)
    named = {f.source_path for f in (*current.files, *current.settled)}
    files = [(rel, path) for rel, entry in host.registry().entries.items()
             if entry.status == "processed" and not entry.stale and rel not in named
             and (path := host.workspace.rel_to_abs(rel)).is_file()]
    if files and progress is not None:
        progress(f"checking {len(files)} indexed file(s) for places never embedded (once per workspace: each is "
                 "prepared for locating again; nothing is sent to LightRAG)")
    todo: dict[str, str] = {}
    for rel, path in files:
        if key := next((k for k in _keys_of(prepare, str(path)) if not meaning.has_vectors(k)), None):
            todo[rel] = key
    _write_not_yet(host, todo, set(), audited=AUDIT_VERSION)
    return len(todo)


def _keys_of(prepare: Callable[[str], object], path: str) -> list[str]:
    """The places keys preparing ``path`` queues, its places kept out of the embedding queue (``meaning.keys_only``:
    the audit reads keys, the catch-up after it embeds the files that need it; what other threads queue stays)."""
    keys: list[str] = []
    token, only = meaning.collected.set(keys), meaning.keys_only.set(True)
    try:
        prepare(path)
    except MnoteKrError:
        return []  # unreadable for the locator now: nothing to embed
    finally:
        meaning.keys_only.reset(only)
        meaning.collected.reset(token)
    return keys


def _live(reg: Registry, f: WordsOnlyFile) -> bool:
    """Whether the recorded file is still the indexed, citable version it was (else the normal paths
    handle it: a changed file is sent again, and its places embedded by that ingest)."""
    from mnote_kr.core.registry_format import entry_tag, is_citable_tag

    entry = reg.entries.get(f.source_path)
    return entry is not None and entry.source_hash == f.source_hash and is_citable_tag(entry_tag(entry))


def due(host: HasWorkspace, scope: Container[str] | None = None, *, again: bool = True) -> list[WordsOnlyFile]:
    """The recorded files to prepare and embed again (those in ``scope``, when given): still indexed as
    they were and on disk. ``again`` False: none when the record is unchanged since this process's last
    catch-up (``watch`` asks on every tick)."""
    path = record_path(host)
    try:
        st = os.stat(path)
    except OSError:
        return []
    if not again and _tried.get(str(path)) == (st.st_mtime_ns, st.st_size):
        return []
    _tried[str(path)] = (st.st_mtime_ns, st.st_size)
    files = load(host).files
    if not files:
        return []
    reg = host.registry()
    return [f for f in files if (scope is None or f.source_path in scope) and _live(reg, f)
            and os.path.isfile(host.workspace.rel_to_abs(f.source_path))]


def settle(host: HasWorkspace, prepared: Iterable[WordsOnlyFile], *, embedded: bool) -> None:
    """After a catch-up: the ``prepared`` files leave the record (``embedded`` False: the model would not
    load, they stay), with those no longer indexed as they were or gone; a prepared file whose places
    still have no vectors (nothing in them to embed) is kept aside, not recorded again for that key."""
    from mnote_kr.core.atomic import write_private

    path = record_path(host)
    if not path.exists():
        return
    done = {(f.source_path, f.key) for f in prepared} if embedded else set()
    with exclusive(str(path) + ".lock", timeout=30):
        current = load(host)
        reg = host.registry()
        keep, settled = [], [f for f in current.settled if _live(reg, f)]
        for f in current.files:
            if (f.source_path, f.key) in done:
                if f.key and not meaning.has_vectors(f.key):  # (a file recorded before its key was known: dropped)
                    settled = [s for s in settled if s.source_path != f.source_path] + [f]
            elif _live(reg, f) and os.path.isfile(host.workspace.rel_to_abs(f.source_path)):
                keep.append(f)
        record = WordsOnly(files=keep, settled=settled[-MAX_FILES:], audited=current.audited)
        if record != current:
            write_private(path, _encoder.encode(record))
        st = os.stat(path)
        _tried[str(path)] = (st.st_mtime_ns, st.st_size)
    with _noted_lock:
        _noted.difference_update((host.workspace.workspace_id, rel, key) for rel, key in done)


def status(host: HasWorkspace, reg: Registry, shown: int = SHOWN,
           scope: Container[str] | None = None, indexed: Container[str] = ()) -> dict[str, object]:
    """``status``'s ``meaning.wordsOnly``: how many indexed files (of ``scope``, when given) are placed by
    words only until ``sync`` embeds their places (the recorded files still indexed as they were, their
    vectors still missing), the first ``shown``, and the command (``indexed``: files the provider has indexed that
    the registry still records as sent, counted as indexed). No file is read."""
    paths_: list[str] = []
    count = done = 0
    if record_path(host).exists():
        for f in load(host).files:
            if (scope is None or f.source_path in scope) and _live(reg, f) and not meaning.has_vectors(f.key):
                count += 1
                done += reg.entries[f.source_path].status == "processed" or f.source_path in indexed
                if len(paths_) < shown:
                    paths_.append(f.source_path)
    # ``indexed``: of them, those LightRAG has indexed already (the others are still being indexed)
    return {"count": count, "paths": paths_, "command": COMMAND, "indexed": done}


def left(host: HasWorkspace, scope: Container[str]) -> dict[str, object] | None:
    """What an ingest that embeds no places (no ``--wait``) leaves placed by words only among the files it
    looked at (``scope``): :func:`status` of them, or None (none, or no model to embed them with)."""
    if not record_path(host).exists() or not meaning.model_installed():
        return None
    found = status(host, host.registry(), scope=scope)
    return found if found["count"] else None


def summary(files: list[WordsOnlyFile], problem: str | None) -> dict[str, object]:
    """What a catch-up did (``sync --json``'s ``reconcile.wordsOnly``): the files prepared and embedded
    again, or the reason they were not."""
    out: dict[str, object] = {"count": len(files), "paths": [f.source_path for f in files[:SHOWN]]}
    if not_yet := sum(f.not_yet for f in files):  # of them, files an ingest never embedded (none: places changed)
        out["notYet"] = not_yet
    if problem:
        out["error"] = problem
    return out


def sync_lines(result: Mapping[str, object] | None) -> list[str]:
    """``sync``'s line for people: the files whose places were embedded again."""
    if not result or not result.get("count"):
        return []
    paths_ = list(result.get("paths") or [])  # type: ignore[call-overload]
    first = f", e.g. {paths_[0]}" if paths_ else ""
    why = reason(int(result["count"]), int(result.get("notYet") or 0))  # type: ignore[call-overload]
    if result.get("error"):
        return [f"{result['count']} file(s) are placed by words only ({why}){first}: not embedded: {result['error']}"]
    return [f"Embedded the places of {result['count']} file(s) placed by words only ({why}){first}: placed by "
            "meaning now"]


def reason(count: int, not_yet: int) -> str:
    """Why ``count`` files had no vectors, ``not_yet`` of them never embedded by the ingest that prepared them
    (the others a search met without vectors: their places changed, or an older version never recorded them)."""
    if not_yet >= count:
        return ("not placed by meaning yet: the ingest that sent them embedded nothing (no --wait, or its engine "
                "stopped)")
    if not_yet:
        return f"{not_yet} not placed by meaning yet, {count - not_yet} whose places have no vectors"
    return "their places have no vectors: changed since they were embedded, or never embedded"


if missed not in meaning.WITHOUT_VECTORS:  # meaning knows no caller: this module listens
    meaning.WITHOUT_VECTORS.append(missed)
