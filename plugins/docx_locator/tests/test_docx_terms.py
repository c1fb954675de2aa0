"""A Chinese standard's terms section (round 25): a definition question is cited on the definition of the term it
names, and a term line leads no question (``mnote_kr.citations.locate.terms``).

Recorded from a newcomer's own index (``data/nc24a_terms.json``: the LightRAG chunk holding each draft's
"3 术语和定义", its sidecar block, the evidence the host's cleaning gave the locator, and the query's cosine with
each of the file's paragraphs, from the vectors ingest stored), replayed against the corpus DOCX files, whose bytes
``replay_locate`` checks are unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.docx_replay import replay_locate

from mnote_kr_docx_locator import cache as docx_cache

CASES = {c["id"]: c for c in json.loads((Path(__file__).parent / "data" / "nc24a_terms.json").read_text("utf-8"))}
P1, P12, P6 = "nc24a Q1 #0", "nc24a Q9 #0", "nc24a Q9 #2"
#: How each definition begins, as the drafts write it (read from the files, not from the locator).
PSR = "以规定的时间间隔对运行核电厂的安全性进行的系统性的再评价"
GLOBAL = "对在定期安全评价的全部安全要素评价中发现的所有未解决的弱项"
DIFFERENCE = "电厂现状与安全基准、现行安全标准"


@pytest.fixture(autouse=True)
def _fresh() -> None:
    docx_cache.clear_cache()


def _text(case: str, index: int) -> str:
    return docx_cache.load_docx(CORPUS / "docx" / CASES[case]["file"]).paragraphs[index].text.strip()


@pytest.mark.parametrize(("case", "query", "starts"), [
    ("nc24a Q1 #0", "定期安全评价是什么意思？", PSR),  # main: 总体评价's definition, which writes 定期安全评价
    ("nc24a Q1 #0", "总体评价指的是什么？", GLOBAL),  # main: 定期安全评价's definition
    ("nc24a Q1 #0", "What is the definition of global assessment?", GLOBAL),  # main: exact on the term line
    ("nc24a Q10 #2", "定期安全评价的定义", PSR),  # main: the scope clause
    (P12, "什么是定期安全评价？", PSR),  # main: exact on the term line
    (P12, "差异项的定义", DIFFERENCE),  # the chunk's other term: main on the 引言's HAF 103 paragraph
    (P6, "What does difference mean in this standard?", DIFFERENCE),  # main: the term line of 定期安全评价
])
def test_a_definition_question_is_cited_on_the_definition_of_the_term_it_names(
        monkeypatch: pytest.MonkeyPatch, case: str, query: str, starts: str) -> None:
    loc = replay_locate(CASES[case], monkeypatch, query=query)
    assert _text(case, loc.paragraph_index).startswith(starts), (loc.paragraph_index, loc.reason)
    assert not loc.locator_degraded, loc.reason
    assert "definition of the term the question names" in (loc.reason or "")


@pytest.mark.parametrize("case", ["nc24a Q9 #0", "nc24a Q9 #2", "nc24a Q10 #2"])
def test_a_term_line_leads_no_question_asking_something_else(monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    # as the newcomer asked: "How often must a nuclear power plant carry out a periodic safety review?" (Q9) and
    # "Which safety factors does a periodic safety review of a nuclear plant cover?" (Q10), each led by the line
    # "定期安全评价 periodic safety review" of its file
    loc = replay_locate(CASES[case], monkeypatch)
    placed = _text(case, loc.paragraph_index)
    assert placed != "定期安全评价 periodic safety review", loc.reason
    # a sentence of the body: a definition or a clause (the scope clause "本部分规定了…的工作内容和方法。", 38
    # characters, for Q10 #2 once its words said in Chinese order the places behind the term line: saidacross)
    assert len(placed) > 30 and placed.endswith("。"), placed
    assert loc.locator_degraded, loc.reason
    behind = [_text(case, r.paragraph_index) for r in loc.runners_up]
    assert "定期安全评价 periodic safety review" in behind, behind  # shown behind it, not lost
    if "safety factors" in CASES[case]["query"]:  # Q10: the line held only its title's words; the card still says so
        assert "naming the document's subject" in (loc.reason or ""), loc.reason
    # the term searched as written keeps its line, exact
    again = replay_locate(CASES[case], monkeypatch, query="定期安全评价 periodic safety review")
    assert _text(case, again.paragraph_index) == "定期安全评价 periodic safety review", again.reason
    assert not again.locator_degraded, again.reason

