"""A Chinese question's modifier the row lacks makes its cell approximate (nc21a Q14).

"2022年海水鸭观测到多少只？" (how many saltwater ducks in 2022) over docling's duck workbook, its whole sheet the
engine's chunk, was cited exact on "2022, Freshwater Ducks: 170": the year is there, the saltwater is not.
"2024年淡水鸭的数量是多少？" (freshwater ducks, 2024) is that row's question and stays exact.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from mnote_kr_testkit.workbooks import locate_in_whole_book

BOOK = Path(__file__).resolve().parents[3] / "tests" / "data" / "corpus" / "xlsx" / \
    "docling__xlsx_05_table_with_title.xlsx"


def test_a_row_lacking_the_asked_saltwater_is_no_exact_answer_across_languages(plugins) -> None:  # type: ignore[no-untyped-def]
    before = hashlib.sha256(BOOK.read_bytes()).digest()
    loc = locate_in_whole_book(plugins, BOOK, "2022年海水鸭观测到多少只？")
    assert loc.locator_degraded, loc.reason
    assert "海水" in (loc.reason or "")
    assert hashlib.sha256(BOOK.read_bytes()).digest() == before


def test_the_row_holding_the_asked_freshwater_stays_exact(plugins) -> None:  # type: ignore[no-untyped-def]
    loc = locate_in_whole_book(plugins, BOOK, "2024年淡水鸭的数量是多少？")
    assert (loc.range, loc.locator_degraded) == ("B10:C10", False), loc.reason
