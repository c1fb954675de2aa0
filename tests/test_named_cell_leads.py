"""A question naming a table's row and a column (a year, 2024E, a quarter, a date) leads with that cell
(``folding.CELL_LEADS``, ``render.tablecells``).

The places are those the PDF locator gives for nc24a's Q11 over the research report (mineru__test_rearch_report.pdf):
the p1 header box stood first, nearest by meaning, the forecast table's cell "营业总收入, 2024E: 5,752" behind it;
and for "营业收入 2024E" the growth-rate row 营业收入增长率 stood before the 营业总收入 cell. Cosines as the run gave
them."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from mnote_kr.citations.render import folding
from mnote_kr.models import Locator
from tests.test_pipeline_unit import citation

HEADER = "证券研究报告 | 公司点评 高测股份(688556.SH) 2022 年 07 月 19 日"
BULLET = "盈利预测与投资建议：预计公司 2022-2024 年归母净利润 4.7、7.2、9.3 亿元，"
CELL = "营业总收入, 2024E: 5,752"
GROWTH = "营业收入增长率: 2021: 110.0%; 2022E: 135.1%; 2023E: 37.2%; 2024E: 13.8%; 利润总额: 2021: 187; 2022E: 523"
TOTAL_ROW = "每股指标(元); 营业总收入: 2021: 1,567; 2022E: 3,684; 2023E: 5,056; 2024E: 5,752"


def _place(cid: str, words: str, cos: float, query: str, *, first: bool = False, exact: bool = False) -> Any:
    """A place of one PDF page, its words as the pipeline leaves them: a file's first place in its quote, a
    place behind it (a runner-up) in its locator's ``place_text``."""
    loc = Locator(locator_precision="bbox", locator_degraded=not exact, page=1,
                  bbox=[10.0, float(len(cid)), 50.0, 60.0], meaning_score=cos,
                  place_text=None if first else words, quote=words)
    return msgspec.structs.replace(citation(cid, words), locator=loc, locator_precision="bbox", search_query=query,
                                   locator_degraded=not exact, display_quote=words if first else None)


def _order(query: str, first: tuple[str, float], behind: list[tuple[str, float]], exact: bool = False) -> list[str]:
    places = [_place("[a0]", first[0], first[1], query, first=True, exact=exact)]
    places += [_place(f"[a{k}]", words, cos, query, exact=exact) for k, (words, cos) in enumerate(behind, 1)]
    return [(c.locator.place_text or c.display_quote or "") for c in folding.behind_by_meaning(places)]


def test_a_year_and_a_row_named_lead_with_the_forecast_cell_not_the_page_header() -> None:
    """nc24a Q11: no figure asked by a question word (no 多少), yet 2024年 names the column 2024E and 营业收入 the row
    营业总收入 (its 总 "total" aside): the cell leads, the header right behind it."""
    got = _order("高测股份2024年营业收入预测", (HEADER, 0.836), [(GROWTH, 0.811), (CELL, 0.809), (BULLET, 0.802)])
    assert got[:2] == [CELL, HEADER]


def test_a_growth_rate_row_does_not_beat_the_row_the_question_names() -> None:
    """"营业收入 2024E" names 营业收入, not 营业收入增长率: the growth-rate row, first and exact, yields to the cell of
    营业总收入; asked for the growth rate, the growth-rate row stays."""
    got = _order("营业收入 2024E", (GROWTH, 0.862), [(CELL, 0.863), (BULLET, 0.80)], exact=True)
    assert got[:2] == [CELL, GROWTH]
    # the cell first stays: the growth-rate row holds one more of the question's bigrams (业收), which put it first
    # by ``WORDS_LEAD`` when the locator had cited the cell
    assert _order("营业收入 2024E", (CELL, 0.863), [(GROWTH, 0.862)], exact=True)[:2] == [CELL, GROWTH]
    assert _order("营业收入增长率 2024E", (GROWTH, 0.862), [(CELL, 0.863)], exact=True)[0] == GROWTH
    # a row holding the named label under a group label leads as well
    assert _order("营业收入 2024E", (GROWTH, 0.862), [(BULLET, 0.85), (TOTAL_ROW, 0.84)], exact=True)[0] == TOTAL_ROW


def test_a_workbook_row_named_by_its_year_leads_over_a_neighbouring_year() -> None:
    """A workbook's row has no label: "Year: 2022" names it for "in 2022", "Saltwater Ducks" its column."""
    query = "How many saltwater ducks were observed in 2022?"
    got = _order(query, ("Year: 2021; Saltwater Ducks: 100", 0.83), [("Duck Observations", 0.82),
                                                                     ("Year: 2022; Saltwater Ducks: 110", 0.81)])
    assert got[0] == "Year: 2022; Saltwater Ducks: 110"


@pytest.mark.parametrize(("query", "first", "behind"), [
    # no year, quarter, month or date named: the question names no column of that kind
    ("高测股份的营业收入预测", HEADER, [(CELL, 0.80)]),
    # a first place already the cell named stays, a nearer row behind it or not
    ("营业收入 2024E", CELL, [(TOTAL_ROW, 0.85)]),
    # the year named, but no row behind in a row the question names
    ("2024年营业成本预测", HEADER, [(CELL, 0.80), (GROWTH, 0.79)]),
])
def test_a_question_naming_no_such_cell_keeps_its_first(query: str, first: str,
                                                        behind: list[tuple[str, float]]) -> None:
    assert _order(query, (first, 0.83), behind)[0] == first


def test_column_keys_read_years_quarters_months_and_dates_as_a_question_and_a_header_write_them() -> None:
    from mnote_kr.citations.render.tablecells import column_keys

    assert column_keys("2024E") == column_keys("2024年") == column_keys("FY 2024") == {"y2024"}
    assert column_keys("第二季度") == column_keys("Q2") == {"q2"}
    assert column_keys("三月") == column_keys("Mar") == column_keys("March") == column_keys("3月") == {"m3"}
    assert column_keys("on 2024-01-07") == {"d2024-1-7"}
    # figures are no years: a thousands-separated count, a decimal, a percent
    assert column_keys("2,303 checks, 20.15 m, 2019%") == set()
