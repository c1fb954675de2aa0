"""``quotemark.agreeing``: a paragraph's highlight lies inside the sentences its quote shows."""

from __future__ import annotations

from mnote_kr.citations.locate.quotemark import agreeing, quote_span
from mnote_kr.models import Highlight, Locator

PARA = "The first machine was built in 1868. It was sold to Remington.  IBM made the electric one in 1935."


def _loc(start: int, end: int, text: str | None = PARA, precision: str = "paragraph", marked: bool = True) -> Locator:
    return Locator(locator_precision=precision, paragraph_index=3,
                   highlight=Highlight(start=start, end=end) if marked else None,
                   place_text=text, locator_plugin="t", reason="r", locator_reason="r")


def test_a_highlight_outside_the_quote_moves_onto_it() -> None:
    moved = agreeing(_loc(0, 36), "IBM made the electric one in 1935.")
    assert moved.highlight is not None
    assert PARA[moved.highlight.start:moved.highlight.end] == "IBM made the electric one in 1935."
    assert moved.paragraph_index == 3 and moved.place_text == PARA  # nothing else changes


def test_a_highlight_inside_the_quote_stays() -> None:
    inside = PARA.index("Remington")
    loc = _loc(inside, inside + 9)
    assert agreeing(loc, "It was sold to Remington.  IBM made the electric one in 1935.") is loc


def test_white_space_and_cut_marks_of_the_quote_are_tolerated() -> None:
    # a chunk's cleaning joins the double space; a window cut shows "…"
    assert quote_span(PARA, "…sold to Remington. IBM made") == (PARA.index("sold"), PARA.index(" the electric"))
    zh = "第一句话在这里。 答案 在第二句。"
    assert quote_span(zh, "答案在第二句。") == (zh.index("答案"), len(zh))


def test_a_quote_running_past_the_paragraph_marks_its_first_sentence() -> None:
    lead = "Acceptable forms include: a passport.\nDriver's license"  # a lead-in's place text: its list after it
    own = lead.split("\n")[0]
    moved = agreeing(_loc(0, 10, text=lead), "a passport. Driver's license")
    assert moved.highlight is not None and own[moved.highlight.start:moved.highlight.end] == "a passport."


def test_nothing_moves_without_a_paragraph_its_words_or_the_quote_in_them() -> None:
    for loc, quote in ((_loc(0, 5), "Not in this paragraph at all."), (_loc(0, 5, text=None), "IBM made"),
                       (_loc(0, 5, precision="bbox"), "IBM made"), (_loc(0, 5), None), (_loc(0, 5), "…")):
        assert agreeing(loc, quote) is loc


def test_a_paragraph_placed_without_a_highlight_gets_the_quotes_span_when_it_is_a_part() -> None:
    """A place chosen by meaning has no query word to mark: the quoted sentences are marked, unless
    the quote is the whole paragraph (then the paragraph is marked as it is)."""
    moved = agreeing(_loc(0, 0, marked=False), "IBM made the electric one in 1935.")
    assert moved.highlight is not None
    assert PARA[moved.highlight.start:moved.highlight.end] == "IBM made the electric one in 1935."
    whole = _loc(0, 0, marked=False)
    assert agreeing(whole, PARA).highlight is None
    assert agreeing(whole, PARA.rstrip(".")).highlight is None  # a quote without the closing stop is all of it
