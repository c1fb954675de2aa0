"""A file's first place yields to an exact place of the file holding every query word it holds and more, about
as near the question by meaning (``folding.WORDS_LEAD``).

nc23d problem 3: ``search "increase Lisinopril dose"`` over the corpus's MEDRPT scan (3 image-only pages) cited
page 1's "1. Lisinopril 10mg-once daily for hypertension" (the current dose: one of the three words) as an exact
box, while page 3's "Increase Lisinopril from 10mg to 20mg once daily" (two of them, the answer) stood behind it as
alternative #1. The first place was the best passage's (LightRAG's chunk of pages 1-2 scored higher), and only an
approximate first yielded to a place behind it. Recognition glued page 3's words ("Lisinoprilfrom"), so the
query's word stood in it unseen by word matching as well.

The lines are as RapidOCR read them (``plugins/ocr/tests/data/medrpt_lines.json``); the cosines and which place
came first are nc23d's run (``/tmp/nc23d-out/q1.json``, clone ed04fa8).
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from mnote_kr.citations.render import folding
from mnote_kr.models import Locator
from tests.test_pipeline_unit import citation

LINES = json.loads((Path(__file__).parents[1] / "plugins" / "ocr" / "tests" / "data" / "medrpt_lines.json")
                   .read_text(encoding="utf-8"))
QUERY = "increase Lisinopril dose"


def _line(page: int, starts: str) -> tuple[str, list[float]]:
    """The recognised line of ``page`` starting with ``starts``: its text and box (points)."""
    text, *box, _conf = next(ln for ln in LINES["pages"][page - 1]["lines"] if ln[0].startswith(starts))
    return text, box


def _place(cid: str, page: int, starts: str, cos: float, *, degraded: bool = False, runner: bool = False,
           query: str = QUERY) -> object:
    """A place of the scan as the pipeline leaves it: a passage's best in its quote, a runner-up in its
    ``place_text``."""
    text, box = _line(page, starts)
    loc = Locator(locator_precision="bbox", locator_degraded=degraded, page=page, bbox=box, meaning_score=cos,
                  quote=text, place_text=text if runner else None, locator_plugin="ocr")
    return msgspec.structs.replace(citation(cid, text), locator=loc, locator_precision="bbox",
                                   locator_degraded=degraded, search_query=query,
                                   display_quote=None if runner else text,
                                   source_root_relative_path="scans/MEDRPT.pdf")


def _nc23d(query: str = QUERY) -> list[object]:
    return [_place("[p1a]", 1, "1. Lisinopril", 0.8082, query=query),
            _place("[p3a]", 3, "- Increase Lisinopril", 0.7918, query=query),
            _place("[p1b]", 1, "mild nausea", 0.6981, degraded=True, runner=True, query=query)]


def _texts(places: list[object]) -> list[str]:
    return [p.display_quote or p.locator.place_text or "" for p in places]  # type: ignore[attr-defined]


def test_the_line_holding_more_of_the_query_words_leads_the_current_dose_line() -> None:
    got = folding.behind_by_meaning(_nc23d())  # type: ignore[arg-type]
    assert got[0].locator.page == 3, _texts(got)
    assert got[0].display_quote.startswith("- Increase Lisinoprilfrom 10mg to 20mg"), _texts(got)
    assert not got[0].locator_degraded  # the lead is an exact place: what is claimed is what it holds
    # the former first right behind it, then the rest; the file's rank is the best passage's
    assert [p.locator.page for p in got] == [3, 1, 1]
    assert got[1].display_quote.startswith("1. Lisinopril 10mg")
    assert got[0].relevance_score == 1.0
    first, increase, nausea = _nc23d()
    # "mild nausea … increased stress" holds "increase" but not "Lisinopril": other words, no more of them
    assert folding.behind_by_meaning([first, nausea])[0] is first  # type: ignore[list-item]
    # page 3's line much farther from the question than the first, or approximate: the first stays
    far = msgspec.structs.replace(increase, locator=msgspec.structs.replace(  # type: ignore[type-var]
        increase.locator, meaning_score=0.70))  # type: ignore[attr-defined]
    assert folding.behind_by_meaning([first, far])[0] is first  # type: ignore[list-item]
    vague = msgspec.structs.replace(increase, locator_degraded=True)  # type: ignore[type-var]
    assert folding.behind_by_meaning([first, vague])[0] is first  # type: ignore[list-item]
    # asked "Lisinopril" alone both lines hold it: neither holds more, the best passage's stays first
    assert folding.behind_by_meaning(_nc23d("Lisinopril"))[0].locator.page == 1  # type: ignore[arg-type]


def test_a_row_of_figures_first_keeps_its_lead_over_a_sentence_naming_more_of_the_words() -> None:
    """r23's tables set, the 737 MAX notice: the cost row answers, holding two of the question's words; the AD's
    sentence naming the test holds four, and no figure (its places and cosines as that run's dump has them)."""
    query = "What would the angle-of-attack sensor test cost all US operators together?"
    row = "AOA sensor system test ....................... 40 work-hours × $85 per hour = $3,400. $0 .... $248,200"
    test = ("Before further flight, do all applicable actions identified as ‘‘RC’’ for the ‘‘Angle of Attack (AOA) "
            "Sensor System Test’’ specified in, and in accordance with, the Accomplishment Instructions")
    places = []
    for k, (words, cos, degraded) in enumerate([(row, 0.7247, True), (test, 0.7315, False)]):
        loc = Locator(locator_precision="bbox", locator_degraded=degraded, page=3 + k, bbox=[40.0, 100.0, 500.0, 120.0],
                      meaning_score=cos, quote=words)
        places.append(msgspec.structs.replace(citation(f"[f{k}]", words), locator=loc, locator_precision="bbox",
                                              locator_degraded=degraded, search_query=query, display_quote=words))
    assert folding.behind_by_meaning(places)[0].display_quote == row
    # the same sentence behind a first place of prose holding fewer of the words takes the lead
    prose = "The FAA estimates the sensor test would take 40 work-hours per airplane."
    places[0] = msgspec.structs.replace(places[0], display_quote=prose, locator=msgspec.structs.replace(
        places[0].locator, quote=prose))
    assert folding.behind_by_meaning(places)[0].display_quote == test
