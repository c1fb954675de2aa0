"""Which vector storage a managed engine's LightRAG namespace uses, recorded beside its index.

LightRAG's default ``NanoVectorDBStorage`` rewrites its whole JSON file (the vectors as base64,
encoded by Python's pure-Python JSON writer) after every document: at 1,000 documents of the
offline ``hybrid`` embedder (4,352 dims) that is over 100 MB per document, and a library's
ingest slows to a crawl. New namespaces therefore use LightRAG's own ``FaissVectorDBStorage``
(``faiss-cpu``): a binary index written with ``faiss.write_index`` plus a small metadata file.
See docs/engine-storage.md for the figures.

The choice is recorded per namespace in ``<namespace dir>/mnote_storage.json`` (it moves and is
copied with the namespace's other files). A namespace built before that record existed keeps
the storage its files show: an index is never silently dropped, and ``mnote-kr engine reembed``
rebuilds it with the current default.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

NANO = "NanoVectorDBStorage"
FAISS = "FaissVectorDBStorage"
#: What a new namespace gets.
DEFAULT = FAISS
KNOWN = (NANO, FAISS)
#: Inside the namespace dir, beside LightRAG's files.
RECORD = "mnote_storage.json"


def namespace_dir(working_dir: Path, workspace: str | None) -> Path:
    """Where LightRAG keeps the files of ``workspace`` (the default namespace without one)."""
    return Path(working_dir) / workspace if workspace else Path(working_dir)


def _nano_has_vectors(space: Path) -> bool:
    """True when any ``vdb_*.json`` of NanoVectorDB in ``space`` holds a row."""
    for path in space.glob("vdb_*.json"):
        try:
            data = msgspec.json.decode(path.read_bytes())
        except (OSError, msgspec.DecodeError):
            continue
        if isinstance(data, dict) and data.get("data"):
            return True
    return False


def recorded(space: Path) -> str | None:
    """The vector storage recorded for the namespace in ``space``, or None."""
    try:
        data = msgspec.json.decode((space / RECORD).read_bytes())
    except (OSError, msgspec.DecodeError):
        return None
    name = data.get("vector") if isinstance(data, dict) else None
    return name if name in KNOWN else None


def detect(space: Path) -> str | None:
    """What an unrecorded namespace was built with, from its files; None when it holds no vectors."""
    if any(space.glob("faiss_index_*.index")):
        return FAISS
    if _nano_has_vectors(space):
        return NANO
    return None


def vector_storage(working_dir: Path, workspace: str | None) -> tuple[str, str | None]:
    """The vector storage this namespace must use, and a note for the user when it is not the default.

    Recorded: that. Unrecorded with vectors: what built them (an index of 1.5.7's default
    storage stays readable). Empty: :data:`DEFAULT`. The choice is recorded at once, so a later
    start never guesses again.
    """
    space = namespace_dir(working_dir, workspace)
    name = recorded(space)
    if name is None:
        name = detect(space) or DEFAULT
        write_record(space, name)
    note = None
    if name != DEFAULT:
        note = (f"this index uses LightRAG's {name} (built before mnote-kr chose {DEFAULT}); it is kept "
                f"as it is, and 'mnote-kr engine reembed' rebuilds it with {DEFAULT}, which ingests large "
                "libraries much faster (docs/engine-storage.md)")
    return name, note


def write_record(space: Path, name: str) -> None:
    """Record ``name`` as the namespace's vector storage (atomic)."""
    from mnote_kr.plugin_api import write_private

    space.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_private(space / RECORD, msgspec.json.encode({"vector": name}))
