"""A second retrieval with the query's glosses, adding files the first lacked (``GLOSS_MERGE``, off by default).

A Chinese question about an English passage (or the reverse) shares no word with it; only the
embedder's meaning can find it, and LightRAG's candidates often miss it. When ``GLOSS_MERGE`` is on
and the query has glosses in the other language (CC-CEDICT: ``query_glosses``), ``/query/data`` is
asked twice, at the same time: with the query as written and with the query followed by at most
``GLOSS_WORDS`` glosses (``电池寿命 (battery life)``), in ``SECOND_MODE`` at ``SECOND_TOP_K`` (None: the
first request's). :func:`merge` keeps the first list as it is and adds at most ``MAX_NEW_FILES`` files
it lacked, one chunk each (the glossed list's best), after its top ``NEW_AFTER``; they are marked
``added``, so the host's weak flag reads the first list only. A second request that fails or takes
longer than ``SECOND_TIMEOUT_S`` leaves the search as written. Everything else (the host's ranking,
locators and quotes, the passages' rerank, LightRAG's answer) reads the query as written.

Measured (docs/embeddings.md, "Issue 33, seventeenth round"): variants ``gfn`` (``SECOND_MODE`` "naive",
``SECOND_TOP_K`` 10) and ``gfm`` (the first's mode and depth).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from mnote_kr.plugin_api import ProviderReference

#: Ask LightRAG a second time with the glossed query and add the files it found that the first did not.
GLOSS_MERGE = False
#: At most this many glosses in the second query, each word's first before any word's second.
GLOSS_WORDS = 6
#: At most this many files added by the second retrieval, one chunk each.
MAX_NEW_FILES = 3
#: The added chunks go after the first list's top ``NEW_AFTER``, one before each of its next chunks.
NEW_AFTER = 5
#: The second request's mode ("naive": chunk vectors only) and ``chunk_top_k``; None: the first's.
SECOND_MODE: str | None = None
SECOND_TOP_K: int | None = None
#: Seconds the search waits for the second request, from when it was sent; later, it goes on without it.
SECOND_TIMEOUT_S = 2.0


def glossed_query(query: str, limit: int) -> str | None:
    """``query`` followed by its glosses in parentheses, within ``limit`` characters; None when
    ``GLOSS_MERGE`` is off or the query has no gloss (no second retrieval then)."""
    if not GLOSS_MERGE:
        return None
    from mnote_kr.plugin_api import query_glosses

    words = query_glosses(query, GLOSS_WORDS)
    while words and len(text := f"{query} ({' '.join(words)})") > limit:
        words.pop()
    return text if words else None


def second_payload(payload: dict[str, Any], glossed: str) -> dict[str, Any]:
    """The first request's payload asking ``glossed``, in ``SECOND_MODE`` at ``SECOND_TOP_K`` when set."""
    return {**payload, "query": glossed, **({"mode": SECOND_MODE} if SECOND_MODE else {}),
            **({"chunk_top_k": SECOND_TOP_K} if SECOND_TOP_K else {})}


def merge(first: Sequence[ProviderReference], second: Sequence[ProviderReference],
          max_files: int | None = None, after: int | None = None) -> list[ProviderReference]:
    """``first`` in its order, with the best chunk of each of ``second``'s first ``max_files`` files that
    ``first`` lacks (``MAX_NEW_FILES``), marked ``added``, one before each of ``first``'s chunks after its
    top ``after`` (``NEW_AFTER``); ranks renumbered 1..n."""
    limit = MAX_NEW_FILES if max_files is None else max_files
    files = {r.file_path for r in first}
    new: list[ProviderReference] = []
    for ref in second:
        if len(new) >= limit:
            break
        if ref.file_path not in files:
            files.add(ref.file_path)
            new.append(msgspec.structs.replace(ref, added=True))
    if not new:
        return list(first)
    top = NEW_AFTER if after is None else after
    merged, rest = list(first[:top]), first[top:]
    for i in range(max(len(rest), len(new))):
        merged += new[i : i + 1]
        merged += rest[i : i + 1]
    return [msgspec.structs.replace(r, rank=k) for k, r in enumerate(merged, start=1)]
