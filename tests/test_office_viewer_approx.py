"""An approximate PPTX or XLSX place is drawn as a PDF's or a DOCX's: dashed and lighter, under the banner.

nc17b P14: ``/view/tue0?place=3`` (slide 2, approximate) drew the shape with a solid outline and no banner,
while the README says an approximate place is dashed and lighter under a banner (as PDFs and DOCX are).
"""

from __future__ import annotations

from pathlib import Path

from mnote_kr.models import Citation, CitationDiagnostics, Locator
from mnote_kr.viewer import webpages
from mnote_kr.viewer.webpages import sheet_viewer, slide_viewer

CORPUS = Path(__file__).resolve().parent / "data" / "corpus"
DECK = CORPUS / "pptx" / "docling__pptx_chart.pptx"
SHEET = CORPUS / "xlsx" / "docling__xlsx_07_gap_tolerance_.xlsx"


def _citation(path: Path, loc: Locator) -> Citation:
    return Citation(provider="lightrag", citation_id="[abcd]", source_id="s", source_path=str(path),
                    source_root_relative_path=path.name, light_rag_doc_id=None, light_rag_file_path=path.name,
                    light_rag_chunk_id=None, block_id=None, heading_path=[], raw_quote=None, display_quote="q",
                    locator_evidence_text=None, quote_source="chunk", search_query="q",
                    locator_precision=loc.locator_precision, locator_degraded=loc.locator_degraded, locator=loc,
                    citation_url="", citation_markdown="", relevance_score=None, diagnostics=CitationDiagnostics(
                        quote_source="chunk", raw_reference_mapped=True, sidecar_block_mapped=False,
                        display_cleaned=True, locator_text_source="chunk"))


def test_an_approximate_slide_shape_is_dashed_under_the_banner_an_exact_one_solid() -> None:
    from mnote_kr_pptx_locator.view import document_model_pptx

    model = document_model_pptx(DECK, "pptx_locator")
    for degraded in (True, False):
        loc = Locator(locator_precision="slide", locator_degraded=degraded, slide=2, shape_id=3, shape_name="Chart 2")
        html = slide_viewer(_citation(DECK, loc), model, 2)
        assert ('class="shape cited approx"' in html) is degraded, html[:400]
        assert (webpages.APPROX_BANNER in html) is degraded


def test_an_approximate_cell_range_is_dashed_under_the_banner_an_exact_one_solid() -> None:
    from mnote_kr_xlsx_locator.view import document_model_xlsx

    model = document_model_xlsx(SHEET, "xlsx_locator")
    for degraded in (True, False):
        loc = Locator(locator_precision="cell", locator_degraded=degraded, sheet="Page 1", range="C11:G11")
        html = sheet_viewer(_citation(SHEET, loc), model)
        assert ('class="cited approx"' in html) is degraded
        assert (webpages.APPROX_BANNER in html) is degraded


def test_the_viewer_css_dashes_an_approximate_shape_and_cell() -> None:
    css = (Path(webpages.__file__).parent / "static" / "viewer.css").read_text(encoding="utf-8")
    assert ".shape.cited.approx" in css and "table.sheet td.cited.approx" in css
    assert css.count("outline-style: dashed") >= 3
