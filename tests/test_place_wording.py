"""How the text output names a paragraph: once, counted from 1, and never beside a 0-based number unsaid.

A newcomer (nc18b, problem 8) read ``paragraph (approximate), paragraph 162`` in ``search`` and
``paragraph, paragraph 177, characters 0-54`` in ``open``, then ``...&paragraph=176`` on the next line:
the word said twice, and two numbers one apart for the same place with nothing saying which counts from 0.
"""

from __future__ import annotations

import msgspec
import pytest

from mnote_kr.citations.render.cards import locator_text, render_open
from mnote_kr.citations.render.ids import citation_url
from mnote_kr.citations.render.precision import short_label
from mnote_kr.models import Highlight, Locator, OpenActionParams, OpenPlan


def _paragraph(index: int, degraded: bool, span: tuple[int, int] | None = None) -> Locator:
    return Locator(locator_precision="paragraph", locator_degraded=degraded, paragraph_index=index,
                   highlight=Highlight(start=span[0], end=span[1]) if span else None)


@pytest.mark.parametrize(("loc", "numbers", "said"), [
    (_paragraph(176, False, (0, 54)), True, "paragraph 177, characters 0-54"),
    (_paragraph(176, False, (0, 54)), False, "paragraph 177"),
    (_paragraph(161, True), False, "paragraph 162 (approximate)"),
    (_paragraph(161, True, (3, 9)), True, "paragraph 162 (approximate)"),
    (Locator(locator_precision="paragraph", locator_degraded=True), True, "paragraph (approximate)"),
])
def test_a_paragraph_is_named_once_with_its_number_counted_from_one(loc: Locator, numbers: bool, said: str) -> None:
    assert locator_text(loc, numbers=numbers) == said
    if loc.paragraph_index is not None:  # the viewer's badge counts the same way
        assert short_label(loc).startswith(f"paragraph {loc.paragraph_index + 1}")


def _plan(loc: Locator) -> OpenPlan:
    return OpenPlan(citation_id="[tylp]", resource_path="/w/report.docx", resource_root_relative_path="report.docx",
                    resource_kind="office", locator=loc, citation_url=citation_url("report.docx", loc),
                    open_action=OpenActionParams(provider="lightrag", chunk_id=None, search_query="q",
                                                 evidence_text=None, display_quote=None))


def test_open_says_the_links_paragraph_counts_from_zero_when_it_prints_it_beside_the_readers_number() -> None:
    shown = render_open(_plan(_paragraph(176, False, (0, 54))))
    first, link = shown.splitlines()[:2]
    assert first == "[tylp] /w/report.docx [office] paragraph 177, characters 0-54"
    assert "paragraph=176" in link  # the URL is the contract's: paragraphIndex, from 0
    # the link's number counts from 0, the reader's from 1: each said of its own number (r19 read it backwards)
    assert link.endswith("(its paragraph=176 counts from 0: it is paragraph 177 counted from 1)"), link


def test_open_prints_the_link_alone_when_it_holds_no_paragraph_number() -> None:
    loc = Locator(locator_precision="bbox", locator_degraded=False, page=3, bbox=[1.0, 2.0, 3.0, 4.0])
    link = render_open(_plan(loc)).splitlines()[1]
    assert link == "link: " + citation_url("report.docx", loc)


def test_a_slides_review_comment_is_named_as_one_never_as_shape_none(monkeypatch: pytest.MonkeyPatch) -> None:
    # r19: ``open`` and a search's ``also #2`` line printed ``slide 3, shape None "None", paragraph 2`` for a comment
    from pathlib import Path

    from mnote_kr.models import LocateRequest
    from mnote_kr.plugins import load_plugins

    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")
    deck = Path(__file__).resolve().parent / "data" / "corpus" / "pptx" / "docling__powerpoint_comments.pptx"
    plugins = load_plugins(None)
    text = plugins.extract_text(str(deck))
    loc = plugins.locate(LocateRequest(file=str(deck), evidence="Comment (Jane Smith): I need to try this out!",
                                       passage=text, query="what does Jane Smith need to try"))
    assert locator_text(loc) == "slide 3, review comment (Jane Smith)", loc.locator_reason
    assert render_open(_plan(loc)).splitlines()[0].endswith("[office] slide 3, review comment (Jane Smith)")


def test_open_prints_a_quote_once_however_many_searches_showed_it() -> None:
    """nc24a: ``open "[0dyh]"`` printed the same quote 8 times, once per earlier search that issued the ID."""
    from mnote_kr.models import IssuedQuote

    quote = "定期安全评价应每十年开展一次，对核电厂的安全状况进行全面复查。"
    asked = [f"问题 {i}" for i in range(8)]
    issues = [IssuedQuote(search_query=q, display_quote=quote, issued_at=f"2026-12-0{i + 1}T00:00:00Z")
              for i, q in enumerate(asked)]
    other = IssuedQuote(search_query="another question", display_quote="A different passage of the paragraph.")
    plan = msgspec.structs.replace(_plan(_paragraph(3, False)), issues=[*issues[:5], other, *issues[5:]])
    shown = render_open(plan)
    assert shown.count(quote) == 1, shown
    assert shown.count("A different passage of the paragraph.") == 1, shown
    assert "quote from the latest of 9 searches that printed [tylp], search '问题 0'" in shown, shown
    # the other seven searches that showed that quote are counted under it, and the first few named
    assert "the same quote from 7 earlier searches: '问题 1', '问题 2', '问题 3' and 4 more" in shown, shown
    assert "earlier, search 'another question'" in shown, shown
