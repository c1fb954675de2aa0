"""For a question asking a figure, a file's first place stating none yields to a table row answering it
(``folding.VALUE_ROW_LEADS``, ``render.valuerows``).

The places are those r22's run cited for a question of the tables set over the Anhui land-use standard
(plumber__issue-336-example.pdf, table 7.7): the caption and the clause pointing at the table stood nearer
by meaning than the row of figures, which came third."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from mnote_kr.citations.render import folding
from mnote_kr.models import Locator
from tests.test_pipeline_unit import citation

QUESTION = "桥梁和隧道的监控通信站最多能占多少公顷土地"
CAPTION = "表 7.7 监控通信设施用地指标（公顷/处）"
CLAUSE = ("第 7.10 条 公路路段监控通信分中心、路段监控通信站和桥隧监控通信站应 根据项目实际需要设置，"
          "其用地指标不宜超过表 7.7 的规定。")
ROW = "路段监控通信分中心: 1.7333; 路段监控通信站: 0.8667; 桥隧监控通信站: 0.5333"


def _place(cid: str, words: str, cos: float, query: str, *, first: bool = False) -> Any:
    """A place of one PDF page, its words as the pipeline leaves them: a file's first place in its quote, a
    place behind it (a runner-up) in its locator's ``place_text``."""
    loc = Locator(locator_precision="bbox", locator_degraded=True, page=1, bbox=[10.0, float(len(cid)), 50.0, 60.0],
                  meaning_score=cos, place_text=None if first else words, quote=words)
    return msgspec.structs.replace(citation(cid, words), locator=loc, locator_precision="bbox", search_query=query,
                                   display_quote=words if first else None)


def _order(query: str, first: str, behind: list[tuple[str, float]]) -> list[str]:
    places = [_place("[a0]", first, 0.80, query, first=True)]
    places += [_place(f"[a{k}]", words, cos, query) for k, (words, cos) in enumerate(behind, 1)]
    got = folding.behind_by_meaning(places)
    return [(c.locator.place_text or c.display_quote or "") for c in got]


def test_a_caption_first_yields_to_the_row_of_figures_for_a_question_asking_how_much() -> None:
    got = _order(QUESTION, CAPTION, [(CLAUSE, 0.79), (ROW, 0.77)])
    assert got == [ROW, CAPTION, CLAUSE]  # the row answers; the caption right behind it, as a lead by meaning


def test_a_clause_pointing_at_the_table_yields_to_the_row_too() -> None:
    """"不宜超过表 7.7 的规定" holds numbers, 7.10 and 7.7, but they name parts of the document: no value."""
    got = _order(QUESTION, CLAUSE, [(CAPTION, 0.79), (ROW, 0.77)])
    assert got[0] == ROW


@pytest.mark.parametrize(("first", "behind"), [
    # the first place states the figure itself, in prose: it answers, and stays
    ("桥隧监控通信站的用地不宜超过 0.5333 公顷。", [(ROW, 0.70)]),
    # a sentence of Chinese prose holding numbers is no table row
    (CAPTION, [("2015 年12 月，监控通信站设定抵押 8 间商铺，共计 4,804.45 平方米", 0.70)]),
])
def test_in_the_same_search_a_file_whose_first_states_a_figure_or_has_no_row_keeps_its_first(
        first: str, behind: list[tuple[str, float]]) -> None:
    """Two files of one search: the caption of the first yields to its row, the other file's first stays."""
    other = [msgspec.structs.replace(_place(f"[b{k}]", words, cos, QUESTION, first=k == 0),
                                     source_root_relative_path="kb/other.md")
             for k, (words, cos) in enumerate([(first, 0.80), *behind])]
    mine = [_place("[a0]", CAPTION, 0.80, QUESTION, first=True), _place("[a1]", ROW, 0.77, QUESTION)]
    got = folding.behind_by_meaning([mine[0], other[0], mine[1], *other[1:]])
    firsts = [(c.source_root_relative_path, c.locator.place_text or c.display_quote) for c in got[:2]]
    assert firsts == [("kb/ok.md", ROW), ("kb/other.md", first)]


