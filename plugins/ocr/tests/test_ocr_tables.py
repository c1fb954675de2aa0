"""Table rows on a scanned page read, are indexed, quoted and boxed as rows (``rows``, ``scan.lay_out``).

``data/medrpt_lines.json`` holds the lines RapidOCR read on the corpus's MEDRPT scan (3 pages) before rows
were joined: the lab table of page 2 came out one cell a line (``Glucose, Fasting`` / ``118 mg/dL`` / ...),
so "What is the patient's HbA1c value?" was cited on a line that does not hold the lab value (nc17a
problem 6). ``data/tracemonkey_p2_lines.json`` holds the lines read on page 2 of the corpus's tracemonkey
paper (two columns of prose, a code listing beside one): lined up as well as a table, never joined.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from mnote_kr_ocr import scan
from mnote_kr_ocr.scan import Line, Page, Scan, lay_out
from mnote_kr_testkit.pdfs import union

from mnote_kr.core.config import load_config
from mnote_kr.models import LocateRequest
from mnote_kr.plugins import Plugins, load_plugins

DATA = Path(__file__).parent / "data"
MEDRPT = json.loads((DATA / "medrpt_lines.json").read_text(encoding="utf-8"))
TRACEMONKEY = json.loads((DATA / "tracemonkey_p2_lines.json").read_text(encoding="utf-8"))


def _lines(raw: list[list]) -> list[Line]:
    return [Line(text=r[0], box=[float(v) for v in r[1:5]], score=float(r[5])) for r in raw]


def _medrpt_page(number: int) -> list[Line]:
    return _lines(MEDRPT["pages"][number - 1]["lines"])


def _cell(lines: list[Line], text: str, top: float = 0.0) -> Line:
    """The line reading ``text`` (the first at or below ``top``)."""
    return next(ln for ln in lines if ln.text == text and ln.box[1] >= top)


def test_a_lab_table_read_one_cell_a_line_becomes_its_rows() -> None:
    cells = _medrpt_page(2)
    lines, paras = lay_out(cells)
    rows = [ln for ln in lines if ln.cells > 1]
    assert [ln.text for ln in rows[:3]] == ["Test | Result | Reference Range | Flag",
                                            "Glucose, Fasting | 118 mg/dL | 70-100 mg/dL | HIGH",
                                            "HbA1c | 6.8% | <5.7% | HIGH"]
    assert len(rows) == 13 and rows[-1].text == "Platelets | 245,000/μL | 150,000-400,000/L"  # no flag: 3 cells
    hba1c = rows[2]
    parts = [_cell(cells, t, top=190.0) for t in ("HbA1c", "6.8%", "<5.7%", "HIGH")]
    assert hba1c.box == list(union([c.box for c in parts])) and hba1c.cells == 4
    assert hba1c.score == min(c.score for c in parts)
    # the table is one paragraph of rows, its heading above it one of its own
    table = next(p for p in paras if lines.index(hba1c) in p)
    assert [lines[i].text.split(" | ")[0] for i in table][:3] == ["Test", "Glucose, Fasting", "HbA1c"]
    assert len(table) == 13
    text = Scan(pages=[Page(number=2, width=408.24, height=528.12, unit="pt", source="ocr", lines=lines,
                            paragraphs=paras)]).markdown()
    assert "LABORATORY RESULTS\n\nTest | Result" in text and "\nHbA1c | 6.8% | <5.7% | HIGH\n" in text


@pytest.mark.parametrize("number", [1, 2, 3])
def test_lines_that_share_no_baseline_keep_their_places(number: int) -> None:
    """Every line of the scan that is no table cell keeps its text and box, and the paragraphs made of
    such lines are today's (the prose of the report, its lists, its headings)."""
    cells = _medrpt_page(number)
    before = scan.paragraphs(cells)
    lines, paras = lay_out(cells)
    kept = [ln for ln in lines if ln.cells == 1]
    joined = sum(ln.cells for ln in lines if ln.cells > 1)
    assert len(kept) + joined == len(cells)
    assert all(ln in cells for ln in kept)  # the very lines, untouched
    old = {tuple(cells[i].text for i in p) for p in before}
    new = {tuple(lines[i].text for i in p) for p in paras if all(lines[i].cells == 1 for i in p)}
    assert new <= old, new - old
    prose = {"Patient presents with persistent headaches occurring 3-4 times per week for the past",
             "FINDINGS: No acute ntracranial hemorrhage, mass effect, or midline shif.",
             "- Target HbA1c: <7.0%", "ATTENDING PHYSICIAN", "VERIFIED &APPROVED"}
    assert all(_cell(lines, t) for t in prose if any(c.text == t for c in cells))


