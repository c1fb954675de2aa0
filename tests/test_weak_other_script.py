"""An English question cleared by a few of its words in an English file, while a file in another script was found as
close in meaning, is said uncertain (``weakscript.across_reason``). Replayed on a recorded search
(``tests/data/ranking/weak_across_script.json``: every place the weak rule read, its passage, ranking parts and
cosine): "No later than how many days after signing must the work be finished?" over nc27c's folder put a visa form's
"Sign and date each form" first, unflagged, and the Russian contract's "не позднее 65 ... календарных дней" second."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from mnote_kr.agents.tools import weak_note
from mnote_kr.citations.caches import libwords
from mnote_kr.citations.render import weakscript
from mnote_kr.citations.render.noresults import weak_reason
from mnote_kr.citations.render.weakscript import latin_share
from mnote_kr.models import Citation
from tests.test_weak_variants import place

RECORDED = json.loads((Path(__file__).parent / "data" / "ranking" / "weak_across_script.json")
                      .read_text(encoding="utf-8"))
LIBRARY = libwords.LibraryWords.counts(RECORDED["libraryFiles"], RECORDED["libraryDf"])
RUSSIAN = "poi__bug65649.docx"


def cards(places: list[dict] | None = None) -> list[Citation]:
    out = []
    for i, p in enumerate(RECORDED["places"] if places is None else places):
        c = place(f"c{i}", p["passage"], p["path"], **p["parts"])
        out.append(msgspec.structs.replace(c, display_quote=p["display"], locator=msgspec.structs.replace(
            c.locator, meaning_score=p["meaning"])))
    return out


def test_a_thin_english_match_with_a_closer_file_in_another_script_is_uncertain() -> None:
    reason = weak_reason(cards(), RECORDED["q"], lambda: LIBRARY)
    assert reason is not None
    assert RUSSIAN in reason and "another script" in reason and "(days, signing, work)" in reason
    assert "Read the first passage and the named file's place" in weak_note(reason)  # MCP: read both, not "nothing"


def test_without_the_rule_the_recorded_search_is_cleared_by_its_words(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(weakscript, "ACROSS_SCRIPT", False)
    assert weak_reason(cards(), RECORDED["q"], lambda: LIBRARY) is None


def test_no_file_in_another_script_found_leaves_the_search_cleared() -> None:
    latin = [p for p in RECORDED["places"] if latin_share(p["passage"]) > weakscript.OTHER_SCRIPT]
    assert len(latin) < len(RECORDED["places"])
    assert weak_reason(cards(latin), RECORDED["q"], lambda: LIBRARY) is None


def test_the_other_script_farther_in_meaning_leaves_it_cleared() -> None:
    first = RECORDED["places"][0]["meaning"] - weakscript.ABSENT_NEAR - 0.01  # "finish" is in no file: the near clause
    farther = [p | {"meaning": min(p["meaning"] or 0.0, first)} if latin_share(p["passage"]) <= weakscript.OTHER_SCRIPT
               else p for p in RECORDED["places"]]  # the Russian contract, and the Japanese and Chinese files too
    assert weak_reason(cards(farther), RECORDED["q"], lambda: LIBRARY) is None


def test_a_first_file_holding_most_of_the_query_is_not_doubted() -> None:
    first = RECORDED["places"][0]["path"]
    fuller = [p | {"passage": p["passage"] + " The work is finished no later than ten days after signing."}
              if p["path"] == first else p for p in RECORDED["places"]]
    assert weak_reason(cards(fuller), RECORDED["q"], lambda: LIBRARY) is None


def test_a_word_in_no_file_lets_a_nearly_as_close_other_script_file_count() -> None:
    first = RECORDED["places"][0]["meaning"]
    nearly = [p | {"meaning": first - 0.02} if p["path"] == RUSSIAN else p for p in RECORDED["places"]]
    query = RECORDED["q"].replace("signing", "notarising")  # "notaris" is in no file; the first file holds days, work
    reason = weak_reason(cards(nearly), query, lambda: LIBRARY)
    assert reason is not None and "notarising" in reason and "in no file" in reason and RUSSIAN in reason


@pytest.mark.parametrize(("text", "share"), [
    ("Усилие удержания: 400 кг.", 0.0), ("مكتبة pandas", 6 / 11), ("빅포인트의 유효기간", 0.0), ("café crème", 1.0),
    ("本合同一式四份", 0.0), ("12 34", 0.0)])
def test_latin_share_reads_every_script(text: str, share: float) -> None:
    assert latin_share(text) == pytest.approx(share)


def test_the_uncertain_reason_reads_as_english_whatever_the_first_file_holds() -> None:
    """nc29a: "holds at most half the query's words (none), picture, webp is in no file of this library written in
    the query's script, and ...": the words the first file holds are counted ("none of", "only 1 of the query's 4"),
    the words no file holds are joined as a list with its verb ("picture and webp are")."""
    first = RECORDED["places"][0]
    nearly = [p | {"meaning": first["meaning"] - 0.02} if p["path"] == RUSSIAN else p for p in RECORDED["places"]]
    reason = weak_reason(cards(nearly), "which sheet tests a WebP office", lambda: LIBRARY) or ""
    assert reason.startswith("the first file found holds only 1 of the query's 4 words (office); 'sheet' and 'WebP' "
                             "are in no file of this library; and poi__bug65649.docx, written in another script")
    bare = [p | {"passage": "Expected duration of the immediate trip"} if p["path"] == first["path"] else p
            for p in nearly]
    reason = weak_reason(cards(bare), "which sheet tests a WebP sign", lambda: LIBRARY) or ""  # 'sign': the scan's
    assert reason.startswith("the first file found holds none of the query's words; 'sheet' and 'WebP' are in no file")
    assert "(none)" not in reason and " is in no file" not in reason
