"""A question asking an amount, a date or a count is exact only on a place stating one: one rule for every
locator (``kindclaims.without_unstated_kind``, the host's, beside ``answertype``'s for DOCX paragraphs).

nc25b (round 25): "铁西区国资局起诉要求公司赔多少钱" over ``pdfplumber__issue-67-example.pdf`` was cited
"exact box, p.7" on the case's title, "1、沈阳市铁西区国有资产监督管理局起诉公司…纠纷一案。", which holds the
question's words and no sum; the block below it says "…合计37,745,190元". The chunk is LightRAG's own (chunk 8
of the file in nc25b's index)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import msgspec
import pytest
from mnote_kr_testkit.data import CORPUS

from mnote_kr.citations.render.kindclaims import without_unstated_kind
from mnote_kr.models import Locator
from tests.surfaces import one_passage_host

PDF = CORPUS / "pdf" / "pdfplumber__issue-67-example.pdf"
QUESTION = "铁西区国资局起诉要求公司赔多少钱"
TITLE = ("1、沈阳市铁西区国有资产监督管理局起诉公司、沈阳高压开关有限责任公司及新东北电气（沈阳）高压开关有限责任 "
         "公司支付职工安置费纠纷一案。")
SUM = "请求法院判令被告向原告偿付欠款2,853万元、利息7,788,690元以及违约金1,426,500元，合计37,745,190元。"
#: LightRAG's chunk 8 of the PDF, as nc25b's index held it.
CHUNK = (
    "于2017年8月29日上\n午开市起连续停牌，直至公司于2018年1月15日发布了《重大资产出售报告书（修订稿）》等有关公告，并于2018年1月16\n"
    "日上午开市起复牌。公司已于2018年4月10日发出股东大会通知，提请2018年5月25日召开临时股东大会作出最终审议批准（详\n"
    "见公司于2018年4月10日发出的公告）。\n（三）重大诉讼及仲裁情况\n"
    "1、沈阳市铁西区国有资产监督管理局起诉公司、沈阳高压开关有限责任公司及新东北电气（沈阳）高压开关有限责任\n"
    "公司支付职工安置费纠纷一案。\n"
    "根据公司2017年7月7日发出的公告披露，沈阳市铁西区国有资产监督管理局向辽宁省沈阳市中级人民法院起诉东北电气\n"
    "发展股份有限公司和沈阳高压开关有限责任公司（简称沈高）、新东北电气（沈阳）高压开关有限责任公司支付沈高职工职\n"
    "工安置费纠纷案，请求法院判令被告向原告偿付欠款2,853万元、利息7,788,690元以及违约金1,426,500元，合计37,745,190元。\n"
    "本案目前仍在审理过程中，法院尚未作出判决。\n"
    "案件代理律师认为，虽然该案在案件性质、诉讼时效、协议效力等几个问题上存有争议，但案涉诉讼标的涉及职工安置\n"
    "费用的民生问题，法院判令公司对沈阳高压开关公司职工剩余安置")


@pytest.fixture
def host(tmp_path: Path) -> Any:
    return one_passage_host(tmp_path, PDF, CHUNK)[0]


def _flat(text: str | None) -> str:
    return "".join((text or "").split())


def test_a_pdf_block_without_the_sum_asked_is_not_exact(host: Any) -> None:
    path = host.workspace.root / "docs" / PDF.name
    before = hashlib.sha256(path.read_bytes()).digest()
    (c,) = host.search(QUESTION, top_k=5).results
    places = [c, *c.alternatives]
    title = [p for p in places if _flat(p.display_quote).endswith(_flat(TITLE))]
    assert title, [p.display_quote for p in places]  # the case's title is still offered
    assert all(p.locator_degraded for p in title)  # but not as the place holding the sum
    for p in places:  # every place claimed exact states a sum
        assert p.locator_degraded or "元" in (p.display_quote or ""), p.display_quote
    assert _flat(SUM) in _flat(c.display_quote)  # the block stating it leads
    assert hashlib.sha256(path.read_bytes()).digest() == before


def _loc(precision: str, words: str, **where: Any) -> Locator:
    return Locator(locator_precision=precision, locator_degraded=False, place_text=words, reason="matched",
                   locator_reason="matched", **where)


WHERE = {"bbox": {"page": 7, "bbox": [1.0, 2.0, 3.0, 4.0]}, "paragraph": {"paragraph_index": 4},
         "slide": {"slide": 2, "shape_id": 3}, "cell": {"sheet": "Sheet1", "range": "B2"}}


@pytest.mark.parametrize("precision", sorted(WHERE))
def test_one_rule_for_every_locator(precision: str) -> None:
    """A box, a paragraph, a shape and a cell alike: holding the question's words without the kind asked (the
    passage stating it) is approximate, the reason saying why; stating it, or the query as written, stays exact."""
    untyped = without_unstated_kind(_loc(precision, TITLE, **WHERE[precision]), QUESTION, CHUNK)
    assert untyped.locator_degraded
    assert "amount" in (untyped.locator_reason or "") and untyped.locator_reason == untyped.reason
    assert not without_unstated_kind(_loc(precision, SUM, **WHERE[precision]), QUESTION, CHUNK).locator_degraded
    # a passage stating no sum: the answer is written some other way, or not there; the place keeps its claim
    assert not without_unstated_kind(_loc(precision, TITLE, **WHERE[precision]), QUESTION, TITLE).locator_degraded
    # a question asking no kind of answer
    assert not without_unstated_kind(_loc(precision, TITLE, **WHERE[precision]), "铁西区国资局起诉公司", CHUNK
                                     ).locator_degraded


def test_a_count_is_stated_by_a_cell_or_row_holding_a_number() -> None:
    """"How many saltwater ducks were observed in 2022?" on C5 (110): a table's number states the count under
    its header; its header cell, holding the question's words and no number, does not."""
    passage = "Year | Freshwater Ducks | Saltwater Ducks\n2022 | 170 | 110"
    query = "How many saltwater ducks were observed in 2022?"
    cell = _loc("cell", "2022: Saltwater Ducks: 110", sheet="Duck Observations", range="C5")
    assert not without_unstated_kind(cell, query, passage).locator_degraded
    header = _loc("cell", "Saltwater Ducks", sheet="Duck Observations", range="C1")
    assert without_unstated_kind(header, query, passage).locator_degraded
    # in prose a bare number ("1、" numbering a list) states no count: "110 ducks" would
    query = "How many ducks were counted along the coast?"
    prose = "1、Ducks were counted along the coast in spring."
    assert without_unstated_kind(_loc("paragraph", prose, paragraph_index=3), query,
                                 prose + " We counted 110 ducks.").locator_degraded
    assert not without_unstated_kind(_loc("paragraph", prose, paragraph_index=3), query, prose).locator_degraded


