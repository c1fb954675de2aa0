"""A file's first place that answers the question (a table row stating the figure asked, a place stating the kind of
answer asked beside the question's words) is not moved behind a place nearer the question by meaning that answers
nothing (``folding.ANSWER_STAYS``).

nc25b Q3, "东北电气2018年第一季度营业收入是多少？" over the quarterly report (pdfplumber__issue-67-example.pdf): the
PDF locator placed the passage's revenue row first, approximate, and gave behind it the file's blocks nearest the
question by meaning outside the passage (``answer.FILE_WIDE``): the cover's company name, 0.054 nearer by cosine,
took the lead by ``LEAD_BY_MEANING`` and was the only card. Places and cosines as that run gave them."""

from __future__ import annotations

from typing import Any

import msgspec

from mnote_kr.citations.render import folding
from mnote_kr.models import Locator
from tests.test_pipeline_unit import citation

Q3 = "东北电气2018年第一季度营业收入是多少？"
ROW = "营业收入（元） 4,755,785.11 5,699,227.63 -16.55%"
COVER = "东北电气发展股份有限公司"
P9 = "编制单位：东北电气发展股份有限公司"
INCOME_ROW = "其中：营业收入 4,755,785.11 5,699,227.63"


def _place(cid: str, words: str, cos: float, query: str, page: int, *, first: bool = False) -> Any:
    loc = Locator(locator_precision="bbox", locator_degraded=True, page=page, bbox=[10.0, float(len(cid)), 50.0, 60.0],
                  meaning_score=cos, place_text=None if first else words, quote=words)
    return msgspec.structs.replace(citation(cid, words), locator=loc, locator_precision="bbox", search_query=query,
                                   locator_degraded=True, display_quote=words if first else None)


def _order(query: str, first: tuple[str, float, int], behind: list[tuple[str, float, int]]) -> list[str]:
    places = [_place("[a0]", first[0], first[1], query, first[2], first=True)]
    places += [_place(f"[a{k}]", w, cos, query, page) for k, (w, cos, page) in enumerate(behind, 1)]
    return [(c.locator.place_text or c.display_quote or "") for c in folding.behind_by_meaning(places)]


def test_the_passage_row_stating_the_revenue_asked_stays_before_the_cover_title() -> None:
    got = _order(Q3, (ROW, 0.726239, 3), [(COVER, 0.780359, 1), (P9, 0.774823, 9)])
    assert got[0] == ROW
    # the cover still shows, behind it, nearest by meaning
    assert got[1:] == [COVER, P9]
    # the rule keeps an answer, not a passage: the report's section heading, approximate, yields as before
    assert _order(Q3, ("第二节 公司基本情况", 0.726239, 3), [(COVER, 0.780359, 1)])[0] == COVER
    # and between two rows stating the figure, meaning decides as before: the income statement's row leads
    assert _order(Q3, (ROW, 0.70, 3), [(INCOME_ROW, 0.76, 14), (COVER, 0.74, 1)])[0] == INCOME_ROW


def test_a_place_stating_the_kind_asked_stays_before_a_nearer_one_stating_none() -> None:
    """The kind of answer asked (多少年) stated beside the question's words (固态硬盘) is an answer too; a place stating
    it beside none of them is not."""
    query = "这款固态硬盘的数据能保存多少年"
    answer = "断电后固态硬盘数据寿命超过10年"
    assert _order(query, (answer, 0.80, 2), [("固态硬盘产品规格书", 0.85, 1)])[0] == answer
    assert _order(query, ("保修期限为3年", 0.80, 2), [("固态硬盘产品规格书", 0.85, 1)])[0] == "固态硬盘产品规格书"


def test_a_first_row_of_another_label_yields_to_the_row_answering_not_to_a_nearer_title() -> None:
    """"东北电气报告期末总资产是多少" (benchmarks/passage_answers.py, passages by meaning): the best passage's place was
    the income statement's row, no answer, and ``LEAD_BY_MEANING`` gave the lead to the balance sheet's "编制单位" line,
    nearest by cosine, before the p3 row stating the total assets. A lawsuit's paragraph stating sums beside 东北电气
    answers a bare 多少 by no more than any number does: the row leads."""
    query = "东北电气报告期末总资产是多少"
    total = "总资产（元）: 本报告期末: 298,608,889.04; 上年度末: 306,236,911.04; 本报告期末比上年度末 增减: -2.49%"
    got = _order(query, ("一、营业总收入: 本期发生额: 4,755,785.11; 上期发生额: 5,699,227.63", 0.734449, 14), [
        (P9, 0.794878, 9), (COVER, 0.793468, 1),
        ("起诉东北电气发展股份有限公司……合计37,745,190元。", 0.755334, 7),
        (total, 0.749717, 3), ("流动资产合计 252,819,760.35 273,339,829.88 非流动资产：", 0.727023, 12)])
    assert got[0] == total
