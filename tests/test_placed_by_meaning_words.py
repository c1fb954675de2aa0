"""A place chosen by meaning is said to be placed by meaning, not doubted as approximate (nc28a F8).

The newcomer read "(approximate)" on citations exactly right: the p6 box of demo3 ("drops by at least 3.7% and up to
6.5%"), the David Cope paragraph, the weknora row's "15个工作日" cell, the NANDrive spec line. ``locatorDegraded``
there says the place was not chosen by the query's words (it holds few of them), not that it is a rough area: the
placing chose that one block or paragraph by its meaning. The words now say how it was placed; the passage's own
box, and a claim made approximate for a reason (a heading holding none of the words), stay "approximate". The
locators are those the newcomer's ``search --json`` returned; the JSON's fields stay as they were.
"""

from __future__ import annotations

from mnote_kr.citations.render.cards import locator_text
from mnote_kr.citations.render.ids import citation_markdown
from mnote_kr.citations.render.precision import how_placed, short_label
from mnote_kr.models import Locator
from mnote_kr.viewer.webpages import place_banner, precision_badge

PDF_MEANING = ("text layer match, coverage 1.00; placed by meaning and query terms among the passage's text blocks "
               "(3 of the query's 7 content terms); it holds few of the query's words: an approximate place")
DOCX_MEANING = ("semantic match: placed by meaning among the passage's paragraphs; it holds few of the query's "
                "words (seg)")
FOUND = ("semantic match: the evidence was found here and holds some of the query's words, not “周期” (seg); in its "
         "row, the cell under '周期' the query names")
PASSAGE = ("text layer match, coverage 1.00; semantic match: no text block of the passage holds a meaningful share of "
           "the query's terms, so the passage is cited, not an exact place")
HEADING = ("text layer match, coverage 1.00; placed by meaning and query terms among the passage's text blocks (0 of "
           "the query's 8 content terms); it holds few of the query's words: an approximate place; a heading holding "
           "0 of the query's 8 content terms, no text under it holding the others: an approximate place")


def box(reason: str) -> Locator:
    return Locator(locator_precision="bbox", locator_degraded=True, page=6, bbox=[317.0, 223.0, 556.0, 261.0],
                   reason=reason, locator_reason=reason, meaning_score=0.78)


def paragraph(reason: str, index: int = 27) -> Locator:
    return Locator(locator_precision="paragraph", locator_degraded=True, paragraph_index=index, reason=reason,
                   locator_reason=reason, meaning_score=0.70)


def test_a_box_placed_by_meaning_is_said_so_on_every_surface() -> None:
    loc = box(PDF_MEANING)
    assert how_placed(loc) == "meaning"
    assert locator_text(loc, numbers=False) == "box placed by meaning, p.6"
    assert short_label(loc) == "box · p.6 (placed by meaning)"
    assert "(placed by meaning)" in citation_markdown("mineru__demo3.pdf", loc, "mnote-kr://open")
    for said in (locator_text(loc), short_label(loc), citation_markdown("mineru__demo3.pdf", loc, "u"),
                 place_banner(loc, True)):
        assert "pproximate" not in said, said
    assert "Placed by meaning" in place_banner(loc, True)
    assert 'data-certainty="approximate"' in precision_badge(loc)  # the claim (and the dashed drawing) stay


def test_a_paragraph_placed_by_meaning_or_where_the_evidence_was_found_is_not_doubted() -> None:
    assert locator_text(paragraph(DOCX_MEANING)) == "paragraph 28 (placed by meaning)"
    assert locator_text(paragraph(FOUND, 15)) == "paragraph 16 (where the search found it)"
    assert short_label(paragraph(FOUND, 15)) == "paragraph 16 (where the search found it)"


def test_the_passage_box_and_a_claim_doubted_for_a_reason_stay_approximate() -> None:
    assert locator_text(box(PASSAGE), numbers=False) == "passage box (approximate), p.6"
    assert how_placed(box(HEADING)) == "approximate"
    assert short_label(box(PASSAGE)) == "passage box · p.6 (approximate)"
    assert "(approximate location)" in citation_markdown("a.pdf", box(PASSAGE), "u")
    exact = Locator(locator_precision="bbox", locator_degraded=False, page=6, bbox=[1.0, 2.0, 3.0, 4.0])
    assert how_placed(exact) == "exact" and short_label(exact) == "box · p.6"


def test_a_lacked_word_or_a_quoted_heading_never_decides_how_a_place_was_placed() -> None:
    """review r29 finding 6: the reason quotes the words a place lacks; "what is the approximate cost?" on a place
    lacking "approximate" was said approximate, "what is the cost?" where the search found it. Only the placing's
    fixed clauses decide: a clause that starts "placed by meaning" or "the evidence was found here", one that ends
    ": an approximate place" or ", not an exact place"."""
    from mnote_kr.citations.locate.lacking import lacking_reason

    assert how_placed(paragraph(lacking_reason(["cost"]))) == "found"
    assert how_placed(paragraph(lacking_reason(["approximate"]))) == "found"
    assert how_placed(paragraph(lacking_reason(["exact", "place"]) + " (seg)")) == "found"
    assert how_placed(paragraph(DOCX_MEANING + "; the heading 'Approximate costs' holds 1 of the query's 3 content "
                                               "terms")) == "meaning"
    assert how_placed(paragraph(DOCX_MEANING + "; the heading “Not an exact place” opens the section")) == "meaning"
    # a doubt said after the words still decides, and a reason saying nothing of the placing is approximate
    assert how_placed(paragraph(lacking_reason(["approximate"]) + "; it names another table or figure than table 3 "
                                                                  "asked: an approximate place")) == "approximate"
    assert how_placed(paragraph("a plugin's own words: placed by meaning, it says")) == "approximate"


def test_a_block_the_placing_chose_and_doubted_is_no_passage_box() -> None:
    """review r29 finding 12: a heading's box the placing chose among the passage's blocks, then made approximate
    (its words do not answer), was called a "passage box": it is one block's box, approximate."""
    assert short_label(box(HEADING)) == "box · p.6 (approximate)"
    assert locator_text(box(HEADING), numbers=False) == "box (approximate), p.6"
    named = ("text layer match, coverage 1.00; this text block holds 1 of the query's 3 other words: an approximate "
             "place; the query names page 6")
    assert short_label(box(named)) == "box · p.6 (approximate)"
    # the passage, and a box whose reason says nothing of a block chosen (another plugin's), stay passage boxes
    assert locator_text(box(PASSAGE), numbers=False) == "passage box (approximate), p.6"
    assert short_label(box("a plugin's own words")) == "passage box · p.6 (approximate)"