def test_the_rule_switched_off_leaves_a_place_and_its_runners_up_as_they_were(monkeypatch: pytest.MonkeyPatch) -> None:
    """``KIND_CLAIMS = False`` (a benchmark variant) returns the locator unchanged, runners-up included; it raised
    ``zip(strict=True)``'s ValueError on any place with runners-up (exact6's report)."""
    from mnote_kr.citations.render import kindclaims

    loc = msgspec.structs.replace(_loc("bbox", TITLE, **WHERE["bbox"]),
                                  runners_up=[_loc("bbox", TITLE, **WHERE["bbox"])])
    assert without_unstated_kind(loc, QUESTION, CHUNK).runners_up[0].locator_degraded  # on: judged
    monkeypatch.setattr(kindclaims, "KIND_CLAIMS", False)
    kept = without_unstated_kind(loc, QUESTION, CHUNK)
    assert kept is loc and not kept.locator_degraded


def test_a_block_stating_a_decade_states_the_date_a_when_question_asks() -> None:
    """nc26b Q4: the ELIZA block ("created by Joseph Weizenbaum in the 1960s") was called approximate "it holds the
    question's words, not the date it asks, which its passage states" (the passage's "1984" and "2003"): a decade
    is a date for "when"."""
    query = "When was the chatbot ELIZA created and by whom?"
    eliza = "One of the earliest programs in this category is ELIZA, a bot created by Joseph Weizenbaum in the 1960s."
    passage = "Cope created a project called EMI in 1984. In 2003, Cope started a new project. " + eliza
    assert not without_unstated_kind(_loc("bbox", eliza, **WHERE["bbox"]), query, passage).locator_degraded
    # the same block without its decade holds the question's words, not the date asked
    bare = "One of the earliest programs in this category is ELIZA, a bot created by Joseph Weizenbaum."
    assert without_unstated_kind(_loc("bbox", bare, **WHERE["bbox"]), query, passage).locator_degraded
