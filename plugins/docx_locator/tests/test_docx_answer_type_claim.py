"""A place claimed exact holds the kind of answer the question asks, when the file shows that kind elsewhere.

Seen by a newcomer (round 21, nc21c problem 1) on ``chatchat__核电厂定期安全审查指南 第1部分``: ``How often is the
periodic safety review done and how long does each one take?`` was cited exact on the term line ``定期安全评价
periodic safety review`` (paragraph 75, the evidence's match by the query's words): it holds every content word of
the question and neither a frequency nor a duration, which the file states in 5.2.1 (``PSR一般每十年左右时间开展
一次``, 111) and 5.3.1 (``每10年左右开展一次，每次持续4年左右时间``, 120).

Recorded here (``data/nc21c_answer_type.json``, from the newcomer's own index): the LightRAG chunk, its sidecar
block, the evidence the host's cleaning gave the locator, and the query's cosine with each of the file's paragraphs
(replayed through ``meaning.cosines`` / ``meaning.nearest``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mnote_kr_testkit.docx_replay import replay_locate

from mnote_kr_docx_locator import cache as docx_cache

CASE = json.loads((Path(__file__).parent / "data" / "nc21c_answer_type.json").read_text("utf-8"))[0]
TERM_LINE = 75
#: The file's paragraphs stating how often a review is done or how long it takes (read in the document).
STATES_FREQUENCY = (111, 120)
#: The term's definition, saying how often in words: "以规定的时间间隔对运行核电厂的安全性进行的系统性的再评价".
AT_INTERVALS_DEFINED = 76


@pytest.fixture(autouse=True)
def _fresh() -> None:
    docx_cache.clear_cache()


def test_a_place_stating_how_often_leads_the_term_line_holding_only_the_questions_words(
        monkeypatch: pytest.MonkeyPatch) -> None:
    loc = replay_locate(CASE, monkeypatch)
    assert loc.paragraph_index in STATES_FREQUENCY, (loc.paragraph_index, loc.reason)
    assert "开展一次" in (loc.place_text or "")
    # chosen by the kind of answer, holding none of the English question's words: not claimed
    assert loc.locator_degraded, loc.reason
    term = [r for r in loc.runners_up if r.paragraph_index == TERM_LINE]
    assert term and term[0].locator_degraded, [(r.paragraph_index, r.reason) for r in loc.runners_up]


def test_the_term_line_is_approximate_when_no_place_behind_it_states_a_frequency(
        monkeypatch: pytest.MonkeyPatch) -> None:
    case = dict(CASE, cosines={i: c for i, c in CASE["cosines"].items()
                               if int(i) not in (*STATES_FREQUENCY, AT_INTERVALS_DEFINED)})
    loc = replay_locate(case, monkeypatch)
    # round 25 (``terms``): a term line leads no question asking something else; it stays a place behind
    assert loc.paragraph_index != TERM_LINE
    assert loc.locator_precision == "paragraph"
    assert loc.locator_degraded, loc.reason
    term = [r for r in loc.runners_up if r.paragraph_index == TERM_LINE]
    assert term and term[0].locator_degraded, [(r.paragraph_index, r.reason) for r in loc.runners_up]
    # searched as a phrase, the term line asks no kind of answer and is the place asked for
    loc = replay_locate(case, monkeypatch, query="periodic safety review")
    assert (loc.paragraph_index, loc.locator_degraded) == (TERM_LINE, False), loc.reason


#: nc22a Q6 (round 22), recorded the same way from the newcomer's index: "定期安全评价多久进行一次？" over ``第6部分``
#: was cited exact on 61, "我国核安全监管部门在2004年发布的《核动力厂运行安全规定》..." (the regulations requiring
#: the review, no interval): its "2004年" read as a duration, the kind asked beside the frequency. The file states no
#: number of years; it says how often in words, 60: "定期安全评价以规定的时间间隔对运行核电厂的安全性进行系统性的
#: 再评价".
HOW_OFTEN = json.loads((Path(__file__).parent / "data" / "nc22a_how_often.json").read_text("utf-8"))[0]
REGULATIONS, AT_INTERVALS = 61, 60


def test_a_year_is_no_duration_and_an_interval_said_in_words_answers_how_often(
        monkeypatch: pytest.MonkeyPatch) -> None:
    loc = replay_locate(HOW_OFTEN, monkeypatch)
    assert loc.paragraph_index == AT_INTERVALS, (loc.paragraph_index, loc.reason)
    assert "规定的时间间隔" in (loc.place_text or "")
    assert loc.locator_degraded, loc.reason  # "at prescribed intervals" is no number: never claimed exact
    regs = [r for r in loc.runners_up if r.paragraph_index == REGULATIONS]
    assert regs and regs[0].locator_degraded and "frequency" in regs[0].reason, \
        [(r.paragraph_index, r.reason) for r in loc.runners_up]
