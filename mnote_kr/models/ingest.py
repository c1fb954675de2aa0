"""What ingest takes and reports: the files sent (``SourceFile``), the provider's updates of their
entries (``EntryUpdate``, with what it is doing now: ``ProviderActivity``) and the report of a call
(``IngestReport``). Imported from ``mnote_kr.models``, like every contract.
"""

from __future__ import annotations

from mnote_kr.models.base import Base, Frozen
from mnote_kr.models.registry import EntryStatus


class SourceFile(Frozen, frozen=True, kw_only=True):
    """A file the host resolved, expanded and hashed, ready for the provider."""

    path: str  # absolute
    rel_path: str  # POSIX, relative to the workspace root
    source_id: str
    sha256: str
    size: int
    mtime_ns: int
    #: The provider's name of this file's indexed earlier version when the file got it under another
    #: path (a renamed file kept its document: ``mnote_kr.app.moves``): the provider deletes it too.
    previous_name: str | None = None


class SkippedPath(Frozen, frozen=True, kw_only=True):
    """A path folder expansion or ingest passed over, and why."""

    path: str
    reason: str


class ProviderActivity(Frozen, frozen=True, kw_only=True):
    """What the provider is doing with a file it has not finished, as far as it says: for a wait's
    progress lines only (``EntryUpdate.activity``; never stored in the registry).

    ``stage`` is the provider's word for where the file is (LightRAG: ``queued``, ``parsing``,
    ``analyzing``, ``processing``; ``queued``: held and not being worked on, before its first stage
    or between two; ``interrupted``: its engine stopped in the middle of it, and the wait sent it again);
    ``since_ms`` the wall-clock time it entered that stage, when
    known; ``step`` what it does inside the stage (``extracting entities``, ``merging into the
    graph``, ``embedding 482 chunks``); ``chunks_done`` of ``chunks_total`` the chunks it has worked through, when
    known; ``pulse`` a mark of the provider's work that changes whenever it works, where nothing said of the file
    does (LightRAG: its model calls done and its pipeline's last message, while it embeds a file's chunks in one
    long write): never shown, each change is progress to a wait (``app.patience``)."""

    stage: str
    since_ms: int | None = None
    step: str | None = None
    chunks_done: int | None = None
    chunks_total: int | None = None
    pulse: str | None = None


class EntryUpdate(Frozen, frozen=True, kw_only=True):
    """What a provider reports about one source; the host applies it to the registry (``activity``:
    what the provider is doing with it now, shown while a wait follows it, never stored)."""

    source_root_relative_path: str
    status: EntryStatus
    light_rag_doc_id: str | None = None
    light_rag_file_path: str | None = None
    chunk_ids: list[str] | None = None
    track_id: str | None = None
    last_error: str | None = None
    duplicate_of: str | None = None
    wrapper_path: str | None = None
    kind: str | None = None
    pending_action: str | None = None
    retry_after_s: float | None = None
    indexed_at_ms: int | None = None  # when the provider finished indexing (processed)
    reading: str | None = None  # how the provider read the file for its index (``SourceEntry.reading``)
    activity: ProviderActivity | None = None


class IngestItem(Frozen, frozen=True, kw_only=True):
    """One line of an ingest report."""

    source_path: str
    status: str  # submitted | pending | processed | failed | already_registered | skipped | ...
    reason: str | None = None
    light_rag_doc_id: str | None = None


class WaitTimeout(Frozen, frozen=True, kw_only=True):
    """A wait for the provider (``ingest --wait``, ``sync --wait``) that ended with files still
    being indexed: how long it waited, and which files it left in flight (the provider goes on)."""

    seconds: float
    still_waiting: list[str]


class WordsOnlyFiles(Frozen, frozen=True, kw_only=True):
    """Files an ingest looked at whose places have no vectors (placed by words only), left to ``command``:
    an ingest that does not wait embeds no places (``status --json``'s ``meaning.wordsOnly``, in its scope)."""

    count: int
    paths: list[str]
    command: str


class IngestReport(Base, kw_only=True):
    """The result of ``ingest``."""

    items: list[IngestItem] = []
    skipped: list[SkippedPath] = []
    counts: dict[str, int] = {}
    #: Files left to send when the caller capped the call (``limit``), and how to continue.
    remaining: int = 0
    next_call: str | None = None
    #: Set when the caller waited (``wait``) and the wait ended before every file was indexed.
    wait_timed_out: WaitTimeout | None = None
    #: Set when the ingest did not embed places and files it looked at are placed by words only.
    words_only: WordsOnlyFiles | None = None
    #: Set when the provider stopped answering during the wait (its engine stopped): its error. The items
    #: say how far each file got (``processed``: indexed; ``submitted``/``processing``: not indexed).
    provider_error: str | None = None
    #: With ``provider_error``: the user stopped the provider's engine ('mnote-kr engine stop'), so the files not
    #: indexed wait for 'mnote-kr sync' or 'mnote-kr ingest' (``errors.ProviderStoppedError``), not a failure.
    provider_stopped: bool = False
