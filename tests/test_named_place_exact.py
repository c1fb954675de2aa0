"""A place a query names is cited exactly only where it holds the query's content words, or none are asked.

r19: "what was the Q3 value on slide 2" over several decks cited docling__powerpoint_sample.pptx's slide 2 (a
bullet list) as exact: the deck held neither "Q3" nor "value", which the locator read as "nothing else asked".
The chart deck's slide 2 holds "Q3: 30". Words that ask for the place as a whole ("what does page 3 say") or name
the file ("of the powerpoint sample") ask nothing of it; Latin words of content do, held elsewhere or not.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins

CORPUS = Path(__file__).resolve().parent / "data" / "corpus"
SAMPLE = CORPUS / "pptx" / "docling__powerpoint_sample.pptx"
CHART = CORPUS / "pptx" / "docling__pptx_chart.pptx"
OUTLINE = CORPUS / "pdf" / "pypdf__pdflatex-outline.pdf"


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")


def _locate(file: Path, query: str, evidence: str | None = None):  # noqa: ANN202 - a Locator
    plugins = load_plugins(None)
    text = plugins.extract_text(str(file))
    return plugins.locate(LocateRequest(file=str(file), evidence=evidence or text, passage=text, query=query))


def _slide(text: str, n: int) -> str:
    return text.split("\n# ")[n - 1]


@pytest.mark.parametrize("query", ["what was the Q3 value on slide 2", "Q3 total on the second slide"])
@pytest.mark.parametrize("evidence_slide", [2, 3])
def test_a_named_slide_holding_none_of_the_querys_words_is_approximate(query: str, evidence_slide: int) -> None:
    before = SAMPLE.read_bytes()
    text = load_plugins(None).extract_text(str(SAMPLE))
    loc = _locate(SAMPLE, query, _slide(text, evidence_slide))
    assert loc.slide == 2 and loc.locator_degraded, (loc.slide, loc.shape_name, loc.locator_reason)
    assert SAMPLE.read_bytes() == before


@pytest.mark.parametrize("query", ["what was the Q3 value on slide 2", "Q3 total on the second slide"])
def test_the_named_slide_holding_the_querys_words_stays_exact(query: str) -> None:
    text = load_plugins(None).extract_text(str(CHART))
    loc = _locate(CHART, query, _slide(text, 1))
    assert (loc.slide, loc.shape_name, loc.locator_degraded) == (2, "Chart 2", False), loc.locator_reason


@pytest.mark.parametrize("query", ["what is on slide 2", "what does slide 2 say", "summarize the second slide",
                                   "what is on the second slide of the powerpoint sample"])
def test_a_named_slide_asked_for_as_a_whole_stays_exact(query: str) -> None:
    loc = _locate(SAMPLE, query)
    assert loc.slide == 2 and not loc.locator_degraded, loc.locator_reason


def _outline_passage() -> str:
    """The outline PDF's passage a recorded search cited (pages 1 and 2: ``tests/data/ranking/named_page.json``)."""
    case = json.loads((Path(__file__).parent / "data" / "ranking" / "named_page.json").read_text("utf-8"))
    (text,) = [c["text"] for c in case["candidates"] if c["fileName"] == OUTLINE.name and c["providerRank"] == 2]
    return text


@pytest.mark.parametrize(("query", "approximate"), [
    ("which software was popular among legal professionals on page 2", True),  # multi_page's page 2 holds them
    ("what was the Q3 value on page 2", True),
    ("what does page 2 say", False),  # asks for the page
    ("summarize page 2", False),
])
def test_a_named_pdf_page_is_exact_only_where_it_holds_the_querys_words(query: str, approximate: bool) -> None:
    from mnote_kr_pdf_bbox import locate

    before = OUTLINE.read_bytes()
    loc = locate(LocateRequest(file=str(OUTLINE), evidence=_outline_passage(), query=query))
    assert (loc.locator_precision, loc.page, loc.locator_degraded) == ("bbox", 2, approximate), loc.reason
    assert OUTLINE.read_bytes() == before

