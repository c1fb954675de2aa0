"""A PDF text layer's lone surrogate (a glyph PDFium maps to half a character) never stops a search.

Found by ``benchmarks/grounding.py``: a boxed block's words (``Locator.place_text``) held one, and
the locate cache's UTF-8 write raised out of ``ask``. The words are shown with U+FFFD in its place,
and a locator the cache cannot store is only not stored.

A letter outside the Basic Multilingual Plane (``𝑄``, U+1D444, as mineru__introduction.pdf's mind map
writes "放热反应，𝑄<0") is two chars in PDFium's list, a UTF-16 surrogate pair: it reads as one
character, with both halves' box, is quoted as written and matches a query's plain "Q" (NFKC).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from types import SimpleNamespace

import pypdf
import pypdfium2 as pdfium
import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.pdfs import PdfBuilder

import mnote_kr_pdf_bbox
from mnote_kr.citations.caches import answercache
from mnote_kr.citations.cleaning import clean_citation_text
from mnote_kr.models import LocateRequest, Locator
from mnote_kr_pdf_bbox.blocks import written_text
from mnote_kr_pdf_bbox.pdftext import line_text, read_document

MINDMAP = CORPUS / "pdf" / "mineru__introduction.pdf"
LONE = re.compile("[\ud800-\udfff]")


@pytest.fixture(autouse=True)
def _fresh() -> None:
    mnote_kr_pdf_bbox.clear_cache()


def _equations(path: Path) -> PdfBuilder:
    b = PdfBuilder()
    b.add_page()
    b.text(1, 72, 700, "Heat released: \U0001d444<0 when \U0001d43b falls", 12)
    b.text(1, 72, 670, "\U0001d53d(\U0001d465) is the field's map", 12)
    b.text(1, 300, 600, "\U0001d444", 12)  # a letter alone on its line: the line's box is the letter's
    path.write_bytes(b.build())
    return b


def _lone_surrogates(path: Path) -> int:
    return sum(len(LONE.findall(page.text)) for page in read_document(path).pages)


def test_letters_outside_the_bmp_read_whole_with_their_box(tmp_path: Path) -> None:
    pdf = tmp_path / "equations.pdf"
    drawn = _equations(pdf)
    doc = read_document(pdf)
    text = doc.pages[0].text
    assert "Heat released: \U0001d444<0 when \U0001d43b falls" in text, ascii(text)
    assert "\U0001d53d(\U0001d465)" in text and not LONE.search(text), ascii(text)
    page = doc.pages[0]
    alone = [li for li in range(len(page.lines)) if line_text(page, li).strip() == "\U0001d444"]
    assert len(alone) == 1
    box, want = page.geometry.display(page.lines[alone[0]]), drawn.drawn[2].box
    # the letter's advance across, the font's loose height up and down (PDFium's loose box)
    assert abs(box[0] - want[0]) < 0.5 and abs(box[2] - want[2]) < 0.5, (box, want)
    assert box[1] <= want[1] + 0.5 and box[3] >= want[3] - 0.5 and box[3] - box[1] < 2 * (want[3] - want[1])


def test_no_corpus_pdf_holding_such_letters_reads_a_lone_surrogate(tmp_path: Path) -> None:
    # the corpus' one PDF holding them (10 halves read before), and equations drawn here
    pdf = tmp_path / "equations.pdf"
    _equations(pdf)
    for path in (MINDMAP, pdf):
        assert _lone_surrogates(path) == 0, path
    assert "\u25b3\U0001d43b=\U0001d444" in read_document(MINDMAP).pages[0].text


def _search(file: Path, query: str) -> Locator:
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    chunk = pypdf.PdfReader(str(file)).pages[0].extract_text()
    evidence = clean_citation_text(chunk, query).locator_evidence_text
    return mnote_kr_pdf_bbox.locate(LocateRequest(file=str(file), evidence=evidence, query=query, passage=chunk))


def _text_in(file: Path, box: list[float]) -> str:
    doc = pdfium.PdfDocument(str(file))
    try:
        pg = doc[0]
        h = pg.get_height()
        return "".join(pg.get_textpage().get_text_bounded(left=box[0], bottom=h - box[3], right=box[2],
                                                          top=h - box[1]).split())
    finally:
        doc.close()


@pytest.mark.parametrize("query", ["Q<0", "\u25b3H=Q"])
def test_a_querys_plain_letter_finds_the_mind_maps_math_italic_one_and_the_quote_keeps_it(query: str) -> None:
    loc = _search(MINDMAP, query)
    assert loc.locator_precision == "bbox" and not loc.locator_degraded, loc.reason
    assert "the query stands in this text block" in loc.reason, loc.reason
    assert "放热反应，\U0001d444<0" in _text_in(MINDMAP, loc.bbox)
    assert "放热反应，\U0001d444<0" in (loc.place_text or "") and "\ufffd" not in (loc.place_text or "")


def test_a_lone_surrogate_of_the_text_layer_is_written_as_the_replacement_character() -> None:
    text = "Tabelle \ud835 zeigt die Werte"
    page = SimpleNamespace(text=text, stream=[list(range(len(text)))])
    out = written_text(page, [0])  # type: ignore[arg-type]
    assert out == "Tabelle \ufffd zeigt die Werte"
    assert out.encode("utf-8")  # raised UnicodeEncodeError with the surrogate


def test_the_locate_cache_skips_a_locator_it_cannot_write() -> None:
    name = "a-test-surrogate"
    answercache.put(name, Locator(locator_precision="bbox", page=1, place_text="x \udc80 y"))
    assert answercache.get(name) is None
    answercache.put(name, Locator(locator_precision="bbox", page=1, place_text="x y"))
    got = answercache.get(name)
    assert got is not None and got.place_text == "x y"


@pytest.mark.parametrize("query", ["Q 代表什么", "what does Q mean"])
def test_a_query_asking_about_a_letter_is_cited_where_the_mind_map_writes_it(query: str) -> None:
    """"Q" is the query's one content word (a one-letter word is otherwise none): the block that
    writes "𝑄代表放出或吸收的热量" is the place, not the passage's first block about 代表."""
    loc = _search(MINDMAP, query)
    assert loc.locator_precision == "bbox" and not loc.locator_degraded, loc.reason
    assert "\U0001d444代表放出或吸收的热量" in _text_in(MINDMAP, loc.bbox)
    assert "\U0001d444代表" in (loc.place_text or "")


