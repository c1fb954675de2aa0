"""What the locates of one search ask again and again of the places' vectors, worked out once.

Each located passage of a file asks :func:`mnote_kr.citations.rank.meaning.cosines` for its places' cosines with
the query, and a question in the other script than the file's asks every place's (``otherscript._lowered``, at
each locate); each ask centred the query's vector again (``neutral``) and tested every place's vector for being
empty. The answers are the same floats every time: they are kept here, per places key and query, while the same
vector arrays are the ones met (a store emptied, another model or a new query vector reads new arrays: a new
table). ``benchmarks/search_cost.py`` measures what they cost a warm search ranked by meaning (issue 33: +100 ms
of p95 over words alone at most).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

#: Tables kept (places key and query each): a search's files, and the searches before it. 0: nothing is kept.
COSINES_MEMO_MAX = 64
#: Query vectors kept as they meet places (centred): the last searches'.
PLACING_MEMO_MAX = 64
_lock = threading.Lock()
_tables: OrderedDict[tuple[str, str], tuple[np.ndarray, np.ndarray, list[bool], dict[int, float]]] = OrderedDict()
_placing: OrderedDict[tuple[str, float], tuple[np.ndarray, np.ndarray]] = OrderedDict()


def cosines(key: str, query: str, vecs: np.ndarray, q: np.ndarray, indices: Iterable[int]) -> dict[int, float]:
    """The cosine of ``q`` (the query's placing vector) with each place of ``indices`` that has a vector (a place
    too short to embed has a zero one: no cosine, not a cosine of 0), in the order of ``indices``; each place's
    product as before (``float(vecs[i] @ q)``), computed once per table."""
    rows, known = _table(key, query, vecs, q)
    out: dict[int, float] = {}
    n = len(rows)
    for i in indices:
        if 0 <= i < n and rows[i]:
            c = known.get(i)
            if c is None:
                c = known[i] = float(vecs[i] @ q)
            out[i] = c
    return out


def _table(key: str, query: str, vecs: np.ndarray, q: np.ndarray) -> tuple[list[bool], dict[int, float]]:
    """Which places of ``key`` have a vector, and the cosines with ``q`` computed so far (the caller fills it)."""
    with _lock:
        hit = _tables.get((key, query))
        if hit is not None and hit[0] is vecs and hit[1] is q:
            _tables.move_to_end((key, query))
            return hit[2], hit[3]
    rows: list[bool] = vecs.any(axis=1).tolist()
    known: dict[int, float] = {}
    if COSINES_MEMO_MAX > 0:
        with _lock:
            _tables[(key, query)] = (vecs, q, rows, known)
            while len(_tables) > COSINES_MEMO_MAX:
                _tables.popitem(last=False)
    return rows, known


def placing(text: str, alpha: float, q: np.ndarray, centre: Callable[[], np.ndarray]) -> np.ndarray:
    """``centre()`` (the query vector ``q`` of ``text`` with ``alpha`` of its language's mean taken out), computed
    once while ``q`` is the vector met for ``text``: the same array every ask."""
    with _lock:
        hit = _placing.get((text, alpha))
    if hit is not None and hit[0] is q:
        return hit[1]
    out = centre()
    if PLACING_MEMO_MAX > 0:
        with _lock:
            _placing[(text, alpha)] = (q, out)
            while len(_placing) > PLACING_MEMO_MAX:
                _placing.popitem(last=False)
    return out


def clear() -> None:
    """Forget every table and centred vector."""
    with _lock:
        _tables.clear()
        _placing.clear()
