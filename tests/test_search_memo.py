"""The query's cosines with a file's places are computed once per search, not at every locate (round 28, issue 33's
budget: a warm search ranked by meaning within +100 ms of p95 over words alone, ``benchmarks/search_cost.py``).

Every located passage of a file asks ``meaning.cosines`` for its places, and a question in the other script than the
file's asks every place's (``otherscript._lowered``); each ask centred the query's vector again and computed each
place's product again. The floats are the same as each place's own product; a place without a vector has none; new
vectors under the same key (a store emptied, another model) are met anew."""

from __future__ import annotations

import numpy as np
import pytest
from mnote_kr_testkit.counting import count_calls

from mnote_kr.citations.rank import meaning, neutral


class Counted(np.ndarray):
    """A vector array counting the products taken of its rows."""

    products = 0

    def __matmul__(self, other):  # noqa: ANN001, ANN204
        Counted.products += 1
        return np.asarray(self) @ other


def _vectors(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    vecs = rng.standard_normal((n, 384)).astype(np.float32)
    vecs[3] = 0.0  # a place too short to embed
    return vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)


@pytest.fixture
def query(monkeypatch) -> np.ndarray:  # noqa: ANN001
    q = _vectors(5, 7)[0]
    monkeypatch.setattr(meaning, "query_vector", lambda text: q)  # one array per query, as the lru_cache gives
    return q


def test_a_files_cosines_are_computed_once_per_place_and_query(monkeypatch, query) -> None:  # noqa: ANN001
    vecs = _vectors(40, 1)
    key = "40-test-cosines-once"
    monkeypatch.setitem(meaning._memo, key, vecs.view(Counted))
    Counted.products = 0
    centred = meaning._placing_vector("which places answer?")
    expected = {i: float(vecs[i] @ centred) for i in range(40) if i != 3}
    first = meaning.cosines(key, "which places answer?", [5, 1, 3, 9])
    assert list(first) == [5, 1, 9] and first == {i: expected[i] for i in (5, 1, 9)}  # the order asked, no empty place
    every = meaning.cosines(key, "which places answer?", range(40))
    again = meaning.cosines(key, "which places answer?", [9, 5, 2])
    assert every == expected and again == {i: expected[i] for i in (9, 5, 2)}
    assert Counted.products == 39  # each place with a vector once: 3 at the first ask, 36 more for the rest
    other = meaning.cosines(key, "another question", [5])  # another query: its own products
    assert Counted.products == 40 and other is not None and 5 in other


def test_the_querys_vector_is_centred_once_for_every_ask(monkeypatch, query) -> None:  # noqa: ANN001
    real = neutral.neutral
    calls: list[list[str]] = []

    def counted(vecs, texts, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        calls.append(list(texts))
        return real(vecs, texts, *args, **kwargs)

    monkeypatch.setattr(neutral, "neutral", counted)
    monkeypatch.setitem(meaning._memo, "40-test-centred-once", _vectors(40, 2))
    first = [meaning.cosines("40-test-centred-once", "what is  centred?", [i]) for i in range(10)]
    assert calls == [["what is centred?"]]
    assert first == [meaning.cosines("40-test-centred-once", "what is centred?", [i]) for i in range(10)]
    assert np.array_equal(meaning._placing_vector("what is centred?"),
                          real(query[None, :], ["what is centred?"], "query", alpha=meaning.NEUTRAL_QUERY)[0])


def test_new_vectors_under_the_same_key_are_met_anew(monkeypatch, query) -> None:  # noqa: ANN001
    key = "40-test-new-vectors"
    old, new = _vectors(40, 3), _vectors(40, 4)
    monkeypatch.setitem(meaning._memo, key, old)
    q = meaning._placing_vector("a question")
    assert meaning.cosines(key, "a question", [0, 1]) == {i: float(old[i] @ q) for i in (0, 1)}
    meaning._memo[key] = new  # the store emptied and embedded again, another model's vectors
    assert meaning.cosines(key, "a question", [0, 1]) == {i: float(new[i] @ q) for i in (0, 1)}


def test_the_words_a_place_says_in_another_language_are_read_once_per_question_and_text(
        monkeypatch) -> None:  # noqa: ANN001
    """``said_words``: a search's locates ask it of the same places again (a PDF passage by its locator and by the
    host's placing; a DOCX file's passages share paragraphs); the dictionary is read once per question and text."""
    from mnote_kr.citations.locate import saidacross

    read, real = count_calls(monkeypatch, saidacross, "normalize")
    query = "淡水鸭每年的观测数量是多少？"
    words = saidacross.question_words(query)
    text = "Freshwater Ducks (round 28): the yearly count observed at the lake"
    first = saidacross.said_words(query, text, words)
    assert first == {"淡水", "每年", "观测"}
    first.add("数量")  # a caller's set is its own
    assert [saidacross.said_words(query, text, words) for _ in range(3)] == [{"淡水", "每年", "观测"}] * 3
    assert read == [text]
    assert saidacross.said_words(query, text, words[:1]) == {"淡水"}  # other words: asked anew
    english = "How many freshwater ducks are counted each year?"
    said = saidacross.said_words(english, "淡水鸭的年度观测数量（第28轮）", saidacross.question_words(english))
    assert said == {"year"}
