"""A question in one language over a passage in the other: its words said in the passage's language count when the
passage's places are compared (``locate.saidacross``).

nc26a (round 26) replayed (tests/data/ranking/xlang_rows.json, its note says how it was recorded): "Which gene is
tested for Lynch syndrome?" over a Chinese table of genetic tests cited the row Q0102 (BRCA2, 遗传性卵巢癌), e5 putting
the cell "BRCA2" 0.016 nearer the question than "林奇综合征", whose row (MLH1) answers and says "syndrome" (综合征);
"What is a Lewis structure used to show?" over a Chinese mind map cited the caption "碳原子的lewis结构" (Lewis,
structure), not the definition beside it, "…路易斯结构可以画出表示分子中的共价键…" (Lewis, structure, show). The
question's cosines with the file's places are the recorded ones: no model runs.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.data import CORPUS

from mnote_kr.citations.locate import saidacross
from mnote_kr.citations.rank import meaning
from mnote_kr.citations.render import folding
from mnote_kr.models import LocateRequest, Locator
from mnote_kr.plugin_api import asked_row
from mnote_kr.plugins import load_plugins

CASES = {s["id"]: s for s in json.loads(
    (Path(__file__).parent / "data" / "ranking" / "xlang_rows.json").read_text(encoding="utf-8"))["searches"]}
LYNCH, LEWIS = CASES["nc26a_q12"], CASES["nc26a_q10"]
HEADER = ["项目编号", "检测项目", "相关基因", "周期", "检测方法"]
ROWS = [["Q0101", "遗传性乳腺癌", "BRCA1", "15个工作日", "检测方法：提取外周血基因组 DNA"],
        ["Q0102", "遗传性卵巢癌", "BRCA2", "15个工作日", ""],
        ["Q0103", "林奇综合征", "MLH1", "15个工作日", ""],
        ["Q0104", "家族性腺瘤性息肉病", "APC", "15个工作日", ""]]


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")
    meaning._memo.clear()


def _replay(monkeypatch: pytest.MonkeyPatch, case: dict[str, Any]) -> None:
    """The question's recorded cosines with the file's places, for the places key they were recorded with."""
    cos = {int(k): v for k, v in case["cosines"].items()}

    def cosines(key: str, query: str, idx: Any) -> dict[int, float] | None:
        return {i: cos[i] for i in idx if i in cos} if key == case["placesKey"] else None

    def nearest(key: str, query: str, k: int) -> dict[int, float]:
        if key != case["placesKey"] or k <= 0:
            return {}
        return dict(sorted(cos.items(), key=lambda t: (-t[1], t[0]))[:k])

    monkeypatch.setattr(meaning, "cosines", cosines)
    monkeypatch.setattr(meaning, "nearest", nearest)


def _locate(case: dict[str, Any]) -> Any:
    path = CORPUS / case["file"]
    before = hashlib.sha256(path.read_bytes()).digest()
    loc = load_plugins(None).locate(LocateRequest(file=str(path), evidence=case["evidence"], passage=case["passage"],
                                                  query=case["query"]))
    assert hashlib.sha256(path.read_bytes()).digest() == before
    return loc


def _words(loc: Any) -> str:
    return " ".join((loc.place_text or loc.quote or "").split())


def test_the_recorded_cosines_are_the_files_places(monkeypatch: pytest.MonkeyPatch) -> None:
    """The replay stands for the file as this tree reads it: the places key the vectors were recorded with is asked."""
    for case in (LYNCH, LEWIS):
        asked: list[str] = []
        _replay(monkeypatch, case)
        real = meaning.cosines
        monkeypatch.setattr(meaning, "cosines", lambda key, query, idx, real=real, asked=asked: asked.append(key)
                            or real(key, query, idx))
        loc = _locate(case)
        assert case["placesKey"] in asked, (case["id"], asked)
        assert loc.meaning_score is not None


def test_the_row_saying_the_questions_word_leads_the_lookalike_row(monkeypatch: pytest.MonkeyPatch) -> None:
    _replay(monkeypatch, LYNCH)
    monkeypatch.setattr(saidacross, "SAID_ACROSS", False)
    old = _locate(LYNCH)
    assert old.paragraph_index == LYNCH["lookalike"]["paragraphIndex"]  # the fault, as the rule's switch off shows it
    monkeypatch.setattr(saidacross, "SAID_ACROSS", True)
    new = _locate(LYNCH)
    assert new.paragraph_index == LYNCH["answer"]["paragraphIndex"], (new.paragraph_index, new.reason)
    assert "MLH1" in (new.quote or "") and "林奇综合征" in (new.quote or "")
    # chosen by words said in another language: a guess, still approximate, and saying so
    assert new.locator_degraded and "said in the passage's language" in (new.reason or "")
    # the look-alike row is the place behind it
    assert new.runners_up and new.runners_up[0].paragraph_index == LYNCH["lookalike"]["paragraphIndex"]


def test_the_definition_saying_more_of_the_questions_words_leads_the_caption(monkeypatch: pytest.MonkeyPatch) -> None:
    _replay(monkeypatch, LEWIS)
    monkeypatch.setattr(saidacross, "SAID_ACROSS", False)
    old = _locate(LEWIS)
    assert _words(old).startswith(LEWIS["lookalike"]["startsWith"]), _words(old)  # the fault
    monkeypatch.setattr(saidacross, "SAID_ACROSS", True)
    new = _locate(LEWIS)
    assert new.page == LEWIS["answer"]["page"] and _words(new).startswith(LEWIS["answer"]["startsWith"]), _words(new)
    assert "路易斯结构可以画出表示分子中的共价键" in _words(new)
    assert new.locator_degraded and "said in the passage's language" in (new.reason or "")
    assert any(_words(r).startswith(LEWIS["lookalike"]["startsWith"]) for r in new.runners_up)


def test_a_header_row_place_moves_to_the_row_saying_the_questions_other_word() -> None:
    # the header says "gene" (相关基因) and "tested" (检测项目) for every row: the row saying "syndrome" is asked
    assert asked_row("Which gene is tested for Lynch syndrome?", HEADER, ROWS) == (2, 1)
    # a phrase the dictionary writes as one word (乳腺癌 "breast cancer") is said by its words together
    assert asked_row("Which gene is tested for hereditary breast cancer?", HEADER, ROWS) == (0, 1)
    # two rows saying as many ("hereditary": 遗传性…): which one is not said
    assert asked_row("Which gene is tested for hereditary disease?", HEADER, ROWS) is None
    # the question's words as written still decide first
    assert asked_row("Which disease is BRCA2 tested for?", HEADER, ROWS) == (1, 2)
    # a question written in the table's script is not read across
    assert asked_row("林奇综合征", HEADER, ROWS) == (2, 1)


def test_said_shares_weigh_by_rarity_never_hold_every_term_and_read_one_script_as_written() -> None:
    texts = {0: "相关基因", 1: "林奇综合征", 2: "检测项目", 3: "检测方法", 4: "BRCA2"}
    shares = saidacross.said_shares("Which gene is tested for Lynch syndrome?", texts)
    # "gene" and "syndrome" are each said once, "tested" (检测) twice: it weighs less; "Lynch", said by none, nothing
    assert shares[0] == shares[1] > shares[2] == shares[3] > 0 and 4 not in shares
    # a place saying every word the passage says is no place "holding every term": meaning still decides
    assert saidacross.said_shares("Which syndrome?", {0: "林奇综合征", 1: "周期"}) == {0: saidacross.SAID_MOST}
    assert saidacross.SAID_MOST < meaning.ALL_TERMS
    # a question in the passage's own script: its words as written decide, as before
    assert saidacross.said_shares("Which gene is tested?", {0: "The gene tested", 1: "基因"}) == {}
    assert saidacross.said_shares("林奇综合征的相关基因", texts) == {}
    # a Chinese question over English places: its words said in English ("淡水" fresh water, "鸭" aside: one character)
    english = {0: "Year: 2022; Freshwater Ducks: 170", 1: "Number of saltwater ducks per year"}
    assert set(saidacross.said_shares("2022年淡水鸭有多少只", english)) == {0}


@pytest.mark.parametrize("case", [LYNCH, LEWIS], ids=lambda c: c["id"])
def test_search_leads_with_the_answering_place_and_keeps_the_lookalike_behind(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: dict[str, Any]) -> None:
    """Through the host (located, folded as a search shows a file's places: ``folding.SAID_STAYS`` keeps the
    definition's lead over the caption 0.05 nearer by cosine), LightRAG's recorded passage as the one it returns."""
    from tests.surfaces import one_passage_host

    host, path = one_passage_host(tmp_path, CORPUS / case["file"], case["passage"])
    before = hashlib.sha256(path.read_bytes()).digest()
    _replay(monkeypatch, case)
    (first, *_) = host.search(case["query"], top_k=5).results
    words = " ".join((first.display_quote or "").split())
    answer, lookalike = case["answer"], case["lookalike"]
    if "paragraphIndex" in answer:
        assert first.locator.paragraph_index == answer["paragraphIndex"], (words, first.locator.reason)
    else:
        assert words.startswith(answer["startsWith"]) or "路易斯结构可以画出" in words, (words, first.locator.reason)
    behind = [" ".join((a.display_quote or "").split()) for a in first.alternatives]
    assert any(b.startswith(lookalike.get("startsWith", "Q0102")) for b in behind), behind
    assert hashlib.sha256(path.read_bytes()).digest() == before


def _card(cid: str, words: str, cosine: float, query: str) -> Any:
    """A file's place as folding reads it: approximate, its words and cosine."""
    import msgspec

    from tests.test_folding import place

    loc = Locator(locator_precision="bbox", locator_degraded=True, page=1, bbox=[0, 0, 10, 10], place_text=words,
                  meaning_score=cosine)
    return msgspec.structs.replace(place(cid, loc, "kb/mindmap.pdf"), display_quote=words, search_query=query)


@pytest.mark.parametrize(("first_words", "stays"), [
    ("路易斯结构可以画出表示分子中的共价键以及配位化合物", True),  # Lewis, structure, show: more than the caption
    ("结构简式通常包括烃基及官能团两部分", False),  # structure alone: one word is no lead against meaning
])
def test_a_first_place_saying_more_of_the_questions_words_keeps_its_lead_by_meaning(
        monkeypatch: pytest.MonkeyPatch, first_words: str, stays: bool) -> None:
    query = "What is a Lewis structure used to show?"
    first = _card("[def]", first_words, 0.597, query)
    caption = _card("[cap]", "碳原子的lewis结构", 0.649, query)  # 0.052 nearer: LEAD_BY_MEANING's lead
    assert folding.behind_by_meaning([first, caption])[0].citation_id == ("[def]" if stays else "[cap]")
    monkeypatch.setattr(folding, "SAID_STAYS", False)
    assert folding.behind_by_meaning([first, caption])[0].citation_id == "[cap]"
