"""A table row holding two words of a Chinese phrase in two cells, far apart, is no exact place for the phrase.

nc24a Q8: "收益成本分析" (benefit-cost analysis) was boxed exact on mineru__test_rearch_report.pdf p3's row "每股收益 …
营业成本 …", two tables side by side: it held 收益 and 成本, "2 of the query's 3 content terms (rarity-weighted share
0.70)", and not 分析. The chunk and the evidence are the newcomer's (``data/nc24a_q8.json``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS

import mnote_kr_pdf_bbox
from mnote_kr.citations.rank import meaning
from mnote_kr.models import LocateRequest

REPORT = CORPUS / "pdf" / "mineru__test_rearch_report.pdf"
CASE = json.loads((Path(__file__).parent / "data" / "nc24a_q8.json").read_text("utf-8"))


@pytest.fixture(autouse=True)
def _fresh() -> None:
    meaning._memo.clear()
    mnote_kr_pdf_bbox.clear_cache()


def _locate(query: str):  # noqa: ANN202
    before = REPORT.read_bytes()
    loc = mnote_kr_pdf_bbox.locate(LocateRequest(file=str(REPORT), evidence=CASE["evidence"], query=query,
                                                 passage=CASE["chunk"]))
    assert REPORT.read_bytes() == before
    assert loc is not None
    return loc


def test_a_row_holding_the_phrases_words_in_two_cells_without_its_last_is_approximate() -> None:
    loc = _locate(CASE["query"])
    assert loc.page == 3 and "每股收益" in (loc.place_text or "") and "营业成本" in (loc.place_text or ""), loc.reason
    assert loc.locator_degraded, loc.reason
    assert "分析" in (loc.reason or ""), loc.reason
    # the row asked for both of its labels, each as written, stays exact
    again = _locate("每股收益和营业成本")
    assert (again.page, again.bbox, again.locator_degraded) == (loc.page, loc.bbox, False), again.reason
