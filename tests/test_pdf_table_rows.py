"""A PDF table's title gives way to the row the question asks about, and a row is boxed across its cells.

Newcomers' findings (nc17c P5/P6, nc17d B5): "八车道高速公路停车区的用地指标基准值是多少？" got an exact box on the
title "表 7.5 停车区用地指标基准值（公顷/处）", the answer row "八 2.5000 60000≤Q＜80000" three lines under it;
"一季度末持股比例最高的股东是谁？" cited the heading "二、报告期末股东总数及前十名股东持股情况表", the 29.43% row
nowhere; the AOA sensor test's row box stopped at "…= $3,400.", its total $248,200 outside. The evidence is
the chunk the engine gave (its record; the federal register's is the page's table as its chunk holds it).
The two later ones were placed by meaning (the vectors an ingest stores), so those tests embed the file first.
English tables (round 19): a paper's caption "Table 1: …" (a paragraph, under its table) and a header row the
question's column names chose were cited exact; the row holding the value is the place.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

import mnote_kr_pdf_bbox
from mnote_kr.citations.rank import meaning
from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins

PDF = Path(__file__).resolve().parent / "data" / "corpus" / "pdf"
LAND = PDF / "pdfplumber__issue-336-example.pdf"
REPORT = PDF / "pdfplumber__issue-67-example.pdf"
REGISTER = PDF / "pdfplumber__federal-register-2020-17221.pdf"

LAND_EVIDENCE = (
    "安徽省建设用地使用标准（2020 年版）\n173\n"
    "路段的交通量和大型车比例与基准值的编制条件不同时，其用地指标按表 7.6 中\n"
    "的系数进行调整。\n表 7.5 停车区用地指标基准值（公顷/处）\n公路技术\n"
    "等级 车道数 用地指标基准值 编制条件 路段交通量 "
    "Q（peu/d） 大型车比例 u（%）\n高速公路\n八 2.5000 60000≤Q＜80000 20＜μ≤30\n六 2.1333 45000≤Q＜60000 20＜μ≤30\n"
    "四 1.6667 25000≤Q＜40000 20＜μ≤30\n一级公路 六 1.3333 30000≤Q＜55000 20＜μ≤30 四 0.6667 15000≤Q＜30000 20＜μ≤30\n"
    "二级公路 二 0.3333 Q＜15000 20＜μ≤30\n注：表中路段交通量应采用停车区所在路段的预测第 20 年交通量。\n"
    "表 7.6 停车区用地指标调整系数\n公路\n技术\n等级\n车道数 路段交通量 Q （pcu/d） 大型车比例 μ（%） μ≤10 10＜ μ≤20 "
    "20＜ μ≤30 30＜ μ≤40 μ＞40\n高速\n公路")
REPORT_EVIDENCE = (
    "常性损益》中列举的非经常性损益项目界定为经常性损益的项目，应\n说明原因\n□ 适用 √ 不适用\n"
    "公司报告期不存在将根据《公开发行证券的公司信息披露解释性公告第 1 号——非经常性损益》定义、列举的非经常性损益\n"
    "项目界定为经常性损益的项目的情形。\n东北电气发展股份有限公司 2018 年第一季度报告全文\n4\n"
    "二、报告期末股东总数及前十名股东持股情况表\n"
    "1、普通股股东总数和表决权恢复的优先股股东数量及前 10 名股东持股情况表\n"
    "单位：股\n报告期末普通股股东总数 79,053\n报告期末表决权恢复的优先股股\n东总数（如有）\n0\n前 10 名股东持股情况\n"
    "股东名称 股东性质 持股比例 持股数量\n持有有限售条件\n的股份数量\n质押或冻结情况\n股份状态 数量\n香港中央结算\n"
    "(代理人)有限公\n司\n境外法人 29.43% 257,055,899\n北京海鸿源投资\n管理有限公司\n"
    "境内非国有法人 9.33% 81,494,850 质押 81,494,850\n杨琴秀 境内自然人 3.20% 27,955,752\n泰达宏利基金－")
REGISTER_EVIDENCE = (
    "ESTIMATED COSTS—Continued \nAction Labor cost Parts cost Cost per product Cost on U.S. \noperators \n"
    "Stabilizer wiring change ........................ Up to 79 work-hours × $85 per hour = \nUp to $6,715.\n"
    "Up to $3,790 ......... Up to $10,505 ....... Up to $766,865. \n"
    "AOA sensor system test ....................... 40 work-hours × $85 per hour = \n$3,400.\n"
    "$0 .......................... $3,400 ................... $248,200. \nThe FAA has received no definitive \n"
    "data that would enable the agency to \nprovide cost estimates for the \n"
    "operational readiness flight specified in \nthis proposed AD.")


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")
    meaning._memo.clear()
    meaning._queue.clear()
    mnote_kr_pdf_bbox.clear_cache()


def _locate(file: Path, query: str, evidence: str):  # noqa: ANN202 - a Locator
    return load_plugins(None).locate(LocateRequest(file=str(file), evidence=evidence, passage=evidence, query=query))


def _embedded(file: Path) -> None:
    """Ingest's preparation: the file's text blocks embedded, as the newcomers' engine had them."""
    mnote_kr_pdf_bbox.prepare_locate(str(file))
    meaning.embed_queued(lambda line: None)
    mnote_kr_pdf_bbox.clear_cache()


