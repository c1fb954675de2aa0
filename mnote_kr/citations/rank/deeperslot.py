"""One file from deeper in the provider's list takes the fifth place, when its meaning earns it (:func:`admitted`).

The provider may pass on files from deeper in its list (``ProviderReference.deeper``, ``[providers.lightrag]
deeper_files``). Of those written in another script than the question (:func:`deeper.script`: a file in the
question's own script that the provider ranked that low had its words' chance), the one whose best place is nearest
the question by meaning (:class:`deeper.Row`'s ``meaning``: the best cosine among the places its locator gave, which
are the cited place and the file's places nearest the question, from the place vectors ingest stored) is admitted
when that cosine beats the weakest of the provider's first five files'. It is ranked right after the fourth of them
(the provider rank after the fourth file's first; its own, behind them all, while there are fewer than five): the
provider's first four keep their lead in the provider's part of the ranking, and one file at most comes in. (At the
fifth file's own rank, the ranking's word score broke the tie for the fifth file, and the recorded question's
answering file stayed sixth.) Every other deeper file is dropped.

r23's rule (``FIFTH = False``: :func:`deeper.admitted`) admitted two such files, each at the rank of the first of
the five it beats, so a file the provider ranked second or third went behind one admitted by a hair of cosine.
Replayed (``benchmarks/deeper_slot.py``: LightRAG's chunks 21-40 recomputed over r26's 46-file engine store, the
host's first files from r28's engine run, each file's best place by its stored place vectors), the answering file
in the first five of the 258 tuning questions: none passed on 225; this rule 228 (+5 -2), MRR 0.767 -> 0.771; r23's
227 (+4 -2), MRR 0.759 (chunks 21-60: 227 for both). Held-out sets, aggregates read once after choosing: 114 -> 116
of 123 (+3 -1; heldout3 51 -> 53 of 60) for either rule. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from mnote_kr.citations.rank import deeper
from mnote_kr.citations.rank.deeper import AGAINST, Row, script

#: True: this module's rule; False: r23's (:func:`deeper.admitted`: up to ``deeper.ADMIT`` files, each as the first
#: of the provider's first five it beats).
FIFTH = True
#: Deeper files admitted per search at most.
ADMIT = 1
#: The admitted file goes before the provider's file at this position (1-based) of its first files, after the one
#: before it.
SLOT = 5


def admitted(query: str, rows: Sequence[Row]) -> list[int | None]:
    """Per row, the provider rank it is ranked with, or None when it is left out (:func:`slotted`; with ``FIFTH``
    False, :func:`deeper.admitted`)."""
    return slotted(query, rows) if FIFTH else deeper.admitted(query, rows)


def slotted(query: str, rows: Sequence[Row]) -> list[int | None]:
    """Per row, the provider rank it is ranked with, or None when it is left out: a row the provider was asked for
    keeps its own; a deeper file's rows get the rank the module docstring says, or None."""
    best, first, text, deeper_files = deeper.by_file(rows)
    if not deeper_files or not deeper.BY_MEANING:
        return [r.rank for r in rows]
    pool = sorted({r.file for r in rows if r.file not in deeper_files}, key=lambda f: first[f])[:AGAINST]
    weakest = min((best[g] for g in pool if g in best), default=None)
    asked = script(query)
    chosen = sorted((f for f in deeper_files if f in best and script(text[f]) != asked),
                    key=lambda f: (-best[f], first[f]))[:ADMIT]
    rank: dict[str, int] = {}
    for f in chosen:
        if weakest is not None and best[f] > weakest:
            rank[f] = first[pool[SLOT - 2]] + 1 if len(pool) >= SLOT else first[f]
    return [r.rank if r.file not in deeper_files else rank.get(r.file) for r in rows]
