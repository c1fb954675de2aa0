"""A DOCX table row cited for a question naming its column by a year, quarter, month or date quotes that cell.

tika__018367.docx (a DOJ budget submission) tabulates claims by fiscal year, "FY 2004 Actual" ... "FY 2009
Estimate", in rows whose labels repeat under section rows ("Downwinders", "On-Site Participants", ...): the
row's label alone ("Claims Filed") named neither the value nor the column, nor which "Claims Filed" row it was.
khoj__bangalore.docx's climate table has a column per month. The expected cells are read from the documents.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS

from mnote_kr.models import LocateRequest
from mnote_kr.plugin_api import keyed_header
from mnote_kr_docx_locator import locate_docx
from mnote_kr_docx_locator.cache import clear_cache, load_docx

RECA = CORPUS / "docx" / "tika__018367.docx"
BANGALORE = CORPUS / "docx" / "khoj__bangalore.docx"


@pytest.fixture(autouse=True)
def _fresh() -> None:
    clear_cache()


def _table_text(path: Path, first: str, last: str) -> tuple[str, list]:
    """The table's text from the paragraph ``first`` to ``last`` (as a chunk holds it) and the paragraphs."""
    paras = load_docx(path).paragraphs
    lo = next(p.index for p in paras if p.cell is not None and p.text.strip() == first)
    hi = next(p.index for p in paras if p.index > lo and p.text.strip() == last)
    return "\n".join(p.text for p in paras[lo:hi + 1] if p.text.strip()), paras


def _locate(path: Path, query: str, evidence: str):  # noqa: ANN202 - the Locator
    return locate_docx(LocateRequest(file=str(path), evidence=evidence, query=query, passage=evidence))


def test_a_fiscal_year_question_quotes_the_cell_under_that_year_in_the_section_it_names() -> None:
    before = hashlib.sha256(RECA.read_bytes()).hexdigest()
    chunk, paras = _table_text(RECA, "Radiation Exposure Compensation Act Workload", "$3,600")
    loc = _locate(RECA, "Downwinders claims filed in FY 2006", chunk)
    assert loc.quote == "Downwinders – Claims Filed, FY 2006 Actual: 999"
    cell = paras[loc.paragraph_index]
    assert cell.text == "999" and cell.cell[1:] == (5, 3)  # the Downwinders "Claims Filed" row, FY 2006 column
    assert loc.row_label.strip() == "Claims Filed"
    assert hashlib.sha256(RECA.read_bytes()).hexdigest() == before  # the user's file untouched


def test_a_section_row_cited_moves_to_the_row_under_it_asked_and_the_cell_under_the_year() -> None:
    chunk, paras = _table_text(RECA, "Radiation Exposure Compensation Act Workload", "$3,600")
    for query, quote, value in (
            ("On-Site Participants pending claims at the beginning of FY 2005",
             "On-Site Participants – Pending, Beginning of Year, FY 2005 Actual: 268", "268"),
            ("claims approved for on-site participants in FY 2007",
             "On-Site Participants – Claims Approved, FY 2007 Actual: 156", "156")):
        loc = _locate(RECA, query, chunk)
        assert loc.quote == quote
        assert paras[loc.paragraph_index].text == value
        assert loc.highlight is not None and (loc.highlight.start, loc.highlight.end) == (0, len(value))


def test_a_question_naming_two_years_keeps_the_whole_row() -> None:
    chunk, _ = _table_text(RECA, "Radiation Exposure Compensation Act Workload", "$3,600")
    loc = _locate(RECA, "Downwinders claims filed in FY 2005 and FY 2006", chunk)
    assert loc.quote.startswith("Downwinders – Claims Filed: FY 2004 Actual: 1,517; FY 2005 Actual: 1,367; "
                                "FY 2006 Actual: 999")


def test_a_month_question_quotes_the_cell_under_that_months_column() -> None:
    chunk, paras = _table_text(BANGALORE, "Month", "Year")
    chunk += "\n" + "\n".join(p.text for p in paras if p.text.startswith(("Record high", "32.8", "35.9", "37.9",
                                                                             "39.2")))
    loc = _locate(BANGALORE, "Bangalore record high temperature in April", chunk)
    assert " ".join(loc.quote.split()) == "Record high °C (°F), Apr: 39.2 (102.6)"
    assert paras[loc.paragraph_index].text.startswith("39.2")


def test_keyed_header_names_the_one_column_of_the_period_asked() -> None:
    heads = [("FY 2004 Actual", 1), ("FY 2005 Actual", 2), ("FY 2006 Actual", 3)]
    assert keyed_header("claims filed in FY 2005", heads) == 2
    assert keyed_header("2005年的申请数", heads) == 2
    assert keyed_header("claims filed in FY 2005 and 2006", heads) is None  # two columns named: none chosen
    assert keyed_header("claims filed", heads) is None
    assert keyed_header("三月的日平均气温", [("Feb", "f"), ("Mar", "m"), ("Year", "y")]) == "m"
