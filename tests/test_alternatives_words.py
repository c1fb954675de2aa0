"""A file's places behind its first: the ones holding the query's words before captions that hold none.

nc18b problem 5: ``search "合同一式几份？"`` over ``mineru__test.docx`` cited the right paragraph (本合同一式四份…
各一份) but offered as its ``alternatives`` the captions "发票 1" and "图表 1" (each the best place of a passage of
captions, near the question by meaning as a two-word label is near anything), while the contract's passage holds
more paragraphs saying 本合同一式四份. The passages are the real engine's (``tests/data/lightrag/nc18b_chunks.json``),
the file the corpus DOCX, the vectors the real model's.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import msgspec
import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.fakes import fake_host

from mnote_kr.citations import pipeline
from mnote_kr.citations.rank import meaning
from mnote_kr.citations.render.folding import fold_places
from mnote_kr.hookspecs import hookimpl
from mnote_kr.models import Citation, ProviderQueryResult, ProviderReference, QueryRequest
from mnote_kr_docx_locator.cache import load_docx
from tests.surfaces import BlockProvider
from tests.test_folding import paragraph, place

DOCX = CORPUS / "docx" / "mineru__test.docx"
CHUNKS = json.loads((Path(__file__).parent / "data" / "lightrag" / "nc18b_chunks.json").read_text("utf-8"))
QUERY = "合同一式几份？"
CAPTION = re.compile(r"^(发票|图表|表格)\s*\d+$")


class EngineChunks(BlockProvider):
    """The fake provider answering with the passages the real engine gave for the file, in its order."""

    @hookimpl
    def query(self, ctx: Any, request: QueryRequest) -> ProviderQueryResult:
        refs = [ProviderReference(provider="fake", file_path=name, reference_id="1", chunk_id=f"chunk-{k}",
                                  doc_id=f"doc-{name}", content=text, rank=i)
                for name in sorted(self.texts)
                for i, (k, text) in enumerate(sorted(CHUNKS["mineru__test.docx"].items()))]
        return ProviderQueryResult(provider="fake", references=refs, answer=None)


@pytest.fixture
def host(tmp_path: Path) -> Any:
    meaning._memo.clear()
    pipeline.clear_memos()
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    shutil.copyfile(DOCX, ws / "docs" / DOCX.name)
    h, _ = fake_host(ws, EngineChunks(delete_status="delete_completed"))
    h.roots_add(ws / "docs")
    h.ingest([ws / "docs"], wait=True)
    return h


def test_the_places_behind_a_contract_clause_hold_the_querys_words_not_captions(host: Any) -> None:
    before = (host.workspace.root / "docs" / DOCX.name).read_bytes()
    paras = [" ".join(p.text.split()) for p in load_docx(DOCX).paragraphs]
    (c,) = host.search(QUERY, top_k=5).results
    assert c.locator.paragraph_index is not None and "本合同一式四份" in paras[c.locator.paragraph_index]
    assert c.alternatives, "the contract's other paragraphs are places of the file"
    for a in c.alternatives:
        text = paras[a.locator.paragraph_index]
        assert not CAPTION.match(text), f"a caption shown behind the answer: {text!r}"
        assert "合同" in text  # each holds the query's words
    # a paragraph restating the clause is another place saying it, and shown
    assert any("本合同一式四份" in paras[a.locator.paragraph_index] for a in c.alternatives)
    assert (host.workspace.root / "docs" / DOCX.name).read_bytes() == before


def _said(cid: str, index: int, quote: str, cos: float | None, query: str = QUERY, **loc: Any) -> Citation:
    c = place(cid, msgspec.structs.replace(paragraph(index), meaning_score=cos, locator_degraded=True, **loc))
    return msgspec.structs.replace(c, display_quote=quote, search_query=query)


def test_a_caption_without_the_querys_words_yields_to_places_holding_them() -> None:
    first = _said("[p005]", 5, "本合同一式四份，自双方签章并经省政府采购中心审核编号后生效。甲方、乙方各一份。", 0.79)
    caption = _said("[p027]", 27, "发票 1", 0.73)  # nearer by meaning than the clause below it: e5 on a label
    label = _said("[p066]", 66, "图表 1", 0.72)
    seal = _said("[p010]", 10, "本合同双方应加盖骑缝章。", 0.71)
    (c,), _ = fold_places([first, caption, label, seal])
    assert [a.citation_id for a in c.alternatives] == ["[p010]"]  # the captions are not shown at all


def test_a_paragraph_restating_part_of_the_first_is_shown_a_table_cell_of_its_row_is_not() -> None:
    first = _said("[p005]", 5, "本合同一式四份，自双方签章并经省政府采购中心审核编号后生效。甲方、乙方各一份。", 0.79)
    again = _said("[p012]", 12, "本合同一式四份，自双方签章", 0.78)  # the clause restated, a paragraph of its own
    same = _said("[p006]", 6, "本合同一式四份，自双方签章", 0.77)  # the same words again: shown once
    cell = _said("[p030]", 30, "一式四份", 0.76, row_label="合同")  # a cell read within a row shown
    (c,), _ = fold_places([first, again, same, cell])
    assert [a.citation_id for a in c.alternatives] == ["[p012]"]


def test_without_the_querys_words_anywhere_the_places_keep_their_order_by_meaning() -> None:
    """A question in other words (or another language): no place holds its words, none is dropped."""
    query = "how many copies of the contract are signed"
    first = _said("[p005]", 5, "本合同一式四份，自双方签章", 0.79, query)
    caption = _said("[p027]", 27, "发票 1", 0.73, query)
    seal = _said("[p010]", 10, "本合同双方应加盖骑缝章。", 0.71, query)
    (c,), _ = fold_places([first, caption, seal])
    assert [a.citation_id for a in c.alternatives] == ["[p027]", "[p010]"]


def test_a_place_without_the_querys_words_nearest_by_meaning_stays() -> None:
    """A paragraph answering in other words, nearer the question than every place holding its words: kept
    in its place by meaning. A short label is not shown, whatever its cosine."""
    first = _said("[p005]", 5, "本合同一式四份，自双方签章", 0.79)
    other = _said("[p040]", 40, "甲方、乙方、政府采购管理部门、省政府采购中心各执一份，具有同等法律效力。", 0.80)
    label = _said("[p066]", 66, "图表 1", 0.81)
    seal = _said("[p010]", 10, "本合同双方应加盖骑缝章。", 0.71)
    (c,), _ = fold_places([first, label, other, seal])
    assert [a.citation_id for a in c.alternatives] == ["[p040]", "[p010]"]
