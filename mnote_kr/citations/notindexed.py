"""Files a query names that are in the workspace but not citable, and why (``notIndexed``)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from mnote_kr.core.registry import Registry
from mnote_kr.core.workspace import excluded_by
from mnote_kr.models import (
    NotIndexed,
)

if TYPE_CHECKING:
    pass
from mnote_kr.citations.hostview import HostView as Host

_FILENAME_RE = re.compile(r"[\w\u00c0-\uffff.\-]+\.[A-Za-z0-9]{1,5}\b")


def not_indexed(host: Host, reg: Registry, query: str) -> list[NotIndexed]:
    """Files the query names that are in the workspace but not citable, and why."""
    names = {m.group(0).lower() for m in _FILENAME_RE.finditer(query)}
    if not names:
        return []
    out: list[NotIndexed] = []
    found: set[str] = set()
    for entry in reg.entries.values():
        name = Path(entry.source_root_relative_path).name.lower()
        if name not in names or (entry.status == "processed" and not entry.stale):
            found.add(name)
            continue
        found.add(name)
        status: str = "stale" if entry.stale else entry.status
        reason = entry.stale_reason or entry.last_error or {
            "pending": "waiting to be sent to the provider",
            "submitted": "sent, not indexed yet",
            "processing": "being indexed",
            "failed": "indexing failed",
            "duplicate": "identical content is indexed under another file",
            "delete_submitted": "deleted from the knowledge base",
            "delete_completed": "deleted from the knowledge base",
        }.get(entry.status, entry.status)
        out.append(NotIndexed(source_path=entry.source_root_relative_path, status=status, reason=reason))
    missing = names - found
    if missing:
        for root in reg.roots.values():
            base = host.workspace.rel_to_abs(root.root_relative_path)
            walker = os.walk(base) if root.recursive else [(str(base), [], os.listdir(base) if base.is_dir() else [])]
            for folder, dirs, files in walker:
                dirs[:] = [d for d in dirs if d not in (".mnote", ".git", "node_modules", "__parsed__", ".venv")]
                for f in files:
                    if f.lower() in missing:
                        rel = Path(folder, f).relative_to(host.root).as_posix()
                        pattern = excluded_by(rel, root.exclude_patterns)
                        status, reason = (("excluded", f"excluded by pattern {pattern!r}") if pattern
                                          else ("not_indexed", "in an indexed root but not ingested yet"))
                        out.append(NotIndexed(source_path=rel, status=status, reason=reason))
    return out
