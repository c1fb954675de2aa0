"""A question over a file written mostly in the other language lands on the paragraph written in the question's own
language when that paragraph holds the question's words as written (``saidacross.said_shares(..., written=True)``).

nc30a finding 1 (round 30), replayed (tests/data/ranking/mixed_language.json, its note says how it was recorded):
"自行车链条多久检查一次磨损" over an English bike-repair note whose one Chinese paragraph answers ("自行车链条每骑行大约
三千公里就应该检查一次磨损…") was placed on an English paragraph, "by meaning and the query's words said in the
passage's language": the Chinese paragraph, a place in the question's script inside a body in the other, lost its
words (``otherscript``: they count only all held) and its lead by meaning (the script's pull), while the English
paragraph saying "bike" and "chain" kept those. The reverse, an English question over the one English paragraph of
a mostly-Chinese note, failed the same way. The question's cosines are the recorded ones: no model runs.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from mnote_kr.citations.locate import saidacross
from mnote_kr.citations.rank import meaning
from mnote_kr.models import LocateRequest

DATA = json.loads((Path(__file__).parent / "data" / "ranking" / "mixed_language.json").read_text(encoding="utf-8"))
CASES = {s["id"]: s for s in DATA["searches"]}


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")
    meaning._memo.clear()


def _locate(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, case: dict[str, Any]) -> Any:
    from mnote_kr.default_plugins.text_locator import clear_cache, locate_text

    cos = {int(k): v for k, v in case["cosines"].items()}

    def cosines(key: str, query: str, idx: Any) -> dict[int, float] | None:
        return {i: cos[i] for i in idx if i in cos} if key == case["placesKey"] else None

    def nearest(key: str, query: str, k: int) -> dict[int, float]:
        return dict(sorted(cos.items(), key=lambda t: (-t[1], t[0]))[:k]) if key == case["placesKey"] else {}

    monkeypatch.setattr(meaning, "cosines", cosines)
    monkeypatch.setattr(meaning, "nearest", nearest)
    path = tmp_path / case["file"]
    if not path.exists():
        path.write_text(DATA["files"][case["file"]], encoding="utf-8")
    before = hashlib.sha256(path.read_bytes()).digest()
    clear_cache()
    loc = locate_text(LocateRequest(file=str(path), evidence=case["evidence"], passage=case["passage"],
                                    query=case["query"]))
    assert hashlib.sha256(path.read_bytes()).digest() == before
    return loc


@pytest.mark.parametrize("case_id", ["bike_zh_check_wear", "bike_zh_how_often", "bike_zh_short", "bike_zh_rain",
                                     "kafei_en_residue"])
def test_a_question_lands_on_the_paragraph_written_in_its_language(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                                   case_id: str) -> None:
    case = CASES[case_id]
    monkeypatch.setattr(saidacross, "WRITTEN_TOO", False)
    old = _locate(monkeypatch, tmp_path, case)
    assert old.paragraph_index != case["answer"]["paragraphIndex"]  # the fault, as the rule's switch off shows it
    monkeypatch.setattr(saidacross, "WRITTEN_TOO", True)
    new = _locate(monkeypatch, tmp_path, case)
    assert new.paragraph_index == case["answer"]["paragraphIndex"], (new.paragraph_index, new.reason)
    # its reason no longer says it holds few of the question's words as written, or chose by words said across
    assert "as written" not in (new.reason or "") and "said in the passage's language" not in (new.reason or "")
    # exact only as the locator's own rules claim the evidence's place (the paragraph holding every content word)
    assert new.locator_degraded == (not new.reason.startswith("matched evidence")), new.reason
    # the other-language paragraph it led before is still a place behind it
    assert old.paragraph_index in [r.paragraph_index for r in new.runners_up]


@pytest.mark.parametrize("case_id", ["bike_zh_check_wear", "bike_zh_how_often", "bike_zh_short"])
def test_a_place_stating_another_things_frequency_does_not_take_the_written_places_place(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, case_id: str) -> None:
    # "多久" asks a frequency or a duration: the Chinese paragraph states its interval by distance (每…三千公里), which
    # ``cues`` reads as no frequency, and the English "Tubeless tyres need fresh sealant every three to four months",
    # holding and saying none of the question's words, took its place on the kind alone
    from mnote_kr.citations.locate import answertype

    case = CASES[case_id]
    monkeypatch.setattr(answertype, "WRITTEN_HOLDS", False)
    old = _locate(monkeypatch, tmp_path, case)
    assert old.paragraph_index == 2 and "holds the" in (old.reason or ""), (old.paragraph_index, old.reason)
    monkeypatch.setattr(answertype, "WRITTEN_HOLDS", True)
    new = _locate(monkeypatch, tmp_path, case)
    assert new.paragraph_index == case["answer"]["paragraphIndex"] and new.locator_degraded
    assert 2 in [r.paragraph_index for r in new.runners_up]


def test_written_words_weigh_by_rarity_with_those_said_across() -> None:
    paras = [p.strip() for p in DATA["files"]["bike-repair.md"].split("\n\n")]  # the heading, then paragraphs 1..4
    texts = {i: paras[i] for i in (1, 2, 3, 4)}
    assert texts[4].startswith("自行车链条") and "chain" in texts[1]
    q = "自行车链条多久检查一次磨损"
    said = saidacross.said_shares(q, texts)
    assert 4 not in said and said[1] > 0  # across only: the Chinese paragraph says nothing in English
    both = saidacross.said_shares(q, texts, written=True)
    # the Chinese paragraph holds every word it is asked as written; "bike" and "chain", said by the English one too,
    # weigh less than 检查 and 磨损, held by it alone
    assert both[4] == saidacross.SAID_MOST and 0 < both[1] < 0.5
    assert 2 not in both and 3 not in both
    # an English question's words as written, by their stems ("cleaned" for "clean"), in a Chinese file's English
    # paragraph: it leads the Chinese paragraph saying one of them across
    kafei = dict(enumerate(p.strip() for p in DATA["files"]["kafei.md"].split("\n\n")))
    q_en = "How often should the burr grinder be cleaned?"
    en = saidacross.said_shares(q_en, kafei, written=True)
    assert kafei[4].startswith("The burr grinder") and 4 not in saidacross.said_shares(q_en, kafei)
    assert max(en, key=en.__getitem__) == 4 and en[4] > 2 * max(v for k, v in en.items() if k != 4)
    # a passage in the question's script is not read across, written or not
    assert saidacross.said_shares(q, {0: "链条会生锈", 1: "检查一次磨损"}, written=True) == {}


@pytest.mark.parametrize("case_id", ["bike_zh_check_wear", "bike_zh_how_often"])
def test_the_host_keeps_the_written_place_before_another_languages_frequency(monkeypatch: pytest.MonkeyPatch,
                                                                           case_id: str) -> None:
    """The search's folding of the file's places (``folding.TYPE_LEADS``) put the sealant paragraph, stating "every
    three to four months" and none of the question's words in English, before the Chinese paragraph holding them (the
    cosines are the places' as the locator gives them, the script's pull out of the Chinese one's)."""
    import msgspec

    from mnote_kr.citations.render import folding
    from mnote_kr.models import Locator
    from tests.test_pipeline_unit import citation

    case = CASES[case_id]
    paras = [p.strip() for p in DATA["files"]["bike-repair.md"].split("\n\n")]

    def place(i: int, cos: float, first: bool = False) -> Any:
        loc = Locator(locator_precision="paragraph", locator_degraded=True, paragraph_index=i, meaning_score=cos,
                      place_text=None if first else paras[i], quote=paras[i])
        return msgspec.structs.replace(citation(f"[p{i}]", paras[i]), locator=loc, locator_precision="paragraph",
                                       search_query=case["query"], display_quote=paras[i] if first else None)

    cos = {int(k): v for k, v in case["cosines"].items()}
    pulled = sum(cos[i] for i in range(4)) / 4  # the Chinese place's lead over the English ones taken out (its pull)
    places = [place(4, pulled, first=True), place(2, cos[2]), place(1, cos[1])]
    monkeypatch.setattr(folding, "WRITTEN_STAYS", False)
    assert folding.behind_by_meaning(places)[0].locator.paragraph_index == 2  # the fault
    monkeypatch.setattr(folding, "WRITTEN_STAYS", True)
    assert [c.locator.paragraph_index for c in folding.behind_by_meaning(places)][:2] == [4, 2]
