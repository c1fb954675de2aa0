"""A heading holding only the question's setting words is no exact place, and does not lead the answer under it.

Seen by a newcomer (round 21, nc21b Q7) on ``poi__form_footnotes.docx``: ``What colour of ink must the visa
application form be filled in with?`` was cited on the heading ``VISA APPLICATION FORM`` (paragraph 8, the
evidence's match by the query's words), ``locatorDegraded: false``; the instructions' ``Type or write in block
letters, on blue or black ink only.`` (210), under that heading, was only a place behind it.

Recorded here (``data/nc21b_heading.json``, from the newcomer's own index): the LightRAG chunk, its sidecar
block, the evidence the host's cleaning gave the locator, and the query's cosine with the file's paragraphs
(replayed through ``meaning.cosines`` / ``meaning.nearest``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mnote_kr_testkit.docx_replay import replay_locate

from mnote_kr_docx_locator import cache as docx_cache

CASE = json.loads((Path(__file__).parent / "data" / "nc21b_heading.json").read_text("utf-8"))[0]
HEADING = 8


@pytest.fixture(autouse=True)
def _fresh() -> None:
    docx_cache.clear_cache()


replay = replay_locate


def test_the_paragraph_under_the_heading_holding_the_asked_words_leads(monkeypatch: pytest.MonkeyPatch) -> None:
    loc = replay(CASE, monkeypatch)
    assert loc.paragraph_index == CASE["answer"], loc.reason
    assert "ink only" in (loc.place_text or "")
    # it lacks "must" (and the document lacks "colour"): chosen, not claimed
    assert loc.locator_degraded, loc.reason
    assert HEADING not in [r.paragraph_index for r in loc.runners_up]


def test_the_heading_is_not_claimed_exact_when_nothing_under_it_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    case = dict(CASE, cosines={i: c for i, c in CASE["cosines"].items() if int(i) != CASE["answer"]})
    loc = replay(case, monkeypatch)
    assert loc.paragraph_index == HEADING
    assert loc.locator_precision == "paragraph"
    assert loc.locator_degraded, loc.reason

