"""A transcript's line numbers down the margin are never in a quote, and its lines are read as the sentences they set.

The Supreme Court transcript numbers its 25 rows in the left margin. Read as text, each number began its row's
block: a quote read "17 Angeles, Cal.; on behalf of the Petitioner.", and the line naming the petitioner's
counsel ("16 STEVEN E. MERCER, ESQ., Deputy Attorney General, Los") was a place of its own that held no word of
"who argued for petitioner?" (newcomer nc24d, Q5: no box covered it). Truth is PDFium's own reading of the page
(its words and where they are drawn, the text inside a box), never the locator's blocks.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.pdfwords import text_in, word_boxes

from mnote_kr.citations.rank import meaning
from mnote_kr.models import LocateRequest
from mnote_kr_pdf_bbox import clear_cache, locate, prepare_locate
from mnote_kr_pdf_bbox.blocks import place_texts
from mnote_kr_pdf_bbox.pdftext import read_document

PDF = CORPUS / "pdf"
SCOTUS = PDF / "pdfplumber__scotus-transcript-p1.pdf"
# The chunk window LightRAG's search gave nc24d's Q5 (its locatorEvidenceText), as the engine wrote it.
WINDOW = ("07-1315\nALEXANDRE MIRZAYANCE. :\n- - - - - - - - - - - - - - - - - x\nWashington, D.C.\n"
          "Tuesday, January 13, 2009\nThe above-entitled matter came on for oral\n"
          "argument before the Supreme Court of the United States\nat 1:01 p.m.\nAPPEARANCES:\n"
          "STEVEN E. MERCER, ESQ., Deputy Attorney General, Los\nAngeles, Cal.; on behalf of the Petitioner.\n"
          "CHARLES M. SEVILLA, ESQ., San Diego, Cal.; on behalf\nof the Respondent.\n1\nAlderson Reporting Company")


@pytest.fixture(autouse=True)
def _fresh() -> None:
    meaning._memo.clear()
    meaning._queue.clear()
    clear_cache()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _margin_numbers(path: Path) -> list[str]:
    """The numbers 1 to 30 PDFium draws left of where the page's text starts ("APPEARANCES:"): its line numbers."""
    text_left = word_boxes(path, 1, "APPEARANCES")[0][0]
    return [str(n) for n in range(1, 31) if any(b[2] <= text_left for b in word_boxes(path, 1, str(n)))]


def test_a_transcripts_line_numbers_begin_no_place() -> None:
    before = _digest(SCOTUS)
    numbers = _margin_numbers(SCOTUS)
    assert numbers == [str(n) for n in range(1, 26)]  # the page numbers its 25 rows, as the file shows
    texts = [t for t in place_texts(read_document(SCOTUS)) if t]
    assert any("Petitioner" in t for t in texts)
    led = [t for t in texts if re.match(r"\d{1,2} \S", t)]
    assert led == [], led  # "17 Angeles, Cal.; ..." on main
    assert _digest(SCOTUS) == before


def test_the_place_saying_on_whose_behalf_boxes_the_counsels_name_line_too() -> None:
    before = _digest(SCOTUS)
    prepare_locate(str(SCOTUS))  # ingest's preparation, then its embedding step: the places behind need vectors
    meaning.embed_queued(lambda _line: None)
    loc = locate(LocateRequest(file=str(SCOTUS), evidence=WINDOW, passage=WINDOW, query="who argued for petitioner?"))
    places = [loc, *loc.runners_up]
    assert all(p.page == 1 and p.locator_precision == "bbox" for p in places)
    boxed = [" ".join(text_in(SCOTUS, 1, p.bbox).split()) for p in places]
    behalf = [b for b in boxed if "on behalf of the Petitioner" in b]
    assert behalf, boxed  # the words answering whom he argued for are offered...
    assert all("STEVEN E. MERCER" in b and "SEVILLA" not in b for b in behalf), behalf  # ...with the name above them
    quotes = [p.place_text or "" for p in places]
    assert not [q for q in quotes if re.search(r"(?:^|\s)\d{1,2} (?=[A-Za-z])", q)], quotes  # no line number in one
    assert _digest(SCOTUS) == before


def test_a_reference_wrapped_under_a_hanging_indent_is_one_place() -> None:
    # tracemonkey's references: "[6] A. Aho, R. Sethi, J. Ullman, and M. Lam. Compilers: Principles," full across
    # the column, then "techniques, and tools, 2006." indented under it, then "[7] ..." back at the margin: the
    # indented line went on the reference, it did not start a paragraph
    pdf = PDF / "pdfjs__tracemonkey.pdf"
    before = _digest(pdf)
    texts = [" ".join(t.split()) for t in place_texts(read_document(pdf)) if t]
    aho = [t for t in texts if "A. Aho" in t]
    assert len(aho) == 1 and "techniques, and tools, 2006." in aho[0], aho
    assert _digest(pdf) == before
