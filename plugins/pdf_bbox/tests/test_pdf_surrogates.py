"""A PDF text layer's lone surrogate (a glyph PDFium maps to half a character) never stops a search.

Found by ``benchmarks/grounding.py``: a boxed block's words (``Locator.place_text``) held one, and
the locate cache's UTF-8 write raised out of ``ask``. The words are shown with U+FFFD in its place,
and a locator the cache cannot store is only not stored.
"""

from __future__ import annotations

from types import SimpleNamespace

from mnote_kr.citations.caches import answercache
from mnote_kr.models import Locator
from mnote_kr_pdf_bbox.answer import written_text


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
