"""The line a search says when the provider also asked the question in other words (a translation)
and that brought a file the user is shown: ``also searched as: <translation>``.

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


def found_by_words(diagnostics: dict[str, Any], citations: Sequence[Citation]) -> str | None:
    """``found by its words: FILE ...`` when a citation shown is of a file the host found by the query's words, not
    the provider (``diagnostics.heldWords.cited``: ``map.heldwords``): its place leads on those words, not on the
    provider's order, and the reader is told so."""
    held = diagnostics.get("heldWords") if isinstance(diagnostics, dict) else None
    cited = set(held.get("cited") or ()) if isinstance(held, dict) else set()
    shown = [rel for rel in dict.fromkeys(c.source_root_relative_path for c in citations) if rel in cited]
    if not shown:
        return None
    names = ", ".join(shown)
    one = len(shown) == 1
    return (f"found by its words: {names} {'holds' if one else 'hold'} every word of the query, and LightRAG returned "
            f"no passage of {'it' if one else 'them'}")
