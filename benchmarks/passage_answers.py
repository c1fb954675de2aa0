"""Questions asking a figure or a date of a PDF report or form (round 25, cover25), in Chinese, Korean and English,
written from reading the documents before any run: does the file's first place, as the host folds its places, quote
the answer, or did a place outside the passages (a cover title, a page header nearer the question by meaning) take
its lead?

The passages and places are built as ``table_cells.py`` builds them (BM25 windows of the file's text standing for
LightRAG's chunks, each located with the question, its places behind cited and folded). Right = the first place's
words hold one of the answers (``|`` between them); ``exact`` counts the right ones claimed exact. ``--rule off``
runs the same with ``folding.ANSWER_STAYS`` off (the rule before it).

    .venv/bin/python benchmarks/passage_answers.py [--rule off] [--order meaning]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from mnote_kr_testkit.data import CORPUS

sys.path.insert(0, str(Path(__file__).resolve().parent))

ISSUE67 = "pdf/pdfplumber__issue-67-example.pdf"
LAND = "pdf/pdfplumber__issue-336-example.pdf"
RETAIL = "pdf/pypdf__issue-914-xmp-data.pdf"
CARD = "pdf/unstructured__korean-text-with-tables.pdf"
FAA = "pdf/pdfplumber__federal-register-2020-17221.pdf"
#: (file, question, the answers the first place may quote). Written from the documents' text, before any run.
QUESTIONS: list[tuple[str, str, str]] = [
    (ISSUE67, "东北电气2018年第一季度营业收入是多少？", "4,755,785.11"),  # nc25b Q3
    (ISSUE67, "东北电气报告期末总资产是多少", "298,608,889.04|310,244,083.11"),
    (ISSUE67, "一季度归属于上市公司股东的净利润是多少", "-4,648,986.52"),
    (ISSUE67, "报告期末普通股股东总数有多少", "79,053"),
    (ISSUE67, "香港中央结算持股比例是多少", "29.43%"),
    (ISSUE67, "2018年1-3月管理费用是多少", "7,764,789.98"),
    (ISSUE67, "铁西区国资局起诉要求公司赔多少钱", "37,745,190"),  # nc25b Q4
    (ISSUE67, "东北电气基本每股收益是多少", "-0.0053"),
    (ISSUE67, "经营活动产生的现金流量净额是多少", "-4,194,229.68"),
    (ISSUE67, "期末货币资金有多少", "40,962,331.62"),
    (LAND, "六车道高速公路停车区用地指标基准值是多少", "2.1333"),
    (LAND, "山区服务设施出入口加减速车道用地指标不宜超过多少公顷", "4.0"),
    (RETAIL, "鸡翅根的数量是多少", "179.48"),
    (CARD, "할인점 주유 온라인쇼핑몰 적립률은 몇 퍼센트인가요", "1.5%"),
    (CARD, "빅포인트의 유효기간은 몇 년인가요", "5년"),
    (FAA, "By what date must the FAA receive comments on the proposed AD?", "September 21, 2020"),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rule", choices=("on", "off"), default="on")
    ap.add_argument("--order", choices=("words", "meaning"), default="words", help="the file's passages' order")
    args = ap.parse_args()
    os.environ["MNOTE_KR_LOCATE_CACHE"] = "0"
    import table_cells

    from mnote_kr.citations.rank import meaning
    from mnote_kr.citations.render import folding
    from mnote_kr.plugins import load_plugins

    table_cells.ORDER = args.order
    pm = load_plugins(None)
    for doc in sorted({q[0] for q in QUESTIONS}):
        pm.prepare_locate(str(CORPUS / doc))
    meaning.embed_queued(lambda line: None)
    if hasattr(folding, "ANSWER_STAYS"):
        folding.ANSWER_STAYS = args.rule == "on"
    right = exact = 0
    for doc, query, answer in QUESTIONS:
        shown = table_cells.first_place(pm, doc, query)
        words = " ".join(t for t in (shown.display_quote, shown.locator.place_text) if t)
        ok = any(a in words for a in answer.split("|"))
        right += ok
        exact += ok and not shown.locator_degraded
        print(f"  {'right' if ok else 'wrong':5} {'exact' if not shown.locator_degraded else 'approx':6} "
              f"p{shown.locator.page} {Path(doc).name[:22]:22} {query[:40]:40} -> {' '.join(words.split())[:80]}")
    print(f"first place quotes the answer: {right}/{len(QUESTIONS)} (exact {exact}); rule {args.rule}, "
          f"passages by {args.order}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
