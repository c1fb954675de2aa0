"""DOCX bullets written in the Symbol font show as bullets, not boxes.

Word writes many bullets as the Symbol font's private-use code point U+F0B7 (``khoj__bangalore.docx``
has 645 of them); no Unicode font draws it, so every browser showed a box. The viewer maps the
common Symbol/Wingdings bullets to Unicode one for one, so highlight offsets still fit.
"""

from __future__ import annotations

from mnote_kr_testkit.data import CORPUS

from mnote_kr.models import Highlight, Locator
from mnote_kr.server import webpages
from mnote_kr_docx_locator import document_model


def _private_use(text: str) -> list[str]:
    return sorted({hex(ord(ch)) for ch in text if 0xE000 <= ord(ch) <= 0xF8FF})


def test_the_viewer_of_a_docx_with_symbol_bullets_has_none_left() -> None:
    path = CORPUS / "docx" / "khoj__bangalore.docx"
    before = path.read_bytes()
    model = document_model(str(path))
    source = "".join(p.text for p in model.paragraphs)
    assert "\uf0b7" in source  # the file's own text has them
    html = webpages.paragraphs_html(model, None, Locator(locator_precision="file"))
    assert _private_use(html) == [] and html.count("\u2022") >= source.count("\uf0b7")
    assert path.read_bytes() == before


def test_a_highlight_after_a_symbol_bullet_still_marks_its_words() -> None:
    text = "\uf0b7\tTraffic in Bangalore"
    loc = Locator(locator_precision="paragraph", paragraph_index=0, highlight=Highlight(start=2, end=9))
    assert webpages._marked(text, loc) == '\u2022\t<mark class="hl" id="hl">Traffic</mark> in Bangalore'
