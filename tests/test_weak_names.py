"""A query naming something the library holds but asking what nothing naming it says is weak
(``weakmore.names_only``), replayed on two recorded searches of the relevance floor's benchmark run
(``tests/data/ranking/weak_names.json``: every place the provider returned, trimmed to what the rule reads, and the
benchmark library's counts of the queries' words)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mnote_kr.citations.caches import libwords
from mnote_kr.citations.render.noresults import COMMON_WORDS, weak_reason
from mnote_kr.citations.render.weakmore import names_only, query_names
from mnote_kr.models import Citation
from tests.test_weak_variants import recorded_place

RECORDED = json.loads((Path(__file__).parent / "data" / "ranking" / "weak_names.json").read_text(encoding="utf-8"))


def library(**df: int) -> libwords.LibraryWords:
    return libwords.LibraryWords.counts(RECORDED["files"], dict(RECORDED["df"]) | df)


def search(key: str, chunk_extra: str = "") -> tuple[list[Citation], str]:
    """The recorded search ``key``: its places in the provider's order, and its query; ``chunk_extra`` added to
    every chunk that names Tokyo."""
    def chunk(c: dict[str, Any]) -> str:
        text: str = RECORDED["chunks"][c["chunk"]]
        return text + chunk_extra if "Tokyo" in text else text

    s = RECORDED["searches"][key]
    return [recorded_place(c, chunk(c)) for c in s["read"]], s["q"]


def test_a_query_naming_what_the_library_names_but_asking_what_no_naming_passage_says_is_weak() -> None:
    cites, query = search("offn02")  # "what was the population of Tokyo in 2020": an off-topic tuning query
    assert weak_reason(cites, query) is None  # Tokyo and population are each in some passage
    reason = weak_reason(cites, query, lambda: library())
    assert reason is not None and "name Tokyo" in reason and "(population)" in reason
    # "What was Bangalore's population in the 1971 census?": the census table of the same article names Bangalore
    # and holds population
    cites, query = search("tb_en13")
    assert weak_reason(cites, query, lambda: library()) is None


def test_a_passage_naming_it_and_saying_another_word_of_the_query_clears_it() -> None:
    cites, query = search("offn02")
    assert (weak_reason(cites, query, lambda: library()) or "").startswith("the passages found name Tokyo")
    cites, query = search("offn02", chunk_extra=" Population of the city: 14 million.")
    assert weak_reason(cites, query, lambda: library()) is None


def test_a_word_many_files_hold_is_no_name_and_a_date_is_none() -> None:
    cites, query = search("offn02")
    assert names_only(cites, query, lambda: library(), COMMON_WORDS) == (["tokyo"], ["population"])
    assert names_only(cites, query, lambda: library(tokyo=3), COMMON_WORDS) == ([], [])  # three files of 46 write it
    assert query_names("what did the party secretary say at the March 2016 meeting in Shenyang") == {"shenyang"}
    assert query_names("How much RAM does NANDrive need on IBM DB2") == {"ram", "nandrive", "ibm", "db2"}
    assert query_names("Which city is it") == set()  # a question's first word is capitalised, not a name
