"""Issued citation IDs, kept so ``open`` works across processes and for as long as notes are kept.

``open ID`` (CLI, HTTP, MCP) and the viewer look an ID up here: the citation it names (file,
locator, quote) was issued by an earlier ``search`` or ``ask``, often in another process, often
months ago (a note holds ``[a3z1]``). The store keeps each query's quotes, so it is kept like the rest
of mnote-kr's state, not in the user's folder:

* **Where:** ``<state_dir>/citations/<workspace id>/ids.sqlite3`` (``Workspace.workspace_id``: one
  workspace's IDs apart from another's), 0600 in 0700 folders (``idstore``: SQLite, write-ahead log).
* **What:** one record per ID, upserted: the latest issue of an ID gives the citation (the query and quote
  of the search a user just left: the viewer's "back to results", the open plan's ``openAction``), and
  the record keeps the searches that printed the ID before, each with the quote it showed (``earlier``,
  read in the same transaction: an ID names a place, the quote depends on the question; ``open`` lists
  them as ``issues``), with only what ``open``, the viewer and MCP read (``idrecord``; one search's
  records are deflated together, ``benchmarks/citation_ids.py`` has the bytes an ID takes).
* **An ID never changes place:** an ID is a short hash (``render.ids``); when the store holds it for
  another place (``idrecord.place_of``: another file, or another place or claim in it), the new
  citation is renamed to a 5-character ID of its own, in the same transaction (``remember`` returns
  the citations as issued, alternatives and an answer's markers renamed with them).
* **Bound:** the latest ``[citations] keep`` issues (:func:`keep`, default :data:`idstore.MAX_IDS`);
  an older ID is reported expired (``open`` says to search again), and is never issued for another
  place later (``idstore``: ``gone``). A search's own IDs all stay, even when they are more than ``keep``.
* **Version:** each record also holds ``sourceHash``, the cited file's content hash in the registry
  when the ID was issued: ``open`` refuses a citation whose file changed since (``issued``).
* **Off:** ``[citations] log = false`` writes nothing; the process still remembers what it
  issued (in memory, bounded), so a running ``serve`` or ``mcp`` opens its own citations.
* **Migration:** the log earlier versions appended (``citations.jsonl`` and its previous generation
  ``citations.jsonl.1`` here; before that ``.mnote/index/citations.jsonl`` and ``citations.json`` in the
  workspace) is read into the store the first time it is used, later lines winning and never over an ID
  the store already holds, then deleted. With the log off those files are only read.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from mnote_kr.citations.caches import idrecord, idstore
from mnote_kr.citations.hostview import HostView as Host
from mnote_kr.citations.render.ids import citation_id, issue_key, search_of
from mnote_kr.core import paths
from mnote_kr.core.locks import exclusive
from mnote_kr.core.private import PRIVATE_DIR
from mnote_kr.errors import ConfigError, MnoteKrError
from mnote_kr.models import Citation, GroundedSentence, IssuedQuote

if TYPE_CHECKING:
    from mnote_kr.core.registry import Registry

#: The log earlier versions appended, one JSON object a line (read once into the store).
CITATION_LOG = "citations.jsonl"
CITATION_CACHE = CITATION_LOG  # its earlier name
#: The whole-file JSON cache of still earlier versions, read once from the workspace.
LEGACY_CITATION_CACHE = "citations.json"
#: Under ``paths.state_dir()``: one folder per workspace.
LOG_DIR = "citations"
#: Citations each process keeps in memory per workspace (what ``open`` finds with the log off).
CITATION_CACHE_MAX = 5000
#: IDs kept per workspace (the latest issues; ``idstore``) unless ``[citations] keep`` says otherwise.
MAX_IDS = idstore.MAX_IDS
#: The fewest IDs ``[citations] keep`` may ask for: one search issues up to some 50 (places and alternatives).
MIN_KEEP = 100
#: A renamed ID's length: one more than a hashed ID's, so it never meets a fresh ID of the same result.
RENAMED_LENGTH = 5


class _CitationCache(msgspec.Struct, kw_only=True):
    version: int = 1
    citations: dict[str, Citation] = {}


class _Issued(Citation, frozen=True, kw_only=True):
    """A line of the former log: the citation and its file's content hash (``sourceHash``) then."""

    source_hash: str = ""


_cache_decoder = msgspec.json.Decoder(_CitationCache)
_line_decoder = msgspec.json.Decoder(_Issued)

