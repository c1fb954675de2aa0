"""A file's first place does not lose the answer the places shown hold to a place nearer only by its few words'
meaning, nor to one its words are level with (nc27a, round 27: ``render.leads``).

Replays three recorded searches (tests/data/ranking/inside_answer.json, its note says how they were recorded): every
citation of the answering file as ``folding.behind_by_meaning`` received it. Each test fails with its rule off, the
file's first place then being the one nc27a saw.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from mnote_kr.citations.render import leads
from mnote_kr.citations.render.folding import behind_by_meaning
from mnote_kr.models import Citation

DATA = json.loads((Path(__file__).parent / "data" / "ranking" / "inside_answer.json").read_text(encoding="utf-8"))
SEARCHES = {s["id"]: s for s in DATA["searches"]}


def _places(qid: str) -> list[str]:
    """The file's places in the order folding gives them, each by its words."""
    cits = msgspec.json.decode(json.dumps(SEARCHES[qid]["citations"]).encode(), type=list[Citation])
    return [c.display_quote or c.locator.place_text or "" for c in behind_by_meaning(cits)]


def test_a_label_outside_the_passage_does_not_take_the_lead_by_meaning(monkeypatch: pytest.MonkeyPatch) -> None:
    # "What colour of pen do I need to fill in the visa application?": the passage's place (paragraph 210) at 0.653,
    # the form's label "Visa number" (paragraph 6, outside the passage) at 0.686
    places = _places("q5")
    assert places[0].startswith("Type or write in block letters, on blue or black ink only"), places[:3]
    assert "Visa number" in places[:3]  # still shown, behind
    monkeypatch.setattr(leads, "LABELS_LEAD", True)  # as before round 27
    assert _places("q5")[0] == "Visa number"


def test_the_place_saying_more_of_a_chinese_question_in_english_leads(monkeypatch: pytest.MonkeyPatch) -> None:
    # 哪种自锁螺母的两部分是用弹簧连接的？: the overview of self-locking nut kinds (螺母) at 0.723, the Boots paragraph
    # ("two sections are connected with a spring": 螺母, 弹簧, 连接) at 0.718
    places = _places("q11")
    assert "connected with a spring" in places[0], places[:3]
    assert places[1].startswith("The two general types of self-locking nuts")  # the passage's own place, right behind
    monkeypatch.setattr(leads, "SAID_LEADS", False)
    assert _places("q11")[0].startswith("The two general types of self-locking nuts")


def test_an_exact_row_nearer_by_meaning_leads_the_exact_header_row_level_with_it_by_words(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # "what was the HbA1c result?": the header row (exact on "result") at 0.693, the HbA1c row (exact on "hba1c")
    # at 0.783; the diagnosis line "(HbA1c 6.8%)" behind them at 0.758
    places = _places("hba1c")
    assert places[0] == "HbA1c | 6.8% | <5.7% | HIGH", places[:3]
    assert places[1] == "Test | Result | Reference Range | Flag"
    monkeypatch.setattr(leads, "EXACT_BY_MEANING", False)
    assert _places("hba1c")[0] == "Test | Result | Reference Range | Flag"


def test_an_exact_place_nearer_by_meaning_holding_fewer_of_the_querys_words_does_not_lead() -> None:
    # the same search with the HbA1c row's words cut to its figures: it holds none of the query's words, so it does not
    # lead however near it is; the diagnosis line "(HbA1c 6.8%)", exact, 0.758, holding one as the header row does, does
    cits = msgspec.json.decode(json.dumps(SEARCHES["hba1c"]["citations"]).encode(), type=list[Citation])
    figures = "6.8% | <5.7% | HIGH"
    cits = [msgspec.structs.replace(c, display_quote=figures, locator=msgspec.structs.replace(
        c.locator, place_text=figures, quote=None)) if (c.display_quote or "").startswith("HbA1c |") else c
        for c in cits]
    places = [c.display_quote for c in behind_by_meaning(cits)]
    assert places[0].startswith("3. Type 2 Diabetes"), places[:3]
    assert places[1] == "Test | Result | Reference Range | Flag"


def test_a_place_saying_more_across_languages_but_farther_by_meaning_than_the_band_does_not_lead() -> None:
    # the Boots paragraph put 0.02 below the first place by cosine (beyond ``leads.SAID_BAND``): words said through a
    # dictionary's senses lead only between places the meaning calls near alike
    cits = msgspec.json.decode(json.dumps(SEARCHES["q11"]["citations"]).encode(), type=list[Citation])
    first = cits[0].locator.meaning_score or 0.0
    cits = [msgspec.structs.replace(c, locator=msgspec.structs.replace(c.locator, meaning_score=first - 0.02))
            if "connected with a spring" in (c.display_quote or c.locator.place_text or "") else c for c in cits]
    places = [c.display_quote or c.locator.place_text or "" for c in behind_by_meaning(cits)]
    assert places[0].startswith("The two general types of self-locking nuts"), places[:3]


def test_a_place_saying_one_more_of_the_questions_words_across_languages_does_not_lead() -> None:
    # the Boots paragraph without "connected": it says 螺母 and 弹簧, one more than the first place's 螺母
    # (``leads.SAID_MORE``: a dictionary's senses are a loose match, one word is no lead)
    cits = msgspec.json.decode(json.dumps(SEARCHES["q11"]["citations"]).encode(), type=list[Citation])

    def cut(c: Citation) -> Citation:
        text = (c.display_quote or c.locator.place_text or "").replace("are connected with", "have")
        return msgspec.structs.replace(c, display_quote=text, locator=msgspec.structs.replace(
            c.locator, place_text=text, quote=None))

    cits = [cut(c) if "connected with a spring" in (c.display_quote or c.locator.place_text or "") else c
            for c in cits]
    places = [c.display_quote or c.locator.place_text or "" for c in behind_by_meaning(cits)]
    assert places[0].startswith("The two general types of self-locking nuts"), places[:3]
