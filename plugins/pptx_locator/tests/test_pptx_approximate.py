"""A deck's place holding few of the query's words is an approximate one (``locatorDegraded``): one rule with
the DOCX, PDF and OCR locators (``placing.QUERY_SHARE``).

The newcomer's case on docling's unrecognized-shape deck: "how many sales engineers will be recruited" was
cited on slide 1's "Enterprise segment led growth at 24%" as an exact place, though its reason said the
place "holds few of the query's words"; the answer ("Hire 3 additional SEs", slide 2) stood behind it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins


@pytest.fixture(scope="module")
def plugins():  # type: ignore[no-untyped-def]
    return load_plugins(None)


def _revenue_deck(path: Path) -> None:
    """Two slides: a revenue summary's bullets, then the next steps (hiring among them)."""
    from pptx import Presentation

    prs = Presentation()
    s1 = prs.slides.add_slide(prs.slide_layouts[1])
    s1.shapes.title.text = "Q3 Revenue Summary"
    s1.placeholders[1].text = ("Total revenue grew 18% year-over-year.\nEnterprise segment led growth at 24%.\n"
                               "APAC region exceeded targets by 12%.")
    s2 = prs.slides.add_slide(prs.slide_layouts[1])
    s2.shapes.title.text = "Next Steps"
    s2.placeholders[1].text = "Finalize pricing model\nLaunch APAC campaign\nHire 3 additional SEs"
    prs.save(path)


def test_a_place_holding_few_of_the_querys_words_is_approximate(plugins, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "revenue.pptx"
    _revenue_deck(path)
    before = hashlib.sha256(path.read_bytes()).digest()
    deck = plugins.extract_text(str(path))
    ask = lambda query: plugins.locate(LocateRequest(  # noqa: E731
        file=str(path), evidence=deck, query=query, passage=deck))
    loc = ask("how many sales engineers will be recruited")
    assert loc.locator_precision == "slide"
    assert loc.locator_degraded, (loc.slide, loc.quote, loc.reason)
    # a place holding the query's words stays exact
    loc = ask("which region exceeded its targets")
    assert (loc.slide, loc.locator_degraded) == (1, False), loc.reason
    assert "APAC region exceeded targets" in (loc.quote or "")
    assert hashlib.sha256(path.read_bytes()).digest() == before