#: A search's mode and its scope (root-relative paths): with its query, what its issue key hashes.
Search = tuple[str, Sequence[str]]

#: Per workspace id: (place, citation, source hash, the searches that printed it) of the IDs this process
#: issued, newest last.
_memory: dict[str, OrderedDict[str, tuple[int, Citation, str, list[idrecord.Issue]]]] = {}
#: IDs of ``_memory`` issued while the store could not be written, by workspace: the next write takes them.
_held: dict[str, set[str]] = {}
_memory_lock = threading.RLock()


def log_enabled(host: Host) -> bool:
    """``[citations] log`` (default true): whether issued citations are written to the store."""
    config: Any = getattr(host, "config", None) or {}
    section = config.get("citations") if isinstance(config, dict) else None
    value = section.get("log", True) if isinstance(section, dict) else True
    if not isinstance(value, bool):
        raise ConfigError("[citations] log must be true or false",
                          hint="e.g. log = false under [citations] in .mnote/config.toml")
    return value


def keep(host: Host, *, strict: bool = True) -> int:
    """``[citations] keep`` (default :data:`MAX_IDS`): how many of the latest issued IDs the store keeps.
    A value that is not a whole number of at least :data:`MIN_KEEP` is a ``ConfigError``; with ``strict``
    false the default instead (a lookup never fails on it: ``remember`` says what is wrong)."""
    config: Any = getattr(host, "config", None) or {}
    section = config.get("citations") if isinstance(config, dict) else None
    if not isinstance(section, dict) or "keep" not in section:
        return MAX_IDS
    value = section["keep"]
    if isinstance(value, bool) or not isinstance(value, int) or value < MIN_KEEP:
        if not strict:
            return MAX_IDS
        raise ConfigError(f"[citations] keep must be a whole number of IDs, at least {MIN_KEEP} (not {value!r})",
                          hint=f"e.g. keep = 20000 under [citations] in .mnote/config.toml (default {MAX_IDS:_})")
    return value


def _folder(host: Host) -> Path:
    folder = paths.state_dir() / LOG_DIR
    folder.mkdir(exist_ok=True, mode=PRIVATE_DIR)
    folder = folder / host.workspace.workspace_id
    folder.mkdir(exist_ok=True, mode=PRIVATE_DIR)
    return folder


def store_path(host: Host) -> Path:
    """This workspace's ID store (its folder is created 0700 when missing)."""
    return _folder(host) / idstore.STORE_FILE


def log_path(host: Host) -> Path:
    """Where earlier versions appended this workspace's citation log (read once into the store)."""
    return _folder(host) / CITATION_LOG


def previous_path(path: Path) -> Path:
    """The previous generation of the log at ``path``."""
    return path.with_name(path.name + ".1")


# --------------------------------------------------------------------------- reading


def issued(host: Host, citation_id: str) -> tuple[Citation, str] | None:
    """The remembered citation with this (normalised) ID and its file's content hash when it was
    issued ("" when it was logged before the hash was kept), or None: unknown or expired."""
    found = _lookup(host, citation_id)
    return (found[0], found[1]) if found is not None else None


def issued_history(host: Host, citation_id: str) -> tuple[Citation, str, list[IssuedQuote]] | None:
    """:func:`issued`, and the searches that printed the ID, newest first (the citation holds the first's
    query and quote): an ID names a place, and each search shows its own quote there."""
    found = _lookup(host, citation_id)
    return (found[0], found[1], idrecord.plain(found[2])) if found is not None else None


def issued_as(host: Host, citation_id: str, key: str | None) -> tuple[Citation, str, bool] | None:
    """:func:`issued` as the search with issue ``key`` (``render.ids.issue_key``, a viewer URL's ``?issue=``)
    showed the ID: its query, quote and places. The newest issue when ``key`` is None or names none the
    store keeps (evicted by later searches, or printed before issues kept their places): the last item
    then says whether ``key`` was found (True when no key was asked)."""
    found = _lookup(host, citation_id)
    if found is None:
        return None
    citation, source_hash, issues = found
    if citation.issue is None:
        citation = msgspec.structs.replace(citation, issue=issue_key(citation.search_query))
    if key is None or key == citation.issue:
        return citation, source_hash, True
    issue = idrecord.issue_for(issues, key)
    if issue is None or issue.alternatives is None or issue.locator is None:
        return citation, source_hash, False
    loc = issue.locator
    mode, scope = idrecord.searched(issue)
    return msgspec.structs.replace(
        citation, search_query=issue.search_query, display_quote=issue.display_quote, alternatives=issue.alternatives,
        locator=loc, locator_precision=loc.locator_precision, locator_degraded=loc.locator_degraded,
        issue=key, search_mode=mode, search_scope=scope), source_hash, True


