"""The viewer's models of presentations and workbooks (``document_model`` of the PPTX and XLSX
locators), checked against docling's ground truth for the corpus files, not against the readers."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.data import CORPUS

from mnote_kr.models import DocumentModel
from mnote_kr.plugins import Plugins, load_plugins

PPTX = sorted((CORPUS / "pptx").glob("*.pptx"))
XLSX = sorted(p for p in (CORPUS / "xlsx").iterdir() if p.suffix in (".xlsx", ".xlsm"))


@pytest.fixture(scope="module")
def plugins() -> Plugins:
    return load_plugins(None)


def _truth(path: Path) -> dict[str, Any]:
    return json.loads((CORPUS / "groundtruth" / "docling" / f"{path.name}.json").read_text(encoding="utf-8"))


def _norm(text: str) -> str:
    """Docling's and a person's spelling of one value: whitespace collapsed, no thousands commas, a
    midnight datetime as its date."""
    return " ".join(text.replace(",", "").split()).removesuffix(" 00:00:00")


def _bare(text: str) -> str:
    return "".join(text.split())


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("path", PPTX, ids=lambda p: p.name)
def test_slide_shapes_hold_docling_texts_at_docling_boxes(plugins: Plugins, path: Path) -> None:
    before = _sha(path)
    model = plugins.document_model(str(path))
    truth = _truth(path)
    assert isinstance(model, DocumentModel) and model.kind == "slides" and model.plugin == "pptx_locator"
    assert [s.number for s in model.slides] == list(range(1, len(truth["pages"]) + 1))
    checked = 0
    for item in truth["texts"]:
        if not item["prov"]:  # docling's comment texts are on no slide
            continue
        prov, text = item["prov"][0], _norm(item["text"])
        slide = model.slides[prov["page_no"] - 1]
        size = truth["pages"][str(prov["page_no"])]["size"]
        assert (slide.width, slide.height) == (size["width"], size["height"])
        b = prov["bbox"]
        if not text:
            continue
        if (b["l"], b["t"], b["r"], b["b"]) == (0, 0, 0, 0):  # docling's speaker notes carry no box
            assert text in _norm(" ".join(p.text for p in slide.notes)), (path.name, text)
            checked += 1
            continue
        # docling's PPTX boxes are EMU from the slide's top-left corner, top and bottom swapped
        want = [b["l"] / size["width"], min(b["t"], b["b"]) / size["height"],
                b["r"] / size["width"], max(b["t"], b["b"]) / size["height"]]
        # compared without spaces: the reader joins a paragraph's runs and drops its line breaks
        holders = [s for s in slide.shapes if _bare(text) in _bare(_norm(" ".join(p.text for p in s.paragraphs)))]
        assert holders, (path.name, prov["page_no"], text)
        checked += 1
        if want == [0.0, 0.0, 1.0, 1.0]:  # docling's stand-in for a shape whose place it cannot read
            continue
        assert any(s.box is not None and all(abs(x - y) < 2e-4 for x, y in zip(s.box, want, strict=True))
                   for s in holders), (path.name, text, [s.box for s in holders], want)
    assert checked or not truth["texts"]
    assert _sha(path) == before


def test_sample_deck_shapes_keep_the_locators_ids_paragraphs_and_notes(plugins: Plugins) -> None:
    path = CORPUS / "pptx" / "docling__powerpoint_sample.pptx"
    model = plugins.document_model(str(path))
    assert model is not None
    second = model.slides[1]
    (rect,) = [s for s in second.shapes if s.name == "Rectangle 3"]
    assert rect.id == 4 and [p.text for p in rect.paragraphs] == ["A rectangle shape with this text inside."]
    (listing,) = [s for s in second.shapes if any(p.text == "And baz things" for p in s.paragraphs)]
    assert [p.index for p in listing.paragraphs if p.text == "And baz things"] == [3]  # the locator's paragraphIndex
    assert [p.text for p in second.notes] == ["Some notes on the second slide."]
    assert any(s.title and s.paragraphs[0].text == "Second slide title" for s in second.shapes)


def test_chart_data_is_drawn_in_the_chart_frame_where_docling_reads_the_chart(plugins: Plugins) -> None:
    """docling reads the 2-D chart's data as a table of cells (its 3-D chart it cannot read): every cell
    is in the chart frame's paragraphs, and the frame sits at docling's picture box."""
    path = CORPUS / "pptx" / "docling__pptx_chart.pptx"
    model, truth = plugins.document_model(str(path)), _truth(path)
    assert model is not None
    (pic,) = [p for p in truth["pictures"] if "tabular_chart" in p["meta"]]
    prov = pic["prov"][0]
    size = truth["pages"][str(prov["page_no"])]["size"]
    b = prov["bbox"]
    want = [b["l"] / size["width"], min(b["t"], b["b"]) / size["height"],
            b["r"] / size["width"], max(b["t"], b["b"]) / size["height"]]
    (frame,) = [s for s in model.slides[prov["page_no"] - 1].shapes if s.box is not None and all(
        abs(x - y) < 2e-4 for x, y in zip(s.box, want, strict=True))]
    drawn = " ".join(p.text for p in frame.paragraphs)
    cells = [c["text"] for c in pic["meta"]["tabular_chart"]["chart_data"]["table_cells"] if c["text"]]
    assert len(cells) == 14 and all(c in drawn for c in cells), (drawn, cells)
    assert frame.name == "Chart 2" and not frame.title


def _sheet_names(path: Path) -> list[str]:
    from openpyxl import load_workbook

    wb = load_workbook(path, read_only=True)
    try:
        return list(wb.sheetnames)
    finally:
        wb.close()


@pytest.mark.parametrize("path", XLSX, ids=lambda p: p.name)
def test_sheet_cells_sit_where_docling_places_its_table_cells(plugins: Plugins, path: Path) -> None:
    before = _sha(path)
    model = plugins.document_model(str(path))
    assert isinstance(model, DocumentModel) and model.kind == "sheets" and model.plugin == "xlsx_locator"
    names = _sheet_names(path)
    sheets = {s.name: s for s in model.sheets}
    truth = _truth(path)
    checked = 0
    for table in truth["tables"]:
        prov = table["prov"][0]
        sheet = sheets[names[prov["page_no"] - 1]]
        cells = {(c.row, c.column): c.text for c in sheet.cells}
        top, left = int(prov["bbox"]["t"]), int(prov["bbox"]["l"])  # docling: 0-based sheet row/column of the table
        for cell in table["data"]["table_cells"]:
            if not cell["text"].strip():
                continue
            at = (top + cell["start_row_offset_idx"] + 1, left + cell["start_col_offset_idx"] + 1)
            assert _norm(cells.get(at, "")) == _norm(cell["text"]), (path.name, sheet.name, at, cell["text"])
            checked += 1
    assert checked > 0
    for sheet in model.sheets:
        keys = [(c.row, c.column) for c in sheet.cells]
        assert keys == sorted(set(keys)) and not sheet.truncated
    assert _sha(path) == before


def test_sheet_model_is_capped_and_says_so() -> None:
    from mnote_kr_xlsx_locator.reader import load_xlsx
    from mnote_kr_xlsx_locator.view import sheets_model

    doc = load_xlsx(CORPUS / "xlsx" / "docling__xlsx_02_sample_sales_data.xlsm")
    full = sheets_model(doc, "xlsx_locator")
    capped = sheets_model(doc, "xlsx_locator", sheet_cap=30)
    (whole,), (cut,) = full.sheets, capped.sheets
    assert not whole.truncated and cut.truncated and 0 < len(cut.cells) <= 30
    rows = {c.row for c in cut.cells}
    assert cut.cells == [c for c in whole.cells if c.row in rows]  # whole rows, none skipped
    assert rows == set(range(min(rows), max(rows) + 1)) and min(rows) == whole.cells[0].row


def test_old_document_model_json_still_decodes() -> None:
    import msgspec

    old = b'{"kind":"paragraphs","paragraphs":[{"index":0,"text":"Hi"}],"pages":[],"plugin":"docx_locator"}'
    model = msgspec.json.decode(old, type=DocumentModel)
    assert model.paragraphs[0].text == "Hi" and model.slides == [] and model.sheets == []
    assert re.search(r'"kind":"slides"', msgspec.json.encode(DocumentModel(kind="slides")).decode())
