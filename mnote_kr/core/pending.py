"""New files in indexed roots that are not ingested yet (``.mnote/index/pending-new.json``).

The watcher and reconcile write it (``mnote_kr.sync.reconcile.update_pending_new``); ``status``
reads it. It is a derived cache: absent or unreadable means empty.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import msgspec

from mnote_kr.core.registry import RegistryStore

PENDING_NEW_FILE = "pending-new.json"
PENDING_NEW_VERSION = 1


class HasStore(Protocol):
    @property
    def store(self) -> RegistryStore: ...


class PendingNewFile(msgspec.Struct, kw_only=True, rename="camel"):
    """One file in a root that is on disk but not in the index."""

    source_path: str
    root: str
    size: int = 0
    seen_at_ms: int = 0


class PendingNew(msgspec.Struct, kw_only=True, rename="camel"):
    """``.mnote/index/pending-new.json``: new files waiting for an ingest."""

    version: int = PENDING_NEW_VERSION
    updated_at_ms: int = 0
    files: list[PendingNewFile] = []


pending_decoder = msgspec.json.Decoder(PendingNew)
pending_encoder = msgspec.json.Encoder()


def pending_new_path(host: HasStore) -> Path:
    """Where the list lives: beside the registry, in ``.mnote/index/``."""
    return host.store.index_dir / PENDING_NEW_FILE


def load_pending_new(host: HasStore) -> PendingNew:
    """The pending-new list (empty when absent or unreadable: it is a derived cache)."""
    try:
        return pending_decoder.decode(pending_new_path(host).read_bytes())
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return PendingNew()