def test_which_kinds_asks_no_figure_how_many_hectares_does() -> None:
    from mnote_kr.citations.render.valuerows import asks_value, is_value_row

    assert asks_value(QUESTION) and asks_value("What was the overall count of checks in Texas?")
    assert not asks_value("核查反担保时会计师翻阅了哪几类材料")  # 哪几 is "which", not "how many"
    assert not asks_value("这次标准修改要在什么时候之前做完")  # a date, said in prose as often as in a table
    assert is_value_row("40000≤Q＜55000 1.01 1.11 1.20 1.30 1.39", "four lanes carrying 40,000 to 55,000 a day")
    assert not is_value_row("[1] GB/T 1.1-2020 标准化工作导则 第1部分：标准化文件的结构和起草规则", QUESTION)


def test_a_first_place_holding_the_whole_question_keeps_its_lead() -> None:
    """A place whose words are the query's own (an XLSX cell's comment "Minimum number of saltwater ducks" for that
    very search: the bare-clone CI's test_xlsx_comments_integration) is what was asked for; a row of figures behind
    it does not take its lead, though the query names a number."""
    query = "Minimum number of saltwater ducks"
    row = "Saltwater Ducks: 12; 15; 9; 21"
    assert _order(query, query, [(row, 0.70)])[0] == query
    # a first place holding only part of the question still yields
    assert _order(query, "Saltwater ducks", [(row, 0.70)])[0] == row


def test_an_english_question_over_the_chinese_table_gets_the_row_the_dictionary_reads_it_in() -> None:
    """The row holds no English word: "monitoring", "communication" and "centre" are said in it in Chinese
    (监控, 通信, 中心), so it answers the English question as it answers the Chinese one; the clause pointing at
    table 7.7 yields to it."""
    question = ("Under the provincial land-use rules, how many hectares can a road-section monitoring and "
                "communication sub-centre occupy?")
    got = _order(question, CLAUSE, [(CAPTION, 0.79), (ROW, 0.77)])
    assert got[0] == ROW
    # a row of figures the question names in neither language keeps its place behind
    other = "养护工区: 0.8000; 道班房: 0.2000"
    assert _order(question, CLAUSE, [(CAPTION, 0.79), (other, 0.77)])[0] == CLAUSE


def test_a_chinese_question_over_an_english_row_reads_the_row_through_the_dictionary() -> None:
    from mnote_kr.citations.render.valuerows import is_value_row

    row = "Illinois: Permit: 87,190; Handgun: 24,412; Long Gun: 17,227"
    assert is_value_row(row, "伊利诺伊州的持枪许可证核查做了多少次")
    assert not is_value_row(row, "班加罗尔一年的平均降雨量是多少毫米")


ARIZONA = "Arizona: Permit: 2,303; Handgun: 12,382; Long Gun: 9,041; *Other: 707"
ILLINOIS = "Illinois: Permit: 87,190; Handgun: 24,412; Long Gun: 17,227; *Other: 0"
IDAHO = "Idaho: Permit: 1,944; Handgun: 3,609; Long Gun: 5,227; *Other: 190"


@pytest.mark.parametrize("question", ["伊利诺伊州的持枪许可证核查有多少次", "How many permit checks did Illinois run?"])
def test_a_row_of_another_label_first_yields_to_the_row_the_question_names(question: str) -> None:
    """The NICS table's rows as the PDF locator writes them: Arizona's stood first for Illinois's permits; the
    row whose label the question names (伊利诺伊州 is "Illinois" by the dictionary) leads, even when nearer rows
    by meaning stand before it."""
    got = _order(question, ARIZONA, [(IDAHO, 0.79), (ILLINOIS, 0.70)])
    assert got[0] == ILLINOIS and got[1] == ARIZONA
    # a first row the question names, or no row behind that it names: the first stays
    assert _order("How many permit checks did Arizona run?", ARIZONA, [(ILLINOIS, 0.79)])[0] == ARIZONA
    assert _order("How many permit checks did Ohio run?", ARIZONA, [(IDAHO, 0.79), (ILLINOIS, 0.70)])[0] == ARIZONA
