"""Every ``from mnote_kr... import ...`` the docs show, and every class they name as `mnote_kr.x.Name`, resolves:
a reader who copies one gets no ImportError."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
IMPORT = re.compile(r"^\s*from (mnote_kr[\w.]*) import ([\w, ]+)$", re.M)
#: A class named by its dotted path in the prose: `mnote_kr.app.host.Host`.
DOTTED = re.compile(r"`(mnote_kr(?:\.[a-z_]+)*)\.([A-Z]\w*)`")


def documented_imports() -> dict[tuple[str, str], list[str]]:
    """(module, name) -> the docs that import it."""
    found: dict[tuple[str, str], list[str]] = {}
    for doc in sorted([REPO / "README.md", *(REPO / "docs").rglob("*.md")]):
        text = doc.read_text(encoding="utf-8")
        pairs = [(m, n.strip()) for m, names in IMPORT.findall(text) for n in names.split(",")]
        for module, name in pairs + DOTTED.findall(text):
            found.setdefault((module, name), []).append(str(doc.relative_to(REPO)))
    return found


def test_every_import_the_docs_show_resolves() -> None:
    found = documented_imports()
    assert ("mnote_kr.server.app", "ApiServer") in found  # docs/http-api.md: the scan sees the examples
    missing = {f"from {m} import {n}": docs for (m, n), docs in found.items()
               if not hasattr(importlib.import_module(m), n)}
    assert missing == {}
