"""A query naming a page ("what is on page 2 of the report", "p. 2", "第2页") puts the box on that page when
the passage runs over it; the block chosen first stands behind it. Truth: Docling's ground-truth items."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from mnote_kr_testkit import pdf_cases as C
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.pdfs import iou
from mnote_kr_testkit.pdfwords import page_text

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
    # asked for the page whole, its longest paragraph stands for it (round 25: a block chosen by meaning, a one-line
    # one on nc25a's page 2, did)
    assert (loc.locator_precision, loc.page, loc.locator_degraded) == ("bbox", 2, False)
    longest = max((it for it in items if it[2] == 2), key=lambda it: len(it[1]))
    assert iou(loc.bbox, longest[3]) >= 0.5, longest[1]
    assert "the query names page 2" in loc.reason and "the page as a whole" in loc.reason
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


@pytest.mark.parametrize("query", ["What does page 4 say about WordPerfect?", "WordPerfect, pp. 4-5",
                                   "第4页关于WordPerfect说了什么"])
def test_named_pages_without_the_querys_other_words_choose_as_if_none_were_named(items, query: str) -> None:  # type: ignore[no-untyped-def]
    """Pages 4 and 5 never say "WordPerfect" (page 2, in the passage, does): the passage's place answers."""
    passage = _passage(items, 10, 16)
    plain = locate(LocateRequest(file=str(PDF), evidence=passage, query="What does it say about WordPerfect?"))
    assert (plain.locator_precision, plain.page, plain.locator_degraded) == ("bbox", 2, False)
    loc = locate(LocateRequest(file=str(PDF), evidence=passage, query=query))
    assert (loc.locator_precision, loc.page, loc.locator_degraded, loc.bbox) == ("bbox", 2, False, plain.bbox)
    assert "names page" not in loc.reason


@pytest.mark.parametrize("query", ["What does page 3 say about WordPerfect?", "第3页关于WordPerfect说了什么"])
def test_a_named_page_the_passage_does_not_reach_is_cited_where_it_holds_the_querys_words(
        items, query: str) -> None:  # type: ignore[no-untyped-def]
    """Page 3 says "WordPerfect" too (legal document processors), outside the passage of pages 1-2: the
    person named it, so it is cited there, the passage's own place behind it."""
    passage = _passage(items, 10, 16)
    plain = locate(LocateRequest(file=str(PDF), evidence=passage, query="What does it say about WordPerfect?"))
    loc = locate(LocateRequest(file=str(PDF), evidence=passage, query=query))
    (legal,) = [box for _, text, page, box in items if page == 3 and "WordPerfect" in text]
    assert (loc.page, loc.locator_degraded) == (3, False) and iou(loc.bbox, legal) >= 0.5
    assert "the query names page 3" in loc.reason
    # outside the passage, in a PDF without an outline: under no heading, not the passage's block's
    assert loc.place_headings == [] and plain.place_headings is None
    assert (loc.runners_up[0].page, loc.runners_up[0].bbox) == (2, plain.bbox)

OUTLINE = CORPUS / "pdf" / "pypdf__pdflatex-outline.pdf"


def _recorded_outline_passage() -> str:
    """The engine's first passage of the outline PDF (its contents page and page 2), as a newcomer's search got it."""
    recorded = Path(__file__).resolve().parents[3] / "tests" / "data" / "ranking" / "named_page.json"
    case = json.loads(recorded.read_text("utf-8"))
    (text,) = [c["text"] for c in case["candidates"] if c["fileName"] == OUTLINE.name and c["providerRank"] == 2]
    return text


@pytest.mark.parametrize("query", ["what does section 7 Foo say on p. 3", "what is on page 3 under 7 Foo"])
def test_a_named_page_the_passage_does_not_reach_is_boxed_there_by_the_querys_other_words(query: str) -> None:
    """The passage ends on page 2 and the query names page 3: the block of page 3 its other words choose is
    cited ("7 Foo", the section's heading, and its text), the passage's place behind it."""
    before = hashlib.sha256(OUTLINE.read_bytes()).digest()
    passage = _recorded_outline_passage()
    assert "7 Foo\n" not in passage.split("1\n1 Foo")[-1]  # page 3's section is not in it
    loc = locate(LocateRequest(file=str(OUTLINE), evidence=passage, query=query))
    assert (loc.locator_precision, loc.page) == ("bbox", 3), loc.reason
    assert "the query names page 3" in loc.reason
    assert not loc.locator_degraded  # its other words "7" and "Foo" are there
    assert loc.place_headings == ["Foo"] and (loc.place_text or "").startswith("7 Foo")  # section 7's heading
    assert all(r.page in (1, 2) for r in loc.runners_up[:1])  # the passage's own place (if any) first behind it
    assert hashlib.sha256(OUTLINE.read_bytes()).digest() == before


MINDMAP = CORPUS / "pdf" / "mineru__introduction.pdf"


@pytest.mark.parametrize(("query", "asked"), [("第1页关于遗传性卵巢癌说了什么", True), ("第1页讲了什么", False)])
def test_a_chinese_word_the_pdf_lacks_is_asked_of_the_named_page(query: str, asked: bool) -> None:
    """The chemistry mind map holds Chinese but none of 遗传性, 卵巢 (CC-CEDICT's words of the query): its page 1 is
    no exact place for them (r19 read every Chinese bigram the PDF lacks as a cut, nothing asked); "讲了什么" asks
    for the page whole, exact: its longest block stands for the page (round 25), the reason says so."""
    before = hashlib.sha256(MINDMAP.read_bytes()).digest()
    text = page_text(MINDMAP, 1)
    assert "卵巢" not in text and "遗传" not in text
    loc = locate(LocateRequest(file=str(MINDMAP), evidence=text[:200], passage=text, query=query))
    assert (loc.locator_precision, loc.page) == ("bbox", 1), loc.reason
    assert "the query names page 1" in loc.reason
    assert loc.locator_degraded is asked, loc.reason
    assert ("the page as a whole" not in loc.reason) is asked, loc.reason
    assert hashlib.sha256(MINDMAP.read_bytes()).digest() == before