@pytest.mark.parametrize("query", ["八车道高速公路停车区的用地指标基准值是多少？",
                                   "停车区用地指标基准值 60000≤Q＜80000 是多少"])
def test_a_table_title_gives_way_to_the_row_holding_the_asked_condition(query: str) -> None:
    before = hashlib.sha256(LAND.read_bytes()).digest()
    loc = _locate(LAND, query, LAND_EVIDENCE)
    assert loc.page == 1 and loc.bbox is not None, (loc.bbox, loc.locator_reason)
    # the row "八 2.5000 60000≤Q＜80000 20＜μ≤30" (y 170.7-182.1), not the title (y 121.5-134.4)
    assert 168 < loc.bbox[1] and loc.bbox[3] < 184, (loc.bbox, loc.place_text, loc.locator_reason)
    assert "2.5000" in (loc.place_text or "") and "60000≤Q＜80000" in (loc.place_text or ""), loc.place_text
    assert not loc.locator_degraded and "table's title" in loc.locator_reason, loc.locator_reason
    assert hashlib.sha256(LAND.read_bytes()).digest() == before


def test_a_query_naming_the_table_title_itself_still_cites_the_title() -> None:
    loc = _locate(LAND, "表 7.5 停车区用地指标基准值（公顷/处）", LAND_EVIDENCE)
    assert loc.bbox is not None and loc.bbox[1] < 125 and loc.bbox[3] < 136, (loc.bbox, loc.locator_reason)


def test_a_title_asked_for_a_value_with_no_row_naming_it_is_no_exact_place() -> None:
    """A value question whose condition no row of the table holds: the title stays, claimed approximate."""
    loc = _locate(LAND, "三车道高速公路停车区的用地指标基准值是多少？", LAND_EVIDENCE)
    assert loc.bbox is not None and loc.bbox[1] < 125, (loc.bbox, loc.locator_reason)
    assert loc.locator_degraded and "title" in loc.locator_reason, loc.locator_reason


def test_a_superlative_question_cites_the_row_holding_the_named_columns_extreme() -> None:
    _embedded(REPORT)
    loc = _locate(REPORT, "一季度末持股比例最高的股东是谁？", REPORT_EVIDENCE)
    assert loc.page == 4 and loc.bbox is not None, (loc.page, loc.bbox, loc.locator_reason)
    text = loc.place_text or ""
    assert "29.43%" in text and "香港中央结算" in text, (text, loc.locator_reason)
    # the row across its cells: the shareholder's name (x 58) to its shares (x 328.6), on the 29.43% band
    assert loc.bbox[0] < 60 and loc.bbox[2] > 328 and 250 < loc.bbox[1] and loc.bbox[3] < 295, loc.bbox
    assert "9.33%" not in text and not loc.locator_degraded, loc.locator_reason


