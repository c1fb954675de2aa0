"""The registry's records: each user file's entry and its statuses, the indexed roots, the JSON snapshot.

Part of the contracts in ``mnote_kr.models`` (import them from there).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NamedTuple

import msgspec

from mnote_kr.models.base import Base, Frozen

REGISTRY_SCHEMA_VERSION = 2

#: Registry entry statuses. See ``registry.py`` for the state machine.
EntryStatus = Literal[
    "pending",  # known, waiting to be sent (provider busy or down: retried by sync)
    "submitted",  # handed to the provider, not yet seen processing
    "processing",  # provider reports parsing/processing
    "processed",  # indexed and citable
    "failed",  # provider failed it (error in lastError)
    "duplicate",  # provider found identical content under another name; never cited
    "stale",  # source deleted, moved or changed; never cited
    "delete_submitted",  # index delete sent, not yet confirmed
    "delete_completed",  # provider no longer lists it
    # Over a reader's budget (the limit in lastError): never sent to the provider, never cited.
    # Last, so the statuses before it keep their codes in the packed registry's tags.
    "refused",
]

#: Indexed for good. A file sent and not yet processed (``submitted``, ``processing``) is cited too
#: once the provider answers from it (``registry_format.is_citable_tag``), and until then is
#: reported as waiting.
INDEXED_STATUSES = frozenset({"processed"})


# --------------------------------------------------------------------------- registry


class IndexedRoot(Frozen, frozen=True, kw_only=True):
    """A folder (relative to the workspace) whose files form the knowledge base.

    ``run_on_change`` (following): sync and watch re-index changed files and ingest new ones
    (the default; ``roots add --no-follow`` opts out). ``run_on_change_set`` says the value was
    written by a version where following is the default: a root saved before that has
    ``runOnChange: false`` that nobody chose (it was the only way ``roots add`` wrote a root), so
    such a root follows when read (docs/sync.md). To build an opted-out root in code, pass both
    ``run_on_change=False`` and ``run_on_change_set=True``.
    """

    root_relative_path: str
    recursive: bool = True
    exclude_patterns: list[str] = []
    run_on_change: bool = True
    updated_at_ms: int = 0
    run_on_change_set: bool = False

    def __post_init__(self) -> None:
        if not self.run_on_change_set:
            msgspec.structs.force_setattr(self, "run_on_change", True)
            msgspec.structs.force_setattr(self, "run_on_change_set", True)


class SourceEntry(Frozen, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """One user file known to the registry. The file itself is never touched.

    Persisted without default-valued fields (smaller, faster snapshots); not tracked by
    the garbage collector (it holds no reference cycles), which keeps 100k-entry loads fast.
    """

    source_id: str
    source_path: str  # absolute path when last seen
    source_root_relative_path: str  # POSIX path relative to the workspace root
    source_hash: str = ""  # "sha256:<hex>"
    size: int = 0
    mtime_ns: int = 0
    status: EntryStatus = "pending"
    stale: bool = False
    stale_reason: str | None = None
    light_rag_doc_id: str | None = None
    light_rag_file_path: str | None = None  # the unique link name LightRAG knows
    chunk_ids: list[str] = []
    track_id: str | None = None
    kind: str = "document"  # document | image
    wrapper_path: str | None = None  # Markdown wrapper for types the provider cannot parse
    duplicate_of: str | None = None
    indexed_at_ms: int | None = None
    submitted_at_ms: int | None = None
    deleted_at_ms: int | None = None
    updated_at_ms: int = 0
    last_error: str | None = None
    retry_count: int = 0
    next_retry_at_ms: int = 0
    pending_action: str | None = None  # "ingest" | "delete" while waiting for the provider
    #: How the provider read the file for what its index holds (``"lightrag+notes:1"``: a name and a
    #: version the provider chooses when it sends the file, ``check_readings``); None: indexed before
    #: readings were recorded (docs/sync.md, "Files indexed by an older reading").
    reading: str | None = None


class EntryColumns(NamedTuple):
    """What a provider's status needs of every registry entry, without decoding the entries.

    The ``entries`` the host gives ``provider_status`` is a sequence with a ``columns()``
    method returning this (parallel sequences, in registry order); iterating the sequence
    instead decodes every entry.
    """

    paths: Sequence[str]  # source_root_relative_path
    doc_ids: Sequence[str | None]  # light_rag_doc_id
    names: Sequence[str | None]  # light_rag_file_path
    live: bytes  # 1 where the entry is processed and not stale, else 0


class ReadingCheck(Frozen, frozen=True, kw_only=True):
    """A provider's answer to ``check_readings``: how the indexed files it was asked about were read
    against how it reads such a file now, each keyed by workspace-relative path."""

    #: Read differently now: what the current reading adds (``"its footnotes and endnotes"``); sent again.
    older: dict[str, str] = {}
    #: Read the same way now (a file indexed before readings were recorded, checked): the reading to record.
    record: dict[str, str] = {}
    #: Not known (no reading recorded, and not checked: not asked to look, or a check would cost too much,
    #: such as a PDF's pages): why; left to ``mnote-kr sync --reread``.
    unknown: dict[str, str] = {}
    #: Indexed through a reader that is not installed now (a plugin that read its type): why, and what brings it
    #: back; nothing sends such a file again until it is (``status`` and ``sync`` say so).
    reader_missing: dict[str, str] = {}


class RegistrySnapshot(Base, kw_only=True):
    """The registry's JSON form: ``mnote-kr registry export``/``import``, and the file older versions kept.

    The current file is the packed snapshot (``mnote_kr/core/registry_format.py``, docs/registry.md).
    """

    version: int = REGISTRY_SCHEMA_VERSION
    workspace_id: str = ""
    root_uri: str = ""
    indexed_roots: list[IndexedRoot] = []
    entries: list[SourceEntry] = []
    updated_at_ms: int = 0
    #: In the JSON export only: the moves ``prune`` kept (``core.pruned_moves``), ``[old, new]`` oldest
    #: first, so an ID issued before a rename still opens at the moved file after an import.
    pruned_moves: list[tuple[str, str]] = []
