"""Two weak flags a newcomer (round 22, nc22b, problems 1 and 5) found wrong, on real passages of the repo's corpus.

1. ``search "chocolate cake baking temperature"`` over 17 files was not weak: its first place, a row of a
   hydrology table ("Cathedral Peak 2 0.83 ..."), holds none of the query's words, and the only word found,
   "temperature", stood in a chunk of the Bangalore article around a row of its climate table, not in any place
   cited (``noresults._only_around``).
2. ``search "淡水鸭数量最多的是哪一年？"`` printed "Weak result" above the right cells B10:C10 ("2024, Freshwater
   Ducks: 180"): 淡水 alone was counted, though the query's 淡水 and 鸭 name the cells' header "Freshwater Ducks"
   wholly (``said_across``, ``crossmods.naming_words``)."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.files import digest_tree

from mnote_kr.citations.render.cards import render_search
from mnote_kr.citations.render.noresults import said_across, weak_reason
from mnote_kr.models import Citation
from tests.test_pipeline_replay import NOTES_REL
from tests.test_weak_across import REL, SCAN, WORKBOOK, search_ducks, sheet_text
from tests.test_weak_variants import place

CAKE = "chocolate cake baking temperature"


def pdf_page(path: Path, page: int) -> str:
    """A PDF page's text layer, read here with pypdf."""
    import pypdf

    return pypdf.PdfReader(path).pages[page - 1].extract_text()


def climate_chunk() -> tuple[str, str, str]:
    """The Bangalore article's climate paragraph and the rows of its climate table, read here with python-docx: (the
    text a chunk holds, its "Record high" row, the paragraph saying "highest temperature")."""
    import docx

    doc = docx.Document(str(CORPUS / "docx" / "khoj__bangalore.docx"))
    para = next(p.text for p in doc.paragraphs if "highest temperature ever recorded" in p.text)
    table = next(t for t in doc.tables if "Climate data for Bangalore" in t.rows[0].cells[0].text
                 or any("Climate data" in c.text for c in t.rows[1].cells))
    rows = [" ".join(dict.fromkeys(re.sub(r"\s+", " ", c.text).strip() for c in r.cells)) for r in table.rows]
    record = next(r for r in rows if r.startswith("Record high"))
    return para + "\n" + "\n".join(rows), record, para


def placed(c: Citation, shown: str, meaning: float | None) -> Citation:
    """``c`` (its chunk) cited at a place whose card shows ``shown``, at the cosine ``meaning``."""
    return msgspec.structs.replace(c, display_quote=shown, locator=msgspec.structs.replace(
        c.locator, quote=shown, meaning_score=meaning))


PAGE6 = pdf_page(CORPUS / "pdf" / "mineru__demo1.pdf", 6)
PEAK_ROW = next(line for line in PAGE6.splitlines() if line.startswith("Cathedral Peak 2 0.83"))
CHUNK, RECORD_ROW, HOT_PARA = climate_chunk()
# the hydrology table's chunk holds none of the query's words (the ranking gives it no lexical part)
PEAK = place("p1", PAGE6, "mineru__demo1.pdf")
CLIMATE = place("k1", CHUNK, "khoj__bangalore.docx", lexical=0.3)


def test_a_word_only_around_the_places_found_does_not_clear_a_far_first_place() -> None:
    # the corpus files as the newcomer searched them: "temperature" in the chunk, not in the rows cited
    assert "temperature" in CHUNK and "temperature" not in RECORD_ROW and "temperature" not in PAGE6.lower()
    found = [placed(PEAK, PEAK_ROW, 0.55), placed(CLIMATE, RECORD_ROW, 0.52)]
    reason = weak_reason(found, CAKE)
    assert reason is not None and "temperatur" in reason and "not at any of them" in reason


@pytest.mark.parametrize("found", [
    # the climate paragraph itself cited: the place holds "temperature"
    [placed(PEAK, PEAK_ROW, 0.55), placed(CLIMATE, HOT_PARA, 0.52)],
    # the first place close in meaning (the rule's cosine line, 0.70): the words around it still clear it
    [placed(CLIMATE, RECORD_ROW, 0.74), placed(PEAK, PEAK_ROW, 0.55)],
    # no cosine known (meaning placing off): words judge as before
    [placed(PEAK, PEAK_ROW, None), placed(CLIMATE, RECORD_ROW, None)],
])
def test_a_word_held_at_a_place_or_a_close_first_place_still_clears_the_search(found: list[Citation]) -> None:
    assert weak_reason(found, CAKE) is None


# no lexical part: the questions hold no number, and the sheet no Chinese word
DUCKS = place("d1", sheet_text(WORKBOOK), "ducks.xlsx")
ASKED = "淡水鸭数量最多的是哪一年？"


def cell(c: Citation, meaning: float, headers: list[str]) -> Citation:
    """``c`` cited at the cells B10:C10 under ``headers``, at the cosine ``meaning`` (nc22b's: 0.606)."""
    return msgspec.structs.replace(c, display_quote="2024, Freshwater Ducks: 180", locator=msgspec.structs.replace(
        c.locator, meaning_score=meaning, headers=headers, row_label="2024", sheet="Duck Observations",
        range="B10:C10"))


def test_a_chinese_question_naming_the_cited_header_wholly_is_not_weak() -> None:
    found = [cell(DUCKS, 0.606, ["Freshwater Ducks"]), SCAN]
    assert said_across(ASKED, found) == ["淡水", "鸭"]
    assert weak_reason(found, ASKED) is None


@pytest.mark.parametrize("found, query", [
    # seawater ducks: 海水 names no "Freshwater", the header is not named wholly
    ([cell(DUCKS, 0.606, ["Freshwater Ducks"]), SCAN], "海水鸭数量最多的是哪一年？"),
    # a header of one word named by one character (年 "Year") adds one word: with none other, not enough
    ([cell(DUCKS, 0.606, ["Year"]), SCAN], "火星上哪一年发现了水？"),
])
def test_a_header_not_named_wholly_or_alone_leaves_the_question_weak(found: list[Citation], query: str) -> None:
    assert len(said_across(query, found)) < 2
    assert weak_reason(found, query) is not None


def test_a_search_for_the_year_of_most_freshwater_ducks_is_not_said_weak(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the host's search on a replayed LightRAG answer (the real workbook's text as its chunk) and the CLI's
    text: the xlsx locator cites the row of the highest Freshwater Ducks under its header, and no "Weak result"."""
    found, before, env = search_ducks(tmp_path, monkeypatch, ASKED)
    assert [c.source_root_relative_path for c in found.results] == [REL, NOTES_REL]
    first = found.results[0]
    assert (first.source_root_relative_path, first.locator.range) == (REL, "B10:C10")
    assert "Freshwater Ducks" in first.locator.headers
    assert found.weak is False and found.weak_reason is None
    assert not render_search(found).startswith("Weak result")
    assert digest_tree(env.ws / "data") == before  # the user's workbook is untouched