def test_a_table_row_is_boxed_across_its_cells_on_its_baseline() -> None:
    _embedded(REGISTER)
    loc = _locate(REGISTER, "How much would the AOA sensor system test cost US operators in total?",
                  REGISTER_EVIDENCE)
    assert loc.page == 6 and loc.bbox is not None, (loc.page, loc.locator_reason)
    # the row from "AOA sensor system test" (x 45.3) to "$248,200." (x 533.1), and no other row
    assert loc.bbox[0] < 46 and loc.bbox[2] > 533 and 123 < loc.bbox[1] and loc.bbox[3] < 142, loc.bbox
    assert "$248,200" in (loc.place_text or "") and "AOA sensor system test" in (loc.place_text or "")
    assert "$766,865" not in (loc.place_text or ""), loc.place_text


# English tables (a newcomer's round-19 finding: the first citation boxed "Table 1: …" or the header row, exact).
# The evidence is the page's whole text as PDFium gives it: a chunk holding the table and the prose around it.
PAPER = PDF / "mineru__demo3.pdf"  # TableFormer: two columns, captions under their tables
OTSL = PDF / "docling__2305.03393v1-pg9.pdf"  # one column, the caption over its table


def _page_text(file: Path, page: int) -> str:
    import pypdfium2

    return pypdfium2.PdfDocument(str(file))[page - 1].get_textpage().get_text_range().replace("\r", "")


def test_an_english_caption_under_its_table_gives_way_to_the_row_holding_the_asked_value() -> None:
    before = hashlib.sha256(PAPER.read_bytes()).digest()
    loc = _locate(PAPER, "What is the ALL accuracy of TABLEFORMERLARGE inter on the SQA test set before perturbation?",
                  _page_text(PAPER, 5))
    assert loc.page == 5 and loc.bbox is not None, (loc.page, loc.locator_reason)
    text = loc.place_text or ""
    # the row "TABLEFORMERLARGE inter 72.4 47.5 75.9 72.3 0.1%" (y 213.5-220.4, x 318.4-510.4), over the caption
    # "Table 1: Results on SQA test set before and after perturbation …" (y 235-328)
    assert "TABLEFORMERLARGE inter" in text and "72.4" in text and "0.1%" in text, (text, loc.locator_reason)
    assert "Table 1" not in text and "TAPASLARGE inter" not in text, text
    assert 212 < loc.bbox[1] and loc.bbox[3] < 222 and loc.bbox[0] < 319 and loc.bbox[2] > 510, loc.bbox
    assert not loc.locator_degraded and "table's title" in loc.locator_reason, loc.locator_reason
    assert hashlib.sha256(PAPER.read_bytes()).digest() == before


def test_an_english_caption_over_its_table_gives_way_to_the_row_its_label_cells_name() -> None:
    loc = _locate(OTSL, "What is the inference time of OTSL with 6 encoder and 6 decoder layers?", _page_text(OTSL, 1))
    assert loc.page == 1 and loc.bbox is not None, (loc.page, loc.locator_reason)
    # the row "6 6 OTSL 0.965 0.934 0.955 0.88 2.73" (y 365.7-382.5), not the caption (y 272.8-328.0)
    assert "2.73" in (loc.place_text or "") and "0.965" in (loc.place_text or ""), (loc.place_text, loc.locator_reason)
    assert 364 < loc.bbox[1] and loc.bbox[3] < 384 and "5.39" not in (loc.place_text or ""), loc.bbox
    assert not loc.locator_degraded, loc.locator_reason


def test_a_header_row_chosen_for_a_value_question_gives_way_to_the_row_the_question_names() -> None:
    """The question repeats the header's column names, so their words choose the header line: the row of
    the captioned table the question names holds the values."""
    loc = _locate(PAPER, "What are the testsimple, testcomplex and testsmall accuracies of TAPASLARGE inter?",
                  _page_text(PAPER, 6))
    assert loc.page == 6 and loc.bbox is not None, (loc.page, loc.locator_reason)
    text = loc.place_text or ""
    # Table 2's row "TAPASLARGE inter 80.6 80.6 92.0 74.9 83.1 79.2 91.7 73.0 83.0" (y 209.6-218.0), not its
    # header "testsimple testcomplex testsmall" (y 91.5-99.9)
    assert text.startswith("TAPASLARGE inter") and "74.9" in text and "83.0" in text, (text, loc.locator_reason)
    assert "testsimple" not in text and 208 < loc.bbox[1] and loc.bbox[3] < 220, (text, loc.bbox)
    assert not loc.locator_degraded and "header" in loc.locator_reason, loc.locator_reason