def _lookup(host: Host, citation_id: str) -> tuple[Citation, str, list[idrecord.Issue]] | None:
    own = _memory.get(host.workspace.workspace_id)
    mine = own.get(citation_id) if own is not None else None
    if mine is not None:
        return mine[1], mine[2], mine[3]
    on = _log_on(host)
    if on:
        _migrate(host)
    with _readable(host):
        row = idstore.get(store_path(host), citation_id)
    record = idrecord.decode(row[1], citation_id) if row is not None else None
    if record is not None:
        return idrecord.to_citation(record, _source_path(host, record.rel)), record.source_hash, idrecord.issues(record)
    if not on:  # nothing is written with the log off: a former log is read where it lies
        old = _old_lines(host).get(citation_id)
        if old is not None:
            return _plain(old), old.source_hash, [idrecord.issue_of(old)]
    return None


def expired(host: Host, citation_id: str) -> bool:
    """Whether this (normalised) ID was issued in this workspace and has been evicted since: more than
    :func:`keep` issues ago (``open`` then says so rather than "unknown")."""
    with _readable(host):
        return idstore.expired(store_path(host), citation_id)


class CitationStoreError(MnoteKrError):
    """The citation ID store cannot be read: a damaged file (not SQLite), or one the process may not open."""

    code = "citation_store"


class CitationStoreBusyError(CitationStoreError):
    """The citation ID store could not be read just now, though it is sound: busy, or a passing error."""

    code = "citation_store_busy"
    http_status = 503
    retry_after = 1.0


@contextlib.contextmanager
def _readable(host: Host) -> Any:
    """Reading the store: a damaged or unreadable file is one error line naming it, never "unexpected"; an
    error that may pass says so, never to move the store aside (every issued ID would go with it)."""
    try:
        yield
    except (sqlite3.DatabaseError, OSError) as exc:
        path = store_path(host)
        if isinstance(exc, sqlite3.Error) and idstore.passing(path, exc):
            raise CitationStoreBusyError(f"The citation ID store {path} could not be read just now ({exc})",
                                         hint="try again in a moment; the store is sound") from exc
        hint = f"move {path} aside (IDs issued before are lost with it) and search again"
        raise CitationStoreError(f"The citation ID store {path} cannot be read ({exc})", hint=hint) from exc


def _unwritable(host: Host, exc: BaseException) -> None:
    """A search never fails for the store: one stderr line per process, the IDs kept in this process only
    (moving the store aside is said only of a damaged one)."""
    if isinstance(exc, sqlite3.Error) and idstore.passing(store_path(host), exc):
        print(f"Warning: the citation ID store {store_path(host)} could not be written just now ({exc}), tried "
              f"{idstore.WRITE_TRIES} times: this search's IDs open in this process only until its next search "
              "writes them; search again for IDs that open everywhere", file=sys.stderr)
        return
    if not _warned:
        _warned.append(True)
        print(f"Warning: the citation ID store {store_path(host)} cannot be written ({exc}): this search's IDs "
              "open in this process only; move the file aside", file=sys.stderr)


_warned: list[bool] = []


def find(host: Host, citation_id: str) -> Citation | None:
    """The remembered citation with this (normalised) ID, or None."""
    found = issued(host, citation_id)
    return found[0] if found else None


def load(host: Host) -> dict[str, Citation]:
    """Every remembered citation of this workspace, least recently issued first (tests, diagnostics)."""
    out: dict[str, Citation] = {}
    if _log_on(host):
        _migrate(host)
    else:
        out.update((cid, _plain(c)) for cid, c in _old_lines(host).items())
    for cid, _, data in idstore.every(store_path(host)):
        record = idrecord.decode(data, cid)
        if record is not None:
            out[cid] = idrecord.to_citation(record, _source_path(host, record.rel))
    for cid, (_, citation, _, _) in _memory.get(host.workspace.workspace_id, {}).items():
        out.pop(cid, None)
        out[cid] = citation
    return out


