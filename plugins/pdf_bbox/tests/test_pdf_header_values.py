"""A question whose words choose a table's column header (or the title over the header row) cites the
figures under that header, not the header alone: a header holds no answer.

Truth comes from PDFium's own reading of the page (where a word is drawn, what text stands inside a
box), never from the locator's geometry.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.pdfwords import page_text, word_boxes

from mnote_kr.models import LocateRequest
from mnote_kr_pdf_bbox import clear_cache, locate

FEDREG = CORPUS / "pdf" / "pdfplumber__federal-register-2020-17221.pdf"
HEADER_ROW = "ESTIMATED COSTS\nAction Labor cost Parts cost Cost per product Cost on U.S. operators"


@pytest.fixture(autouse=True)
def _fresh() -> None:
    clear_cache()


def _words(path: Path, page: int, word: str) -> list[tuple[float, float, float, float]]:
    return word_boxes(path, page, word, whole_word=False)


def _inside(word: tuple[float, float, float, float], box: list[float]) -> bool:
    return box[0] - 1 <= word[0] and word[2] <= box[2] + 1 and box[1] - 1 <= word[1] and word[3] <= box[3] + 1


@pytest.mark.parametrize("query,evidence", [
    ("What is the cost on U.S. operators?", HEADER_ROW),  # the words choose the header cell
    ("What are the estimated costs of compliance for U.S. operators?", None),  # they choose the table's title
])
def test_a_header_chosen_by_the_query_cites_the_figures_under_it(query: str, evidence: str | None) -> None:
    before = hashlib.sha256(FEDREG.read_bytes()).hexdigest()
    loc = locate(LocateRequest(file=str(FEDREG), evidence=evidence or page_text(FEDREG, 5), query=query))
    assert loc.page == 5 and loc.locator_precision == "bbox"
    figures = _words(FEDREG, 5, "$6,205")
    assert len(figures) == 3  # the column's three rows, as PDFium reads the page
    assert all(_inside(f, loc.bbox) for f in figures), (loc.bbox, figures)
    (operators,) = [b for b in _words(FEDREG, 5, "operators") if b[1] > 600]
    assert _inside(operators, loc.bbox)  # the header stays in the box, over its values
    assert not any(_inside(b, loc.bbox) for b in _words(FEDREG, 5, "Labor"))  # one column, not the row
    assert loc.place_text is not None and loc.place_text.startswith("Cost on U.S. operators: ")
    assert loc.place_text.count("$6,205") == 3 and "AFM revisions: $6,205" in loc.place_text
    assert "holds no figure" in (loc.locator_reason or "")
    assert hashlib.sha256(FEDREG.read_bytes()).hexdigest() == before


def test_a_header_and_a_row_label_named_cite_that_rows_value() -> None:
    loc = locate(LocateRequest(file=str(FEDREG), evidence=HEADER_ROW, query="labor cost of the AFM revisions"))
    (afm,) = _words(FEDREG, 5, "AFM revisions")
    mid = (afm[1] + afm[3]) / 2
    assert loc.bbox[1] < mid < loc.bbox[3]  # the AFM row's value, under the Labor cost header
    (labor,) = [b for b in _words(FEDREG, 5, "Labor cost") if b[1] > 600]
    assert _inside(labor, loc.bbox)
    assert loc.place_text == "Labor cost: AFM revisions: $85"


def test_a_block_that_holds_the_figure_is_not_moved() -> None:
    query = "How many airplanes of U.S. registry does the proposed AD affect?"
    loc = locate(LocateRequest(file=str(FEDREG), evidence=page_text(FEDREG, 5), query=query))
    assert loc.place_text is not None and "73 airplanes" in loc.place_text
    assert "holds no figure" not in (loc.locator_reason or "")


def test_a_cells_second_line_stays_in_its_row_and_the_title_leads_to_the_named_header() -> None:
    """Page 6 continues the table under the title "ESTIMATED COSTS—Continued"; a labour cell runs onto a second
    line ("Up to $6,715."), which is no row of its own: both rows' costs on U.S. operators are cited."""
    query = "What are the estimated costs of compliance for U.S. operators?"
    loc = locate(LocateRequest(file=str(FEDREG), evidence=page_text(FEDREG, 6), query=query))
    assert loc.page == 6
    for figure in ("$766,865", "$248,200"):
        (box,) = _words(FEDREG, 6, figure)
        assert _inside(box, loc.bbox), (figure, loc.bbox)
    assert loc.place_text == ("Cost on U.S. operators: Stabilizer wiring change: $766,865.; "
                              "AOA sensor system test: $248,200.")
