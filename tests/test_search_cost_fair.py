"""``benchmarks/search_cost.py`` times each search as a new question (round 29, issue 33's +100 ms of warm p95).

Both sides (the default, words alone) search the same question in one process, so a memo keyed by the question's
text that the first side filled served the second. A user asks a new question each time: before each timed search
every memo keyed by the question is emptied (the memos of a file's content and places are kept), and the script
checks they are empty."""

from __future__ import annotations

import sys
import types
from typing import Any

import numpy as np
import pytest
from mnote_kr_testkit.data import REPO

from mnote_kr.citations import pipeline
from mnote_kr.citations.cleaning import window
from mnote_kr.citations.rank import meaning, ranking, searchmemo
from mnote_kr.citations.text import cjkwords

sys.path.insert(0, str(REPO / "benchmarks"))
import search_cost  # noqa: E402

Q = "When was the electric typing machine made and by whom"


class _Plugins:
    """A plugin set the locate memos key by (only its identity matters here)."""


def _remember(question: str, plugins: _Plugins) -> None:
    """What a search of ``question`` leaves in the memos keyed by its text."""
    ranking._query_terms(question)
    window._query_re(question)
    cjkwords._query_words(question, False)
    q = np.ones(384, np.float32) / np.sqrt(384)
    searchmemo.placing(question, 0.5, q, lambda: q)
    searchmemo.cosines("places-key", question, np.eye(4, 384, dtype=np.float32), q, [0, 1])
    pipeline._locator_memo.put(plugins, ("file", question), object())
    pipeline._clean_memo.put(plugins, ("chunk", question, None), object())
    meaning._query_store().put(" ".join(question.split()), q.tobytes())


def test_new_question_empties_every_memo_keyed_by_the_question() -> None:
    plugins = _Plugins()
    _remember(Q, plugins)
    before = search_cost.query_memos(Q)
    # the memos this test fills count as filled (else "all 0" below would prove nothing)
    for name in ("mnote_kr.citations.rank.ranking:_query_terms", "mnote_kr.citations.cleaning.window:_query_re",
                 "pipeline._locator_memo", "pipeline._clean_memo", "searchmemo._tables", "searchmemo._placing",
                 "meaning-queries on disk"):
        assert before[name] >= 1, name
    search_cost.new_question(Q)
    assert search_cost.query_memos(Q) == dict.fromkeys(before, 0)


def test_new_question_keeps_the_vectors_of_other_texts_on_disk() -> None:
    """Only the question's vector leaves the query store: a table header's vector (``tablerows``, by its text) is
    the file's, which a warm engine has."""
    store = meaning._query_store()
    store.put("周期", b"h" * 4 * 384)
    store.put(Q, b"q" * 4 * 384)
    search_cost.new_question(Q)
    assert store.get(Q) is None
    assert store.get("周期") == b"h" * 4 * 384


def test_each_timed_search_meets_the_memos_empty() -> None:
    """The second search of one question (the other side) finds nothing the first remembered of it."""
    plugins = _Plugins()
    seen: list[dict[str, int]] = []

    class Host:
        def search(self, query: str, top_k: int) -> Any:  # noqa: ANN401
            seen.append(search_cost.query_memos(query))
            _remember(query, plugins)  # as a real search does
            return types.SimpleNamespace(diagnostics={"providerMs": 0.0})

    for _ in range(2):
        _, ms = search_cost.timed_search(Host(), Q, top_k=5)
        assert ms >= 0.0
    assert len(seen) == 2
    assert all(n == 0 for sizes in seen for n in sizes.values())


def test_a_memo_left_full_stops_the_timed_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check is real: were a memo keyed by the question not emptied, the script stops instead of timing it."""
    monkeypatch.setattr(search_cost, "new_question", lambda question: None)
    _remember(Q, _Plugins())

    class Host:
        def search(self, query: str, top_k: int) -> Any:  # noqa: ANN401
            raise AssertionError("not reached")

    with pytest.raises(AssertionError, match="not empty before a timed search"):
        search_cost.timed_search(Host(), Q, top_k=5)
