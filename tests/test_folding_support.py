"""An approximate first place yields to the page several of the file's nearest places fall on (``leads.SUPPORT_LEADS``,
issue 33's twenty-eighth round).

Replays a recorded search (tests/data/ranking/support_page.json, its note says how it was recorded): tune3's t3_en11,
every citation of the answering file as ``folding.behind_by_meaning`` received it. The file's best passage put its
place on p4 ("The FAA proposes adding the Stabilizer Out of Trim checklist", approximate, cosine 0.722); the answer,
"as a result of the installation of this revised MDS software, operators would be required to remove the 'INOP'
stickers", is on p3 (0.732), where two more of the file's six nearest places are.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from mnote_kr.citations.render import leads
from mnote_kr.citations.render.folding import behind_by_meaning
from mnote_kr.models import Citation

DATA = json.loads((Path(__file__).parent / "data" / "ranking" / "support_page.json").read_text(encoding="utf-8"))
SEARCH = DATA["searches"][0]
ANSWER = "Also, as a result of the installation of this revised MDS software"
PASSAGE = "The FAA proposes adding the Stabilizer Out of Trim checklist"


def _citations() -> list[Citation]:
    return msgspec.json.decode(json.dumps(SEARCH["citations"]).encode(), type=list[Citation])


def _words(c: Citation) -> str:
    return c.display_quote or c.locator.place_text or ""


@pytest.fixture(autouse=True)
def _rule_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rule is off by default (its held-out aggregates showed no gain): these tests pin what it does when on."""
    monkeypatch.setattr(leads, "SUPPORT_LEADS", True)


def test_the_rule_is_off_by_default_and_the_first_place_stays(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.undo()
    assert leads.SUPPORT_LEADS is False
    assert _words(behind_by_meaning(_citations())[0]).startswith(PASSAGE)


def test_an_approximate_first_place_yields_to_the_page_most_of_the_nearest_places_fall_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    placed = behind_by_meaning(_citations())
    assert _words(placed[0]).startswith(ANSWER), [_words(c)[:60] for c in placed[:3]]
    assert placed[0].locator.page == 3
    assert _words(placed[1]).startswith(PASSAGE)  # the passage's own place, right behind
    monkeypatch.setattr(leads, "SUPPORT_LEADS", False)  # as before round 28
    before = behind_by_meaning(_citations())
    assert _words(before[0]).startswith(PASSAGE) and before[0].locator.page == 4


def test_a_page_holding_one_more_of_the_nearest_places_is_no_lead() -> None:
    # one of p3's three places among the six nearest moved to another page: p3 then holds one more than p4, not two
    cits = _citations()
    third = sorted((c for c in cits if c.locator.page == 3 and c.locator.meaning_score is not None),
                   key=lambda c: -(c.locator.meaning_score or 0.0))[2]
    cits = [msgspec.structs.replace(c, locator=msgspec.structs.replace(c.locator, page=9)) if c is third else c
            for c in cits]
    assert _words(behind_by_meaning(cits)[0]).startswith(PASSAGE)


def test_a_supported_place_farther_by_meaning_than_the_band_is_no_lead() -> None:
    # p3's places put 0.02 below the first place by cosine (beyond ``leads.SUPPORT_BAND``)
    cits = _citations()
    first = cits[0].locator.meaning_score or 0.0
    assert cits[0].locator.page == 4
    cits = [msgspec.structs.replace(c, locator=msgspec.structs.replace(c.locator, meaning_score=first - 0.02))
            if c.locator.page == 3 and c.locator.meaning_score is not None else c for c in cits]
    assert _words(behind_by_meaning(cits)[0]).startswith(PASSAGE)


def test_an_exact_first_place_keeps_its_lead_whatever_page_the_nearest_places_fall_on() -> None:
    cits = _citations()
    cits[0] = msgspec.structs.replace(cits[0], locator_degraded=False,
                                      locator=msgspec.structs.replace(cits[0].locator, locator_degraded=False))
    assert _words(behind_by_meaning(cits)[0]).startswith(PASSAGE)
