"""Evidence the text layer holds is found and boxed, never cited as the whole file.

Two real files where it was not:

- ``mineru__complex_layout.pdf``: a scanned magazine page set in 8 pt type with an OCR text
  layer. Its lower article's two columns are 5.5 pt apart, narrower than ``lines.GUTTER``, so the
  XY-cut read them row by row and a chunk of the left column (LightRAG's pypdf reading) did not
  align: ``file`` precision, "evidence not found in the PDF text layer". The gutter is now also
  measured in the region's line height (``lines.GUTTER_EM``).
- ``paperless__multi-page-mixed.pdf``: three scanned pages, then three whose only line is "This is
  a multi page document. Page N.", which repeats at the same height, so every such line was taken
  for a running header and the pages had no citable text. A page made only of such lines keeps
  them (``layout.find_furniture``); a line that reads the same but for its number (page 2's, on a
  scanned page) is still not found there (``align.SHORT_EVIDENCE``).

The evidence strings are pypdf's reading of the pages, cut as the host's evidence window cuts them;
the expected boxes are pdfminer.six's character boxes of the words, read here apart from the locator.
"""

from __future__ import annotations

import hashlib
import logging

import pypdf
from mnote_kr_testkit.data import CORPUS

from mnote_kr.models import LocateRequest
from mnote_kr_pdf_bbox import layout, lines, locate

MAGAZINE = CORPUS / "pdf/mineru__complex_layout.pdf"
MIXED = CORPUS / "pdf/paperless__multi-page-mixed.pdf"


def _pypdf_page(path, page: int) -> str:
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    return pypdf.PdfReader(str(path)).pages[page - 1].extract_text()


def _between(text: str, first: str, last: str) -> str:
    """``text`` from ``first`` to the end of ``last`` (both as pypdf spaces them)."""
    a = text.index(first)
    return text[a : text.index(last, a) + len(last)]


def _char_box(path, page: int, words: str) -> tuple[float, float, float, float]:
    """pdfminer.six's box (top-left origin, points) of the first place the page draws ``words``
    (spaces ignored), from its character boxes: it reads the CJK fonts these files do not embed."""
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LTChar, LTPage

    layout_page: LTPage = list(extract_pages(str(path), page_numbers=[page - 1]))[0]
    chars: list[LTChar] = []
    stack = list(layout_page)
    while stack:
        item = stack.pop(0)
        if isinstance(item, LTChar):
            chars.append(item)
        elif hasattr(item, "__iter__"):
            stack[:0] = list(item)
    keep = [c for c in chars if not c.get_text().isspace()]
    want = "".join(words.split())
    at = "".join(c.get_text() for c in keep).index(want)
    boxes = [c.bbox for c in keep[at : at + len(want)]]
    height = layout_page.height
    return (min(b[0] for b in boxes), height - max(b[3] for b in boxes), max(b[2] for b in boxes),
            height - min(b[1] for b in boxes))


def _holds(box, inner, slack: float = 1.0) -> bool:
    return all(box[i] <= inner[i] + slack for i in (0, 1)) and all(box[i] >= inner[i] - slack for i in (2, 3))


def test_two_columns_with_a_narrow_gutter_are_read_one_after_the_other():
    # 8 pt lines, the columns 5.5 pt apart, rows of the right column a point below the left one's:
    # a 6 pt band runs across the page between rows, wider than the gutter
    left = [(145.0, 478.0 + 15 * k, 303.0, 486.0 + 15 * k) for k in range(6)]
    right = [(308.5, 479.0 + 15 * k, 480.0, 487.0 + 15 * k) for k in range(6)]
    boxes = [b for pair in zip(left, right, strict=True) for b in pair]  # drawn row by row
    order = lines.reading_order(boxes)
    assert order == list(range(0, 12, 2)) + list(range(1, 12, 2))


