"""A table label set one row pitch under a row is a row of its own (round 28, nc28a F5) unless the line above it ran on.

Round 28's rule split off every line standing a row pitch under a cell's line: right for the empty rows of a financial
statement ("利息收入" under "其中：营业收入", "二、投资活动产生的现金流量：" under the net operating cash flow), wrong
for a cell or a paragraph whose line wrapped onto the next at that spacing ("用"Yes"的概率作为分 | 数" in WeKnora's
reranker table; "when spending taxpayer | money." in the Chelsea report). A line filling
its column (the first word of the line under it would not have fitted after it) ran on; one ending short of the
column's edge heads a row. Read from the real pages (uncached), block by block.
"""

from __future__ import annotations

from functools import cache

import pytest
from mnote_kr_testkit.data import CORPUS

from mnote_kr_pdf_bbox.pdftext import DocumentText, line_text, read_document


@cache
def _read(name: str) -> DocumentText:
    return read_document(CORPUS / "pdf" / name)


def _block(name: str, page: int, start: str) -> list[str]:
    """The lines, top to bottom, of the block holding the line of ``page`` that starts with ``start``."""
    pg = _read(name).pages[page - 1]
    found = [li for li in range(len(pg.lines)) if line_text(pg, li).strip().startswith(start)]
    assert len(found) == 1, (start, [line_text(pg, li) for li in found])
    block = pg.blocks[pg.block_of[found[0]]]
    return [line_text(pg, li).strip() for li in sorted(block, key=lambda li: (pg.lines[li][1], pg.lines[li][0]))]


@pytest.mark.parametrize(("name", "page", "line", "wrapped"), [
    # a cell of WeKnora's reranker table wrapped one row pitch down (19.5 pt, the table's rows 19.5 apart)
    ("weknora__WeKnora.pdf", 15, '用"Yes"的概率作为分', "数"),
    ("weknora__WeKnora.pdf", 15, "Layerwise Reranker", "(基于LLM分层)"),
    # running text beside a column of French read as a table: its English line wrapped
    ("pdfplumber__chelsea_pdta.pdf", 20, "important to keep it as a priority when spending taxpayer", "money."),
    ("pdfplumber__chelsea_pdta.pdf", 29, "des quasi-collisions, des victimes, des dangers perçus,", "etc."),
])
def test_a_line_wrapped_one_row_pitch_down_stays_with_its_cell(name: str, page: int, line: str, wrapped: str) -> None:
    lines = _block(name, page, line)
    assert wrapped in lines, lines


@pytest.mark.parametrize(("page", "row", "empty"), [
    (14, "其中：营业收入", "利息收入"),  # nc28a F5
    (19, "经营活动产生的现金流量净额", "二、投资活动产生的现金流量："),
    (21, "经营活动产生的现金流量净额", "二、投资活动产生的现金流量："),
    (10, "资产总计", "流动负债："),
    (9, "流动资产合计", "非流动资产："),
])
def test_an_empty_row_under_a_label_ending_short_of_its_column_stays_a_row_of_its_own(
        page: int, row: str, empty: str) -> None:
    """The statement's labels end a character or more short of their column's edge (197 pt): what stands a row pitch
    under them is the next row (its label alone), never their second line."""
    lines = _block("pdfplumber__issue-67-example.pdf", page, row)
    assert row in lines and empty not in lines, lines


def test_the_widest_label_of_its_column_ending_far_short_of_the_next_cell_heads_no_wrap() -> None:
    """review30 finding 7: the column's edge fell back to the line's own end when no line of its column ended further
    right, so the widest label always "filled" its column and the section row under it was joined as its second line.
    Nothing on the page sets the column's edge there: the line filled it only if the next cell leaves no room for the
    word under it."""
    from mnote_kr_pdf_bbox.tables import _wraps

    texts = ["Net cash provided by operating activities", "1,204", "Investing activities:"]
    boxes = [(72.0, 100.0, 300.0, 110.0), (420.0, 100.0, 450.0, 110.0), (72.0, 115.0, 170.0, 125.0)]
    assert not _wraps(0, 2, [0, 1], boxes, texts, [0, 1, 2])
    # the next cell right after the label: the word under it would not have fitted before it ("routières | etc.")
    close = [boxes[0], (305.0, 100.0, 335.0, 110.0), boxes[2]]
    assert _wraps(0, 2, [0, 1], close, texts, [0, 1, 2])
    # another line of the column ending where the label does sets the edge there: the label filled it
    longer = [*boxes, (72.0, 130.0, 300.5, 140.0)]
    assert _wraps(0, 2, [0, 1], longer, [*texts, "Purchases of property, plant and equipment"], [0, 1, 2, 3])
