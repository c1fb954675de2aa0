"""A file whose first place is clearly nearer the question by meaning goes before the files above it
(``rank.meaningahead``).

Replays one search of nc24a's library (tests/data/ranking/meaning_ahead.json, its note says how it was recorded):
"谁对定期安全评价负主要责任，可以交给外单位做吗？" over four drafts of one Chinese standard cited Part 12's and Part
6's shared introduction (HAF 103, cosine 0.779) before Part 1's clause 5.4.1, which answers it (0.825).
"""

from __future__ import annotations

import json
from pathlib import Path

from mnote_kr.citations.rank import meaningahead
from mnote_kr.citations.rank.ranking import Candidate, relevance

CASE = json.loads((Path(__file__).parent / "data" / "ranking" / "meaning_ahead.json").read_text(encoding="utf-8"))
SEARCH = CASE["searches"][0]
CANDS = [Candidate(c["providerRank"], c["fileName"], c["text"], tuple(c["headingPath"]), c["meaning"],
                   approximate=c["approximate"], place=c["place"], unplaced=c["unplaced"])
         for c in SEARCH["candidates"]]
PART1 = "chatchat__核电厂定期安全审查指南 第1部分：通用要求（征求意见稿）.docx"


def _firsts(query: str, cands: list[Candidate]) -> list[tuple[str, str]]:
    """Each file in the host's order (score, then input order) with its first place's words."""
    scores = relevance(query, cands, SEARCH["total"])
    seen: dict[str, str] = {}
    for i in sorted(range(len(cands)), key=lambda i: (-scores[i][0], i)):
        seen.setdefault(cands[i].file_name, cands[i].place)
    return list(seen.items())


def test_the_part_whose_clause_answers_goes_before_the_parts_cited_on_their_shared_introduction() -> None:
    firsts = _firsts(SEARCH["query"], CANDS)
    assert firsts[0][0] == PART1, firsts
    assert firsts[0][1].startswith("5.4.1 核电厂定期安全评价的责任主体为核电厂营运单位"), firsts
    # the parts it stepped over keep their order behind it
    assert [f for f, _ in firsts[1:3]] == [CANDS[0].file_name, CANDS[1].file_name]


def test_a_lead_under_the_margin_or_across_scripts_moves_no_file() -> None:
    lead = meaningahead.MEANING_LEAD or 0.0
    # the answering place only just nearer than the introductions: the provider's order stands
    close = [c if c.file_name != PART1 or c.meaning != 0.825033 else
             Candidate(**{**c.__dict__, "meaning": 0.778813 + lead - 0.001}) for c in CANDS]
    assert _firsts(SEARCH["query"], close)[0][0] == CANDS[0].file_name
    # an English place far nearer than the Chinese ones above it: a cosine across scripts tells nothing
    english = [c if c.file_name != PART1 or c.meaning != 0.825033 else
               Candidate(**{**c.__dict__, "place": "The operating organization is responsible for the review.",
                            "text": "The operating organization is responsible for the review."}) for c in CANDS]
    assert _firsts(SEARCH["query"], english)[0][0] == CANDS[0].file_name


def test_a_file_on_the_place_or_section_the_query_names_keeps_its_lead() -> None:
    near = Candidate(1, "b.docx", "clause", meaning=0.90, place="the clause answering it")
    named = Candidate(0, "a.docx", "intro", meaning=0.70, place="the introduction of page two")
    out = [(2.0, {"named": 1.0}), (0.5, {})]
    meaningahead.meaning_ahead(out, [named, near], "the question asked")
    assert out[1][0] < out[0][0] and "meaningAhead" not in out[1][1]
    out = [(2.0, {}), (0.5, {})]
    meaningahead.meaning_ahead(out, [named, near], "the question asked")
    assert out[1][0] > out[0][0] and out[1][1]["meaningAhead"] > 0
