"""``copyable.mostly_glyphs`` is asked of every place a search shows and of every place behind a passage, again at
each search: its answer is remembered by text (``GLYPHS_MEMO_MAX``), the same answer as measured (round 27,
``benchmarks/search_cost.py``: re-measuring place texts was ~4 s of 30 warm searches ranked by meaning)."""

from __future__ import annotations

import pytest

from mnote_kr.citations.cleaning import copyable

TEXTS = ["Battery cell capacity test 12: cell A12 kept 3084 mAh after 412 cycles.",
         "K¥\"N ²£+8B\" {±^5)û 2009 c8ÔèÿÁ1 1 U",  # mojibake: a font without a usable Unicode map
         "1@>8:?.A?@2D2 ka>29:92># 8:?.A",  # a figure's labels read through a font without letters
         "放热反应，Q<0，反应物的总能量高于生成物的总能量。"]


@pytest.fixture
def measured(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = copyable.mojibake

    def counted(text: str) -> bool:
        seen.append(text)
        return real(text)

    monkeypatch.setattr(copyable, "mojibake", counted)
    monkeypatch.setattr(copyable, "_glyphs_memo", {})
    return seen


def test_a_texts_glyph_answer_is_measured_once_and_is_the_measures(measured: list[str]) -> None:
    first = [copyable.mostly_glyphs(t) for t in TEXTS]
    again = [copyable.mostly_glyphs(t) for _ in range(3) for t in TEXTS]
    assert first == [copyable._mostly_glyphs(t) for t in TEXTS] == [False, True, True, False]
    assert again == first * 3
    assert measured.count(TEXTS[0]) == 2  # once remembered, once by the direct measure above


def test_no_memo_measures_every_ask(measured: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(copyable, "GLYPHS_MEMO_MAX", 0)
    assert [copyable.mostly_glyphs(TEXTS[1]) for _ in range(3)] == [True] * 3
    assert measured == [TEXTS[1]] * 3 and copyable._glyphs_memo == {}


def test_a_full_memo_starts_again(measured: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(copyable, "GLYPHS_MEMO_MAX", 2)
    for t in TEXTS:
        copyable.mostly_glyphs(t)
    assert len(copyable._glyphs_memo) <= 2 and copyable.mostly_glyphs(TEXTS[3]) is False
