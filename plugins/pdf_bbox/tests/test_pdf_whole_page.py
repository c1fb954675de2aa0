"""A question about a whole page ("请问第二页讲了什么内容") is not exact on one line of it.

nc25a (round 25): over the machine-learning survey, the block of page 2 nearest the question by meaning, the one-line
"An excellent introduction into CNNs is given by [Nie15].", was boxed as the page's exact place. Asked for the page
whole, its longest paragraph stands for it (``named._whole_page``): the page's place, its reason saying so."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pypdfium2
import pytest
from mnote_kr_testkit.data import CORPUS

import mnote_kr_pdf_bbox
from mnote_kr.citations.rank import meaning
from mnote_kr.models import LocateRequest

CNN = CORPUS / "pdf" / "pdfplumber__issue-982-example.pdf"
ONE_LINE = "An excellent introduction into CNNs is given by [Nie15]."


@pytest.fixture
def pdf(tmp_path: Path) -> Path:
    """The PDF copied, its blocks embedded as ingest's preparation step does (meaning chooses among them)."""
    meaning._memo.clear()
    meaning._queue.clear()
    mnote_kr_pdf_bbox.clear_cache()
    path = tmp_path / "survey.pdf"
    shutil.copyfile(CNN, path)
    mnote_kr_pdf_bbox.prepare_locate(str(path))
    meaning.embed_queued(lambda _line: None)
    return path


def _page_start(path: Path, page: int) -> str:
    """The start of a page as PDFium reads it: a passage of that page, as a chunk holds one."""
    doc = pypdfium2.PdfDocument(str(path))
    try:
        return doc[page - 1].get_textpage().get_text_range()[:1500]
    finally:
        doc.close()


def test_a_question_about_a_whole_page_is_not_exact_on_one_line_of_it(pdf: Path) -> None:
    before = hashlib.sha256(pdf.read_bytes()).digest()
    text = _page_start(pdf, 2)
    assert ONE_LINE in " ".join(text.split())  # the line is in the passage
    loc = mnote_kr_pdf_bbox.locate(LocateRequest(file=str(pdf), evidence=text, passage=text,
                                                 query="请问第二页讲了什么内容"))
    assert (loc.locator_precision, loc.page) == ("bbox", 2), loc.reason
    assert "An excellent introduction into CNNs" not in (loc.place_text or "")
    assert len((loc.place_text or "").split()) >= 40  # a paragraph, not a line
    assert "the page as a whole" in (loc.reason or "")
    assert hashlib.sha256(pdf.read_bytes()).digest() == before


def test_a_question_about_something_on_the_page_keeps_its_block(pdf: Path) -> None:
    text = _page_start(pdf, 2)
    loc = mnote_kr_pdf_bbox.locate(LocateRequest(file=str(pdf), evidence=text, passage=text,
                                                 query="page 2 convolutional layers parameters"))
    assert (loc.page, loc.locator_degraded) == (2, False), loc.reason
    assert "the page as a whole" not in (loc.reason or "")
