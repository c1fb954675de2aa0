"""The primary box is the text block that answers a phrase or question.

Truth never comes from the locator's own geometry: Docling's ground-truth items, or the
text PDFium finds inside the returned box (``get_text_bounded``), or a PDF drawn here
at known positions.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from mnote_kr_testkit import pdf_cases as C
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.pdfs import PdfBuilder, iou

from mnote_kr.models import LocateRequest
from mnote_kr_pdf_bbox import answer, clear_cache, locate

PDF = CORPUS / "pdf"


def _loc(file: Path | str, evidence: str, query: str = ""):  # noqa: ANN202
    return locate(LocateRequest(file=str(file), evidence=evidence, query=query))


def _gt(stem: str) -> list[tuple[str, str, int, tuple[float, float, float, float]]]:
    return C._gt_items(json.loads((CORPUS / "groundtruth" / "docling" / f"docling__{stem}.json").read_text("utf-8")))


def _text_in(file: Path, page: int, box: list[float]) -> str:
    """What PDFium reads inside ``box`` (top-left points) of an unrotated, uncropped page."""
    doc = pdfium.PdfDocument(str(file))
    try:
        pg = doc[page - 1]
        h = pg.get_height()
        tp = pg.get_textpage()
        return tp.get_text_bounded(left=box[0], bottom=h - box[3], right=box[2], top=h - box[1])
    finally:
        doc.close()


def test_typewriter_question_lands_on_the_sholes_paragraph() -> None:
    items = _gt("multi_page")
    window = items[1:5]  # "The concept of the word processor…", a heading, "The origins…", "During this period…"
    assert window[0][1].startswith("The concept") and "Sholes" in window[2][1]
    loc = _loc(PDF / "docling__multi_page.pdf", "\n".join(t for _, t, _, _ in window), "who patented the typewriter")
    assert loc.locator_precision == "bbox" and not loc.locator_degraded and loc.page == 1
    assert iou(loc.bbox, window[2][3]) >= 0.5  # the Sholes sentence's paragraph
    assert iou(loc.bbox, window[0][3]) < 0.1  # not the start of the passage
    # the passage's other blocks are not boxed: the quote does not show them (nc18a: scattered highlights)
    assert all(iou(r.bbox, window[0][3]) < 0.1 for r in loc.rects), [r.bbox for r in loc.rects]


def test_page_crossing_passage_is_boxed_where_the_answer_is_not_on_the_running_header() -> None:
    import pypdf

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    f = PDF / "mineru__demo1.pdf"
    reader = pypdf.PdfReader(str(f))
    p3, p4 = reader.pages[2].extract_text(), reader.pages[3].extract_text()
    assert "Journal of Hydrology" in p3[-120:]  # pypdf keeps page 3's running header inside the chunk
    evidence = p3[-700:] + "\n" + p4[:900]
    loc = _loc(f, evidence, "zero flow days after afforestation")
    assert loc.locator_precision == "bbox" and loc.page == 4
    inside = " ".join(_text_in(f, 4, loc.bbox).split()).lower()
    assert "zero flow days" in inside.replace("\ufb02", "fl") and "afforestation" in inside
    assert "journal of hydrology" not in inside
    for r in loc.rects:  # no rectangle of the passage on a running header
        assert "Journal of Hydrology" not in _text_in(f, r.page, r.bbox), r
    # the header and page numbers around the passage are reported, so quotes can leave them out;
    # (page 3's number as pypdf reads it, the last word of its text; page 4's printed number)
    assert any("Journal of Hydrology 310 (2005)" in t for t in loc.quote_omit)
    assert {p3.split()[-1], "256"} <= set(loc.quote_omit) and p3.split()[-1] == "255"


def test_rtl_arabic_is_matched_in_logical_order() -> None:
    f = PDF / "docling__right_to_left_01.pdf"
    items = _gt("right_to_left_01")
    body = next(it for it in items if it[0] == "text")
    evidence = body[1]  # Docling's text: logical order, lam-alef as written
    for query, word in [("مكتبات وأدوات غنية", "مكتبات"), ("النمذجة الإحصائية", "النمذجة")]:
        loc = _loc(f, evidence, query)
        assert loc.locator_precision == "bbox" and loc.page == 1 and not loc.locator_degraded, query
        b = body[3]
        assert all(loc.bbox[k] >= b[k] - 2 for k in (0, 1)) and all(loc.bbox[k] <= b[k] + 2 for k in (2, 3))
        assert loc.bbox[3] - loc.bbox[1] < 0.5 * (b[3] - b[1])  # one paragraph, not the whole body
        assert word in _text_in(f, 1, loc.bbox), query


def test_no_block_with_the_query_terms_is_a_semantic_match_never_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    # By words alone: whether this file's blocks have vectors depends on which tests ran before
    # (ranked by meaning, a block is placed by meaning: test_pdf_meaning covers that).
    monkeypatch.setattr(answer, "BY_MEANING", False)
    clear_cache()
    items = _gt("multi_page")
    window = "\n".join(t for _, t, _, _ in items[1:5])
    loc = _loc(PDF / "docling__multi_page.pdf", window, "how did secretaries feel about automation")
    assert loc.locator_precision == "bbox" and loc.locator_degraded and "semantic match" in loc.reason
    assert loc.page == 1
    # said where people read it, as the DOCX locator does
    assert loc.locator_reason is not None and "semantic match" in loc.locator_reason


def test_locator_reason_is_set_on_exact_query_term_and_not_found_answers() -> None:
    items = _gt("multi_page")
    window = "\n".join(t for _, t, _, _ in items[1:5])
    hit = _loc(PDF / "docling__multi_page.pdf", window, "who patented the typewriter")
    assert hit.locator_reason is not None and "query's" in hit.locator_reason and "semantic" not in hit.locator_reason
    miss = _loc(PDF / "docling__multi_page.pdf", "nothing of this stands in the document at all, zebra quokka")
    assert miss.locator_precision == "file" and miss.locator_reason is not None and "not found" in miss.locator_reason


def test_running_footer_is_never_the_primary_box(tmp_path: Path) -> None:
    b = PdfBuilder()
    body = ["Flow duration curves show how often each flow is exceeded in a year.",
            "Plantations reduce low flows more than they reduce high flows."]
    drawn = []
    for n in range(1, 4):
        p = b.add_page()
        b.text(p, 72, 40, f"Journal of Hydrology 310 (2005) page {n}", 9)  # running footer
        drawn.append([b.text(p, 72, 600 - 14 * i, f"{t} Page {n} text.", 11) for i, t in enumerate(body)])
    f = tmp_path / "footer.pdf"
    f.write_bytes(b.build())
    evidence = "Journal of Hydrology 310 (2005) page 2\nFlow duration curves show how often each flow is exceeded"
    loc = _loc(f, evidence + " in a year. Page 3 text.", "journal hydrology")
    assert loc.page == 3 and 180 < loc.bbox[1] < 250  # the body line, not the footer at the bottom
    assert all(r.bbox[1] < 700 for r in loc.rects)


def test_same_answer_under_every_hash_seed(tmp_path: Path) -> None:
    cases = C.docling_question_cases(CORPUS, per_doc=6)
    reqs = tmp_path / "REQUESTS.jsonl"
    reqs.write_text("".join(json.dumps({"file": c.file, "evidence": c.evidence, "query": c.query},
                                       ensure_ascii=False) + "\n" for c in cases), "utf-8")
    outs = []
    for seed in ("0", "1", "152", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "MNOTE_KR_HOME": str(tmp_path / f"home{seed}")}
        proc = subprocess.run([sys.executable, "-m", "mnote_kr", "locate", "--batch", str(reqs), "--json"],
                              capture_output=True, text=True, env=env, timeout=300)
        assert proc.returncode == 0, proc.stderr[-500:]
        lines = [json.loads(x) for x in proc.stdout.splitlines() if x.strip()]
        assert len(lines) == len(cases)
        outs.append([(x.get("page"), x.get("bbox"), x.get("rects")) for x in lines])
    assert all(o == outs[0] for o in outs[1:])
    assert sum(o[1] is not None for o in outs[0]) >= 0.9 * len(cases)


def test_evidence_loses_header_lines_but_keeps_bare_numbers() -> None:
    from mnote_kr_pdf_bbox.layout import drop_furniture_lines, furniture_key

    keys = sorted({furniture_key("P.N.J. Lane et al. / Journal of Hydrology 310 (2005) 253-265"), furniture_key("255")},
                  key=len, reverse=True)
    text = ("in Lane et al. (2003).\nP.N.J. Lane et al. / Journal of Hydrology 310 (2005) 253-265 256\n"
            "256 P.N.J. Lane et al. / Journal of Hydrology 310 (2005) 253-265\n42\n2.2. Zero flow day analysis")
    assert drop_furniture_lines(text, keys) == "in Lane et al. (2003).\n42\n2.2. Zero flow day analysis"
    assert drop_furniture_lines("one line only", keys) == "one line only"