MONITOR_EVIDENCE = (
    ".7 的规定。 \n表 7.7 监控通信设施用地指标（公顷/处） \n路段监控通信分中心 路段监控通信站 桥隧监控通信站 \n"
    "1.7333 0.8667 0.5333 \n第 7.11 条 养护设施分为养护工区、道班房和桥隧养护管理站。养护工区一\n"
    "般在高速公路和一级公路上设置；道班房主要在二、三、四级公路上设置；桥隧")


def test_a_phrase_naming_a_value_gives_the_title_way_to_the_row_it_names() -> None:
    """No question word, but 基准值 names the figure asked for (as "value" does): the row, exact, not the title."""
    loc = _locate(LAND, "二级公路停车区用地指标基准值", LAND_EVIDENCE)
    assert "0.3333" in (loc.place_text or "") and "表 7.5" not in (loc.place_text or ""), \
        (loc.place_text, loc.locator_reason)
    assert "table's title holds no value" in loc.locator_reason, loc.locator_reason


def test_a_title_whose_rows_no_query_word_names_gives_way_to_its_row_nearest_by_meaning() -> None:
    """"桥梁和隧道处的监控通信站" names the column 桥隧监控通信站 in other words: no row holds the query's cells,
    the title holds no figure, and the table's row of figures (its only one) is where the answer stands,
    claimed approximate."""
    before = hashlib.sha256(LAND.read_bytes()).digest()
    _embedded(LAND)
    loc = _locate(LAND, "桥梁和隧道处的监控通信站最多能用多少公顷地", MONITOR_EVIDENCE)
    assert "0.5333" in (loc.place_text or "") and "表 7.7" not in (loc.place_text or ""), \
        (loc.place_text, loc.locator_reason)
    assert loc.locator_degraded and "nearest the query by meaning" in loc.locator_reason, loc.locator_reason
    assert hashlib.sha256(LAND.read_bytes()).digest() == before


INCOME_EVIDENCE = (  # the chunk nc28a's "营业收入 4,755,785.11" located (its locatorEvidenceText)
    "减：库存股\n其他综合收益\n专项储备\n盈余公积 108,587,124.40 108,587,124.40\n未分配利润 -2,050,714,277.05 "
    "-2,053,148,900.56\n所有者权益合计 -73,035,985.19 -75,470,608.70\n负债和所有者权益总计 310,244,083.11 "
    "330,840,900.62\n3、合并利润表\n单位：元\n项目 本期发生额 上期发生额\n一、营业总收入 4,755,785.11 5,699,227.63\n"
    "其中：营业收入 4,755,785.11 5,699,227.63\n利息收入\n已赚保费\n手续费及佣金收入\n二、营业总成本 12,827,978.02 "
    "21,274,558.28\n其中：营业成本 3,926,161.04 4,100,248.02\n东北电气发展股份有限公司 2018 年第一季度报告全文\n15\n"
    "利息支出\n手续费及佣金支出\n退保金\n赔付支出净额\n提取保险合同准备金净\n额\n保单红利支出\n分保费用\n"
    "税金及附加 323,498.25 312,207.91\n销售费用 764,036.62 705,678.32")


def test_an_empty_row_under_a_row_is_no_line_of_its_label() -> None:
    """nc28a F5: the income statement's "利息收入" (a row holding no figure, one row pitch under "其中：营业收入",
    y 664.2 under 644.0, the rows 20 points apart) was read as the label's second line: the quote said
    "其中：营业收入 利息收入: 本期发生额: 4,755,785.11" and the box covered both rows. A row of its own."""
    loc = _locate(REPORT, "营业收入 4,755,785.11", INCOME_EVIDENCE)
    assert loc.page == 14 and loc.bbox is not None, (loc.page, loc.locator_reason)
    text = loc.place_text or ""
    assert "其中：营业收入" in text and "4,755,785.11" in text and "利息收入" not in text, text
    assert loc.bbox[1] > 640 and loc.bbox[3] < 656, loc.bbox  # the 营业收入 row alone (y 642.7-654.5)
    assert not loc.locator_degraded, loc.locator_reason
