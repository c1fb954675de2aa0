"""Ingest embeds a long place's quote sentences, so a search quoting it by meaning embeds nothing (round 29, issue 33:
warm search p95 +100 ms at most; the sentences embedded at search time were about a third of what ranking by meaning
added, ``benchmarks/search_cost.py``).

The place is the corpus handbook's ¶519 (``test_quote_by_meaning``): a Chinese question holds none of its words, so
its quote is chosen by each sentence's cosine with the question. The vectors ingest stores must be the very ones
the search would embed (the int8 runtime's vectors move with their batch-mates): the same quote either way."""

from __future__ import annotations

import shutil
from typing import Any

import numpy as np
import pytest

from mnote_kr.citations import pipeline
from mnote_kr.citations.cleaning.quote import answer_quote
from mnote_kr.citations.rank import e5, meaning, quotesets
from tests.surfaces import HANDBOOK_ANSWER as ANSWER
from tests.surfaces import HANDBOOK_QUESTION as QUESTION
from tests.surfaces import handbook_paragraphs


@pytest.fixture(scope="module")
def paragraphs() -> list[str]:
    """Paragraphs 516, 519 and 521 of the handbook, read as the DOCX locator reads them; nothing written."""
    return handbook_paragraphs()


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(quotesets, "SENTENCES_AT_INGEST", True)  # off by default (its ingest cost): tested on
    meaning._memo.clear()
    meaning._sentence_memo.clear()
    meaning._queue.clear()
    meaning.query_vector.cache_clear()
    pipeline.clear_memos()


@pytest.fixture
def embedded(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The passages each model call embeds (a query's vector is not counted)."""
    calls: list[list[str]] = []
    real = e5.E5.embed

    def counted(self: Any, texts: Any, **kw: Any) -> Any:  # noqa: ANN401
        if not kw.get("query"):
            calls.append(list(texts))
        return real(self, texts, **kw)

    monkeypatch.setattr(e5.E5, "embed", counted)
    return calls


def _sets(texts: list[str]) -> list[list[str]]:
    return list(quotesets.sentence_sets(texts, meaning.places_key, meaning.MAX_QUOTE_SENTENCES).values())


def _quote(place: str) -> str:
    return answer_quote(place, QUESTION, by_meaning=lambda t: meaning.sentence_cosines(t, QUESTION))


def test_a_search_quoting_a_long_place_by_meaning_embeds_nothing_after_ingest(
        paragraphs: list[str], embedded: list[list[str]]) -> None:
    lines: list[str] = []
    meaning.queue(paragraphs)
    assert meaning.embed_queued(lines.append) == 1
    sets = _sets(paragraphs)
    assert len(sets) >= 1 and any(s[0].startswith("Any document used to confirm") for s in sets)
    assert len(embedded) == 1 + len(sets)  # the places in one call, then each place's sentences in one of its own
    assert lines[-1].startswith(f"embedding quote sentences: {len(sets)}/{len(sets)} places in ")
    meaning._sentence_memo.clear()  # a later process: read from disk
    meaning.query_vector(" ".join(QUESTION.split()))  # the search's own query vector, computed beside the provider
    embedded.clear()
    quote = _quote(paragraphs[1])
    assert quote.startswith(ANSWER), quote
    assert embedded == []  # on main: the search embedded ¶519's sentences here


def test_the_sentences_vectors_are_those_the_search_embeds(paragraphs: list[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Ingest's vectors of a set equal the search's own to the bit, so every cosine and quote is the same."""
    meaning.queue(paragraphs)
    meaning.embed_queued(lambda line: None)
    said = next(s for s in _sets(paragraphs) if s[0].startswith("Any document used"))
    at_ingest = meaning.sentence_cosines(said, QUESTION)
    shutil.rmtree(meaning._sentence_store().folder)
    meaning._sentence_memo.clear()
    at_search = meaning.sentence_cosines(said, QUESTION)  # embedded now, as before round 29
    assert at_ingest is not None and at_search is not None
    assert np.array_equal(np.array(at_ingest), np.array(at_search))


def test_each_places_sentences_go_in_a_call_of_their_own(embedded: list[list[str]]) -> None:
    """Two long places: two calls, never one batch of both (a batch-mate moves an int8 vector)."""
    a = ("The observatory opened in 1931 on the hill above the harbour, after twelve years of fund raising by the "
         "town's sailors and teachers. Its first telescope came from a closed university in the north. "
         "The dome was rebuilt in 1978 after a storm tore half of it away in the night. Its keepers still log the "
         "weather at noon, as the first ones did.")
    b = ("Tickets are sold at the gate from nine in the morning until an hour before closing time every day. "
         "Children under twelve enter free with an adult, and groups of ten or more are asked to book a week "
         "ahead. The east wing keeps the first telescope and the logbooks of its first keepers. The cafe beside "
         "the gate closes at four in winter and at six in summer.")
    assert min(len(a), len(b)) > 320
    assert quotesets.embed_sets(meaning._unstored_sets([[a, "Opening hours"], [b]]), meaning._sentence_vectors) == 2
    assert sorted(map(len, embedded)) == [4, 4]
    assert meaning._unstored_sets([[a], [b]]) == {}  # stored: nothing to embed again


def test_short_places_and_places_of_one_sentence_have_no_set() -> None:
    """A place no longer than a quote is quoted whole; one sentence needs no choosing."""
    from mnote_kr.citations.cleaning import quote

    assert quotesets.QUOTE_CHARS == quote.QUOTE_CHARS
    one = "A single sentence that runs on and on " * 12
    assert len(one) > 320
    assert _sets(["Short. Two sentences.", one]) == []


def test_nothing_is_embedded_with_the_switch_off(monkeypatch: pytest.MonkeyPatch, paragraphs: list[str],
                                                 embedded: list[list[str]]) -> None:
    monkeypatch.setattr(quotesets, "SENTENCES_AT_INGEST", False)
    meaning.queue(paragraphs)
    meaning.embed_queued(lambda line: None)
    assert len(embedded) == 1  # the places alone
