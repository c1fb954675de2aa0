"""Which embedder built the managed engine's index, and what happens when it changes.

The engine keeps ``<data_dir>/engine/embedder.json`` (name, dim, version) beside LightRAG's
storage. Vectors of two embedders cannot be compared, and LightRAG refuses a vector store of
another size, so starting with another embedder on a non-empty index stops with a clear error
(:func:`check_index_embedder`) that names ``mnote-kr engine reembed``: that command sets the
old storage aside (:func:`set_index_aside`, never deleted) and re-ingests the workspace's
registered files through the normal path, without touching them.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

from mnote_kr.plugin_api import ProviderError

from . import embedders

#: The offline embedder (``embedders.NAMES``): argument, else this variable, else the default.
EMBEDDER_ENV = "MNOTE_KR_OFFLINE_EMBEDDER"
#: Beside the index: which embedder built it (name, dim, version).
INDEX_RECORD = "embedder.json"


def resolve_embedder(name: str | None, existing: Mapping[str, Any] | None = None) -> embedders.EmbedderSpec:
    """The offline embedder to use: ``name``, else ``$MNOTE_KR_OFFLINE_EMBEDDER``, else the one
    that built the ``existing`` index (its record: a new default never stops an index that
    works; ``mnote-kr engine reembed`` moves it), else the default."""
    kept = existing.get("name") if existing is not None and existing.get("name") in embedders.NAMES else None
    chosen = name or os.environ.get(EMBEDDER_ENV) or kept or embedders.DEFAULT_EMBEDDER
    try:
        return embedders.spec(chosen)
    except ValueError as exc:
        raise ProviderError(f"Unknown offline embedder {chosen!r}",
                            hint=f"use one of {', '.join(embedders.NAMES)} ({EMBEDDER_ENV} or "
                                 "[providers.lightrag.engine] embedder)") from exc


def endpoint_record(embedding: Mapping[str, Any]) -> dict[str, Any]:
    """The index record of a configured embedding endpoint: its model, dim and host."""
    return {"name": f"endpoint:{embedding.get('model')}", "dim": int(embedding.get("dim") or 0),
            "version": str(embedding.get("host") or embedding.get("url") or embedding.get("base_url") or "")}


#: What an index built before embedder records existed was embedded with (the only offline embedder).
LEGACY_RECORD = {"name": "hashing", "dim": embedders.HASH_DIM, "version": "before embedder records"}


def index_has_documents(working_dir: Path) -> bool:
    """True when LightRAG's storage under ``working_dir`` holds any document or vector.

    Each mnote-kr workspace has its own LightRAG namespace, a folder under ``working_dir``
    (``WORKSPACE=mnote_<tag>``); those count as well as the default namespace.
    """
    try:
        spaces = [working_dir, *sorted(p for p in working_dir.iterdir() if p.is_dir())]
    except OSError:
        return False
    return any(_namespace_has_documents(space) for space in spaces)


def _namespace_has_documents(working_dir: Path) -> bool:
    for name in ("kv_store_doc_status.json", "vdb_chunks.json"):
        path = working_dir / name
        try:
            if path.stat().st_size > 2 and path.read_bytes().strip() not in (b"{}", b""):
                if name == "vdb_chunks.json":
                    data = msgspec.json.decode(path.read_bytes())
                    if not (isinstance(data, dict) and data.get("data")):
                        continue
                return True
        except (OSError, msgspec.DecodeError):
            continue
    return False


def read_index_record(engine_dir: Path) -> dict[str, Any] | None:
    """The recorded embedder of the index in ``engine_dir``; the legacy one for an unrecorded index."""
    try:
        data = msgspec.json.decode((engine_dir / INDEX_RECORD).read_bytes())
        if isinstance(data, dict) and "name" in data:
            return dict(data)
    except (OSError, msgspec.DecodeError):
        pass
    return dict(LEGACY_RECORD) if index_has_documents(engine_dir / "rag_storage") else None


def write_index_record(engine_dir: Path, record: Mapping[str, Any]) -> None:
    """Record ``record`` as the embedder of the index in ``engine_dir`` (atomic)."""
    from mnote_kr.plugin_api import write_private

    engine_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_private(engine_dir / INDEX_RECORD, msgspec.json.encode(dict(record)))


class EmbedderMismatch(ProviderError):
    """The index was built by another embedder than the one this start would use."""


def check_index_embedder(engine_dir: Path, record: Mapping[str, Any]) -> None:
    """Raise :class:`EmbedderMismatch` when the index in ``engine_dir`` was built by another embedder.

    Vectors of two embedders cannot be compared (and LightRAG refuses a store of another dim), so
    a change of embedder is never silent: the message says what must be rebuilt and how.
    """
    if not index_has_documents(engine_dir / "rag_storage"):
        return
    if not (engine_dir / INDEX_RECORD).exists() and str(record.get("name", "")).startswith("endpoint:"):
        # An unrecorded index under a configured endpoint: it starts exactly as before these
        # records existed (that endpoint most likely built it); the record is written from now on.
        return
    old = read_index_record(engine_dir)
    if old is None:
        return
    if (old.get("name"), old.get("dim"), old.get("version")) == (record.get("name"), record.get("dim"),
                                                                 record.get("version")):
        return
    raise EmbedderMismatch(
        f"The managed engine's index was built by embedder {old.get('name')} (dim {old.get('dim')}, "
        f"{old.get('version')}), but this start uses {record.get('name')} (dim {record.get('dim')}, "
        f"{record.get('version')}): every indexed document must be embedded again",
        hint="run 'mnote-kr engine reembed' in each workspace (re-ingests its registered files; the files "
             f"are not touched), or keep the old embedder ({EMBEDDER_ENV}={old.get('name')})")


def set_index_aside(data_dir: Path) -> Path | None:
    """Move the managed engine's LightRAG storage aside (never deleted); return where it went.

    The input dir (links to the user's files) stays. The engine must be stopped. The next start
    builds an empty index with the current embedder.
    """
    engine_dir = Path(data_dir) / "engine"
    storage = engine_dir / "rag_storage"
    if not storage.exists():
        return None
    target = engine_dir / f"rag_storage.replaced-{time.strftime('%Y%m%d-%H%M%S')}"
    storage.rename(target)
    (engine_dir / INDEX_RECORD).unlink(missing_ok=True)
    return target