def _log_on(host: Host) -> bool:
    try:
        return log_enabled(host)
    except ConfigError:
        return False  # a lookup never writes on a doubtful setting (``remember`` says what is wrong)


def _source_path(host: Host, rel: str) -> str:
    try:
        return str(host.workspace.rel_to_abs(rel))
    except (ValueError, OSError):
        return rel


def _plain(found: Citation) -> Citation:
    return Citation(**{name: getattr(found, name) for name in Citation.__struct_fields__})


# --------------------------------------------------------------------------- issuing


def remember(host: Host, citations: list[Citation], registry: Registry | None = None,
             issue: str | None = None, search: Search | None = None) -> list[Citation]:
    """Keep issued citations so ``open`` works across processes, each with its file's content hash
    in ``registry`` (the one the citations were built from; by default the host's now), and the key of the
    search that issued them (``issue``: ``render.ids.issue_key`` of its query, mode and scope; by default each
    citation's query's: a search in the default mode over the whole library). ``search``: that search's mode and
    scope (root-relative paths), kept with its key so ``open`` and the viewer's way back can say them (its key
    is then theirs: ``issue`` is not needed).

    Returns the citations as issued: one whose ID the store (or, with the log off, this process)
    holds for another place gets an ID of its own (``RENAMED_LENGTH`` characters, deterministic for
    its place), and the alternatives naming it follow. One transaction: check, rename, upsert, evict.
    """
    if not citations:
        return citations
    citations = [_as_issued(c, issue, search) for c in citations]
    reg = registry if registry is not None else host.registry()
    hashes = [_source_hash(reg, c) for c in citations]
    places = [idrecord.place_of(c) for c in citations]
    ws = host.workspace.workspace_id
    now = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    if not log_enabled(host):
        with _memory_lock:  # check and keep at once: two threads never give one ID two places
            own = _memory.get(ws) or OrderedDict()
            renamed = _issue(citations, places, lambda cid: (own[cid][0] if cid in own else None))
            _keep_in_memory(ws, renamed, places, hashes, now)
        return renamed
    kept = keep(host)
    try:
        _migrate(host)
        for tries_left in range(idstore.WRITE_TRIES - 1, -1, -1):  # as a read: a passing error clears
            try:
                renamed, histories = _written(host, citations, places, hashes, kept, now)
                break
            except sqlite3.DatabaseError:
                if not tries_left:
                    raise
    except (sqlite3.DatabaseError, OSError) as exc:  # a damaged store file, a read-only state dir
        _unwritable(host, exc)
        with _memory_lock:
            own = _memory.get(ws) or OrderedDict()
            renamed = _issue(citations, places, lambda cid: (own[cid][0] if cid in own else None))
            _keep_in_memory(ws, renamed, places, hashes, now)
            _held.setdefault(ws, set()).update(c.citation_id for c in renamed)  # the next write takes them
        return renamed
    _keep_in_memory(ws, renamed, places, hashes, now, histories)
    return renamed


def _as_issued(c: Citation, issue: str | None, search: Search | None) -> Citation:
    """``c`` with the key, mode and scope of the search that issued it (mode and scope None when a key alone was
    given that is neither its query's own nor that of the mode and scope ``c`` says: not known)."""
    if search is None and c.search_mode is not None and c.search_scope is not None:
        search = (c.search_mode, c.search_scope)
        if issue is not None and issue != issue_key(c.search_query, *search):
            search = None
    if search is not None and (issue is None or issue == issue_key(c.search_query, *search)):
        mode, scope = search_of(*search)
        return msgspec.structs.replace(c, issue=issue_key(c.search_query, mode, scope), search_mode=mode,
                                       search_scope=scope)
    c = msgspec.structs.replace(c, issue=issue or issue_key(c.search_query), search_mode=None, search_scope=None)
    mode, scope = idrecord.searched(c)
    return msgspec.structs.replace(c, search_mode=mode, search_scope=scope)


