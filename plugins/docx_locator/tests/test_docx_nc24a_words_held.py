"""Exact claims a newcomer found on the wrong paragraph of Chinese standards (round 24, nc24a problem 2).

Recorded from the newcomer's own index (``data/nc24a_claims.json``: the LightRAG chunk, its sidecar block, the
evidence the host's cleaning gave the locator, and the query's cosine with each of the file's paragraphs, from the
vectors ingest stored), replayed against the corpus DOCX files. Each place was claimed exact, "matched evidence
holding the query terms", for holding a share of the question's bigrams while lacking one of its words.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.docx_replay import replay_locate

from mnote_kr_docx_locator import cache as docx_cache

CASES = {c["id"]: c for c in json.loads((Path(__file__).parent / "data" / "nc24a_claims.json").read_text("utf-8"))}


@pytest.fixture(autouse=True)
def _fresh() -> None:
    docx_cache.clear_cache()


@pytest.mark.parametrize(("case", "starts", "lacked", "held"), [
    # P1 5.4.5, on training the 评价人员; the kinds of 评价人员 are 5.4.3's. "哪几种类型" is read 几种|类型 (round 28:
    # the reading from the right, nc28b's 条规), no more 种类 cut across them
    ("nc24a Q4", "5.4.5 PSR技术团队建立后", "类型", "评价人员的培训计划"),
    # P6's 评价报告 paragraph; the 总体评价报告's contents are P1 6.2.3's
    ("nc24a Q5", "在构筑物、系统和设备的实际状态要素评价过程中", "总体", "评价报告的编制要求"),
    # an off-topic question (a family car's annual inspection) on P6's interfaces of its 安全要素
    ("nc24a Q14", "构筑物、系统和设备实际状态要素与设计", "汽车", "实际状态要素的接口"),
])
def test_a_place_lacking_a_word_of_a_chinese_question_is_approximate(
        monkeypatch: pytest.MonkeyPatch, case: str, starts: str, lacked: str, held: str) -> None:
    loc = replay_locate(CASES[case], monkeypatch)
    paras = docx_cache.load_docx(CORPUS / "docx" / CASES[case]["file"]).paragraphs
    assert paras[loc.paragraph_index].text.startswith(starts), (loc.paragraph_index, loc.reason)
    assert loc.locator_degraded, loc.reason
    assert lacked in (loc.reason or ""), loc.reason
    # the same place asked in words it holds, each as written, stays exact
    again = replay_locate(CASES[case], monkeypatch, query=held)
    assert (again.paragraph_index, again.locator_degraded) == (loc.paragraph_index, False), again.reason
