"""Review of round 17's slide title rule (``titlebody.body_under_title``): a body of several shapes.

The rule moves a title holding only the query's topic to the slide's first body shape, claimed exact. On a
two-column slide ("Risks" over "Technical / GPU supply may slip" and "Commercial / Pricing pressure from
rivals") "What are the risks?" was cited exact at the left column alone, quoted "Risks: Technical; GPU supply
may slip", as if that were every risk. The body under the title is the first shape only when it is the slide's
one body shape; otherwise the title stays (as before the rule).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pptx import Presentation

from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins

CHUNK = ("Project Overview\nA tool for notes\nRisks\nTechnical\nGPU supply may slip\nCommercial\n"
         "Pricing pressure from rivals")


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")


def _deck(tmp_path: Path) -> Path:
    prs = Presentation()
    s = prs.slides.add_slide(prs.slide_layouts[1])
    s.shapes.title.text = "Project Overview"
    s.placeholders[1].text_frame.text = "A tool for notes"
    s = prs.slides.add_slide(prs.slide_layouts[3])  # Two Content
    s.shapes.title.text = "Risks"
    for ph, (head, line) in zip((1, 2), (("Technical", "GPU supply may slip"),
                                         ("Commercial", "Pricing pressure from rivals")), strict=True):
        s.placeholders[ph].text_frame.text = head
        s.placeholders[ph].text_frame.add_paragraph().text = line
    path = tmp_path / "risks.pptx"
    prs.save(str(path))
    return path


def test_a_title_over_two_body_shapes_is_not_moved_to_the_first(tmp_path: Path) -> None:
    plugins = load_plugins(None)
    query = "What are the risks?"
    bundle = plugins.clean_text(CHUNK, query, None)
    loc = plugins.locate(LocateRequest(file=str(_deck(tmp_path)), evidence=bundle.locator_evidence_text,
                                       query=query, passage=CHUNK))
    assert loc.slide == 2, loc.reason
    assert loc.shape_name == "Title 1" and "body under it" not in loc.reason, (loc.shape_name, loc.quote, loc.reason)
