"""A PDF page's text layer that is mostly mojibake (a font without a usable Unicode map) is told apart from
every clean page of the corpus (``unreadable_layer``; figures in ``benchmarks/text_layers.py``)."""

from __future__ import annotations

import pypdfium2 as pdfium
import pytest
from mnote_kr_testkit.data import CORPUS

from mnote_kr.plugin_api import layer_quality, unreadable_layer

GARBLED = CORPUS / "pdf" / "mineru__garbled_formula.pdf"


def _layers(path):
    pdf = pdfium.PdfDocument(str(path))
    try:
        return [pdf[i].get_textpage().get_text_range() for i in range(len(pdf))]
    finally:
        pdf.close()


def test_garbled_formula_page_layer_is_unreadable():
    (layer,) = _layers(GARBLED)
    assert "\x9c/ 1 x1 = 0." in layer  # the layer the newcomer saw
    quality = layer_quality(layer)
    assert quality.suspect > 0.2 and quality.readable < 0.1
    assert unreadable_layer(layer)


@pytest.mark.parametrize("path", sorted((CORPUS / "pdf").glob("*.pdf")), ids=lambda p: p.stem)
def test_no_clean_corpus_page_is_unreadable(path):
    flagged = [i + 1 for i, layer in enumerate(_layers(path)) if unreadable_layer(layer)]
    assert flagged == ([1] if path == GARBLED else [])


def test_partly_garbled_page_with_readable_prose_keeps_its_layer():
    layer = _layers(CORPUS / "pdf" / "docling__redp5110_sampled.pdf")[2]
    quality = layer_quality(layer)
    assert quality.suspect > 0.1  # its sidebar reads as control characters
    assert quality.readable > 0.7 and not unreadable_layer(layer)


def test_accented_words_cjk_and_short_layers_are_readable():
    assert not unreadable_layer("Des études ont démontré que de simples lignes peintes à Ottawa " * 3)
    assert not unreadable_layer("综上，由归纳法，原题得证。当 x1 + x2 = 0 时，不等式成立。" * 2)
    assert not unreadable_layer("\x01\x02\x03")  # under MIN_CHARS: not judged
    assert unreadable_layer("\ue001\ue002\ue003 \ue004\ue005 " * 10)  # private use only
    assert unreadable_layer("K¥\"N ²£+8B\" {±^5)û 2009 c8ÔèÿÁ1 1 U Ø\x17 ½ \x9c/ d\x9e\x06Ø\x1fª")


def _lines(path, page=0):
    return [ln for ln in _layers(path)[page].splitlines() if ln.strip()]


def test_garbage_lines_of_the_garbled_layer_are_glyph_soup():
    """The old-style garbage a newcomer was quoted (nc16c: ``K¥"N ²£+8B" {±^5)û 2009 c8ÔèÿÁ1 1 U``), as the real
    layer has it (with its control characters) and as a terminal showed it (without them), is no place to cite."""
    from mnote_kr.plugin_api import mostly_glyphs

    line = next(ln for ln in _lines(GARBLED) if "2009" in ln)
    assert line.startswith("K¥") and "\x1b" in line
    assert mostly_glyphs(line)
    assert mostly_glyphs('K¥"N ²£+8B" {±^5)û 2009 c8ÔèÿÁ1 1 U')
    garbage = [ln for ln in _lines(GARBLED) if any("\x80" <= ch <= "\x9f" for ch in ln) and len(ln.split()) > 2]
    assert garbage and all(mostly_glyphs(ln) for ln in garbage), [ln for ln in garbage if not mostly_glyphs(ln)]


@pytest.mark.parametrize("name", [
    "mineru__demo1.pdf",  # English prose
    "mineru__introduction.pdf",  # Chinese
    "mineru__academic_paper_formula.pdf",  # Greek-letter maths, a Symbol-font brace
    "docling__code_and_formula.pdf",
    "pdfplumber__chelsea_pdta.pdf",  # French, accented words, tables of numbers
])
def test_no_line_of_a_clean_pdf_is_mojibake(name):
    from mnote_kr.citations.cleaning.textlayer import mojibake

    path = CORPUS / "pdf" / name
    lines = [ln for page in range(len(_layers(path))) for ln in _lines(path, page)]
    assert len(lines) > 5
    assert [ln for ln in lines if mojibake(ln)] == []


def test_symbols_tables_and_formulas_write_are_not_mojibake():
    from mnote_kr.citations.cleaning.textlayer import mojibake

    for text in ("25 ± 3 °C, 40 ± 2 °C, 60 ± 5 °C", "à 10 h, à 12 h, à 14 h", "x² × 2 ÷ y³ ± 1 µm",
                 "£40 (¥500) §3 ©2020 ®", "¿Qué? ¡Sí!", "α ∈ ℝ, f(x) = ∑ x² ± 1", "\uf8f4\uf8f4 \uf8f2 min C(p, p)"):
        assert not mojibake(text), text
