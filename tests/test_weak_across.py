"""A Chinese question answered by an English place is not said weak when that place says the question's words in
English through the dictionary (``noresults.said_across``, ``crossmods.held_words``, ``crosslang.synonyms``).

Seen by a newcomer (round 21, nc21a): ``search "2024年淡水鸭的数量是多少？"`` printed "Weak result: only the query's
numbers are in the passages found ... nothing in your files clearly answers it" above the exact row "2024, Freshwater
Ducks: 180" (淡水 is "fresh water"). Off-topic Chinese questions over English places stay weak."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import msgspec
import openpyxl
import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.files import digest_tree

from mnote_kr.citations.render.cards import render_search
from mnote_kr.citations.render.noresults import said_across, weak_reason
from mnote_kr.models import Citation
from mnote_kr_lightrag.client import naming
from tests.test_pipeline_replay import NOTES_REL, Env, _entry, make_env, query_data
from tests.test_weak_variants import place

WORKBOOK = CORPUS / "xlsx" / "docling__xlsx_05_table_with_title.xlsx"
REL = "data/ducks.xlsx"
NOTES_ZH = "## 中文部分\n\n西风原型机由隼能源公司设计，测试地点在奥胡斯。"  # the replay workspace's notes.md


def sheet_text(path: Path) -> str:
    """The workbook's text as LightRAG holds it, read here with openpyxl: each sheet's rows, cells tab-separated."""
    book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    out = []
    for sheet in book.worksheets:
        out.append(f"Sheet: {sheet.title}")
        out += ["\t".join("" if v is None else str(v) for v in row) for row in sheet.iter_rows(values_only=True)]
    return "\n".join(out)


def at(c: Citation, meaning: float | None) -> Citation:
    """``c`` placed at the cosine ``meaning`` with the query (the locator's ``meaningScore``)."""
    return msgspec.structs.replace(c, locator=msgspec.structs.replace(c.locator, meaning_score=meaning))


ROWS = place("d1", sheet_text(WORKBOOK), "ducks.xlsx", lexical=0.2)  # the ranking's lexical part: the year 2024
SCAN = place("s1", "商品体本身，例如铁、小麦、金钢石等等，就是使用价值。", "mineru__scanned.pdf")
CATALOG = place("x1", "Reading List\n#\tGenre\tSub-Genre\tTitle\tAuthor\n2\tNon-fiction\tScience\t"
                "A Brief History of Time\tStephen Hawking\tBantam Books\t1988",
                "docling__xlsx_09_section_label_header.xlsx")
# the twenty-first round's tuning sets (tables, tb_zh17): the right paragraph of the Bangalore article, first
BANGALORE = place("b1", "The average annual rainfall of Bangalore is about 970 mm; September and October are "
                  "the wettest months.", "khoj__bangalore.docx")
# an off-topic tuning query's first place (off53, "如何训练狗狗握手"): an English passage holding "training"
TRAINING = place("t1", "Staff training records are kept for three years and reviewed at each audit.",
                 "kb/handbook.docx")


def test_the_workbook_row_of_freshwater_ducks_says_fresh_water() -> None:
    assert "Freshwater Ducks" in ROWS.raw_quote and "2024" in ROWS.raw_quote  # the corpus file as the test reads it


@pytest.mark.parametrize("citations, query, said", [
    # one word (淡水 "fresh water" in "Freshwater"), the place close in meaning (nc21a's cosine 0.729)
    ([at(ROWS, 0.729), SCAN], "2024年淡水鸭的数量是多少？", ["淡水"]),
    # two words (斯蒂芬 "Stephen or Steven", 霍金 "Hawking"), whatever the cosine
    ([CATALOG, SCAN], "斯蒂芬·霍金写的是哪本书？", ["斯蒂芬", "霍金"]),
    # 班加罗尔 "Bangalore, capital of ..." (its apposition left out), 平均 "average"
    ([at(BANGALORE, 0.701), SCAN], "班加罗尔一年的平均降雨量是多少毫米", ["班加罗尔", "平均"]),
])
def test_a_chinese_question_whose_first_english_place_says_its_words_is_not_weak(
        citations: list[Citation], query: str, said: list[str]) -> None:
    assert said_across(query, citations) == said
    assert weak_reason(citations, query) is None


@pytest.mark.parametrize("citations, query", [
    # one word of an off-topic question, the place far in meaning (off53's cosine 0.635)
    ([at(TRAINING, 0.635), SCAN], "如何训练狗狗握手"),
    # the ducks row at a cosine an off-topic first place has: one word is not enough
    ([at(ROWS, 0.65), SCAN], "2024年淡水鸭的数量是多少？"),
    # the words said by a later place, not the first (the first in the query's script)
    ([SCAN, CATALOG], "斯蒂芬·霍金写的是哪本书？"),
    # a question on another subject: none of its words in English there (nor any word of it: no lexical part)
    ([at(place("d2", ROWS.raw_quote or "", "ducks.xlsx"), 0.72), SCAN], "火星基地的氧气供应方案"),
])
def test_an_off_topic_chinese_question_over_english_places_stays_weak(citations: list[Citation], query: str) -> None:
    assert said_across(query, citations) == []
    assert weak_reason(citations, query) is not None


def search_ducks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, query: str) -> tuple[Any, dict, Env]:
    """``query`` searched through the host on a replayed LightRAG answer: the real workbook (a copy in the
    workspace, its text as the first chunk) and, further down, a Chinese passage (nc21a's scans, nc22b's guides:
    words, not the scripts alone, must judge the search). The result, the workbook folder's digest before, the env."""
    env: Env = make_env(tmp_path, monkeypatch)
    (env.ws / "data").mkdir()
    shutil.copyfile(WORKBOOK, env.ws / REL)
    before = digest_tree(env.ws / "data")
    with env.host.store.transaction() as reg:
        reg.put(_entry(env.ws, REL, "ducks.xlsx"))
    chunk = ("1", "ducks.xlsx", f"{naming.doc_id_for('ducks.xlsx')}-chunk-000", sheet_text(WORKBOOK))
    notes = ("2", "notes.md", f"{naming.doc_id_for('notes.md')}-chunk-000", NOTES_ZH)
    env.replay.json("POST", "/query/data", query_data(chunk, notes))
    return env.search(query), before, env


