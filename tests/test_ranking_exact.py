"""A file whose first place is exact goes before an approximate one that scores barely more (``exactAhead``).

Replays one recorded real search (tests/data/ranking/exact_ahead.json: the old set's zh12, e5usexlang engine,
round 21): "能在哪些操作系统上运行" (which operating systems does it run on). The answering file's table row
"操作系统 | Linux 22.04 | Windows10/11 | MacOS 11+" is placed exactly, on the question's own words; a Chinese PDF
whose passage was placed only by meaning, outside the passage ("placed by meaning among the file's text blocks,
outside the cited passage"), scored 0.333 against its 0.319 on the provider's rank alone.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mnote_kr.citations.rank import exactahead, meaningahead
from mnote_kr.citations.rank.ranking import Candidate, relevance

CASE = json.loads((Path(__file__).parent / "data" / "ranking" / "exact_ahead.json").read_text(encoding="utf-8"))
SEARCH = CASE["searches"][0]
CANDS = [Candidate(c["providerRank"], c["fileName"], c["text"], tuple(c["headingPath"]), c["meaning"],
                   approximate=c["approximate"], unplaced=c["unplaced"]) for c in SEARCH["candidates"]]


def _files(cands: list[Candidate]) -> list[tuple[str, bool]]:
    """The files in the host's order (score, then input order), each with whether its first place is approximate."""
    scores = relevance(SEARCH["query"], cands, max(c.provider_rank for c in cands) + 1)
    seen: dict[str, bool] = {}
    for i in sorted(range(len(cands)), key=lambda i: (-scores[i][0], i)):
        seen.setdefault(cands[i].file_name, cands[i].approximate)
    return list(seen.items())


def test_an_exact_place_goes_before_an_approximate_one_of_another_file_scoring_barely_more(
        monkeypatch: pytest.MonkeyPatch) -> None:
    files = _files(CANDS)
    names = [f for f, _ in files]
    assert names.index(SEARCH["file"]) == 1, files[:4]
    assert files[2] == ("chatchat__1.pdf", True)  # the approximate file it passed, right behind it
    # the same search with the answering file's place approximate: the PDF keeps its lead (exactness alone: the file
    # is also 0.07 nearer by meaning than the PDF, which moves it as well, test_meaning_ahead)
    monkeypatch.setattr(meaningahead, "MEANING_LEAD", None)
    cands = [c if c.file_name != SEARCH["file"] else Candidate(**{**c.__dict__, "approximate": True}) for c in CANDS]
    assert [f for f, _ in _files(cands)].index(SEARCH["file"]) == 2
    # and with a margin below the two scores' gap (0.333 vs 0.319: 4%), the exact file stays third
    monkeypatch.setattr(exactahead, "EXACT_MARGIN", 0.03)
    assert [f for f, _ in _files(CANDS)].index(SEARCH["file"]) == 2


class _Place:
    def __init__(self, file_name: str, approximate: bool) -> None:
        self.file_name, self.approximate, self.unplaced = file_name, approximate, False


#: Approximate scores (as the ranking sums them) and the exact score at their bound: 10% of the approximate one's
#: score below it (7.7 and 6.93: 0.77 apart). Worked out by hand, in decimals; as floats, ``7.7 - 6.93`` is
#: 0.7700000000000005, more than ``0.1 * 7.7`` (0.77), and ``0.07 - 0.063`` (0.007000000000000006) more than
#: ``0.1 * 0.07`` (0.007000000000000001): the bound's own pair was left out by a float's last bits (0.7 and 0.63
#: happened to land inside).
BOUNDS = [(0.07, 0.063), (0.7, 0.63), (0.1, 0.09), (0.17, 0.153), (7.7, 6.93), (1.0, 0.9), (0.333, 0.2997)]


@pytest.mark.parametrize(("approximate", "exact"), BOUNDS)
def test_an_exact_place_at_the_margins_bound_steps_ahead_and_one_just_past_it_does_not(
        approximate: float, exact: float) -> None:
    places = [_Place("approx.pdf", True), _Place("exact.docx", False)]
    out: list[tuple[float, dict[str, float]]] = [(approximate, {}), (exact, {})]
    exactahead.exact_ahead(out, places)
    assert out[1][0] > out[0][0], (approximate, exact, out)  # at the bound: within "at most 10% more"
    assert out[1][1]["exactAhead"] > 0
    past = exact * (1 - 1e-6)  # a millionth below the bound: outside it
    out = [(approximate, {}), (past, {})]
    exactahead.exact_ahead(out, places)
    assert out == [(approximate, {}), (past, {})]


#: nc25c's "sourdough fermentation" (round 25): the DOJ handbook's passage (LightRAG's chunk 90 in nc25c's index, an
#: excerpt), holding neither word, placed by meaning; ``mineru__docx_01.docx``'s reference list (its chunk 17, an
#: excerpt), whose ¶473 holds the query as written, placed exact. The provider ranked the handbook first.
HANDBOOK = ("g.\tDocument Destruction (Sarbanes-Oxley)\nThe Sarbanes-Oxley Act, 18 U.S.C. § 1519, provides a broader "
            "tool for document related offenses than those codified under 18 U.S.C. § 152.  It provides for longer "
            "sentences, has a lesser\nextent element, and addresses alteration of documents, which is not covered "
            "under section 152 of title 18.")
REFERENCE = ("[1] Anderson, T., & Smith, J. (2024). The impact of quantum entanglement on sourdough fermentation "
             "rates. Journal of Applied Chrono-Culinary Arts, 8(2), 112-125.")
REFERENCES = (f"# 4\t参考文献\n{REFERENCE}\n[2] Bennett, L. M. (2025). Copyright infringement in artificially "
              "synthesized android dreams: A legal framework. Cybernetic Law Review, 41(3), 45-67.")


def _first_file(query: str, handbook: str, docx_rank: int) -> str:
    cands = [Candidate(0, "unstructured__handbook-872p.docx", handbook, ("g. Document Destruction (Sarbanes-Oxley)",),
                       None, approximate=True, place=handbook.split("\n")[-1]),
             Candidate(docx_rank, "mineru__docx_01.docx", REFERENCES, ("4\t参考文献",), None, approximate=False,
                       place=REFERENCE)]
    scores = relevance(query, cands, 10)
    return cands[max(range(len(cands)), key=lambda i: (scores[i][0], -i))].file_name


@pytest.mark.parametrize("docx_rank", [1, 2, 5])
def test_an_exact_place_holding_the_query_as_written_goes_before_a_file_holding_none_of_its_words(
        docx_rank: int) -> None:
    assert _first_file("sourdough fermentation", HANDBOOK, docx_rank) == "mineru__docx_01.docx"
    # a handbook passage holding the query's words keeps the margin's rule: a reference list naming them, a quarter
    # of its score, does not pass a passage saying them
    said = HANDBOOK + "\nSourdough fermentation of documents is no defence under section 1519."
    assert _first_file("sourdough fermentation", said, docx_rank) == "unstructured__handbook-872p.docx"