def test_two_columns_of_prose_are_not_read_across_the_gutter() -> None:
    """Tracemonkey's page 2: 54 pairs of lines share a baseline across the gutter, in columns that line up
    like a table's, yet each line stays a line, read down its column; so do a page header's pieces
    (``第一章商`` ``品`` ``17``, the Chinese book's page 6)."""
    from mnote_kr_ocr.rows import bands

    cells = _lines(TRACEMONKEY["lines"])
    assert len(bands(cells)) >= 50
    lines, paras = lay_out(cells)
    assert lines == cells and paras == scan.paragraphs(cells)
    small = json.loads((DATA / "small_ocr_p6.json").read_text(encoding="utf-8"))
    header = _lines(small["lines"])
    assert lay_out(header)[0] == header


def test_a_record_kept_before_rows_is_laid_out_on_load_and_a_new_one_keeps_its_rows() -> None:
    page = {"number": 2, "width": 408.24, "height": 528.12, "unit": "pt", "source": "ocr",
            "lines": MEDRPT["pages"][1]["lines"], "paragraphs": scan.paragraphs(_medrpt_page(2))}
    old = json.dumps({"pages": [page], "notes": [], "error": None, "seconds": 1.0, "layerCheck": True}).encode()
    loaded = Scan.from_json(old)  # an ocr-3 record: one cell a line, read again without recognition
    assert "\nHbA1c | 6.8% | <5.7% | HIGH\n" in loaded.markdown()
    again = Scan.from_json(loaded.to_json())
    assert again.pages[0].lines == loaded.pages[0].lines and again.pages[0].paragraphs == loaded.pages[0].paragraphs
    assert [ln.cells for ln in again.pages[0].lines if "HbA1c | " in ln.text] == [4]


@pytest.fixture
def plugins() -> Plugins:
    return load_plugins(load_config(None))


def test_a_question_about_a_lab_value_is_cited_on_its_row(plugins: Plugins, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """nc17a X1: "What is the patient's HbA1c value?" over pages 2-3 is cited on the lab row, quoted as the
    row and boxed over its four cells; before, the cell ``HbA1c`` was a line of its own, too short to be
    ranked, and the place went to the assessment's "(HbA1c 6.8%)" or the plan's "Target HbA1c: <7.0%".
    A row's words finish no sentence: "Creatinine | ..." is quoted alone, not with the row "eGFR | ..."
    below it (a line opening in lowercase goes on with the one above)."""
    from mnote_kr_testkit.data import CORPUS

    from mnote_kr.citations.rank import meaning

    source = CORPUS / "pdf" / "markitdown__MEDRPT-2024-PAT-3847_medical_report_scan.pdf"
    path = tmp_path / source.name
    shutil.copy2(source, path)
    pages = []
    for raw in MEDRPT["pages"]:
        lines, paras = lay_out(_lines(raw["lines"]))
        pages.append(Page(number=raw["number"], width=raw["width"], height=raw["height"], unit="pt", source="ocr",
                          lines=lines, paragraphs=paras))
    scan._store().put(scan._key(hashlib.sha256(path.read_bytes()).hexdigest()), Scan(pages=pages).to_json())
    scan._memo.clear()
    monkeypatch.setattr(meaning, "_queue", [])
    text = plugins.recognize_text(str(path)) or ""
    meaning.embed_queued(lambda line: None)
    passage = text[text.index("## Page 2"):]
    row = [_cell(_medrpt_page(2), t, top=190.0).box for t in ("HbA1c", "HIGH")]
    loc = plugins.locate(LocateRequest(file=str(path), evidence=passage, passage=passage,
                                       query="What is the patient's HbA1c value?"))
    assert loc.locator_plugin == "ocr" and loc.page == 2 and loc.quote == "HbA1c | 6.8% | <5.7% | HIGH", loc
    assert loc.bbox == list(union(row)), loc.bbox
    creatinine = plugins.locate(LocateRequest(file=str(path), evidence=passage, passage=passage,
                                              query="Creatinine 1.1 mg/dL"))
    assert creatinine.quote == "Creatinine | 1.1 mg/dL | 0.7-1.3 mg/dL", creatinine
    assert path.read_bytes() == source.read_bytes()
