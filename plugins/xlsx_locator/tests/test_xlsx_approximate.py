"""A workbook's row holding few of the query's words is an approximate place (``locatorDegraded``): one rule
with the DOCX, PDF, OCR and PPTX locators (``placing.QUERY_SHARE``). Before, the matcher's reason said the
row "holds few of the query's words" while the cell was claimed exactly."""

from __future__ import annotations

import hashlib
from pathlib import Path

from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins


def test_a_row_holding_few_of_the_querys_words_is_approximate(tmp_path: Path) -> None:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    for row in [("Step", "Owner"), ("Finalize pricing model", "Ann"), ("Launch APAC campaign", "Bo"),
                ("Hire 3 additional SEs", "Cy")]:
        ws.append(row)
    path = tmp_path / "plan.xlsx"
    wb.save(path)
    before = hashlib.sha256(path.read_bytes()).digest()
    plugins = load_plugins(None)
    text = plugins.extract_text(str(path))
    ask = lambda query: plugins.locate(LocateRequest(  # noqa: E731
        file=str(path), evidence=text, passage=text, query=query))
    loc = ask("how many sales engineers will be recruited")
    assert (loc.locator_precision, loc.locator_degraded) == ("cell", True), loc.locator_reason
    # a row holding the query's words stays exact
    loc = ask("who owns the APAC campaign launch")
    assert (loc.range, loc.locator_degraded) == ("B3", False), loc.locator_reason
    assert hashlib.sha256(path.read_bytes()).digest() == before
