"""A place holding a small part of a Chinese query, whose other words the PDF lacks, is no exact place.

mineru__introduction.pdf is a Chinese chemistry mind map: "遗传性卵巢癌 检测方法" (a genetic-test question) shares only
方法 with it. Its bigrams the PDF lacks were all dropped as cuts of the unspaced query, so the node on 键线式 holding
"一种方法" was cited as an exact box on "1 of the query's 1 content terms"; 遗传, 卵巢 and 检测 are words (the
dictionary's), asked and absent, as an absent Latin word is.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pypdf
import pytest
from mnote_kr_testkit.data import CORPUS

import mnote_kr_pdf_bbox
from mnote_kr.citations.cleaning import clean_citation_text
from mnote_kr.citations.rank import meaning
from mnote_kr.models import LocateRequest
from mnote_kr_pdf_bbox import answer, blocks, pdftext

MINDMAP = CORPUS / "pdf" / "mineru__introduction.pdf"


@pytest.fixture(autouse=True)
def _fresh() -> None:
    meaning._memo.clear()
    mnote_kr_pdf_bbox.clear_cache()


def _search(file: Path, query: str):  # noqa: ANN202
    """Locate ``query`` in page 1 as a search does: the page's text as LightRAG's reader gives it."""
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    chunk = pypdf.PdfReader(str(file)).pages[0].extract_text()
    evidence = clean_citation_text(chunk, query).locator_evidence_text
    return mnote_kr_pdf_bbox.locate(LocateRequest(file=str(file), evidence=evidence, query=query, passage=chunk))


def test_a_node_holding_one_word_of_a_question_the_pdf_otherwise_lacks_is_not_an_exact_place() -> None:
    loc = _search(MINDMAP, "遗传性卵巢癌 检测方法")
    assert loc.page == 1
    assert [p.locator_degraded for p in [loc, *loc.runners_up]] == [True] * (1 + len(loc.runners_up)), loc.reason
    # the words it lacks count in the share: 遗传性, 卵巢, 检测 (its bigrams 性卵, 巢癌, 测方 are cuts, not words)
    doc = pdftext.read_document(MINDMAP)
    query = "遗传性卵巢癌 检测方法"
    terms, _ = answer.weighed(blocks.doc_terms(doc), query, blocks.content_terms(query))
    assert set(terms) == {"方法", "遗传性", "卵巢", "检测"}


def test_a_question_the_node_holds_whole_stays_exact() -> None:
    loc = _search(MINDMAP, "分子结构的表示方法")
    assert not loc.locator_degraded and "分子结构的一种方法" in "".join((loc.place_text or "").split())
