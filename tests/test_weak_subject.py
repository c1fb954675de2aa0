"""The weak flag agrees with the cards' own reasons, and a subject the library lacks is weak
(``render.weakabsent``), replayed on three searches newcomers ran (``tests/data/ranking/weak_subject.json``: each
search's cards and alternatives as its JSON output gave them, and its workspace's library counts of the query's
words)."""

from __future__ import annotations

import json
from pathlib import Path

from mnote_kr.citations.caches import libwords
from mnote_kr.citations.render import weakabsent
from mnote_kr.citations.render.noresults import weak_reason
from mnote_kr.models import Citation
from tests.test_weak_variants import recorded_place

RECORDED = json.loads((Path(__file__).parent / "data" / "ranking" / "weak_subject.json").read_text(encoding="utf-8"))


def library(key: str, **df: int) -> libwords.LibraryWords:
    lib = RECORDED["libraries"][RECORDED["searches"][key]["library"]]
    return libwords.LibraryWords.counts(lib["files"], dict(lib["df"]) | df)


def search(key: str, reason: dict[str, str] | None = None) -> tuple[list[Citation], str]:
    """The recorded search ``key``: its places in order, and its query; ``reason`` replaces the locator's reason of
    the places it names (by citation ID)."""
    s = RECORDED["searches"][key]
    return [recorded_place(c, s["chunks"][c["chunk"]], (reason or {}).get(c["id"])) for c in s["read"]], s["q"]


def test_every_card_shown_saying_it_only_names_the_subject_makes_the_search_weak() -> None:
    # nc24a Q10: three cards on the term line "定期安全评价 periodic safety review", each saying it holds only the words
    # naming its document's subject; the note listing the safety factors in Chinese is a weaker match
    cites, query = search("nc24a_q10")
    assert RECORDED["searches"]["nc24a_q10"]["weakThen"] is False
    shown = weakabsent.shown_cards(cites)
    assert [c.citation_id for c in shown] == ["[ek0p]", "[41fn]", "[f27i]"]
    reason = weak_reason(cites, query, lambda: library("nc24a_q10"))
    assert reason is not None and "as each card's reason says" in reason
    # one card shown whole saying it was placed by the query's words: not weak
    cites, query = search("nc24a_q10", {"[41fn]": "matched evidence holding the query terms (seg)"})
    assert weak_reason(cites, query, lambda: library("nc24a_q10")) is None


def test_a_name_no_file_holds_makes_the_search_weak() -> None:
    # nc24b problem 2: cleared by "recognition" in a note and "data structures (e.g., hash tables)" in tracemonkey.pdf
    cites, query = search("nc24b_q12")
    assert RECORDED["searches"]["nc24b_q12"]["weakThen"] is False
    reason = weak_reason(cites, query, lambda: library("nc24b_q12"))
    assert reason is not None and reason.startswith("the query asks about TableFormer, which no file")
    # a library one file of which names TableFormer: the search is not judged by a name it lacks
    assert weak_reason(cites, query, lambda: library("nc24b_q12", tableformer=1)) is None
    assert weakabsent.name_absent(cites, query, lambda: library("nc24b_q12")) == ["tableformer"]
