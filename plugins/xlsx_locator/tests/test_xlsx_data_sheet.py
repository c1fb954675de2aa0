"""A data sheet laid out "label |  | unit | : | value" with empty columns between (docling's gap-tolerance
workbook, a switchboard's data sheet). A newcomer saw ``search "Gas Insulated Switchgear"`` cite G18 under
row label ":" and a "header" made of row 11's values ("only the table's header holds the query's words",
false), and ``search "What is the rated system frequency?"`` cite the label C12 without its value, 134 Hz.
A row's label is its text label, never a cell of marks; the label reads with its values; no header is made
of a data row."""

from __future__ import annotations

import hashlib

import pytest
from mnote_kr_testkit.data import CORPUS

from mnote_kr.citations.text.tablerows import header_row
from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins
from mnote_kr_xlsx_locator.reader import load_xlsx

BOOK = CORPUS / "xlsx" / "docling__xlsx_07_gap_tolerance_.xlsx"


@pytest.fixture(scope="module")
def ask():
    plugins = load_plugins(None)
    text = plugins.extract_text(str(BOOK))
    return lambda query: plugins.locate(LocateRequest(file=str(BOOK), evidence=text, passage=text, query=query))


def test_a_label_and_its_value_across_empty_columns_are_one_row_and_no_row_is_a_header() -> None:
    rows = {p.row: p for p in load_xlsx(BOOK).paragraphs if p.cells and p.cells[0][0] == 3}
    assert rows[12].cells == ((3, "Rated system frequency"), (5, "Hz"), (6, ":"), (7, "134"))
    assert rows[18].label_column == 3 and rows[14].label_column == 3
    assert not any(p.is_header or p.header_row for p in load_xlsx(BOOK).paragraphs)


def test_the_value_the_query_quotes_is_cited_under_its_text_label(ask) -> None:
    before = hashlib.sha256(BOOK.read_bytes()).digest()
    loc = ask("Gas Insulated Switchgear")
    assert (loc.range, loc.row_label, loc.header_row, loc.locator_degraded) == (
        "G18", "Metal-enclosed partition", None, False), loc.locator_reason
    assert loc.quote.startswith("Metal-enclosed partition: Gas Insulated Switchgear (GIS)")
    assert ":," not in loc.quote and "header" not in loc.locator_reason
    assert hashlib.sha256(BOOK.read_bytes()).digest() == before


def test_a_question_naming_a_label_quotes_its_value_and_unit(ask) -> None:
    loc = ask("What is the rated system frequency?")
    assert loc.range == "C12:G12" and loc.row_label == "Rated system frequency", loc.locator_reason
    assert loc.quote == "Rated system frequency: Hz; 134"
    loc = ask("rated system voltage kV")  # the unit cell named: its row's value is read with it
    assert loc.quote == "Rated system voltage: kV; 130 (131 Um, 132 AC, 133 BIL)"


def test_a_row_with_a_separator_between_label_and_value_heads_nothing() -> None:
    assert header_row([["kV", ":", "130 (131 Um)"], ["Hz", ":", "134"]]) is None
    assert header_row([["#", "Title"], ["1", "Dune"]]) == 0  # "#" heads a column of numbers
