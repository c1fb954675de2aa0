"""A question naming a slide or sheet "of the duck survey deck" / "of the emf workbook" is cited on that place.

nc17b: "what does slide 2 of the duck survey deck show" was cited on slide 1's chart (slide 2 only behind it)
and "what is on the third sheet of the emf workbook" on the second sheet's row: the words describing which
file ("duck survey", "emf") were read as what the slide or sheet should hold; slide 2 and the third sheet hold
none of them, so the named place was called approximate and ranked below the evidence's place. Words that
describe the file are no words its named place must hold.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins

DECK = Path(__file__).resolve().parent / "data" / "corpus" / "pptx" / "docling__pptx_chart.pptx"


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")


def emf_like_workbook(path: Path) -> Path:
    """docling's xlsx_emf.xlsx without its pictures: three sheets, each a "Name | Objective" header on row 12
    over one row of values."""
    from openpyxl import Workbook

    wb = Workbook()
    for n, (name, fmt) in enumerate((("Raster in emf", "EMF"), ("Vector in emf", "EMF"),
                                     ("Raster in webp", "WebP"))):
        ws = wb.active if n == 0 else wb.create_sheet()
        ws.title = name
        ws["B12"], ws["C12"] = "Name", "Objective"
        ws["B13"], ws["C13"] = name, f"Test image in {fmt} format"
    wb.save(path)
    return path


def _locate(file: Path, query: str, evidence: str, passage: str):  # noqa: ANN202 - a Locator
    return load_plugins(None).locate(LocateRequest(file=str(file), evidence=evidence, passage=passage, query=query))


def test_a_slide_named_of_the_deck_described_by_its_title_is_cited_there() -> None:
    deck = load_plugins(None).extract_text(str(DECK))
    slide1 = deck[:deck.index("# Quarterly revenue")]
    loc = _locate(DECK, "what does slide 2 of the duck survey deck show", slide1, deck)
    assert loc.slide == 2 and not loc.locator_degraded, (loc.slide, loc.locator_reason)
    assert loc.runners_up and loc.runners_up[0].slide == 1


def test_a_sheet_named_of_the_workbook_described_by_a_word_is_cited_there(tmp_path: Path) -> None:
    book = emf_like_workbook(tmp_path / "xlsx_emf.xlsx")
    text = load_plugins(None).extract_text(str(book))
    loc = _locate(book, "what is on the third sheet of the emf workbook", text, text)
    assert loc.sheet == "Raster in webp" and not loc.locator_degraded, (loc.sheet, loc.range, loc.locator_reason)
    # a word the named sheet should hold, not the file's, still makes it approximate when it is not there
    loc = _locate(book, "is emf on the third sheet", text, text)
    assert loc.sheet == "Raster in webp" and loc.locator_degraded, (loc.sheet, loc.locator_reason)
