"""Reading DOCX: paragraphIndex order, paraIds, text, headings, TOC, errors and the cache."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS as CORPUS_DIR
from mnote_kr_testkit.docx_docs import DocxBuilder, Eq, bad_docx

from mnote_kr.errors import DocumentError
from mnote_kr_docx_locator import cache as docx_cache
from mnote_kr_docx_locator.cache import load_docx

REPO = Path(__file__).resolve().parents[3]
CORPUS = CORPUS_DIR


@pytest.fixture(autouse=True)
def _fresh_cache():
    docx_cache.clear_cache()
    yield
    docx_cache.clear_cache()


def _write(tmp_path: Path, data: bytes, name: str = "doc.docx") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_docx_paragraph_index_counts_table_cells_and_skips_text_box_paragraphs(tmp_path):
    b = DocxBuilder()
    h = b.heading("Intro", 1)
    p1 = b.para("first body")
    tb = b.textbox_para("anchor text", "inside the text box")
    cells = b.table([["a", "b"], ["c", "d"]])
    last = b.para("after table")
    doc = load_docx(_write(tmp_path, b.build()))
    texts = [p.text for p in doc.paragraphs]
    # the text box's paragraph is not counted: its text belongs to the anchor paragraph
    assert texts == ["Intro", "first body", "anchor text\ninside the text box", "a", "b", "c", "d", "after table"]
    assert (h, p1, tb, cells[1][1], last) == (0, 1, 2, 6, 7)
    assert [p.in_table for p in doc.paragraphs] == [False, False, False, True, True, True, True, False]
    assert doc.paragraphs[1].para_id == "1A2B0002"
    assert doc.by_para_id["1A2B0008"] == 7


def test_docx_reader_keeps_equation_text_headings_and_marks_toc(tmp_path):
    b = DocxBuilder(para_ids=False)
    toc = b.toc([("1 Scope", 3), ("2 Results", 4)])
    b.heading("1 Scope", 1)
    b.heading("2 Results", 1)
    b.heading("2.1 Rates", 2)
    eq = b.para(["The law ", Eq("k=A", sup=("e", "-E/RT")), " holds."])
    doc = load_docx(_write(tmp_path, b.build()))
    assert [doc.paragraphs[i].in_toc for i in toc] == [True, True]
    assert not any(p.in_toc for p in doc.paragraphs[len(toc):])
    assert [p.heading_level for p in doc.paragraphs[len(toc):]] == [1, 1, 2, 0]
    para = doc.paragraphs[eq]
    assert para.text == "The law k=Ae^-E/RT holds."  # a superscript as the host reads LaTeX: e^(-E/RT)
    assert para.has_equation and para.para_id is None
    assert para.heading == "2.1 Rates" and para.heading_path == ("2 Results", "2.1 Rates")


def test_a_style_said_to_be_body_text_is_not_a_heading_though_based_on_one(tmp_path: Path) -> None:
    """Chinese standards (the chatchat corpus files) base an "untitled clause" style on a clause-title
    style and set its outline level to 9, body text: its paragraphs are the section's text, not headings
    (a newcomer saw a whole sentence shown as a citation's section)."""
    from mnote_kr_testkit.docx_docs import NS, W, package

    styles = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles xmlns:w="{W}">'
              '<w:style w:type="paragraph" w:styleId="T2"><w:name w:val="clause title"/>'
              '<w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style>'
              '<w:style w:type="paragraph" w:styleId="U2"><w:name w:val="untitled clause"/><w:basedOn w:val="T2"/>'
              '<w:pPr><w:outlineLvl w:val="9"/></w:pPr></w:style></w:styles>').encode()

    def p(text: str, style: str = "", outline: str = "") -> str:
        ppr = (f'<w:pStyle w:val="{style}"/>' if style else "") + \
            (f'<w:outlineLvl w:val="{outline}"/>' if outline else "")
        return f'<w:p><w:pPr>{ppr}</w:pPr><w:r><w:t>{text}</w:t></w:r></w:p>'

    body = (p("6.2 Overall review", "T2") + p("The review weighs every finding together.", "U2")
            + p("Done by the whole team.", "T2", outline="9") + p("6.3 Records", "T2"))
    xml = f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document {NS}><w:body>{body}</w:body>' \
          "</w:document>"
    doc = load_docx(_write(tmp_path, package(xml.encode(), styles=styles)))
    assert [q.heading_level for q in doc.paragraphs] == [2, 0, 0, 2]
    assert doc.paragraphs[1].heading_path == doc.paragraphs[2].heading_path == ("6.2 Overall review",)


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        ("zip_bomb", "zip bomb"),
        ("entities", "XML entity declarations are not allowed"),
        ("encrypted", "DOCX is encrypted (password protected)"),
        ("not_zip", "not a zip file"),
        ("truncated", "not a zip file"),
        ("malformed_xml", "malformed XML"),
    ],
)
def test_docx_reader_refuses_hostile_files_with_one_clear_error(tmp_path, kind, message):
    path = _write(tmp_path, bad_docx(kind), f"{kind}.docx")
    with pytest.raises(DocumentError) as info:
        load_docx(path)
    text = str(info.value)
    assert message in text and f"{kind}.docx" in text and "\n" not in text
    assert info.value.path == str(path)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("poi__ExternalEntityInText.docx", "XML entity declarations are not allowed"),
        ("poi__bug53475-password-is-pass.docx", "DOCX is encrypted (password protected)"),
        ("poi__truncated62886.docx", "not a zip file"),
        ("poi__clusterfuzz-testcase-minimized-POIXWPFFuzzer-5564805011079168.docx", "not a zip file"),
    ],
)
def test_docx_reader_refuses_corpus_bad_files(name, message):
    path = CORPUS / "bad" / name
    before = path.read_bytes()
    with pytest.raises(DocumentError) as info:
        load_docx(path)
    assert message in str(info.value) and name in str(info.value)
    assert path.read_bytes() == before


def test_docx_reader_lists_real_corpus_documents():
    doc = load_docx(CORPUS / "docx" / "docling__textbox.docx")
    assert len(doc.paragraphs) == 40  # 92 w:p in the file, 52 of them inside text boxes
    assert all(p.para_id for p in doc.paragraphs)
    strict = load_docx(CORPUS / "docx" / "docling__Strict.docx")  # ISO Strict namespace
    assert len(strict.paragraphs) == 1 and strict.paragraphs[0].text.strip()
    zh = load_docx(CORPUS / "docx" / "chatchat__核电厂定期安全评价 第12部分：设计（征求意见稿20230317）.docx")
    assert sum(p.in_toc for p in zh.paragraphs) >= 10
    assert any(p.heading_level == 1 for p in zh.paragraphs if not p.in_toc)


def test_docx_cache_reuses_parse_until_size_or_mtime_changes(tmp_path):
    b = DocxBuilder()
    b.para("alpha beta gamma")
    path = _write(tmp_path, b.build())
    first = load_docx(path)
    assert load_docx(path) is first
    assert docx_cache.stats == {"parses": 1, "hits": 1}
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    second = load_docx(path)
    # Same bytes, new mtime: a new version for the memory cache, but the on-disk cache is
    # keyed by content and serves it without a parse.
    assert second is not first and docx_cache.stats["parses"] == 1
    b.para("delta epsilon")
    path.write_bytes(b.build())
    third = load_docx(path)
    assert docx_cache.stats["parses"] == 2 and [p.text for p in third.paragraphs][-1] == "delta epsilon"
