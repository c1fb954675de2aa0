"""A question naming a table or figure of a DOCX ("what does Table 1 contain?", "Figure 1") is cited on its caption
paragraph; a number no paragraph starts with moves nothing. And a question asking how fast (a speed or rate) is not
claimed exact on a paragraph holding its other words but no speed.

``mineru__docx_01.docx`` captions its table "Table 1: This is an easy table" (paragraph 445) and its picture "Figure 1:
This is a cute mascot" (414). nc23a Q4 (round 23, recorded from the newcomer's index in ``data/nc23a_type_speed.json``
as ``test_docx_answer_type_claim`` records its cases): "how fast must applicants for the program support assistant job
be able to type?" over ``tika__017097.docx`` was cited exact on paragraph 103 ("You must have one full year ... Program
Support Assistant (Office Automation)"), while the answer, "BASIC REQUIREMENT: Must type 40 words per minute" (101),
stood two above it in the same passage: "how fast" asked no kind of answer the host knew."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.docx_replay import replay_locate

from mnote_kr.models import LocateRequest
from mnote_kr_docx_locator import cache as docx_cache
from mnote_kr_docx_locator import locate

DOCX01 = CORPUS / "docx" / "mineru__docx_01.docx"
TABLE_CAPTION, FIGURE_CAPTION = 445, 414
SPEED = json.loads((Path(__file__).parent / "data" / "nc23a_type_speed.json").read_text("utf-8"))[0]
MUST_TYPE, PROGRAM_SUPPORT = 101, 103


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    docx_cache.clear_cache()
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")


def _locate(query: str, evidence: str):  # type: ignore[no-untyped-def]
    before = hashlib.sha256(DOCX01.read_bytes()).digest()
    loc = locate(LocateRequest(file=str(DOCX01), evidence=evidence, query=query))
    assert hashlib.sha256(DOCX01.read_bytes()).digest() == before
    return loc


def _text(i: int) -> str:
    return docx_cache.load_docx(DOCX01).paragraphs[i].text


@pytest.mark.parametrize(("query", "caption"), [
    ("what does Table 1 contain?", TABLE_CAPTION),
    ("what is shown in Fig. 1?", FIGURE_CAPTION),
    ("what does figure 1 show", FIGURE_CAPTION),
])
def test_a_question_naming_a_table_or_figure_is_cited_on_its_caption(query: str, caption: int) -> None:
    evidence = _text(145)  # "Before table": a paragraph of the file's other part
    loc = _locate(query, evidence)
    assert (loc.locator_precision, loc.paragraph_index, loc.locator_degraded) == ("paragraph", caption, False), \
        loc.reason
    assert loc.runners_up and loc.runners_up[0].paragraph_index == 145  # the evidence's place behind it
    # a number no paragraph starts with moves nothing
    assert _locate("what does Table 7 contain?", evidence).paragraph_index \
        == _locate("what does the table contain?", evidence).paragraph_index


def test_how_fast_asks_a_speed_and_the_passage_paragraph_stating_one_is_cited(monkeypatch: pytest.MonkeyPatch) -> None:
    loc = replay_locate(SPEED, monkeypatch)
    assert loc.paragraph_index == MUST_TYPE, (loc.paragraph_index, loc.reason)
    assert "40 words per minute" in (loc.place_text or "")
    assert loc.locator_degraded, loc.reason  # it holds "type", not "program support assistant": chosen, not claimed
    behind = [r for r in loc.runners_up if r.paragraph_index == PROGRAM_SUPPORT]
    assert behind and behind[0].locator_degraded and "speed" in behind[0].reason, \
        [(r.paragraph_index, r.reason) for r in loc.runners_up]
