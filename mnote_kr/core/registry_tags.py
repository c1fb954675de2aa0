"""The registry's entry tags: one byte per entry that answers what aggregates ask of every entry.

``status`` counts entries by status and lists the waiting and failed ones; ``search`` keeps only
citable entries. Both read the packed snapshot's ``tags`` column (one byte per entry, defined
here) and its ``notes`` column (a :class:`Note` per entry the tag marks as noted) without
decoding a single entry. The stored form of a ``refused`` entry (:func:`to_disk`) lives here
too, because its tag byte is what lets a reader turn it back.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress
from operator import attrgetter
from typing import get_args

import msgspec

from mnote_kr.models import EntryStatus, SourceEntry

#: One byte per entry says what aggregates need: bits 0-3 the status (its index in
#: ``EntryStatus``; 15 for a status this version does not know), bit 4 ``stale``, bit 5 a
#: ``pending_action``, bit 6 a provider fallback kind (``*_fallback``).
STATUSES: tuple[str, ...] = get_args(EntryStatus)
_STATUS_CODE = {s: i for i, s in enumerate(STATUSES)}
UNKNOWN_STATUS = 15
STATUS_MASK, STALE, PENDING_ACTION, FALLBACK = 0x0F, 0x10, 0x20, 0x40


def entry_tag(e: SourceEntry) -> int:
    """The entry's tag byte (see ``STATUSES`` and the bit constants)."""
    return _tag_of((e.status, e.stale, e.pending_action, e.kind))


def _tag_of(fields: tuple[str, bool, str | None, str]) -> int:
    status, stale, pending_action, kind = fields
    return (_STATUS_CODE.get(status, UNKNOWN_STATUS) | (STALE if stale else 0)
            | (PENDING_ACTION if pending_action else 0) | (FALLBACK if kind.endswith("_fallback") else 0))


class _TagCache(dict[tuple[str, bool, "str | None", str], int]):
    """(status, stale, pending_action, kind) -> tag: a save tags 100k entries with C-level
    ``map`` calls instead of a Python call per entry (the combinations are few)."""

    def __missing__(self, key: tuple[str, bool, str | None, str]) -> int:
        if len(self) > 4096:  # free-form kinds or actions: never grow without bound
            self.clear()
        tag = self[key] = _tag_of(key)
        return tag


_tags_cache = _TagCache()
_tag_fields = attrgetter("status", "stale", "pending_action", "kind")


def entry_tags(entries: list[SourceEntry]) -> bytes:
    """:func:`entry_tag` of each entry."""
    return bytes(map(_tags_cache.__getitem__, map(_tag_fields, entries)))


def tag_status(tag: int) -> str | None:
    """The status a tag holds (None: unknown to this version, read the entry)."""
    code = tag & STATUS_MASK
    return STATUSES[code] if code < len(STATUSES) else None


def tag_table(pred: Callable[[int], bool]) -> bytes:
    """A ``bytes.translate`` table: tag -> 1 where ``pred(tag)``, else 0."""
    return bytes(1 if pred(t) else 0 for t in range(256))


def is_live_tag(tag: int) -> bool:
    """Citable: processed and not stale."""
    return tag & (STATUS_MASK | STALE) == _STATUS_CODE["processed"]


LIVE_TABLE = tag_table(is_live_tag)
#: What a search may cite: processed, or sent to the provider and not yet recorded as processed
#: (``submitted``, ``processing``). A passage the provider returns for such an entry comes from
#: the very version the entry names (its provider file name is chosen per content), and the
#: pipeline still drops a source changed on disk since; without it, a search after an ``ingest``
#: without ``--wait`` said "still indexing" of documents the provider had already answered from.
_CITABLE_CODES = frozenset(_STATUS_CODE[s] for s in ("processed", "submitted", "processing"))


def is_citable_tag(tag: int) -> bool:
    """Citable: processed or being indexed, and not stale (see ``_CITABLE_CODES``)."""
    return not tag & STALE and tag & STATUS_MASK in _CITABLE_CODES


CITABLE_TABLE = tag_table(is_citable_tag)
_PENDING_CODE, _FAILED_CODE, _REFUSED_CODE = _STATUS_CODE["pending"], _STATUS_CODE["failed"], _STATUS_CODE["refused"]


def is_noted_tag(tag: int) -> bool:
    """Whether the ``notes`` column holds the entry: queued, failed, refused or a fallback."""
    return bool(tag & (PENDING_ACTION | FALLBACK)) or tag & STATUS_MASK in (_PENDING_CODE, _FAILED_CODE,
                                                                           _REFUSED_CODE)


NOTED_TABLE = tag_table(is_noted_tag)

#: A ``refused`` entry is stored as status ``failed`` with this kind (its tag byte still says
#: ``refused``): a reader from before that status decodes it as a failed entry, where the new
#: status would make its decoder call the whole registry corrupt. Readers that know the status
#: turn it back (``from_disk``); the kind of a file never sent is ``document``.
REFUSED_KIND = "refused"
_REFUSED_TABLE = tag_table(lambda tag: tag & STATUS_MASK == _REFUSED_CODE)


def to_disk(entries: list[SourceEntry]) -> list[SourceEntry]:
    """``entries`` as stored: each ``refused`` one as ``failed`` with kind ``refused``."""
    if not any(e.status == "refused" for e in entries):
        return entries
    return [msgspec.structs.replace(e, status="failed", kind=REFUSED_KIND) if e.status == "refused" else e
            for e in entries]


def from_disk(entries: list[SourceEntry], tags: bytes | None) -> None:
    """Turn stored refused entries back, in place (``tags``: theirs, or None to look at every entry)."""
    where = range(len(entries)) if tags is None else compress(range(len(entries)), tags.translate(_REFUSED_TABLE))
    for k in where:
        e = entries[k]
        if e.status == "failed" and e.kind == REFUSED_KIND:
            entries[k] = msgspec.structs.replace(e, status="refused", kind="document")


class Note(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """What ``status`` prints of a queued, failed or fallback entry (``index`` in the snapshot)."""

    index: int
    status: str
    pending_action: str | None
    last_error: str | None
    retry_count: int
    kind: str


def note_of(i: int, e: SourceEntry) -> Note:
    return Note(i, e.status, e.pending_action, e.last_error, e.retry_count, e.kind)
