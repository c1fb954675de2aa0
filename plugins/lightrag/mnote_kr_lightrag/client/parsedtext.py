"""LightRAG's parsed copies of documents it no longer holds: removed from ``INPUT_DIR/__parsed__/``.

LightRAG 1.5.7 moves each processed link or wrapper of ours into ``__parsed__/`` and writes beside it
``<name>.parsed/`` (``<stem>.blocks.jsonl``: the document's whole text, block by block, which mnote-kr maps
chunks with; ``.tables.json``, ``.drawings.json`` and ``.blocks.assets/``: its tables and images); a name parsed
again gets ``<name>.parsed_NNN/``. A delete (``delete_file=false``) drops the document from ``rag_storage`` and
mnote-kr removes its link, but LightRAG leaves that folder: the text of a deleted file, or of a file's
earlier version, stayed on disk (nc27b). :func:`sweep` removes such a folder when all of these hold:

* its name is one of ours, of this workspace (``naming.workspace_of``): never another workspace's, a legacy
  (untagged) name, or anything mnote-kr did not name;
* our link or wrapper of that name is gone from the input dir and from ``__parsed__/`` (one still there is a
  document LightRAG holds or is about to take);
* no cited registry entry records the name, and LightRAG lists no document of it (one being deleted still is).

It is a real folder under the engine's input dir, written by LightRAG's parser: a symlink is never followed and
nothing outside the input dir is touched (the user's files are only ever the targets of links).
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from mnote_kr.plugin_api import ProviderBusyError

from . import links, naming
from . import provider as _p
from .docrows import DocIndex
from .http import ProviderHTTPError, ProviderUnavailableError

#: ``<name>.parsed`` or ``<name>.parsed_NNN``: LightRAG's folder of a document's parsed text.
_PARSED_RE = re.compile(r"^(?P<name>.+)\.parsed(?:_[0-9]{3})?$")


def unneeded(input_dir: Path, ws: str, live_names: set[str] | None) -> list[tuple[Path, str]]:
    """Our parsed folders (with the name they belong to) whose link or wrapper is gone and whose name no cited
    entry records (``live_names``; None: not known, so none is taken)."""
    if live_names is None:
        return []
    parsed = input_dir / links.PARSED_DIR
    try:
        inside = os.listdir(parsed)
        top = os.listdir(input_dir)
    except OSError:
        return []
    present = set(inside) | set(top)
    found: list[tuple[Path, str]] = []
    for entry in inside:
        match = _PARSED_RE.match(entry)
        if match is None:
            continue
        name = match.group("name")
        if naming.workspace_of(name) != ws or name in present or name in live_names:
            continue
        path = parsed / entry
        if path.is_symlink() or not path.is_dir():
            continue
        found.append((path, name))
    return found


def sweep(prov: _p.LightRagProvider, docs: DocIndex | None = None) -> int:
    """Remove the parsed text of this workspace's documents LightRAG no longer holds (see the module);
    ``docs``: a listing taken in this call, else one is asked when there is something to remove.
    Returns how many folders went, and says so."""
    try:
        input_dir = prov.input_dir()
    except (ProviderUnavailableError, ProviderBusyError, ProviderHTTPError):
        return 0
    if input_dir is None or not input_dir.is_dir() or not prov.ws:
        return 0
    cols = prov.holders.columns()
    live = ({n for n, alive in zip(cols.names, cols.live, strict=True) if n and alive}
            if prov.holders.known else None)
    candidates = unneeded(input_dir, prov.ws, live)
    if not candidates:
        return 0
    if docs is None:
        try:
            docs = prov.documents()
        except (ProviderUnavailableError, ProviderBusyError, ProviderHTTPError):
            return 0
    removed = 0
    for path, name in candidates:
        if docs.find(name) is not None:
            continue  # LightRAG still holds it (a delete under way): a later sync removes it
        try:
            shutil.rmtree(path)  # a real folder of LightRAG's; rmtree unlinks a symlink inside, never follows it
        except FileNotFoundError:
            continue
        except OSError as exc:
            prov.ctx.progress(f"could not remove LightRAG's parsed text {path}: {exc.strerror or exc}")
            continue
        removed += 1
    if removed:
        prov.ctx.progress(f"removed LightRAG's parsed text of {removed} deleted or replaced file version(s) "
                          f"from its input dir ({input_dir / links.PARSED_DIR})")
    return removed
