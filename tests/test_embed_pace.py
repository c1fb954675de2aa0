"""The embedding step's time left says something true (``mnote_kr.citations.rank.embedpace``).

nc26b: "embedding places: 2892/5624 paragraphs; 7 s so far, about 5 s left", then 46 s more, the last 20 s of them
"about 4 s left" on every line; nc26a: "about 0 s left" at 1329/1349, 4 s before the end. The model embeds places
shortest first, so a pace counted in places runs fast early and slow late: it is measured in the work a place
costs (its tokens); and an estimate that stops falling near the end says "finishing", not a number.
"""

from __future__ import annotations

from typing import Any

import pytest

from mnote_kr.citations.rank import meaning
from mnote_kr.citations.rank.embedpace import FINISHING_S, Pace, place_cost

SHORT = [f"Nut {i}." for i in range(300)]
LONG = [f"Paragraph {i}: " + "the elastic stop nut holds a fiber collar that grips the bolt's threads. " * 8
        for i in range(100)]


@pytest.fixture(autouse=True)
def _fresh_vectors() -> None:
    meaning._memo.clear()
    meaning._queue.clear()


def _lines(monkeypatch: pytest.MonkeyPatch, texts: list[str], batches: list[tuple[float, list[str]]]) -> list[Any]:
    """The step's lines for ``texts``, its batches ending at the given clock times, each embedding the given texts
    and reporting their count and work, as ``meaning._embed_files`` does."""
    clock = [0.0]

    def embed_files(files: Any, step: Any) -> None:  # noqa: ANN401
        for at, batch in batches:
            clock[0] = at
            step(len(batch), sum(place_cost(t) for t in batch))

    monkeypatch.setattr(meaning, "_embed_files", embed_files)
    meaning.queue(texts)
    lines: list[Any] = []
    meaning.embed_queued(lines.append, clock=lambda: clock[0])
    return lines


def test_the_time_left_is_paced_by_the_work_left_not_the_places_left(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three hundred short places, then a hundred long ones (the model's order): at 300/400, counted in places
    the pace said about 2 s left (100 places at 50 a second); the long places are most of the work."""
    lines = _lines(monkeypatch, SHORT + LONG, [(1.0, SHORT[:100]), (3.0, SHORT[100:200]), (5.0, SHORT[200:]),
                                              (60.0, LONG)])
    at = next(line for line in lines if line.startswith("embedding places: 300/400 paragraphs"))
    work_left = sum(place_cost(t) for t in LONG)
    pace = sum(place_cost(t) for t in SHORT[100:]) / 4.0  # the work done after the first batch, per second
    assert at.detail["leftS"] == round(work_left / pace) and at.detail["leftS"] > 30, at
    assert at.endswith(f"5 s so far, about {at.detail['leftS']} s left") or "m " in at, at


def test_an_estimate_that_stops_falling_near_the_end_says_finishing_until_the_end(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Like places at a slowing pace (a loaded machine): the estimate stood at a few seconds on line after line.
    Once it no longer falls as the clock runs, the line says "finishing", and says it until the step ends."""
    texts = [f"Paragraph {i:03d} of a long handbook about blade heating." for i in range(1000)]
    batches = [(1.0, texts[:100]), (5.0, texts[100:700]), (9.0, texts[700:850]), (13.0, texts[850:900]),
               (17.0, texts[900:950]), (21.0, texts[950:1000])]
    lines = _lines(monkeypatch, texts, batches)
    said = {line.split(";")[0]: line for line in lines}
    # 600 in the 4 s after the first batch: 150 a second, 300 left
    assert said["embedding places: 700/1000 paragraphs"].endswith("5 s so far, about 2 s left")
    assert said["embedding places: 850/1000 paragraphs"].endswith("9 s so far, finishing")  # 2 s said 4 s ago
    for n in (900, 950):
        assert said[f"embedding places: {n}/1000 paragraphs"].endswith(", finishing")
        assert said[f"embedding places: {n}/1000 paragraphs"].detail["finishing"] is True
        assert "leftS" not in said[f"embedding places: {n}/1000 paragraphs"].detail
    assert lines[-1] == "embedding places: 1000/1000 paragraphs in 21 s"


def test_never_about_0_s_left() -> None:
    """nc26a: "about 0 s left" at 1329/1349, then 4 s more: under a second left reads "finishing"."""
    pace = Pace(1000.0)
    pace.batch(1.0, 100.0)
    assert pace.left(5.0, 990.0) == (", finishing", {"finishing": True})


def test_a_falling_estimate_is_said_as_a_number() -> None:
    pace = Pace(1000.0)
    pace.batch(1.0, 100.0)
    assert pace.left(5.0, 300.0) == (", about 14 s left", {"leftS": 14})
    assert pace.left(9.0, 500.0) == (", about 10 s left", {"leftS": 10})  # fell as the clock ran
    assert FINISHING_S >= 4.0  # a heartbeat's seconds (meaning.EMBED_HEARTBEAT_S) fit under it


def test_a_places_cost_is_about_its_tokens_up_to_what_the_model_reads() -> None:
    assert place_cost("Nut.") < place_cost("The elastic stop nut is a standard nut with a fiber collar.")
    assert place_cost("核电厂定期安全审查") > place_cost("nuclear")  # a CJK character is about a token
    assert place_cost("word " * 1000) == place_cost("word " * 2000)  # the model reads 128 tokens at most