def _written(host: Host, citations: Sequence[Citation], places: Sequence[int], hashes: Sequence[str],
             kept: int, now: str) -> tuple[list[Citation], list[list[idrecord.Issue]]]:
    """:func:`remember`'s transaction: first the IDs this process issued while the store could not be
    written (``_held``, those the store has not issued since), then the citations, checked and renamed
    against the store, upserted with the searches that printed them before (an ID the store holds for the
    same place), and the oldest IDs evicted. Returns the citations as issued and the searches of each."""
    ws = host.workspace.workspace_id
    with _memory_lock:
        own = _memory.get(ws) or {}
        late = [(cid, own[cid][0], idrecord.record_of(own[cid][1], own[cid][2], own[cid][3]))
                for cid in _held.get(ws, ()) if cid in own]
    asked = {c.citation_id for c in citations}
    with idstore.writing(store_path(host)) as tx:
        _write(tx.add_missing, late)
        held = tx.places(asked)
        renamed = _issue(citations, places, lambda cid: held.get(cid) if cid in asked else tx.place(cid))
        before = tx.records(c.citation_id for c in renamed)
        histories = [idrecord.history(idrecord.issue_of(c, now), _before(before.get(c.citation_id), c, place))
                     for c, place in zip(renamed, places, strict=True)]
        _write(tx.upsert, [(c.citation_id, place, idrecord.record_of(c, source_hash, history))
                           for c, place, source_hash, history in zip(renamed, places, hashes, histories, strict=True)])
        tx.evict(max(kept, len(renamed)))  # never this search's own IDs: a top-k of 200 issues more than 100
    with _memory_lock:
        _held.pop(ws, None)
    return renamed, histories


def _before(row: tuple[int, bytes] | None, c: Citation, place: int) -> list[idrecord.Issue]:
    """The searches that printed ``c``'s ID before, from its row in the store (none for another place)."""
    record = idrecord.decode(row[1], c.citation_id) if row is not None and row[0] == place else None
    return idrecord.issues(record) if record is not None else []


def _write(put: Callable[..., Any], rows: Sequence[tuple[str, int, idrecord.Record]]) -> None:
    """``rows`` through ``put`` (``upsert``, ``add_missing``) in packs of ``idrecord.PACK_MAX``, in order."""
    for start in range(0, len(rows), idrecord.PACK_MAX):
        part = rows[start:start + idrecord.PACK_MAX]
        slots, shared = idrecord.pack([record for _, _, record in part])
        put([(cid, place, slot) for (cid, place, _), slot in zip(part, slots, strict=True)], shared)


def remember_shown(host: Host, shown: list[Citation], folded: list[Citation], registry: Registry,
                   search: Search | None = None) -> tuple[list[Citation], list[Citation]]:
    """:func:`remember` for a search's citations and the places folded into them (their alternatives)."""
    issued_now = remember(host, shown + folded, registry, search=search)
    return issued_now[:len(shown)], issued_now[len(shown):]


def remember_grounded(host: Host, citations: list[Citation], answer: str, sentences: list[GroundedSentence],
                      search: Search | None = None) -> tuple[str, list[GroundedSentence]]:
    """:func:`remember` for the places an answer's sentences cite; a renamed ID is renamed in the
    answer's markers and sentences too (the IDs of ``citations`` are distinct: one result's)."""
    renames = {old.citation_id: new.citation_id
               for old, new in zip(citations, remember(host, citations, search=search), strict=True)
               if old.citation_id != new.citation_id}
    if not renames:
        return answer, sentences
    marker = re.compile("|".join(re.escape(old) for old in renames))
    return (marker.sub(lambda m: renames[m.group(0)], answer),
            [msgspec.structs.replace(s, citation_id=renames.get(s.citation_id, s.citation_id))
             if s.citation_id in renames else s for s in sentences])


def _source_hash(registry: Registry, c: Citation) -> str:
    entry = registry.entries.get(c.source_root_relative_path)
    return entry.source_hash if entry is not None else ""


class _Held(set[str]):
    """IDs ``citation_id`` must not give: those in the set, and those ``conflict`` says are another place's."""

    def __init__(self, conflict: Callable[[str], bool]) -> None:
        super().__init__()
        self._conflict = conflict

    def __contains__(self, cid: object) -> bool:
        return super().__contains__(cid) or (isinstance(cid, str) and self._conflict(cid))


