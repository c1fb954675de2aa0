"""A short query built from words common in the library is weak (``noresults.library_plain``), replayed on two
recorded searches of the relevance floor's benchmark run (``tests/data/ranking/weak_plain.json``: every place the
provider returned, trimmed to what the rule reads, and the benchmark library's counts of the queries' words)."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from mnote_kr.citations.caches import libwords
from mnote_kr.citations.render.noresults import weak_reason
from mnote_kr.models import Citation
from tests.test_weak_variants import recorded_place

RECORDED = json.loads((Path(__file__).parent / "data" / "ranking" / "weak_plain.json").read_text(encoding="utf-8"))


def library(files: int = RECORDED["files"]) -> libwords.LibraryWords:
    return libwords.LibraryWords.counts(files, dict(RECORDED["df"]))


def search(key: str) -> tuple[list[Citation], str]:
    """The recorded search ``key``: its places in the provider's order, and its query."""
    s = RECORDED["searches"][key]
    return [recorded_place(c, RECORDED["chunks"][c["chunk"]]) for c in s["read"]], s["q"]


def test_a_short_query_of_the_library_s_common_words_is_weak_and_an_answer_in_the_same_words_is_not() -> None:
    cites, query = search("off43")  # "how to train for a 5k run": an off-topic tuning query
    assert weak_reason(cites, query) is None  # without the counts, "run" and "train" in passages clear it
    reason = weak_reason(cites, query, library)  # "train" is in 10 of the 46 files, "run" in 6
    assert reason is not None and "common in this library (run, train)" in reason
    # "How many characters may the summary of research achievements run to?": a right answer holding "run" too,
    # whose passages hold research (10 files) and run together, achievement (2 files) elsewhere
    cites, query = search("t5_en07")
    assert weak_reason(cites, query, library) is None


def test_a_first_place_close_in_meaning_or_a_small_library_keeps_it_answered() -> None:
    cites, query = search("off43")
    assert weak_reason(cites, query, library) is not None
    close = msgspec.structs.replace(cites[0].locator, meaning_score=0.70)
    assert weak_reason([msgspec.structs.replace(cites[0], locator=close), *cites[1:]], query, library) is None
    # in a library of 9 files the small library's rule judges it (``weakmore.small_plain``), in one of 2 none does
    assert (weak_reason(cites, query, lambda: library(files=9)) or "").startswith("in this small library")
    assert weak_reason(cites, query, lambda: library(files=2)) is None


def test_a_word_one_file_holds_is_never_called_common_in_a_library_of_a_dozen_files() -> None:
    """nc29a Q6: 'hire', in one shape of one file of 13, was called one of the "words common in this library": a word
    a single file holds weighs ln(14 / 1.5) = 2.2 there, below ``PLAIN_IDF`` (set for a library of 46). The bar is
    that weight at most: in such a library two files holding a word make it common, one does not."""
    cites, query = search("off43")
    rare = {**RECORDED["df"], "train": 1, "run": 1}
    reason = weak_reason(cites, query, lambda: libwords.LibraryWords.counts(13, rare))
    assert reason is None or "common in this library" not in reason
    common = {**RECORDED["df"], "train": 2, "run": 2}
    reason = weak_reason(cites, query, lambda: libwords.LibraryWords.counts(13, common))
    assert reason is not None and "common in this library (run, train)" in reason
