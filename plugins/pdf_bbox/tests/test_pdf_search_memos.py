"""What every locate of a warm search asks of a PDF's pages again, worked out once per page or block of a document
model in memory (round 28, issue 33's budget: a warm search ranked by meaning within +100 ms of p95 over words
alone, ``benchmarks/search_cost.py``): whether a block stands in a table's header row (``tablerows._same_row`` asks
it of every block of the page for each chosen block) and whether a block is mostly glyphs (``DocTerms.glyphs``,
asked of the passage's blocks and of the file's nearest at every locate). The answers are the measures' own."""

from __future__ import annotations

import hashlib

from mnote_kr_testkit.counting import count_calls
from mnote_kr_testkit.data import CORPUS

REGISTER = CORPUS / "pdf" / "pdfplumber__federal-register-2020-17221.pdf"
LAND = CORPUS / "pdf" / "pdfplumber__issue-336-example.pdf"


def test_a_blocks_header_row_is_worked_out_once_per_page_in_memory(monkeypatch) -> None:  # noqa: ANN001
    from mnote_kr_pdf_bbox import headvalues
    from mnote_kr_pdf_bbox.pdftext import read_document

    before = hashlib.sha256(REGISTER.read_bytes()).digest()
    fresh = read_document(REGISTER)
    expected = [[headvalues._header_row(p, bi) for bi in range(len(p.blocks))] for p in fresh.pages]
    assert any(row is not None for page in expected for row in page)  # the register's tables have header rows

    real = headvalues._short_text
    asked: list[int] = []

    def counted(page, bi):  # noqa: ANN001, ANN202
        asked.append(bi)
        return real(page, bi)

    monkeypatch.setattr(headvalues, "_short_text", counted)
    doc = read_document(REGISTER)
    first = [[headvalues._header_row(p, bi) for bi in range(len(p.blocks))] for p in doc.pages]
    measured = len(asked)
    again = [[headvalues._header_row(p, bi) for bi in range(len(p.blocks))] for _ in range(3) for p in doc.pages]
    assert first == expected and again == expected * 3
    assert measured > 0 and len(asked) == measured  # asked again: nothing measured again
    row = next(r for page in first for r in page if r is not None)
    row.append(-1)  # a caller's list is its own: the page's answer stays
    assert [[headvalues._header_row(p, bi) for bi in range(len(p.blocks))] for p in doc.pages] == expected
    assert hashlib.sha256(REGISTER.read_bytes()).digest() == before


def test_a_blocks_glyph_check_is_measured_once_per_document_model(monkeypatch) -> None:  # noqa: ANN001
    from mnote_kr import plugin_api
    from mnote_kr_pdf_bbox.blocks import doc_terms, written_text
    from mnote_kr_pdf_bbox.pdftext import read_document

    measured, real = count_calls(monkeypatch, plugin_api, "mostly_glyphs")
    doc = read_document(LAND)
    dt = doc_terms(doc)
    blocks = [(pi, bi) for pi, page in enumerate(doc.pages) for bi in range(len(page.blocks))]
    first = [dt.glyphs(b) for b in blocks]
    again = [dt.glyphs(b) for _ in range(3) for b in blocks]
    assert first == [real(written_text(doc.pages[pi], doc.pages[pi].blocks[bi])) for pi, bi in blocks]
    assert again == first * 3
    assert len(measured) == len(blocks) > 0
