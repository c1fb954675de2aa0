"""A question's date, written any way, finds the workbook row holding it (the XLSX locator's row choice).

A newcomer asked docling's sales workbook "Widget C 在2024年1月7日的收入是多少？" and got the file first but
Widget A's row of 2024-01-05 (A6:D6), as exact; "What was the revenue of Widget C on 2024-01-07?" cited
Widget C's revenue of 2024-01-15 (D16). The cell holds a date, ``2024-01-07 00:00:00`` in LightRAG's text and
the locator's: 2024年1月7日 shares no word with it, and by words every Widget C row held the question alike.
Replayed here on LightRAG 1.5.7's recorded ``/query/data`` answers to those two questions
(``samples/100_*``, ``101_*``): each chunk goes through the host's cleaning to the locator's evidence window,
as ``pipeline.search`` sends it, with the chunk as the passage.
"""

from __future__ import annotations

import datetime
import hashlib
from pathlib import Path

import openpyxl
import pytest
from mnote_kr_testkit.data import CORPUS, SAMPLES
from mnote_kr_testkit.replay import load_sample

from mnote_kr.citations.cleaning import clean_citation_text
from mnote_kr.models import LocateRequest, Locator
from mnote_kr.plugins import load_plugins
from mnote_kr_lightrag.client import querying

SALES = CORPUS / "xlsx" / "docling__xlsx_02_sample_sales_data.xlsm"
ZH = "Widget C 在2024年1月7日的收入是多少？"
EN = "What was the revenue of Widget C on 2024-01-07?"
SAMPLE = {ZH: "100_query_data_xlsm_sales_zh_date.json", EN: "101_query_data_xlsm_sales_en_date.json"}


def _asked_row() -> int:
    """The row of the Widget C sale of 2024-01-07, read with openpyxl (not the locator's reader)."""
    wb = openpyxl.load_workbook(SALES, read_only=True)
    try:
        (row,) = [r[0].row for r in wb["SalesData"].iter_rows(min_row=2)
                  if r[0].value == "Widget C" and r[1].value == datetime.datetime(2024, 1, 7)]
    finally:
        wb.close()
    return row


def _chunks(query: str) -> list[str]:
    """The sales workbook's chunks in LightRAG's recorded answer to ``query``, as the provider reads them."""
    _, body = load_sample(SAMPLES, SAMPLE[query])
    assert body["data"]["chunks"], "the recording holds no chunk"
    return [ref.content or "" for ref in querying.references_from_data(body["data"])
            if ref.file_path.endswith(".xlsm.md")]


def _locate(query: str, chunk: str) -> Locator:
    evidence = clean_citation_text(chunk, query).locator_evidence_text  # the window search sends
    return load_plugins(None).locate(LocateRequest(file=str(SALES), evidence=evidence, passage=chunk, query=query))


def _row(loc: Locator) -> int:
    return int("".join(ch for ch in (loc.range or "").split(":")[0] if ch.isdigit()))


@pytest.mark.parametrize("query", [ZH, EN], ids=["zh", "en"])
def test_the_newcomers_questions_cite_the_widget_c_row_of_2024_01_07(query: str) -> None:
    before = hashlib.sha256(SALES.read_bytes()).digest()
    row = _asked_row()
    assert row == 8
    (held,) = [c for c in _chunks(query) if "Widget C | 2024-01-07 00:00:00 | 12 | 15000" in c]
    loc = _locate(query, held)
    assert (loc.locator_precision, loc.sheet, _row(loc), loc.locator_degraded) == ("cell", "SalesData", row, False), \
        (loc.range, loc.locator_reason)
    assert loc.row_label == "Widget C", loc.quote
    if query == EN:  # the question names the Revenue column: its cell, outside the evidence's window of rows 1-5
        # with its date: Widget C has other rows (nc24d: "Widget C, Revenue: 5000" beside it told nothing apart)
        assert (loc.range, loc.quote) == (f"D{row}", "Widget C: Date: 2024-01-07; Revenue: 15000")
        assert "past the evidence" in loc.locator_reason
    assert hashlib.sha256(SALES.read_bytes()).digest() == before


@pytest.mark.parametrize("query", [ZH, EN], ids=["zh", "en"])
def test_a_chunk_without_the_day_asked_cites_its_best_row_as_approximate(query: str) -> None:
    """LightRAG's other chunk (rows 14-21) holds no sale of 2024-01-07: its row is another day's, a guess."""
    (other,) = [c for c in _chunks(query) if "2024-01-07" not in c]
    loc = _locate(query, other)
    assert loc.locator_precision == "cell" and loc.locator_degraded, (loc.range, loc.locator_reason)
    assert "this row holds another date: an approximate place" in loc.locator_reason


@pytest.mark.parametrize("query", [
    "Widget C 2024年1月7日 收入", "Revenue of Widget C on Jan 7 2024", "Widget C revenue, 7 January 2024",
    "Widget C revenue 2024/1/7", "Widget C revenue 1/7/2024", "Widget C revenue on January 7th",
    "Widget C 1月7日的收入",
])
def test_a_date_written_another_way_than_the_cell_finds_its_row(query: str) -> None:
    """The whole sheet as evidence and passage: the date alone tells the five Widget C rows apart."""
    text = load_plugins(None).extract_text(str(SALES))
    loc = load_plugins(None).locate(LocateRequest(file=str(SALES), evidence=text, passage=text, query=query))
    assert (loc.sheet, _row(loc), loc.locator_degraded) == ("SalesData", _asked_row(), False), \
        (query, loc.range, loc.locator_reason)


def test_a_row_of_another_day_is_no_answer_even_when_the_passage_holds_only_it(tmp_path: Path) -> None:
    """A date the workbook does not hold: the Widget C row cited is flagged approximate; a question naming no
    date keeps its row exact."""
    text = load_plugins(None).extract_text(str(SALES))
    plugins = load_plugins(None)
    loc = plugins.locate(LocateRequest(file=str(SALES), evidence=text, passage=text,
                                       query="What was the revenue of Widget C on 2024-03-09?"))
    assert loc.locator_degraded and "another date" in loc.locator_reason, (loc.range, loc.locator_reason)
    loc = plugins.locate(LocateRequest(file=str(SALES), evidence=text, passage=text,
                                       query="Widget C quantity 12"))
    assert (_row(loc), loc.locator_degraded) == (_asked_row(), False), loc.locator_reason
