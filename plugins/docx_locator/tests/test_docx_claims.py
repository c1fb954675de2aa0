"""A DOCX paragraph is claimed exact only when it holds what the question asks, not when it was chosen.

Seen by a newcomer (round 17) on two Chinese standards of ``tests/data/corpus``, each cited on a
paragraph that does not answer with ``locatorPrecision: paragraph`` and ``locatorDegraded: false``:

* Q10 ``评价构筑物和设备实际状态时，设备按特性分为哪几类？``: paragraph 120 ``…评价要点包括：``, chosen among
  the passage's paragraphs by meaning and words (it holds the question's setting, 构筑物/设备/实际状态,
  not what it asks, 特性/分为/几类); the answer, 113 ``依据设备的特性，将其分为以下几类：``, was the
  passage's next place.
* Q11 ``对核电厂设计要素做定期评价是为了达到什么目的？``: paragraph 86, the scope sentence, chosen the same
  way in a passage that does not hold the answer (106, in the next chunk, which the same locator cites
  exact: ``Q11b`` here).
* X3, an English question about the Chinese standard: paragraph 17, the English title line on its cover,
  the only paragraph holding the question's English words.

Recorded here (``data/nc17a_claims.json``, from the newcomer's own index): each LightRAG chunk, the sidecar
block it maps to, the evidence the host's cleaning gave the locator, and the query's cosine with every
paragraph (replayed through ``meaning.cosines`` / ``meaning.nearest``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mnote_kr_testkit.docx_replay import replay_locate

from mnote_kr_docx_locator import cache as docx_cache

CASES = {c["id"]: c for c in json.loads((Path(__file__).parent / "data" / "nc17a_claims.json").read_text("utf-8"))}


@pytest.fixture(autouse=True)
def _fresh() -> None:
    docx_cache.clear_cache()


replay = replay_locate


@pytest.mark.parametrize("name, cited", [("Q10", 120), ("Q11", 86), ("X3", 17)])
def test_a_paragraph_that_does_not_answer_is_not_claimed_exact(name: str, cited: int,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    if name == "X3":  # the title rule alone: with ``otherscript`` the English cover line is no longer the place
        from mnote_kr.citations.locate import otherscript

        monkeypatch.setattr(otherscript, "ACROSS_LANGUAGES", False)
    loc = replay(CASES[name], monkeypatch)
    assert loc.paragraph_index == cited  # the place is the newcomer's (no ranking change here)
    assert loc.locator_precision == "paragraph"  # it keeps its precision (DESIGN) ...
    assert loc.locator_degraded, loc.reason  # ... and says it is approximate
    assert (loc.reason or "").startswith("semantic match"), loc.reason


def test_the_answering_paragraph_was_the_passages_next_place(monkeypatch: pytest.MonkeyPatch) -> None:
    """Q10: 113 was a candidate of the passage and lost to 120, which holds more of the question's setting."""
    loc = replay(CASES["Q10"], monkeypatch)
    assert [r.paragraph_index for r in loc.runners_up][:1] == [CASES["Q10"]["answer"]]


def test_a_paragraph_holding_the_evidence_and_every_query_term_stays_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    """Q11's next chunk: 106, the evidence's own paragraph, holding the question's words: exact, as before."""
    loc = replay(CASES["Q11b"], monkeypatch)
    assert (loc.paragraph_index, loc.locator_precision, loc.locator_degraded) == (106, "paragraph", False)


def test_a_place_chosen_in_the_passage_holding_every_query_term_stays_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    """Q10's passage with a question whose every word 113 holds: chosen there, and exact."""
    loc = replay(CASES["Q10"], monkeypatch, query="设备的特性分为哪几类")
    assert (loc.paragraph_index, loc.locator_degraded) == (113, False), loc.reason


def test_a_title_line_searched_as_written_stays_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    """X3's cover: the English title found by its own words is the place asked for."""
    loc = replay(CASES["X3"], monkeypatch, query="Guideline of periodic safety review for nuclear power plants")
    assert (loc.paragraph_index, loc.locator_degraded) == (17, False), loc.reason


def test_an_english_question_over_the_chinese_standard_is_not_placed_on_its_english_cover_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """X3 (nc20a Q6/Q7/Q10 again): the cover's English line held the question's common words and, in its own
    language, the highest cosine; across scripts (``otherscript``) the passage's Chinese places decide."""
    loc = replay(CASES["X3"], monkeypatch)
    assert loc.paragraph_index is not None and loc.paragraph_index != 17, loc.reason
    assert 17 not in [r.paragraph_index for r in loc.runners_up]
