"""A form's checkboxes Word inserted from a symbol font (``w:sym``) are read as the characters they draw.

Word keeps no text for Insert > Symbol, only ``<w:sym w:font="Wingdings" w:char="F0FE"/>``: the reader read runs'
``w:t`` only, so "Married ☑ Yes ☐ No" read "Married  Yes  No" in the locator, the viewer and the text sent when
LightRAG fails on the file (viewer29's note). The corpus has no such form: python-docx writes one here, the XML
Word writes for it put into a copy in ``tmp_path``. Each character is read as the quotes and the viewer show the
same Wingdings code (``symbolfont``, through ``plugin_api.sym_char``), one character for one element.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from docx import Document
from docx.oxml import parse_xml
from docx.oxml.ns import nsdecls

from mnote_kr.citations.cleaning.copyable import symbol_bullets
from mnote_kr.models import LocateRequest
from mnote_kr_docx_locator import cache as docx_cache
from mnote_kr_docx_locator import document_model, extract_text, locate
from mnote_kr_docx_locator.cache import load_docx


@pytest.fixture(autouse=True)
def _fresh() -> None:
    docx_cache.clear_cache()


def _sym(font: str, char: str) -> object:
    return parse_xml(f'<w:r {nsdecls("w")}><w:sym w:font="{font}" w:char="{char}"/></w:r>')


def _form(path: Path) -> Path:
    """A DOCX form: a heading, two answers ticked and left empty with Wingdings boxes, a Symbol-font formula, a
    text box holding a box, and a box of a symbol font no table knows (Wingdings 2)."""
    doc = Document()
    doc.add_heading("Applicant", level=1)
    p = doc.add_paragraph("Married ")
    p._p.append(_sym("Wingdings", "F0FE"))
    p.add_run(" Yes ")
    p._p.append(_sym("Wingdings", "F06F"))  # ☐ (Wingdings' "o"), a form's empty box
    p.add_run(" No")
    q = doc.add_paragraph("Angle ")
    q._p.append(_sym("Symbol", "F061"))  # α
    q.add_run(" = 30 degrees ")
    q._p.append(_sym("Wingdings 2", "F052"))
    box = doc.add_paragraph("Signed")
    box_run = parse_xml(
        f'<w:r {nsdecls("w")} xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape">'
        '<w:pict><w:txbxContent><w:p><w:r><w:t xml:space="preserve">Checked </w:t></w:r>'
        '<w:r><w:sym w:font="Wingdings" w:char="FE"/></w:r></w:p></w:txbxContent></w:pict></w:r>')
    box._p.append(copy.deepcopy(box_run))
    doc.add_paragraph("The end of the form.")
    doc.save(path)
    return path


def test_a_forms_wingdings_boxes_read_as_the_characters_quotes_and_the_viewer_show(tmp_path: Path) -> None:
    path = _form(tmp_path / "form.docx")
    before = path.read_bytes()
    texts = [p.text for p in load_docx(str(path)).paragraphs]
    assert "Married \u2611 Yes \u2610 No" in texts, texts  # was "Married  Yes  No"
    # the same characters a quote shows for these Wingdings codes in a form's text (one for one)
    assert symbol_bullets("Married \uf0fe Yes \uf06f No") == "Married \u2611 Yes \u2610 No"
    assert "Angle \u03b1 = 30 degrees \u3013" in texts, texts  # Symbol's α; Wingdings 2's glyph: marked, not guessed
    signed = next(p for p in load_docx(str(path)).paragraphs if p.text.startswith("Signed"))
    assert signed.textboxes == ("Checked \u2611",), signed.textboxes  # a text box's box too
    model = document_model(str(path))
    assert model is not None and any(p.text == "Married \u2611 Yes \u2610 No" for p in model.paragraphs)
    assert "Married \u2611 Yes \u2610 No" in (extract_text(str(path)) or "")  # the text sent when LightRAG fails
    assert path.read_bytes() == before


def test_the_locator_highlights_the_box_ticked_in_a_form(tmp_path: Path) -> None:
    path = _form(tmp_path / "form.docx")
    loc = locate(LocateRequest(file=str(path), evidence="Married \u2611 Yes \u2610 No", query="married"))
    married = next(p for p in load_docx(str(path)).paragraphs if p.text.startswith("Married"))
    assert loc.locator_precision == "paragraph" and loc.paragraph_index == married.index, loc
    assert loc.highlight is not None
    assert married.text[loc.highlight.start:loc.highlight.end] == "Married \u2611 Yes \u2610 No"  # the boxes in it
