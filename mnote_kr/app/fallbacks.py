"""``status``'s ``fallbacks``: the files indexed through a provider's fallback, in words.

Only a file that is there is listed: a stale record (deleted, moved or changed, after ``sync``) is no file
indexed any way, and one gone from disk before a sync is named under ``Missing:`` instead. The reason is
the provider's note, or, when a later status update left none, what the entry's kind means in words
(``text_fallback``, the LightRAG plugin's: ``mnote_kr_lightrag.client.fallback`` and ``recognized``).
"""

from __future__ import annotations

import os
from collections.abc import Container
from typing import TYPE_CHECKING, Any

from mnote_kr.core.registry import fallback_tag
from mnote_kr.core.registry_tags import STALE

if TYPE_CHECKING:
    from mnote_kr.core.registry import Registry
    from mnote_kr.core.workspace import Workspace

#: What a fallback kind means, for a reader (the kind itself is an internal code).
KIND_WORDS = {
    "text_fallback": ("indexed from the text mnote-kr reads in the file (LightRAG's parser could not read it or "
                      "leaves some of its text out, or a scanned page was recognised by OCR); citations still "
                      "land in the file"),
}


def kind_words(kind: str | None) -> str:
    """``kind`` (``*_fallback``) in words."""
    return KIND_WORDS.get(kind or "", "indexed through a fallback of the provider's")


def fallback_notes(reg: Registry, workspace: Workspace, on_disk: Container[str]) -> list[dict[str, Any]]:
    """``[{sourcePath, reason}]`` of the live fallback entries whose file is there (``on_disk``: the walk
    of the roots ``status`` made; a file outside it is stat'ed)."""
    out: list[dict[str, Any]] = []
    for rel, note in reg.notes(lambda tag: fallback_tag(tag) and not tag & STALE):
        if rel not in on_disk and not os.path.lexists(workspace.rel_to_abs(rel)):
            continue
        out.append({"sourcePath": rel, "reason": note.last_error or kind_words(note.kind)})
    return out
