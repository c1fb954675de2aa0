"""The line a search says when the provider also asked the question in other words (a translation)
and that brought a file the user is shown: ``also searched as: <translation>``; and the line naming a file holding
every word of the query that LightRAG returned no passage of (:func:`held_note`).

The provider says what it did in the search's ``diagnostics.translation`` (docs/http-api.md):
``text`` (the words it also asked) and ``added`` (the provider's paths of the files those words
brought that the question's own did not). Nothing is said when no shown citation is one of them:
the results are then the question's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mnote_kr.models import Citation


def also_searched(diagnostics: dict[str, Any], citations: Sequence[Citation]) -> str | None:
    """``also searched as: ...`` when a citation shown came from the translation's added files."""
    found = diagnostics.get("translation") if isinstance(diagnostics, dict) else None
    if not isinstance(found, dict) or not isinstance(found.get("text"), str) or not found.get("added"):
        return None
    added = set(found["added"])
    if not any(c.light_rag_file_path in added for c in citations):
        return None
    return f"also searched as: {found['text']}"


def held_note(diagnostics: dict[str, Any], weak: str | None) -> str | None:
    """``note: FILE holds every word of the query, and lightrag returned no passage of it, so it is not cited; this
    finds the place in it: mnote-kr locate ...`` (``diagnostics.heldWords.note``: ``map.heldwords``), unless the weak
    reason ``weak`` says it already."""
    held = diagnostics.get("heldWords") if isinstance(diagnostics, dict) else None
    line = held.get("note") if isinstance(held, dict) else None
    if not line or line in (weak or ""):
        return None
    return f"note: {line}"
