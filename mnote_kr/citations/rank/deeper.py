"""Files from deeper in the provider's list, admitted by meaning: which of them a search ranks, and where.

A cross-language question's answering file is often *found* by LightRAG but too deep: among the files of its
first 20 chunks for 79 of 109 tuning questions, of its first 60 for 96 (r22, ``benchmarks/xlang_deep.py``).
The provider passes on a few files from that deeper list, marked (``ProviderReference.deeper``), after the ones
it was asked for; the host decides by meaning which of them take a place, with no embedding at search time:
each file's meaning is its best cosine with the query among the places it located (the cited place and the
file's places nearest the query, ``Locator.meaning_score`` and its ``runners_up``), from the place vectors ingest
stored (:mod:`mnote_kr.citations.rank.meaning`).

Since r30 a search ranks them by :mod:`~mnote_kr.citations.rank.deeperslot` (one file at most, at the fifth place);
this module's :func:`admitted` is r23's rule (``deeperslot.FIFTH = False``): a deeper file is admitted when

* it is written in another script than the question (:func:`script`): a file in the question's own script
  that LightRAG ranked that low was not missed for its language, and its words had their chance;
* its meaning beats that of one of the first ``AGAINST`` files the provider ranked (those that would fill the
  first five), and it is among the ``ADMIT`` best such deeper files by meaning.

It then ranks as the first of those files it beats (takes its provider rank, which its citations'
``diagnostics.providerRank`` shows), and the search's ranking goes on as for any file. A deeper file without
vectors, or beating none of them, is dropped (``dropped.deeper``).
Measured on the tuning sets' dump of r22 (``benchmarks/deep_meaning.py``, 258 questions, deeper_files=5
run): answering file in the first five, cross-language 75 -> 79 of 102 (5 gained, 1 lost), same-language
145 -> 145 of 156 (none lost); the five deeper files in LightRAG's order instead: 77 and 145. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from mnote_kr.citations.text.textnorm import CJK_CLASS

#: Deeper files admitted per search at most (the best by meaning).
ADMIT = 2
#: A deeper file must beat one of the provider's first this many files by meaning.
AGAINST = 5
#: False: every deeper file the provider passes on is ranked at its own (deep) rank, as r22 did.
BY_MEANING = True

_CJK_RE = re.compile(f"[{CJK_CLASS}]")
_HANGUL_RE = re.compile("[\uac00-\ud7af]")
_LATIN_RE = re.compile(r"[A-Za-z\u00c0-\u024f]")


@dataclass(frozen=True)
class Row:
    """One citation of the search: its file, the provider's rank, whether the provider passed it on from its
    deeper list, the best cosine with the query among its file's located places (None: no vectors) and its text."""

    file: str
    rank: int
    deeper: bool
    meaning: float | None
    text: str


def script(text: str) -> str | None:
    """The script most of ``text``'s letters are in: ``cjk`` (Han and kana), ``hangul``, ``latin`` or ``other``
    (Persian, Cyrillic, ...); None for a text without letters. A Latin letter counts a quarter of a CJK
    character (a word of four letters against one character), another letter a third."""
    hangul = len(_HANGUL_RE.findall(text))
    cjk = len(_CJK_RE.findall(text)) - hangul
    latin = len(_LATIN_RE.findall(text))
    other = sum(ch.isalpha() for ch in text) - cjk - hangul - latin
    counts = {"cjk": cjk, "hangul": hangul, "latin": latin / 4, "other": other / 3}
    best = max(counts, key=lambda k: counts[k])
    return best if counts[best] > 0 else None



def by_file(rows: Sequence[Row]) -> tuple[dict[str, float], dict[str, int], dict[str, str], set[str]]:
    """Per file: its best meaning, its first provider rank, its rows' text; and the files only deeper rows bring."""
    best: dict[str, float] = {}
    first: dict[str, int] = {}
    text: dict[str, str] = {}
    for r in rows:
        if r.meaning is not None:
            best[r.file] = max(best.get(r.file, r.meaning), r.meaning)
        first[r.file] = min(first.get(r.file, r.rank), r.rank)
        text[r.file] = text.get(r.file, "") + "\n" + r.text
    return best, first, text, {r.file for r in rows if r.deeper} - {r.file for r in rows if not r.deeper}

def admitted(query: str, rows: Sequence[Row]) -> list[int | None]:
    """Per row, the provider rank it is ranked with, or None when it is left out: every row the provider was
    asked for keeps its own; a deeper file's rows are admitted as the module docstring says, else None."""
    if not any(r.deeper for r in rows):
        return [r.rank for r in rows]
    if not BY_MEANING:
        return [r.rank for r in rows]
    best, first, text, deeper_files = by_file(rows)
    pool = sorted({r.file for r in rows if r.file not in deeper_files}, key=lambda f: first[f])[:AGAINST]
    asked = script(query)
    chosen = sorted((f for f in deeper_files if f in best and script(text[f]) != asked),
                    key=lambda f: (-best[f], first[f]))[:ADMIT]
    rank: dict[str, int] = {}
    for f in chosen:
        beaten = next((g for g in pool if g in best and best[f] > best[g]), None)
        if beaten is not None:
            rank[f] = first[beaten]
    return [r.rank if r.file not in deeper_files else rank.get(r.file) for r in rows]