def test_a_typed_delta_finds_the_mind_maps_triangle_and_the_quote_keeps_the_triangle() -> None:
    """The mind map writes "△𝐻=𝑄" with a white triangle (U+25B3); the query's "ΔH=Q" is typed with the Greek
    delta: they match, and the quote shows the triangle as the page does."""
    loc = _search(MINDMAP, "\u0394H=Q")
    assert loc.locator_precision == "bbox" and not loc.locator_degraded, loc.reason
    assert "the query stands in this text block" in loc.reason, loc.reason
    assert "\u25b3\U0001d43b=\U0001d444" in _text_in(MINDMAP, loc.bbox)
    assert "\u25b3\U0001d43b=\U0001d444" in (loc.place_text or "") and "\u03b4" not in (loc.place_text or "").lower()


@pytest.mark.parametrize("delta", ["\u0394", "\u2206"])  # Greek capital delta, the increment sign
def test_evidence_writing_a_delta_aligns_with_the_mind_maps_white_triangle(delta: str) -> None:
    """The mind map writes "△代表加热" (U+25B3); an evidence writing it with Δ or ∆ (an answer's sentence, another
    reader's text) is the same line, as the host's matcher reads it (``textnorm.unconfused_char``): the PDF's
    alignment dropped △ and kept Δ, and the evidence was not found."""
    loc = mnote_kr_pdf_bbox.locate(LocateRequest(file=str(MINDMAP), evidence=f"反应条件\n{delta}代表加热"))
    assert loc.locator_precision == "bbox" and loc.page == 1, loc.reason
    assert "\u25b3代表加热" in _text_in(MINDMAP, loc.bbox)
