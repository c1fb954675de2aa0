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
