"""A PDF's first place is the block holding the query's rare words, not a neighbour nearer by meaning alone.

The nc18a trial's chunks of two corpus PDFs (``tests/data/lightrag/nc18a_chunks.json``: the managed
engine's ``kv_store_text_chunks.json``) replayed through the search pipeline, the PDFs' blocks embedded as
ingest embeds them. Two ways a block holding the query's words lost its file's first place:

* The host sends the locator a window of the chunk around the query's words. When that window is one
  text block (the abstract sentence of "…dense retriever… BM25… top-20 passage retrieval accuracy"), the
  block was chosen by words with no cosine, and the host's ordering of a file's passages by meaning
  (``ranking.MEANING_IN_FILE``) counted it as the least meant: a passage of page 2 holding half the words
  (the DPR definition) took the file's first place.
* The window ended before the paragraph that answers ("Additionally… OTSL has an advantage over HTML when
  applied on a bigger data set like PubTables-1M"), which holds the same words as the window's paragraph
  and is nearer the question: the window's paragraph was cited, the answer one step behind.

``answer.WORD_PEERS`` (False: as before) decides both; the tests run with it off too, so they show the
change.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS

import mnote_kr_pdf_bbox
from mnote_kr.citations.rank import meaning
from mnote_kr.models import Citation
from mnote_kr_lightrag.client import naming
from mnote_kr_pdf_bbox import answer
from tests.test_pipeline_replay import Env, fresh_caches, make_env, query_data
from tests.test_pipeline_replay_pdf import prepared_pdf

CHUNKS = json.loads((Path(__file__).parent / "data" / "lightrag" / "nc18a_chunks.json").read_text("utf-8"))
DPR = "unstructured__multi-column-2p.pdf"
OTSL = "docling__2305.03393v1-pg9.pdf"


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Env:
    fresh_caches()  # each test's replay is its own
    meaning._memo.clear()
    mnote_kr_pdf_bbox.clear_cache()
    return make_env(tmp_path, monkeypatch)


def _places(env: Env, name: str, order: tuple[str, ...], query: str) -> list[Citation]:
    """The file's places (first, then those behind it) when LightRAG returns its chunks ``order``."""
    src = CORPUS / "pdf" / name
    before = src.read_bytes()
    rel = f"papers/{name}"
    prepared_pdf(env, src, rel)
    doc = naming.doc_id_for(name)
    env.replay.json("POST", "/query/data", query_data(*(("1", name, f"{doc}-chunk-{n}", CHUNKS[name][n])
                                                        for n in order)))
    fresh_caches()
    mnote_kr_pdf_bbox.clear_cache()
    out = env.by_rel(env.search(query).results, rel)
    assert src.read_bytes() == before
    return out


def _words(text: str | None) -> str:
    return " ".join((text or "").replace("-\n", "-").split())


@pytest.mark.parametrize("peers", [True, False], ids=["word-peers", "before"])
def test_the_abstract_sentence_holding_bm25_and_top_20_leads_over_the_dpr_definition(
        env: Env, peers: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # the file's seven passages, the page-2 one (the DPR definition) first and the abstract's third, as LightRAG
    # may return them (the trial's first place was that definition)
    monkeypatch.setattr(answer, "WORD_PEERS", peers)
    query = "How much does the dense retriever beat BM25 on top-20 passage retrieval accuracy?"
    first, *behind = _places(env, DPR, ("005", "003", "000", "002", "001", "006", "004"), query)
    abstract = "outperforms a strong Lucene-BM25 system greatly by 9%-19% absolute"
    shown = [(c.locator.page, _words(c.display_quote)[:60]) for c in (first, *behind)]
    if not peers:  # as the trial saw it: the definition first, the abstract behind it
        assert first.locator.page == 2 and abstract not in _words(first.display_quote), shown
        return
    assert first.locator.page == 1 and abstract in _words(first.display_quote), shown
    assert first.locator_precision == "bbox" and not first.locator_degraded
    assert first.locator.meaning_score is not None  # weighed by meaning with the file's other places
    assert any("Given a collection of M text passages" in _words(c.display_quote) for c in behind), shown
    # page 2's sentence holding "BM25" stays its passage's place: a block of that passage holding as many of the
    # query's words by weight but not "BM25" ("By applying a modern reader model to the top retrieved
    # passages") is no peer of it
    assert any("It not only outperforms BM25 by a large margin" in _words(c.display_quote) for c in behind), shown


@pytest.mark.parametrize("peers", [True, False], ids=["word-peers", "before"])
def test_the_paragraph_after_the_window_holding_the_same_words_and_nearer_by_meaning_is_cited(
        env: Env, peers: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(answer, "WORD_PEERS", peers)
    query = "OTSL 在 PubTables-1M 这样更大的数据集上相比 HTML 有什么优势？"
    first, *behind = _places(env, OTSL, ("001", "000"), query)
    answer_text = "OTSL has an advantage over HTML when applied on a bigger data set like PubTables-1M"
    shown = [(c.locator.page, _words(c.display_quote)[:60]) for c in (first, *behind)]
    if not peers:  # as the trial saw it: §5.2's first paragraph, the answer behind it
        assert answer_text not in _words(first.display_quote), shown
        assert any(answer_text in _words(c.display_quote) for c in behind), shown
        return
    assert answer_text in _words(first.display_quote), shown
    assert first.locator_precision == "bbox" and not first.locator_degraded
    assert first.locator.meaning_score is not None
    # the paragraph the window held stays one of the places shown
    assert any("clearly evident" in _words(c.display_quote) for c in behind), shown


def test_a_block_holding_more_of_the_querys_words_than_its_peers_keeps_its_place(env: Env) -> None:
    # the window's paragraph holds every word; the next one (nearer "OTSL", "HTML" only) is no peer
    query = "OTSL outperforms HTML on FinTabNet financial tables"
    first, *_ = _places(env, OTSL, ("001", "000"), query)
    assert "outperforms HTML across the board" in _words(first.display_quote)
    assert not first.locator_degraded
