"""A folder with a presentation and a workbook, through the real lightrag-server: a phrase on a slide is
cited with ``slide`` precision (slide, shape, box) and a figure in a sheet with ``cell`` precision (sheet,
one cell, header and row label); ``open`` and the HTTP API's open-reference carry the same places."""

from __future__ import annotations

import copy
import hashlib
from pathlib import Path

import httpx
import pytest
from mnote_kr_testkit.decks import harbour_deck
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)

from mnote_kr.app.host import Host
from mnote_kr.core.config import DEFAULTS
from mnote_kr.server.app import ApiServer

pytestmark = pytest.mark.integration

FERRY = "The Kestrelmoor ferry carried 8,450 passengers across the sound in March."


def _deck(path: Path) -> None:
    from pptx.util import Emu

    prs, second = harbour_deck("Ashgrove", "Passenger traffic")
    box = second.shapes.add_textbox(Emu(914400), Emu(2286000), Emu(6400800), Emu(1371600))
    box.name = "Ferry figures"
    box.text_frame.text = "Cargo tonnage stayed flat through the winter months."
    box.text_frame.add_paragraph().text = FERRY
    second.notes_slide.notes_text_frame.text = "Mention the new timetable."
    prs.save(path)


def _book(path: Path) -> None:
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Results"
    ws.append(["Line item", "2022", "2023"])
    ws.append(["Revenue", 3900, 4100])
    ws.append(["Operating costs", 2100, 2300])
    ws.append(["Dredging levy", 310, 330])
    wb.save(path)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_slide_and_cell_citations_through_the_real_engine(tmp_path: Path, lightrag_engine,  # noqa: F811, ANN001
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    ws = tmp_path / "kb"
    (ws / "office").mkdir(parents=True)
    deck, book = ws / "office" / "harbour.pptx", ws / "office" / "results.xlsx"
    _deck(deck)
    _book(book)
    before = {p.name: _sha(p) for p in (deck, book)}
    config = copy.deepcopy(DEFAULTS)
    config["providers"] = {"lightrag": {"url": lightrag_engine.url, "input_dir": lightrag_engine.input_dir,
                                        "working_dir": lightrag_engine.working_dir}}
    monkeypatch.setenv("MNOTE_KR_LIGHTRAG_API_KEY", lightrag_engine.api_key)
    host = Host(ws, config=config)
    report = host.ingest(["office"], wait=True, wait_s=240)
    assert {i.source_path: i.status for i in report.items} == {
        "office/harbour.pptx": "processed", "office/results.xlsx": "processed"}, [
        (i.source_path, i.reason) for i in report.items]

    ferry = [c for c in host.search("Kestrelmoor ferry passengers").results
             if c.source_root_relative_path == "office/harbour.pptx"]
    assert ferry, "the deck was not cited"
    slide = ferry[0].locator
    assert (ferry[0].locator_precision, slide.slide, slide.shape_name, slide.paragraph_index) == (
        "slide", 2, "Ferry figures", 1)
    assert slide.bbox == [914400.0, 2286000.0, 914400.0 + 6400800, 2286000.0 + 1371600] and slide.bbox_unit == "emu"
    # the deck has speaker notes, so it is indexed from mnote-kr's text: the URL names that text's block too
    assert "slide 2" in ferry[0].citation_markdown and "precision=slide&" in ferry[0].citation_url
    assert f"&slide=2&shape={slide.shape_id}" in ferry[0].citation_url

    revenue = [c for c in host.search("Revenue in 2023").results
               if c.source_root_relative_path == "office/results.xlsx"]
    assert revenue, "the workbook was not cited"
    cell = revenue[0].locator
    assert (revenue[0].locator_precision, cell.sheet, cell.range, cell.headers, cell.row_label) == (
        "cell", "Results", "C2", ["2023"], "Revenue")
    assert cell.locator_reason.endswith("Revenue, 2023: 4100")

    opened = host.open(ferry[0].citation_id)
    assert (opened.locator.locator_precision, opened.locator.slide, opened.locator.shape_id) == (
        "slide", 2, slide.shape_id)
    with ApiServer(host) as server, httpx.Client(base_url=server.url, timeout=120,
                                                 headers={"Authorization": f"Bearer {server.token}"}) as client:
        r = client.post("/api/knowledge-rag/open-reference", json={"citationId": revenue[0].citation_id})
        assert r.status_code == 200, r.text
        loc = r.json()["locator"]
        assert (loc["locatorPrecision"], loc["sheet"], loc["range"], loc["rowLabel"]) == (
            "cell", "Results", "C2", "Revenue")
    assert {p.name: _sha(p) for p in (deck, book)} == before  # never touched