def test_left_column_chunk_of_a_scanned_magazine_page_is_boxed_in_its_column():
    before = hashlib.sha256(MAGAZINE.read_bytes()).hexdigest()
    text = _pypdf_page(MAGAZINE, 1)
    evidence = _between(text, "世 界 辽 阔", "现 实 世 界 对 我 们 的 影 响 就 会 越 来 越")
    loc = locate(LocateRequest(file=str(MAGAZINE), evidence=evidence, query="高僧 痛苦"))
    assert loc.locator_precision == "bbox" and loc.page == 1, loc.reason
    asked = _char_box(MAGAZINE, 1, "有个年轻人去庙里问高僧")
    assert _holds(loc.bbox, asked), (loc.bbox, asked)
    right_column = _char_box(MAGAZINE, 1, "败无数。好几次差点全军覆没")
    assert loc.bbox[2] < right_column[0]  # the left column's paragraph, not a band across both
    assert hashlib.sha256(MAGAZINE.read_bytes()).hexdigest() == before


def test_semantic_place_carries_the_boxed_lines_words():
    # no block of the passage holds the query's words: the passage's main block is boxed, and its
    # words go with it so the quote shows what the box marks (not the chunk's first sentence)
    text = _pypdf_page(MAGAZINE, 1)
    evidence = _between(text, "我 被 医 生 一 通 骂", "也 守 着 我 的 未 来 。")
    loc = locate(LocateRequest(file=str(MAGAZINE), evidence=evidence, query="quarterly revenue forecast"))
    assert loc.locator_precision == "bbox" and loc.locator_degraded
    assert loc.place_text and "".join(loc.place_text.split()) in "".join(evidence.split())
    first = "".join(loc.place_text.split())[:8]
    assert _holds(loc.bbox, _char_box(MAGAZINE, 1, first))


def test_page_whose_only_line_repeats_on_other_pages_is_citable():
    before = hashlib.sha256(MIXED.read_bytes()).hexdigest()
    for page in (4, 5, 6):
        evidence = _pypdf_page(MIXED, page)
        assert evidence.strip() == f"This is a multi page document. Page {page}."
        loc = locate(LocateRequest(file=str(MIXED), evidence=f"Page {page}\n{evidence}", query=f"page {page}"))
        assert loc.locator_precision == "bbox" and loc.page == page, loc.reason
        assert _holds(loc.bbox, _char_box(MIXED, page, evidence))
        assert loc.place_text == evidence.strip()
    # page 2 says the same but for its number, on a scanned page: its line is not placed on a text page's
    loc = locate(LocateRequest(file=str(MIXED), evidence="Page 2\nThis is a multi page document. Page 2.",
                               query="page 2"))
    assert loc.locator_precision == "file", loc
    assert hashlib.sha256(MIXED.read_bytes()).hexdigest() == before


def test_chunk_across_the_pages_is_boxed_on_a_page_not_the_whole_file():
    # LightRAG's chunk of the file: the three text pages' lines (the scanned pages give pypdf nothing)
    evidence = "".join(_pypdf_page(MIXED, p) + "\n" for p in range(1, 7)).strip()
    loc = locate(LocateRequest(file=str(MIXED), evidence=evidence, query="multi page document"))
    assert loc.locator_precision == "bbox" and loc.page in (4, 5, 6), loc.reason
    assert {r.page for r in loc.rects} == {loc.page}  # the other pages' lines are not this place's: not boxed


def test_repeated_lines_stay_furniture_beside_other_text():
    height = 792.0
    header = (57.0, 57.0, 243.0, 70.0)
    body = (57.0, 300.0, 500.0, 312.0)
    number = (300.0, 760.0, 310.0, 770.0)
    alone = [(height, [header], ["This is a multi page document. Page 4."]) for _ in range(3)]
    assert layout.find_furniture(alone) == [set(), set(), set()]
    with_body = [(height, [header, body], ["Annual report 2024", f"Body text of page {n}."]) for n in range(3)]
    assert layout.find_furniture(with_body) == [{0}, {0}, {0}]
    numbers_only = [(height, [number], [str(n)]) for n in range(1, 4)]
    assert layout.find_furniture(numbers_only) == [{0}, {0}, {0}]
