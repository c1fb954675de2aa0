"""Two chunks of one file that land on one place are one citation, carrying the chunk that holds the place.

LightRAG cuts a file into token windows, and where they fall moves with the markup's ids (a DOCX's drawing
paths hold the link name, whose workspace tag hashes the workspace's path): the same DOCX is two chunks in one
workspace and three in another, the third a tail of 37 characters (``note  [Endnote i: This is an endnote]``).
For "And this is the footnote" LightRAG returned that tail, or the endnote's chunk, first in some workspaces and
the footnote's chunk first in others (``tests/data/lightrag/reread_chunks.json``). Each lands on the footnote's
paragraph (the DOCX locator finds the query as written in the file), and the place kept the first chunk: its
``rawQuote``, ``contextQuote`` and chunk ID were a chunk holding none of the place, and the file was scored on
that chunk's words (0.5 against 1.7). ``tests/test_reread_integration.py`` failed about one run in three on it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.data import CORPUS, DATA
from mnote_kr_testkit.fakes import FakeProvider, fake_host

from mnote_kr.citations import pipeline
from mnote_kr.citations.rank import meaning
from mnote_kr.citations.render.placechunk import Holders, held_share
from mnote_kr.hookspecs import hookimpl
from mnote_kr.models import ProviderQueryResult, ProviderReference, QueryRequest

NAME = "tika__testWORD_2006ml.docx"
QUERY = "And this is the footnote"
NOTE = "[Footnote 1: And this is the footnote]"
LAYOUTS: dict[str, Any] = json.loads((DATA / "lightrag" / "reread_chunks.json").read_text(encoding="utf-8"))["layouts"]


class Chunks(FakeProvider):
    """The file's chunks (``chunks``) in the order ``order`` names, LightRAG's for the query."""

    chunks: list[str] = []
    order: list[int] = []

    @hookimpl
    def query(self, ctx: Any, request: QueryRequest) -> ProviderQueryResult:
        name = next(iter(self.texts))
        refs = [ProviderReference(provider="fake", file_path=name, reference_id="1", chunk_id=f"doc-x-chunk-{k:03d}",
                                  doc_id="doc-x", content=self.chunks[k], rank=rank, chunk_order=k)
                for rank, k in enumerate(self.order, start=1)]
        return ProviderQueryResult(provider="fake", references=refs, answer=None)


@pytest.fixture
def library(tmp_path: Path) -> tuple[Any, Chunks]:
    meaning._memo.clear()
    pipeline.clear_memos()
    docs = tmp_path / "ws" / "kb"
    docs.mkdir(parents=True)
    shutil.copyfile(CORPUS / "docx" / NAME, docs / NAME)
    provider = Chunks(delete_status="delete_completed")
    host, _ = fake_host(tmp_path / "ws", provider)
    host.roots_add(docs)
    host.ingest([docs], wait=True)
    return host, provider


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_place_chunks_reach_carries_the_chunk_holding_it_whichever_came_first(
        library: tuple[Any, Chunks], layout: str) -> None:
    host, provider = library
    provider.chunks = LAYOUTS[layout]["chunks"]
    foot = next(k for k, c in enumerate(provider.chunks) if NOTE in c)
    cards = {}
    for order in (LAYOUTS[layout]["order"], [foot, *(k for k in LAYOUTS[layout]["order"] if k != foot)]):
        provider.order = order
        pipeline.clear_memos()
        (cards[tuple(order)],) = host.search(QUERY, scope=[f"kb/{NAME}"]).results
    assert len(cards) == 2 and next(iter(cards))[0] != foot  # LightRAG's order, then the footnote's chunk first
    for order, card in cards.items():
        assert NOTE in (card.display_quote or ""), (order, card.display_quote)  # the footnote's paragraph
        assert card.light_rag_chunk_id == f"doc-x-chunk-{foot:03d}", (order, card.light_rag_chunk_id)
        assert NOTE in (card.raw_quote or "") and NOTE in (card.context_quote or ""), (order, card.raw_quote)
    first, second = cards.values()
    # one citation whichever chunk LightRAG returned first: the same place, ID, claim and score
    assert (second.citation_id, second.locator.paragraph_index, second.locator_degraded, second.relevance_score) == (
        first.citation_id, first.locator.paragraph_index, first.locator_degraded, first.relevance_score)
    assert first.diagnostics.provider_rank == second.diagnostics.provider_rank == 1  # the place's best rank


def _ref(k: int, text: str) -> ProviderReference:
    return ProviderReference(provider="fake", file_path="f", chunk_id=f"c{k}", content=text, rank=k + 1)


def test_the_later_chunk_holding_more_of_a_places_quote_takes_the_first_ones_stead_and_rank() -> None:
    quote = "Revenue rose by a tenth in 2023"
    refs = [_ref(0, "costs fell"), _ref(1, "other file"), _ref(2, "Revenue rose by a tenth in 2023, costs fell"),
            _ref(3, "rose by a tenth")]
    holders = Holders()
    holders.keep([("place", "s", "p3"), None], 0, quote, refs[0].content or "")
    for at in (2, 3):
        holders.again([None, ("place", "s", "p3")], at, refs[at].content or "")
    assert [(r.chunk_id, r.rank) for r in holders.reordered(refs)] == [("c2", 1), ("c0", 1), ("c1", 2), ("c3", 4)]
    # the first chunk holding the whole quote stays, whatever more of the paragraph a later one holds
    even = Holders()
    even.keep([("place", "s", "p3")], 0, quote, "Revenue rose by a tenth in 2023")
    even.again([("place", "s", "p3")], 1, "in 2023 revenue rose by a tenth, and so did the costs of the year")
    assert not even.better
    assert held_share("", "anything") == 1.0 and held_share("Revenue rose", "revenue") == 0.5
