"""A row's label that is a number is quoted under its header, as every other cell of the row (nc23b problem 6).

On docling's ``xlsx_01.xlsx`` Sheet2 (headers col-1 .. col-4, row 9: 8 | 16 | 24 | 32) with the evidence LightRAG's
engine gave the newcomer, the cell D9 was quoted "8, col-4: 32": the label 8 without its header col-1, a number
that says nothing by itself. A name labelling its row ("Revenue, 2023: 4,100") still reads as the row's name.
"""

from __future__ import annotations

from mnote_kr_testkit.data import CORPUS

from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins

BOOK = CORPUS / "xlsx" / "docling__xlsx_01.xlsx"
#: The evidence the host's cleaning gave the locator in the newcomer's search (the engine's whole-book chunk).
EVIDENCE = ("Sheet: Sheet1\nfirst second third\n1 5 9\n2 4 6\n3 3 3\n4 2 0\n5 1 -3\n6 0 -6\nSheet: Sheet2\n"
            "col-1 col-2 col-3 col-4\n1 2 3 4\n2 4 6 8\n3 6 9 12\n4 8 12 16 col-1 col-2 col-3\n5 10 15 20 1 2 3\n"
            "6 12 18 24 2 4 6\n7 14 21 28 3 6 9\n8 16 24 32 4 8 12\ncol-1 col-2 col-3\n1 2 3\n2 4 6\n3 6 9\n4 8 12\n"
            "Sheet: Sheet3\nfirst header\nsecond third")


def test_a_number_labelling_its_row_is_quoted_under_its_header() -> None:
    before = BOOK.read_bytes()
    loc = load_plugins(None).locate(LocateRequest(file=str(BOOK), evidence=EVIDENCE,
                                                  query="Sheet2 col-4 value in the row where col-1 is 8"))
    assert (loc.sheet, loc.range) == ("Sheet2", "D9"), (loc.sheet, loc.range, loc.locator_reason)
    assert loc.quote == "col-1: 8; col-4: 32"
    assert loc.row_label == "8" and loc.headers == ["col-4"]
    assert BOOK.read_bytes() == before