def _issue(citations: Sequence[Citation], places: Sequence[int],
           held_for: Callable[[str], int | None]) -> list[Citation]:
    """``citations`` with the IDs they are issued under: an ID held for another place (by ``held_for``,
    the store; by an earlier citation of the batch) is renamed, never into an ID another citation of the
    batch came with; alternatives follow their renamed places."""
    first: dict[str, int] = {}
    for c, place in zip(citations, places, strict=True):
        first.setdefault(c.citation_id, place)
    given: dict[str, int] = {}

    def conflict(cid: str, place: int) -> bool:
        if cid in given:
            return given[cid] != place
        held = held_for(cid)
        return (held is not None and held != place) or first.get(cid, place) != place

    ids: list[str] = []
    for c, place in zip(citations, places, strict=True):
        cid = c.citation_id
        if conflict(cid, place):
            taken = _Held(lambda other, place=place: conflict(other, place))  # type: ignore[misc]
            cid = citation_id(c.provider, c.source_id or "", f"renamed@{place}", 0,
                              image=cid.startswith("[IMG-"), taken=taken, length=RENAMED_LENGTH)
        given[cid] = place
        ids.append(cid)
    renames = {c.citation_id: cid for c, cid in zip(citations, ids, strict=True) if c.citation_id != cid}
    if not renames:
        return list(citations)
    out = []
    for c, cid in zip(citations, ids, strict=True):
        alternatives = [msgspec.structs.replace(a, citation_id=renames[a.citation_id])
                        if a.citation_id in renames else a for a in c.alternatives]
        out.append(msgspec.structs.replace(c, citation_id=cid, alternatives=alternatives)
                   if cid != c.citation_id or alternatives != c.alternatives else c)
    return out


def _keep_in_memory(ws: str, citations: Sequence[Citation], places: Sequence[int], hashes: Sequence[str], now: str,
                    histories: Sequence[list[idrecord.Issue]] | None = None) -> None:
    """Keep issued citations in this process; ``histories``: the searches of each as the store has them
    (without the store, the searches this process saw print the ID for the same place)."""
    with _memory_lock:
        own = _memory.setdefault(ws, OrderedDict())
        for k, (c, place, source_hash) in enumerate(zip(citations, places, hashes, strict=True)):
            old = own.pop(c.citation_id, None)
            history = histories[k] if histories is not None else idrecord.history(
                idrecord.issue_of(c, now), old[3] if old is not None and old[0] == place else [])
            own[c.citation_id] = (place, c, source_hash, history)
        while len(own) > CITATION_CACHE_MAX:
            own.popitem(last=False)


# --------------------------------------------------------------------------- the former log


def _old_files(host: Host) -> list[Path]:
    """The former log's files, oldest first: the workspace's JSON cache and log, then the state dir's."""
    old_dir = host.workspace.index_dir
    path = log_path(host)
    return [old_dir / LEGACY_CITATION_CACHE, old_dir / CITATION_LOG, previous_path(path), path]


def _read_lines(path: Path) -> dict[str, _Issued]:
    """A former log file's citations, later lines winning; bad lines (a torn last one) are skipped."""
    out: dict[str, _Issued] = {}
    try:
        data = path.read_bytes()
    except OSError:
        return out
    if path.name == LEGACY_CITATION_CACHE:
        with contextlib.suppress(msgspec.DecodeError, msgspec.ValidationError):
            for cid, c in _cache_decoder.decode(data).citations.items():
                out[cid] = _Issued(**{name: getattr(c, name) for name in Citation.__struct_fields__})
        return out
    for line in data.splitlines():
        if not line.strip():
            continue
        try:
            citation = _line_decoder.decode(line)
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue  # a torn last line (crash mid-append) or a line from a newer, odd writer
        out.pop(citation.citation_id, None)
        out[citation.citation_id] = citation
    return out


def _old_lines(host: Host) -> dict[str, _Issued]:
    out: dict[str, _Issued] = {}
    for path in _old_files(host):
        for cid, c in _read_lines(path).items():
            out.pop(cid, None)
            out[cid] = c
    return out


def _migrate(host: Host) -> None:
    """The former log, if any is left, read into the store and deleted (under its lock: an older
    mnote-kr still running appends under it). Its IDs never override one the store holds."""
    files = _old_files(host)
    if not any(p.exists() for p in files):
        return
    kept = keep(host, strict=False)
    with exclusive(str(log_path(host)) + ".lock", timeout=10):
        found = _old_lines(host)
        if found:
            with idstore.writing(store_path(host)) as tx:
                _write(tx.add_missing, [(cid, idrecord.place_of(c), idrecord.record_of(c, c.source_hash))
                                        for cid, c in found.items()])
                tx.evict(kept)
        for p in files:
            with contextlib.suppress(OSError):
                p.unlink()
