"""Every memo under ``mnote_kr.citations`` is classed in ``benchmarks/search_cost.py``: keyed by the question
(``QUERY_LRU``, emptied before each timed search) or kept between questions (``KEPT_LRU``, with why).

The fair warm-cost measurement rested on a hand-kept list: round 29's two new memos were caught by hand, and the next
would have served the second side what the first remembered of the question, silently (review30 finding 11). A memo
added without a class fails here."""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
import sys

from mnote_kr_testkit.data import REPO

import mnote_kr.citations

sys.path.insert(0, str(REPO / "benchmarks"))
import search_cost  # noqa: E402


def memos(package: object) -> set[str]:
    """``module:name`` of every ``functools.lru_cache``/``cache`` wrapper a module under ``package`` defines, at
    module level or on a class (``Class.name``)."""
    out: set[str] = set()
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):  # type: ignore[attr-defined]
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if isinstance(obj, functools._lru_cache_wrapper) and obj.__module__ == info.name:
                out.add(f"{info.name}:{name}")
            elif inspect.isclass(obj) and obj.__module__ == info.name:
                out |= {f"{info.name}:{name}.{attr}" for attr, member in vars(obj).items()
                        if isinstance(getattr(member, "__func__", member), functools._lru_cache_wrapper)}
    return out


def test_every_memo_is_classed_keyed_by_the_question_or_kept() -> None:
    found = memos(mnote_kr.citations)
    assert "mnote_kr.citations.rank.meaning:query_vector" in found  # the walk sees the memos
    classed = set(search_cost.QUERY_LRU) | set(search_cost.KEPT_LRU)
    assert not set(search_cost.QUERY_LRU) & set(search_cost.KEPT_LRU)
    assert sorted(found - classed) == [], "class each in benchmarks/search_cost.py: QUERY_LRU or KEPT_LRU"
    assert sorted(classed - found) == [], "gone or renamed: drop it from benchmarks/search_cost.py"
