"""Breaks inside a paragraph, as the DOCX reader reads them: a page or column break, a plain line break and a
carriage return a newline, a tab a tab, a non-breaking hyphen "-" and a soft hyphen nothing, the same in a
paragraph's own text and in a text box anchored in it (which the viewer shows beside it). LightRAG 1.5.7's parser
reads the page and column breaks, the carriage return and the non-breaking hyphen as nothing ("sectionNext"); the
provider sends a DOCX holding one as this reader's text (plugins/lightrag, ``docxbreaks``)."""

from __future__ import annotations

from pathlib import Path

from mnote_kr_testkit.docx_docs import DocxBuilder

from mnote_kr_docx_locator import cache as docx_cache
from mnote_kr_docx_locator import extract_text
from mnote_kr_docx_locator.cache import load_docx

RUNS = ('<w:r><w:t>section</w:t><w:br w:type="page"/><w:t>Next</w:t><w:br w:type="column"/><w:t>column</w:t>'
        '<w:cr/><w:t>return</w:t><w:br/><w:t>line</w:t><w:tab/><w:t>tab 26</w:t><w:noBreakHyphen/>'
        '<w:t>jährige Donau</w:t><w:softHyphen/><w:t>dampfschiff</w:t></w:r>')
READ = "section\nNext\ncolumn\nreturn\nline\ttab 26-jährige Donaudampfschiff"


def test_breaks_read_as_newlines_and_hyphens_in_a_paragraph_and_in_its_text_box(tmp_path: Path) -> None:
    docx_cache.clear_cache()
    b = DocxBuilder()
    box = (f"<w:r><w:pict><v:shape><v:textbox><w:txbxContent><w:p>{RUNS}</w:p></w:txbxContent></v:textbox>"
           "</v:shape></w:pict></w:r>")
    b.parts.append(b._p(RUNS))
    b.parts.append(b._p('<w:r><w:t>Anchor</w:t></w:r>' + box))
    path = tmp_path / "breaks.docx"
    path.write_bytes(b.build())
    own, anchor = load_docx(path).paragraphs
    assert own.text == READ
    assert anchor.text == "Anchor\n" + READ and anchor.textboxes == (READ,)  # the box LightRAG's text and the viewer's
    assert extract_text(str(path)).split("\n\n")[0] == "section Next column return line tab 26-jährige Donaudampfschiff"
    docx_cache.clear_cache()
