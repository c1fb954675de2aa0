"""A question in the other language: LightRAG asked a second time with the question translated.

The managed engine's embedder matches a Chinese question with an English passage weakly (its
hashed half not at all), so a search whose question the host's dictionary can translate
(``plugin_api.crosslang``: Chinese words glossed in English, English words given in Chinese)
also sends ``/query/data`` with the translation, beside the first. The two chunk lists are
merged rank by rank (the question's first, the translation's first, the question's second...;
a chunk both found is kept at its better place), and each chunk's score against the question
is the better of its z-scores against the question and against the translation
(:func:`best_scores`). Measured in ``benchmarks/crosslang.py`` (docs/embeddings.md).

Off by default (``TRANSLATE``): on 8 files of the tuning sets it lifted the cross-language
questions' MRR 0.908 -> 0.927 at equal recall@5 (0.980), and cost +270-320 ms of warm p95 against a
budget of 100 ms. A benchmark variant turns it on:
``--variant tr:py:mnote_kr_lightrag.client.crossquery.TRANSLATE=true``.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from mnote_kr.plugin_api import ProviderReference

from . import passages

#: Ask a second time with the question translated, when the dictionary can (measured: off).
TRANSLATE = False


def translated(query: str, on: bool = False) -> str | None:
    """The question in the other language, or None: off (neither ``on``, the workspace's
    ``translate_queries``, nor ``TRANSLATE``), nothing to translate, or the dictionary not parsed
    yet (a search never pays the parse of seconds: it starts it for the next one)."""
    if not (on or TRANSLATE):
        return None
    from mnote_kr.plugin_api import crosslang

    if not crosslang.ready():
        crosslang.prepare()
        return None
    try:
        found = crosslang.translate(query)
    except (OSError, ValueError):  # the package gone or its file unreadable: the question alone
        return None
    return found.text if found and found.text.strip() and found.text != query else None


def _key(ref: ProviderReference) -> tuple[str, str]:
    return (ref.chunk_id or "", "") if ref.chunk_id else (ref.file_path, ref.content or "")


def merged(first: Sequence[ProviderReference], second: Sequence[ProviderReference]) -> list[ProviderReference]:
    """The two lists rank by rank (``first``'s 1, ``second``'s 1, ``first``'s 2...), a chunk in
    both (same chunk ID) kept at its better place; ranks renumbered 1..n."""
    seen: set[tuple[str, str]] = set()
    out: list[ProviderReference] = []
    for i in range(max(len(first), len(second))):
        for refs in (first, second):
            if i < len(refs) and _key(refs[i]) not in seen:
                seen.add(_key(refs[i]))
                out.append(msgspec.structs.replace(refs[i], rank=len(out) + 1))
    return out


def best_scores(*similarities: Sequence[float]) -> list[float]:
    """Each chunk's best score over the queries' similarity lists (each z-scored over the list,
    plus LightRAG's order: :func:`passages.chunk_scores`)."""
    scored = [passages.chunk_scores(s) for s in similarities]
    return [max(column) for column in zip(*scored, strict=True)]
