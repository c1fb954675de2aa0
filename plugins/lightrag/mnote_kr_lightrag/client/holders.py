"""Which registry entry holds which LightRAG name and document.

A link name carries its file's path tag, and the provider used to take every name tagged with a path
for a version of that path's file. A renamed file breaks that: its entry keeps the document of the
name made for its old path (``mnote_kr.app.moves``), so a new file at the old path, or the same bytes
copied back there, would delete or share the renamed file's document. The host says which entry holds
what (``ProviderContext.entry_columns``); the provider asks here before it deletes, unlinks or adopts.
"""

from __future__ import annotations

from pathlib import Path

from mnote_kr.plugin_api import EntryColumns, ProviderContext

from . import links, naming
from .docrows import DocIndex


class Holders:
    """The registry's entries as the host had them when first asked in this provider call."""

    def __init__(self, ctx: ProviderContext) -> None:
        self.ctx = ctx
        self._cols: EntryColumns | None = None
        self.known = True  # False: the host offers no columns, so no document is taken for nobody's
        self._by_name: dict[str, set[str]] | None = None  # name -> paths of cited entries holding it
        self._by_doc: dict[str, set[str]] | None = None  # doc id -> paths of entries recording it

    def columns(self) -> EntryColumns:
        """Every entry's path, doc id, name and liveness (none from a host that offers none)."""
        if self._cols is None:
            found = getattr(self.ctx, "entry_columns", lambda: None)()
            self.known = isinstance(found, EntryColumns)
            self._cols = found if isinstance(found, EntryColumns) else EntryColumns([], [], [], b"")
        return self._cols

    def held_elsewhere(self, name: str | None, rel_path: str) -> bool:
        """Whether a cited entry other than ``rel_path``'s holds the document of ``name`` (its
        path tag then says nothing about whose it is)."""
        if not name:
            return False
        if self._by_name is None:
            cols = self.columns()
            self._by_name = {}
            for path, held, live in zip(cols.paths, cols.names, cols.live, strict=True):
                if held and live:
                    self._by_name.setdefault(held, set()).add(path)
        return bool(self._by_name.get(name, set()) - {rel_path})

    def recorded_elsewhere(self, doc_id: str, rel_path: str) -> bool:
        """Whether an entry other than ``rel_path``'s records ``doc_id`` (cited, or being deleted)."""
        if self._by_doc is None:
            cols = self.columns()
            self._by_doc = {}
            for path, held in zip(cols.paths, cols.doc_ids, strict=True):
                if held:
                    self._by_doc.setdefault(held, set()).add(path)
        return bool(self._by_doc.get(doc_id, set()) - {rel_path})

    def unheld_orphans(self, docs: DocIndex, input_dir: Path | None, ws: str) -> list[str]:
        """Ids of workspace ``ws``'s documents that no entry records and whose link we removed: a
        renamed file's old document whose delete LightRAG refused (busy) or never got (down)."""
        cols = self.columns()
        if not self.known or input_dir is None or not input_dir.is_dir():
            return []
        names, ids = set(cols.names), set(cols.doc_ids)
        out = []
        for row in docs.rows:
            doc_id, name = str(row.get("id", "")), str(row.get("file_path", ""))
            if (doc_id.startswith("doc-") and doc_id not in ids and name not in names
                    and naming.workspace_of(name) == ws and links.link_state(input_dir, name) == "missing"):
                out.append(doc_id)
        return out
