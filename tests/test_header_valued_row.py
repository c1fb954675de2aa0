"""A table's header row that only names the asked attribute gives way to the row holding its value (issue 33).

``valued_row`` (host, through the plugin API) and the DOCX locator's use of it, after the words or the
meaning step chose the header row; ``named_header`` reading a possessive ("检测项目的检测方法": 检测方法 is
asked, 检测项目 qualifies it).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from mnote_kr.models import LocateRequest
from mnote_kr.plugin_api import named_header, valued_row
from mnote_kr.plugins import load_plugins

TABLE = Path(__file__).resolve().parent / "data" / "corpus" / "docx" / "weknora__issue_2634_vertical_merge.docx"
HEADER = ["项目编号", "检测项目", "相关基因", "周期", "检测方法"]
#: the table's rows as the DOCX reader gives their own cells: 检测方法 is merged down from the first row
ROWS = [["Q0101", "遗传性乳腺癌", "BRCA1", "15个工作日", "检测方法：提取外周血基因组 DNA"],
        ["Q0102", "遗传性卵巢癌", "BRCA2", "15个工作日", ""],
        ["Q0103", "林奇综合征", "MLH1", "15个工作日", ""],
        ["Q0104", "家族性腺瘤性息肉病", "APC", "15个工作日", ""]]
#: the passage a search returns for the table: its title and its rows (the note between them left out: by
#: words alone, "回归场景：检测方法纵向合并，…" holds the question's attribute and a colon, and is cited)
PASSAGE = ("遗传病检测项目表\n"
           "项目编号 检测项目 相关基因 周期 检测方法\n"
           "Q0101 遗传性乳腺癌 BRCA1 15个工作日 检测方法：提取外周血基因组 DNA，"
           "采用高通量测序，并对候选位点进行Sanger 测序验证；检测结果需结合临床表现综合判断。\n"
           "Q0102 遗传性卵巢癌 BRCA2 15个工作日\nQ0103 林奇综合征 MLH1 15个工作日\n"
           "Q0104 家族性腺瘤性息肉病 APC 15个工作日")


def test_a_header_named_before_a_possessive_qualifies_the_one_asked() -> None:
    cells = [(h, h) for h in HEADER]
    assert named_header("遗传病检测项目的检测方法是什么？", cells) == "检测方法"
    assert named_header("検査項目の検査方法", [("検査項目", 1), ("検査方法", 2)]) == 2
    assert named_header("检测项目的周期", cells) == "周期"
    # one header named, or none after a possessive: as before (the first named)
    assert named_header("检测项目的编号是什么", cells) == "检测项目"
    assert named_header("检测项目和检测方法", cells) == "检测项目"


def test_the_one_row_holding_a_value_under_the_named_header_answers() -> None:
    assert valued_row("遗传病检测项目的检测方法是什么？", HEADER, ROWS) == (0, 4)
    assert valued_row("检测方法是什么？", HEADER, ROWS) == (0, 4)


def test_a_question_of_header_words_only_keeps_the_header() -> None:
    assert valued_row("检测方法", HEADER, ROWS) is None
    assert valued_row("检测项目 检测方法", HEADER, ROWS) is None
    assert valued_row("遗传病的结果是什么？", HEADER, ROWS) is None  # names no header


def test_of_several_rows_with_values_the_words_then_the_meaning_choose() -> None:
    """Every row holds a gene: the one holding the question's other words answers; none holding them (the
    question asks about every row) or two alike without a lead by meaning, the header stays."""
    assert valued_row("林奇综合征相关基因是什么？", HEADER, ROWS) == (2, 2)
    assert valued_row("各检测项目的周期是多少？", HEADER, ROWS) is None
    asked: list[dict[int, list[int]]] = []

    def closer(cos: dict[int, float]):  # noqa: ANN202 - a closer
        return lambda saying: asked.append(saying) or cos

    question = "遗传病检测项目的相关基因是什么？"  # 遗传 in both 遗传性 rows: words do not tell them apart
    assert valued_row(question, HEADER, ROWS) is None
    assert valued_row(question, HEADER, ROWS, closer({0: 0.80, 1: 0.75})) == (0, 2)
    assert asked[-1] == {0: [1], 1: [1]}  # the cells holding the words that tie them: 遗传性…
    assert valued_row(question, HEADER, ROWS, closer({0: 0.735, 1: 0.73})) is None
    assert valued_row(question, HEADER, ROWS, closer({0: 0.80})) is None  # a row without a cosine: no choice
    assert valued_row(question, HEADER, ROWS, lambda saying: None) is None


def _with_vectors() -> None:
    """The file's paragraph vectors, as ingest's preparation stores them."""
    from mnote_kr.citations.rank import meaning
    from mnote_kr_docx_locator import prepare_locate

    meaning._memo.clear()
    with meaning._queue_lock:  # what earlier tests prepared and never embedded (CI: 5 files, not 1)
        meaning._queue.clear()
    prepare_locate(str(TABLE))
    assert meaning.embed_queued(lambda line: None) == 1


@pytest.mark.parametrize("vectors", [False, True], ids=["words", "vectors"])
def test_docx_the_header_gives_way_to_the_value_row_and_keeps_it_for_the_table(
        monkeypatch: pytest.MonkeyPatch, vectors: bool) -> None:
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")
    before = hashlib.sha256(TABLE.read_bytes()).digest()
    if vectors:
        _with_vectors()
    pm = load_plugins(None)

    def locate(query: str):  # noqa: ANN202 - a Locator
        return pm.locate(LocateRequest(file=str(TABLE), evidence=PASSAGE, passage=PASSAGE, query=query))

    loc = locate("遗传病检测项目的检测方法是什么？")
    assert loc.paragraph_index == 11 and loc.headers == ["检测方法"], (loc.paragraph_index, loc.locator_reason)
    assert "提取外周血基因组" in (loc.quote or "")
    # a question about every row's period or gene: no data row is the answer (the header row or the title stays).
    # (By words alone the gene question is placed on Q0101 before any header row is chosen: the title rule
    # takes the first row holding the attribute 相关基因 and a value, as it did before valued_row.)
    for query in ("各检测项目的周期是多少？", *(("遗传病检测项目的相关基因是什么？",) if vectors else ())):
        loc = locate(query)
        assert loc.paragraph_index in range(7), (query, loc.paragraph_index, loc.quote, loc.locator_reason)
    assert hashlib.sha256(TABLE.read_bytes()).digest() == before


def test_a_cell_opening_with_its_header_is_not_headed_again() -> None:
    """A cell whose text already opens with its header's words ("检测方法：提取…" under 检测方法) reads as written, not
    "检测方法: 检测方法：提取…" (nc26a Q9, Q12); a cell merely starting with the same letters ("Yearly" under "Year"),
    or holding the header later on, is headed as every other."""
    from mnote_kr.plugin_api import labelled_row

    assert labelled_row("Q0101", [("周期", "15个工作日"), ("检测方法", "检测方法：提取外周血基因组 DNA")]) == \
        "Q0101: 周期: 15个工作日; 检测方法：提取外周血基因组 DNA"
    assert labelled_row(None, [("Notes", "Notes: see the appendix"), ("Year", "Yearly")]) == \
        "Notes: see the appendix; Year: Yearly"
    assert labelled_row("Q1", [("Method", "method - PCR"), ("Gene", "APC gene")]) == "Q1: method - PCR; Gene: APC gene"
    assert labelled_row("Q1", [("检测方法", "检测方法")]) == "Q1, 检测方法"
    assert labelled_row("Q1", [("方法", "方法学验证")]) == "Q1, 方法: 方法学验证"


def test_docx_row_quote_does_not_repeat_the_header_its_cell_opens_with(monkeypatch: pytest.MonkeyPatch) -> None:
    """The vertical-merge table (corpus): the phrase "检测结果需结合临床表现" lands on Q0101's 检测方法 cell, quoted as
    its row; the cell's own "检测方法：" is not headed again (nc26a Q9's "…检测方法: 检测方法：提取…")."""
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")
    pm = load_plugins(None)
    loc = pm.locate(LocateRequest(file=str(TABLE), evidence=PASSAGE, passage=PASSAGE, query="检测结果需结合临床表现"))
    assert loc.paragraph_index == 11 and loc.quote is not None, (loc.paragraph_index, loc.locator_reason)
    row = "Q0101: 检测项目: 遗传性乳腺癌; 相关基因: BRCA1; 周期: 15个工作日; 检测方法：提取外周血"
    assert loc.quote.startswith(row), loc.quote
    assert loc.quote.count("检测方法") == 1, loc.quote
