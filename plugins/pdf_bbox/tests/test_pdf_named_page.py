"""A query naming a page ("what is on page 2 of the report", "p. 2", "第2页") puts the box on that page when
the passage runs over it; the block chosen first stands behind it. Truth: Docling's ground-truth items."""

from __future__ import annotations

import hashlib
import json

import pytest
from mnote_kr_testkit import pdf_cases as C
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.pdfs import iou

from mnote_kr.models import LocateRequest
from mnote_kr_pdf_bbox import locate

PDF = CORPUS / "pdf" / "docling__multi_page.pdf"


@pytest.fixture(autouse=True)
def by_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks chosen by words alone: no vectors (another test in this process may have embedded the PDF's
    blocks, and meaning may then choose a block of page 2 before the page is read), no remembered answer."""
    from mnote_kr.citations.rank import meaning

    monkeypatch.setattr(meaning, "cosines", lambda *a, **k: None)
    monkeypatch.setattr(meaning, "nearest", lambda *a, **k: {})
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")


@pytest.fixture(scope="module")
def items() -> list[tuple[str, str, int, tuple[float, float, float, float]]]:
    return C._gt_items(json.loads((CORPUS / "groundtruth" / "docling" / "docling__multi_page.json").read_text("utf-8")))


def _passage(items, lo: int, hi: int) -> str:  # type: ignore[no-untyped-def]
    """Docling's items ``lo``..``hi`` as one passage: the end of page 1 and the start of page 2."""
    window = items[lo:hi]
    assert {page for _, _, page, _ in window} == {1, 2}
    return "\n".join(t for _, t, _, _ in window)


@pytest.mark.parametrize("query", ["what is on page 2 of the report", "what does p. 2 say", "第2页讲了什么"])
def test_a_question_naming_a_page_is_boxed_on_that_page(items, query: str) -> None:  # type: ignore[no-untyped-def]
    before = hashlib.sha256(PDF.read_bytes()).digest()
    loc = locate(LocateRequest(file=str(PDF), evidence=_passage(items, 10, 16), query=query))
    assert (loc.locator_precision, loc.page, loc.locator_degraded) == ("bbox", 2, False)
    (first_on_2,) = [box for _, text, page, box in items[10:16] if page == 2 and text.startswith("Other notable")]
    assert iou(loc.bbox, first_on_2) >= 0.5  # the passage's paragraph on page 2, not its heading
    assert "the query names page 2" in loc.reason
    assert hashlib.sha256(PDF.read_bytes()).digest() == before


def test_the_query_words_choose_among_the_named_pages_blocks_and_the_first_choice_stands_behind(items) -> None:  # type: ignore[no-untyped-def]
    passage = _passage(items, 10, 18)
    first = locate(LocateRequest(file=str(PDF), evidence=passage, query="Microsoft Word and MS-DOS"))
    (word,) = [box for _, text, page, box in items if page == 1 and text.startswith("Microsoft Word (1983)")]
    assert first.page == 1 and iou(first.bbox, word) >= 0.5
    loc = locate(LocateRequest(file=str(PDF), evidence=passage, query="Microsoft Word and MS-DOS, page 2"))
    (office,) = [box for _, text, page, box in items if page == 2 and text.startswith("Microsoft Office Suite")]
    assert loc.page == 2 and iou(loc.bbox, office) >= 0.5  # the block of page 2 holding "Microsoft"
    behind = loc.runners_up[0]
    assert (behind.page, behind.locator_degraded) == (1, True) and iou(behind.bbox, word) >= 0.5


@pytest.mark.parametrize("query", ["what is on page 9 of the report", "a 2-page summary of the 1980s", "page count"])
def test_a_page_the_pdf_lacks_or_a_number_that_names_no_page_leaves_the_box(items, query: str) -> None:  # type: ignore[no-untyped-def]
    loc = locate(LocateRequest(file=str(PDF), evidence=_passage(items, 10, 16), query=query))
    assert loc.page == 1 and "names page" not in loc.reason


@pytest.mark.parametrize("query", ["What does page 3 say about WordPerfect?", "WordPerfect, pp. 3-4",
                                   "第3页关于WordPerfect说了什么"])
def test_a_named_page_the_passage_is_not_on_chooses_as_if_none_were_named(items, query: str) -> None:  # type: ignore[no-untyped-def]
    passage = _passage(items, 10, 16)
    plain = locate(LocateRequest(file=str(PDF), evidence=passage, query="What does it say about WordPerfect?"))
    assert (plain.locator_precision, plain.page, plain.locator_degraded) == ("bbox", 2, False)
    loc = locate(LocateRequest(file=str(PDF), evidence=passage, query=query))
    assert (loc.locator_precision, loc.page, loc.locator_degraded, loc.bbox) == ("bbox", 2, False, plain.bbox)
