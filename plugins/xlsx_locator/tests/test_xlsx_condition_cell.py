"""A which-question's condition is no answer: "Which book ... was added in 1988?" names the Added value it
knows; the book is the row's title. The cell that holds only the condition gives way to its row.

The real engine's case (nc17d problem 5) on docling's section-label workbook: the query was cited exact on
Library Catalog!G4, quoting "2, Added: 1988"; the title "A Brief History of Time" (D4) was never quoted.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from mnote_kr_testkit.workbooks import locate_in_whole_book

BOOK = Path(__file__).resolve().parents[3] / "tests" / "data" / "corpus" / "xlsx" / \
    "docling__xlsx_09_section_label_header.xlsx"


def _locate(plugins, query: str):  # type: ignore[no-untyped-def]
    return locate_in_whole_book(plugins, BOOK, query)  # the engine's chunk was the whole workbook


@pytest.mark.parametrize("query", ["Which book on the Library Catalog sheet was added in 1988?",
                                   "What book was added in 1988?"])
def test_a_cell_holding_only_the_questions_condition_gives_way_to_its_row(plugins, query: str) -> None:  # type: ignore[no-untyped-def]
    before = hashlib.sha256(BOOK.read_bytes()).digest()
    loc = _locate(plugins, query)
    assert loc.sheet == "Library Catalog" and loc.range is not None, loc.reason
    assert ":" in loc.range and loc.range.endswith("4"), loc.reason  # the row, not G4 alone
    assert loc.quote is not None and "A Brief History of Time" in loc.quote, loc.quote
    assert hashlib.sha256(BOOK.read_bytes()).digest() == before


def test_a_cell_the_question_asks_for_stays_cited_alone(plugins) -> None:  # type: ignore[no-untyped-def]
    """The other way round: the year is what is asked, its cell answers."""
    loc = _locate(plugins, "When was A Brief History of Time added?")
    assert (loc.sheet, loc.range) == ("Library Catalog", "G4"), loc.reason
