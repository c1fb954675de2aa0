"""Two tables printed side by side read as one row of text: a place in one of them is quoted and boxed within
its own table, never with the other table's label beside it (nc26a Q14: "每股指标(元); 营业总收入: … 2022E: 3,684 …",
boxed across both tables of the research report's page 3).

Truth comes from PDFium's own reading of the page (what text stands inside a box), never from the locator's
geometry.
"""

from __future__ import annotations

import hashlib

import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.pdfwords import text_in

from mnote_kr.models import LocateRequest
from mnote_kr_pdf_bbox import clear_cache, locate

REPORT = CORPUS / "pdf" / "mineru__test_rearch_report.pdf"
#: LightRAG's chunk 6 of the report as nc26a's engine indexed it (round 26): page 3's two tables, the per-share
#: figures (主要财务指标) on the left and the income statement (利润表) on the right, each line one row of each.
CHUNK6 = ("3 / 4             请务必阅读正文之后的信息披露和法律声明 \n \n \n财务报表分析和预测   \n"
          "主要财务指标 2021 2022E 2023E 2024E  利润表(百万元) 2021 2022E 2023E 2024E \n"
          "每股指标(元)      营业总收入 1,567 3,684 5,056 5,752 \n"
          "每股收益 1.07 2.91 4.43 5.77  营业成本 1,038 2,394 3,236 3,567 \n"
          "每股净资产 7.13 10.43 15.39 21.76  毛利率% 33.7% 35.0% 36.0% 38.0% \n"
          "每股经营现金流 0.47 1.27 4.07 5.02  营业税金及附加 6 18 25 29 \n"
          "每股股利 0.11 0.11 0.11 0.11  营业税金率% 0.4% 0.5% 0.5% 0.5% \n"
          "价值评估(倍)      营业费用 63 147 193 209 \n"
          "P/E 82.90 30.47 20.02 15.38  营业费用率% 4.0% 4.0% 3.8% 3.6% \n"
          "P/B 12.44 8.50 5.76 4.08  管理费用 131 313 409 444 \n"
          "P/S 8.52 3.62 2.64 2.32  管理费用率% 8.")


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")
    clear_cache()


@pytest.mark.parametrize(("query", "label", "other", "values"), [
    ("营业总收入 1,567 3,684", "营业总收入", "每股指标", ["1,567", "3,684", "5,752"]),
    ("营业费用 147 193", "营业费用", "价值评估", ["63", "147", "209"]),
])
def test_a_row_beside_another_tables_row_is_cited_within_its_own_table(query: str, label: str, other: str,
                                                                       values: list[str]) -> None:
    """The query's words stand in the income statement's row (its label and two figures): the place is that row
    of the right-hand table, quoted "营业总收入: 2021: 1,567; …" and boxed on it, not with the left-hand table's
    section label printed on the same line ("每股指标(元)", "价值评估(倍)": no figure of theirs, other words)."""
    before = hashlib.sha256(REPORT.read_bytes()).digest()
    loc = locate(LocateRequest(file=str(REPORT), evidence=CHUNK6, passage=CHUNK6, query=query))
    assert loc.page == 3 and loc.bbox is not None and loc.place_text is not None, loc
    assert loc.place_text.startswith(f"{label}: 2021: {values[0]}; 2022E: ") and other not in loc.place_text, loc
    inside = text_in(REPORT, 3, loc.bbox)
    assert label in inside and all(v in inside for v in values) and other not in inside, (inside, loc.bbox)
    assert hashlib.sha256(REPORT.read_bytes()).digest() == before


#: LightRAG's chunk 8 of the report (nc26a's engine): page 3's efficiency rows beside the balance sheet's.
CHUNK8 = ("盈利增长(%)      营业外收支 -25 -8 -3 -3 \n"
          "营业收入增长率 110.0% 135.1% 37.2% 13.8%  利润总额 187 523 797 1,037 \n"
          "现金比率 0.2 0.1 0.2 0.3  资产负债表(百万元) 2021 2022E 2023E 2024E \n"
          "经营效率指标      货币资金 427 494 1,269 1,965 \n"
          "应收帐款周转天数 161.7 165.1 164.9 164.4  应收账款及应收票据 1,173 2,806 3,798 4,344 \n"
          "存货周转天数 196.1")


def test_a_row_whose_parts_the_query_does_not_tell_apart_stays_whole() -> None:
    """"预计2022年应收账款平均多少天能收回" (the tables tuning set's tb_zh14): the report writes the left part's
    label "应收帐款周转天数" (帐), the right one's "应收账款及应收票据" (账): the question's words hold more of the
    right part, its answer (165.1) stands in the left. No label named, figures in both: the row stays whole, the
    answer in it (choosing the part by the words held cited the right part alone)."""
    question = "预计2022年应收账款平均多少天能收回"
    loc = locate(LocateRequest(file=str(REPORT), evidence=CHUNK8, passage=CHUNK8, query=question))
    assert loc.page == 3 and loc.bbox is not None and loc.place_text is not None, loc
    inside = text_in(REPORT, 3, loc.bbox)
    assert "165.1" in inside and "165.1" in loc.place_text, (inside, loc.place_text)


def test_a_side_by_side_row_found_by_meaning_outside_the_passage_stays_in_its_table(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """nc26a Q14's path: the passage LightRAG returned is the report's first page; the income statement's first row
    on page 3 comes from the file's places nearest the question by meaning (the PDF's blocks embedded as ingest
    does). That place is its part of the printed row, quoted and boxed without "每股指标(元)"."""
    import mnote_kr_pdf_bbox
    from mnote_kr.citations.rank import meaning

    monkeypatch.setattr(meaning, "_queue", [])  # only this file's blocks
    mnote_kr_pdf_bbox.prepare_locate(str(REPORT))
    assert meaning.embed_queued(lambda line: None) == 1
    page1 = text_in(REPORT, 1, [0.0, 0.0, 612.0, 160.0])  # the cover's head: the passage of nc26a's answer
    question = "高测股份2022年预计营业收入是多少？"
    loc = locate(LocateRequest(file=str(REPORT), evidence=page1, passage=page1, query=question))
    rows = [r for r in loc.runners_up if r.page == 3 and "营业总收入" in (r.place_text or "")]
    assert rows and rows[0].bbox is not None, [(r.page, r.place_text) for r in loc.runners_up]
    assert (rows[0].place_text or "").startswith("营业总收入: 2021: 1,567; 2022E: 3,684"), rows[0].place_text
    inside = text_in(REPORT, 3, rows[0].bbox)
    assert "3,684" in inside and "每股指标" not in inside, (inside, rows[0].bbox)
