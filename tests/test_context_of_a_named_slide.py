"""A slide place outside the chunk that reached it is given its own words as its whole passage (nc21a)."""

from __future__ import annotations

from mnote_kr.citations.pipeline import passage_of
from mnote_kr.models import Locator

#: what LightRAG's chunk of docling__powerpoint_sample.pptx held when "第二张幻灯片的备注写了什么？" was cited on
#: slide 2's notes: slide 3's text (the nc21a run's contextQuote)
SLIDE3 = "l1 l2 l3 Notes: Final notes on the third slide. Notes: Second line of notes."


def _slide(quote: str, precision: str = "slide") -> Locator:
    return Locator(locator_precision=precision, locator_degraded=False, slide=2, speaker_notes=True, quote=quote)


def test_a_slides_notes_cited_through_another_slides_chunk_get_their_own_words_as_passage() -> None:
    assert passage_of(_slide("Some notes on the second slide."), SLIDE3) == "Some notes on the second slide."


def test_a_slide_place_inside_its_chunk_keeps_the_chunk_as_passage() -> None:
    assert passage_of(_slide("Final notes on the third slide."), SLIDE3) == SLIDE3


def test_a_cells_reading_keeps_the_chunk_as_passage() -> None:
    sheet = "Year Freshwater Ducks 2019 120 2020 135"
    assert passage_of(_slide("Revenue, 2023: 4,100", precision="cell"), sheet) == sheet
