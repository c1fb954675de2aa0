"""A query's word written inside a compound of a passage counts as held wherever the weak rule reads words
(``weakwords.passage_words``): nc27a Q4, "What does the Apache project called Tika do?", cited the answering paragraph
("... Apache Tika is a subproject of the Lucene") first and was flagged weak, "none naming it holds any other word of
the query (project)". Replayed on the newcomer's recorded cards (``tests/data/ranking/weak_compound.json``: each
card's passage, its ranking parts and cosine) with a library of 13 files, one of which names Apache and Tika."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from mnote_kr.citations.caches import libwords
from mnote_kr.citations.render.noresults import weak_reason
from mnote_kr.citations.render.weakwords import passage_words
from mnote_kr.models import Citation
from tests.test_weak_variants import place

RECORDED = json.loads((Path(__file__).parent / "data" / "ranking" / "weak_compound.json").read_text(encoding="utf-8"))
LIBRARY = libwords.LibraryWords.counts(13, {"apache": 1, "tika": 1})


def cards(subproject: str = "subproject") -> list[Citation]:
    out = []
    for i, p in enumerate(RECORDED["places"]):
        c = place(f"c{i}", p["quote"].replace("subproject", subproject), p["path"], **p["parts"])
        out.append(msgspec.structs.replace(c, locator=msgspec.structs.replace(c.locator, meaning_score=p["meaning"])))
    return out


@pytest.mark.parametrize("compound", ["subproject", "sub-project", "subprojects", "projects", "co-project"])
def test_a_query_word_inside_a_compound_of_the_answering_passage_is_held(compound: str) -> None:
    assert weak_reason(cards(compound), RECORDED["q"], lambda: LIBRARY) is None


def test_without_the_compound_the_names_only_rule_still_says_weak() -> None:
    reason = weak_reason(cards("module"), RECORDED["q"], lambda: LIBRARY)
    assert reason is not None and reason.startswith("the passages found name Apache, Tika") and "(project)" in reason


@pytest.mark.parametrize(("text", "word"), [
    ("Apache Tika is a subproject of the Lucene", "project"),
    ("the co-authors signed", "author"),
    ("send it by e-mail", "email"),
    ("two maps of the site", "map"),
    ("a map of the site", "maps"),
    ("a multimedia course", "media"),
])
def test_passage_words_reads_a_word_inside_its_compound(text: str, word: str) -> None:
    assert word in passage_words(text)


@pytest.mark.parametrize(("text", "word"), [
    ("we recover the data", "cover"),  # a prefix making another word is no compound of it
    ("the interview went well", "view"),
    ("they understand it", "stand"),
    ("a coward ran", "ward"),  # a short rest after a prefix is as often another word's end
    ("Microsoft Word", "soft"),
    ("the project manager", "subproject"),  # the compound is the query's: the passage holds only its part
])
def test_passage_words_does_not_read_a_word_another_word_ends_with(text: str, word: str) -> None:
    assert word not in passage_words(text)
