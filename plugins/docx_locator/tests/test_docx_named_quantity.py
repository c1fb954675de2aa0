"""A what-question naming the quantity it asks ("What is the sequential write speed of ...?") asks its kind of answer,
as "how fast" and 速度 do (``cues.NAMED_QUANTITIES``, issue 33's twenty-ninth round).

Seen by two newcomers (round 28, nc28a F1 and nc28c): "What is the sequential write speed of the NANDrive micro
SSD?" over the Chinese spec sheet ``poi__stress009.docx`` was cited on paragraph 5, the long paragraph naming the
product ("利用NANDrive微型固态硬盘作为各种数字产品的存储部件…"), and the answer, paragraph 27 ("连续写入性能为：
超过每秒20兆字节"), was not among its places, though LightRAG's passage held both. The same question in Chinese
(…的连续写入速度是多少？) landed on 27: 速度 asked a speed, and the line stating one led.

Recorded here (``data/nc28a_named_speed.json``, from a fresh index of that file through the CLI's search): the
LightRAG chunk, its sidecar block, the evidence the host gave the locator and the query's cosine with each of the
file's paragraphs (replayed through ``meaning.cosines`` / ``meaning.nearest``).
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from mnote_kr_testkit.docx_replay import replay_locate

from mnote_kr.citations.rank import cues
from mnote_kr.citations.render import folding
from mnote_kr.models import Citation, CitationDiagnostics
from mnote_kr_docx_locator import cache as docx_cache

CASE = json.loads((Path(__file__).parent / "data" / "nc28a_named_speed.json").read_text("utf-8"))[0]
#: Read in the document: the product's uses (no figure), the write speed line, the read speed line.
USES, WRITE_SPEED, READ_SPEED = 5, 27, 28


@pytest.fixture(autouse=True)
def _fresh() -> None:
    docx_cache.clear_cache()


def _placed(monkeypatch: pytest.MonkeyPatch) -> list[Citation]:
    """The file's places as the host orders them: the locator's place, its places behind (``runner_citations``), by
    meaning (``behind_by_meaning``)."""
    loc = replay_locate(CASE, monkeypatch)
    main = Citation(provider="lightrag", citation_id="main", source_id="s1", source_path="/docs/" + CASE["file"],
                    source_root_relative_path=CASE["file"], light_rag_doc_id=None, light_rag_file_path=CASE["file"],
                    light_rag_chunk_id="chunk", block_id=CASE["block"]["blockid"], heading_path=[],
                    raw_quote=CASE["chunk"], display_quote=loc.place_text or loc.quote,
                    locator_evidence_text=CASE["evidence"], quote_source="sidecar", search_query=CASE["query"],
                    locator=msgspec.structs.replace(loc, runners_up=[]), locator_precision=loc.locator_precision,
                    locator_degraded=loc.locator_degraded, citation_url="", citation_markdown="", relevance_score=1.0,
                    diagnostics=CitationDiagnostics(quote_source="sidecar", raw_reference_mapped=True,
                                                    sidecar_block_mapped=True, display_cleaned=True,
                                                    locator_text_source="sidecar"))
    return folding.behind_by_meaning([main, *folding.runner_citations(main, loc, "chunk", set())])


def test_a_what_question_naming_a_speed_asks_one_in_either_language() -> None:
    fold = " ".join(CASE["query"].casefold().split())
    assert cues.answer_types(fold) == ("speed",)
    assert cues.answer_types("what is the minimum distance between buildings on the same lot?") == ("distance",)
    assert cues.answer_types("固态硬盘的容量是多少")[:1] == ("size",)
    # a quantity named outside a what-question asks nothing; a question word asking a kind decides alone
    assert cues.answer_types("who runs power distribution in the city") == ()
    assert cues.answer_types("what percentage of the price is tax") == ("percent",)


def test_the_line_stating_the_speed_leads_the_paragraph_naming_the_product(monkeypatch: pytest.MonkeyPatch) -> None:
    placed = _placed(monkeypatch)
    at = [c.locator.paragraph_index for c in placed]
    assert at[0] == WRITE_SPEED, [(c.locator.paragraph_index, c.locator.reason) for c in placed]
    assert "每秒20兆字节" in (placed[0].display_quote or placed[0].locator.place_text or "")
    assert placed[0].locator_degraded  # chosen by its kind and meaning, not claimed: it holds none of the words
    assert USES in at[1:3]  # the locator's own place, one step behind


def test_without_the_named_quantity_the_product_paragraph_leads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cues, "NAMED_QUANTITIES", False)  # as before round 29
    placed = _placed(monkeypatch)
    at = [c.locator.paragraph_index for c in placed]
    assert at[0] == USES and WRITE_SPEED not in at[:2], at