def test_a_search_for_a_chinese_question_answered_by_an_english_row_is_not_said_weak(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the host's search on a replayed LightRAG answer (the real workbook, its text as LightRAG's chunk,
    first) and the CLI's text: the two words (淡水 "fresh water", 观测 "observation") stand in the sheet's English
    title and header, and nowhere in Chinese."""
    found, before, env = search_ducks(tmp_path, monkeypatch, "淡水鸭每年的观测数量是多少？")
    assert [c.source_root_relative_path for c in found.results] == [REL, NOTES_REL]
    assert found.weak is False and found.weak_reason is None
    assert not render_search(found).startswith("Weak result")
    assert digest_tree(env.ws / "data") == before  # the user's workbook is untouched


def page_text(path: Path, start: str, end: str) -> str:
    """The text of a PDF's first page read here with pypdf, its OCR layer's spaces and line breaks taken out, from
    ``start`` to the end of ``end``."""
    import re

    import pypdf

    text = re.sub(r"\s+", "", pypdf.PdfReader(path).pages[0].extract_text())
    return text[text.index(start):text.index(end) + len(end)]


# tune4's t4_en02 (asked in English over a Chinese magazine scan): the first place of the twenty-first round's run,
# the right page, holding 爸爸 (dad) and 儿子 (son); the query held only "day" of it, a common word
MAGAZINE = place("m1", page_text(CORPUS / "pdf" / "mineru__complex_layout.pdf", "天下大雨", "搂住了儿子"),
                 "mineru__complex_layout.pdf")

def docx_paragraph(path: Path, start: str) -> str:
    """The first paragraph of a DOCX that starts with ``start``, read here with python-docx."""
    import docx

    return next(p.text for p in docx.Document(str(path)).paragraphs if p.text.startswith(start))


# a Chinese nuclear safety guide's heading (tables' file), 组织 being "organization" in CC-CEDICT, which has no
# British spelling: "organisation" was said nowhere
GUIDE = CORPUS / "docx" / "chatchat__核电厂定期安全审查指南 第1部分：通用要求（征求意见稿）.docx"
ORGANS = place("k1", docx_paragraph(GUIDE, "组织机构和行政管理（"), GUIDE.name)
ORG_Q = "Which organisation carries out the periodic safety review?"
DAD = "Why wouldn't the dad go and fetch his son on the day of the downpour?"


@pytest.mark.parametrize("citations, query, said", [
    # two words, whatever the cosine (the run's was 0.720)
    ([at(MAGAZINE, 0.60), BANGALORE], DAD, ["dad", "son"]),
    # one word, British, its place close in meaning
    ([at(ORGANS, 0.72), BANGALORE], ORG_Q, ["organisation"]),
])
def test_an_english_question_whose_first_chinese_place_says_its_words_is_not_weak(
        citations: list[Citation], query: str, said: list[str]) -> None:
    assert said_across(query, citations) == said
    assert weak_reason(citations, query) is None


@pytest.mark.parametrize("citations, query", [
    # off-topic English questions over the same page: none of their words said there
    ([at(MAGAZINE, 0.72), BANGALORE], "how to report a lost passport"),
    ([at(MAGAZINE, 0.72), BANGALORE], "Who won the 2018 football World Cup?"),
    # one word said (organisation) with the place far in meaning: not enough
    ([at(ORGANS, 0.62), BANGALORE], ORG_Q),
    # the words said by a later place, not the first (the first in the query's script)
    ([BANGALORE, at(MAGAZINE, 0.72)], DAD),
])
def test_an_off_topic_english_question_over_a_chinese_place_stays_weak(citations: list[Citation], query: str) -> None:
    assert said_across(query, citations) == []
    assert weak_reason(citations, query) is not None


def test_british_spellings_are_looked_up_as_the_dictionary_writes_them() -> None:
    from mnote_kr.citations.text.crossmods import american

    assert [american(w) for w in ("labour", "organisation", "centre", "colours")] == [
        ["labor"], ["organization"], ["center"], ["colors"]]
    assert american("cricket") == []
