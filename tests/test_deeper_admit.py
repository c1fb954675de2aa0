"""Files from deeper in LightRAG's list are ranked only when their meaning earns a place (``rank.deeper``,
``rank.deeperslot``).

Replays ``data/deeper/t3_zh01_citations.json``: every citation the host built for a Chinese tuning question in
r22's engine run with five deeper files passed on (ranks above 20), each with its place's cosine from the stored
vectors. The answering English PDF (``mineru__demo3.pdf``) came from LightRAG's 22nd chunk.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mnote_kr.citations.rank import deeper, deeperslot
from mnote_kr.citations.rank.ranking import Candidate, relevance

DATA = Path(__file__).parent / "data" / "deeper" / "t3_zh01_citations.json"
RECORDED = json.loads(DATA.read_text(encoding="utf-8"))
CITATIONS: list[dict[str, Any]] = RECORDED["citations"]
QUERY: str = RECORDED["question"]
WANTED: int = RECORDED["wanted"]


def _rows() -> list[deeper.Row]:
    return [deeper.Row(c["file"], c["rank"], c["rank"] > WANTED, c["meaning"], c["text"]) for c in CITATIONS]


def _first_five(ranks: list[int | None]) -> list[str]:
    """The first five files the host's ranking gives the citations kept, each at the rank given."""
    kept = [(c, r) for c, r in zip(CITATIONS, ranks, strict=True) if r is not None]
    cands = [Candidate(r, Path(c["file"]).name, c["text"], tuple(c["headings"]), c["meaning"],
                       approximate=c["approximate"], unplaced=c["unplaced"]) for c, r in kept]
    scores = [s for s, _ in relevance(QUERY, cands, len(cands))]
    files: list[str] = []
    for _, _, (c, _) in sorted(zip(scores, range(len(kept)), kept, strict=True), key=lambda t: (-t[0], t[1])):
        if c["file"] not in files:
            files.append(c["file"])
    return files[:5]


def _given(ranks: list[int | None]) -> dict[str, set[int | None]]:
    out: dict[str, set[int | None]] = {}
    for c, r in zip(CITATIONS, ranks, strict=True):
        out.setdefault(c["file"], set()).add(r)
    return out


def test_the_answering_deeper_file_is_admitted_by_meaning_into_the_first_five() -> None:
    answer = RECORDED["answer_file"]
    without = [c["rank"] if c["rank"] <= WANTED else None for c in CITATIONS]
    assert answer not in _first_five(without)  # from the first 20 chunks' files alone it is missed
    ranks = deeperslot.admitted(QUERY, _rows())
    # the best deeper file by meaning (0.738) beats the weakest of the provider's first five (nics, rank 20,
    # 0.673): it ranks right after the fourth (naacl, 13) (``rank.deeperslot``), never before the first four
    assert _given(ranks)[answer] == {14}
    five = _first_five(ranks)
    assert answer in five
    assert {"docs/weknora__WeKnora.pdf", "docs/khoj__bangalore.docx", "docs/mineru__test.docx",
            "docs/pdfminer__naacl06-shinyama.pdf"} <= set(five)
    # the files the provider was asked for keep their own ranks
    assert all(r == c["rank"] for c, r in zip(CITATIONS, ranks, strict=True) if c["rank"] <= WANTED)


def test_one_deeper_file_is_admitted_the_second_best_by_meaning_stays_out() -> None:
    # poi__stress008.docx (English, 0.712) beats nics too; r23's rule admitted it as well, before bangalore
    assert _given(deeperslot.admitted(QUERY, _rows()))["docs/poi__stress008.docx"] == {None}


def test_r23s_rule_stays_behind_its_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deeperslot, "FIFTH", False)
    given = _given(deeperslot.admitted(QUERY, _rows()))
    # both English files, each as the first of the five it beats (bangalore, rank 3)
    assert given[RECORDED["answer_file"]] == {3} and given["docs/poi__stress008.docx"] == {3}


def test_a_deeper_file_no_better_than_the_weakest_of_the_five_is_dropped() -> None:
    rows = [deeper.Row(f"docs/{n}.pdf", k, False, m, "English text") for k, (n, m) in
            enumerate((("a", 0.8), ("b", 0.75), ("c", 0.74), ("d", 0.73), ("e", 0.72)), start=1)]
    rows.append(deeper.Row("docs/deep.pdf", 6, True, 0.72, "English text of another kind"))  # a tie is no lead
    assert deeperslot.slotted("这是什么问题", rows) == [1, 2, 3, 4, 5, None]
    rows[-1] = deeper.Row("docs/deep.pdf", 6, True, 0.721, "English text of another kind")
    assert deeperslot.slotted("这是什么问题", rows) == [1, 2, 3, 4, 5, 5]


def test_with_fewer_than_five_files_an_admitted_file_keeps_its_own_rank() -> None:
    rows = [deeper.Row("docs/a.pdf", 1, False, 0.7, "English"), deeper.Row("docs/b.pdf", 2, False, 0.6, "English"),
            deeper.Row("docs/deep.docx", 3, True, 0.65, "English")]
    assert deeperslot.slotted("一个中文问题", rows) == [1, 2, 3]
    assert deeperslot.slotted("an English question", rows) == [1, 2, None]  # the question's own script


def test_a_deeper_file_weak_in_meaning_or_in_the_questions_script_stays_out() -> None:
    ranks = deeperslot.admitted(QUERY, _rows())
    out = {c["file"] for c, r in zip(CITATIONS, ranks, strict=True) if r is None}
    # an English DOCX whose best place (0.638) is below every one of the first five files' (0.673 and above)
    assert "docs/mineru__docx_01.docx" in out
    # a Chinese PDF near in meaning (0.724) but in the question's own script: its words had their chance
    assert "docs/chatchat__1.pdf" in out
    assert deeper.script(QUERY) == "cjk"


def test_no_deeper_file_leaves_every_rank_as_it_is() -> None:
    rows = [r for r in _rows() if not r.deeper]
    assert deeperslot.admitted(QUERY, rows) == [r.rank for r in rows]


def test_scripts_are_told_apart_by_most_letters() -> None:
    assert deeper.script("新模型为什么 GPT") == "cjk"
    assert deeper.script("이 카드는 연회비가 없습니다") == "hangul"
    assert deeper.script("The annual fee is waived 年费") == "latin"
    assert deeper.script("کتاب فارسی") == "other"
    assert deeper.script("12 34 ...") is None
