"""A cell that is itself the question asked ("What are the specific use cases?" under the header Question) is
what the row is about, not its answer: the row is cited, its answer cell in the quote.

The real engine's case (nc17c, q18) on docling's edge-case workbook: "What are the specific use cases in the
second sheet?" was cited exact on Attached_left!E4, quoting only the question; the answer F4 "The AI is applied
for..." was in neither the place nor the quote.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from mnote_kr_testkit.workbooks import locate_in_whole_book

BOOK = Path(__file__).resolve().parents[3] / "tests" / "data" / "corpus" / "xlsx" / "docling__xlsx_06_edge_cases_.xlsx"


def _locate(plugins, query: str):  # type: ignore[no-untyped-def]
    return locate_in_whole_book(plugins, BOOK, query)  # the engine's chunk was the whole workbook


@pytest.mark.parametrize("query", ["What are the specific use cases in the second sheet?",
                                   "What are the specific use cases?"])
def test_a_question_cell_holding_only_the_query_gives_way_to_its_row(plugins, query: str) -> None:  # type: ignore[no-untyped-def]
    before = hashlib.sha256(BOOK.read_bytes()).digest()
    loc = _locate(plugins, query)
    assert loc.range is not None and ":" in loc.range, loc.reason  # the row, not its question cell
    assert loc.quote is not None and "The AI is applied for..." in loc.quote
    assert "What are the specific use cases?" in loc.quote
    if "sheet" in query:
        assert (loc.sheet, loc.range[-1]) == ("Attached_left", "4")
    assert not loc.locator_degraded
    assert hashlib.sha256(BOOK.read_bytes()).digest() == before


def test_a_cell_holding_the_querys_words_that_is_no_question_stays_cited(plugins) -> None:  # type: ignore[no-untyped-def]
    loc = _locate(plugins, "The AI processes code data")
    assert loc.range is not None and ":" not in loc.range and loc.range.endswith("5"), loc.reason
    assert loc.quote is not None and "The AI processes code data" in loc.quote
