"""A question about one point of a chart is quoted by that point's line, not the whole chart; a question about
the chart as a whole by the chart from its title. Two newcomers (r19): "freshwater ducks 2021" and "saltwater
ducks 2021 survey chart" cited the 2021 line of docling's duck chart, yet quoted every year 2019-2022. The
expected lines are built from the chart XML read here with the standard library (``xml_points``), not from the
reader; the evidence is the deck's slide as the engine indexes it (the deck's extracted text)."""

from __future__ import annotations

import hashlib

import pytest

from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins

from .test_pptx_charts import DECK, xml_points

TITLE = "Wild Duck Observations by Year"  # the chart's c:title, read by eye from the XML


@pytest.fixture(scope="module")
def plugins():  # type: ignore[no-untyped-def]
    return load_plugins(None)


def _slide(plugins, n: int) -> str:  # type: ignore[no-untyped-def]
    """Slide ``n``'s part of the deck's text as the engine indexes it (each slide opens with ``# ``)."""
    return "# " + plugins.extract_text(str(DECK)).split("\n# ")[n - 1].removeprefix("# ")


def _line(points: dict[str, dict[str, str]], year: str) -> str:
    return f"{year}: " + ", ".join(f"{series} {value}" for series, value in points[year].items())


@pytest.mark.parametrize("query", ["freshwater ducks 2021", "saltwater ducks 2021 survey chart"])
def test_a_question_about_one_year_of_the_chart_quotes_that_years_line_first(plugins, query: str) -> None:  # type: ignore[no-untyped-def]
    before = hashlib.sha256(DECK.read_bytes()).digest()
    points = xml_points(1)
    evidence = _slide(plugins, 1)
    loc = plugins.locate(LocateRequest(file=str(DECK), evidence=evidence, passage=evidence, query=query))
    assert (loc.slide, loc.shape_name) == (1, "Chart 2"), loc.reason
    assert loc.paragraph_index == 1 + sorted(points).index("2021")  # the chart's head, then a line a year
    assert loc.quote is not None and loc.quote.startswith(_line(points, "2021")), loc.quote
    for year in ("2019", "2020", "2022"):  # the other years' figures are the chunk's (contextQuote), not the quote's
        assert _line(points, year) not in loc.quote and year not in loc.quote, loc.quote
    assert points["2019"]["Freshwater Ducks"] not in loc.quote.replace(_line(points, "2021"), "")
    assert TITLE in loc.quote  # what the figures count: the chart's title, after the line
    assert hashlib.sha256(DECK.read_bytes()).digest() == before


def test_a_question_about_the_chart_as_a_whole_quotes_it_from_its_title(plugins) -> None:  # type: ignore[no-untyped-def]
    """Cited on the slide's title "Quarterly Duck Survey" alone before: the question names the chart."""
    points = xml_points(1)
    evidence = _slide(plugins, 1)
    loc = plugins.locate(LocateRequest(file=str(DECK), evidence=evidence, passage=evidence,
                                       query="what does the duck survey chart show"))
    assert (loc.slide, loc.shape_name, loc.paragraph_index) == (1, "Chart 2", 0), loc.reason
    assert loc.quote is not None and loc.quote.startswith(TITLE), loc.quote
    assert all(_line(points, year) in loc.quote for year in points), loc.quote


def test_a_single_series_point_is_quoted_with_its_series_name_and_the_whole_chart_from_its_head(plugins) -> None:  # type: ignore[no-untyped-def]
    """Slide 2's chart has one series, "2026", which heads it: "Q2: 20" alone does not say what it counts."""
    points = xml_points(2)
    assert points["Q2"] == {"2026": "20"}
    evidence = _slide(plugins, 2)
    asked = plugins.locate(LocateRequest(file=str(DECK), evidence=evidence, passage=evidence,
                                         query="what was the revenue in Q2"))
    assert (asked.slide, asked.shape_name, asked.paragraph_index) == (2, "Chart 2", 2), asked.reason
    assert asked.quote == "Q2: 20 (2026)", asked.quote
    whole = plugins.locate(LocateRequest(file=str(DECK), evidence=evidence, passage=evidence,
                                         query="what does the chart on slide 2 show"))
    assert (whole.slide, whole.shape_name, whole.paragraph_index) == (2, "Chart 2", 0), whole.reason
    assert whole.quote == "2026; Q1: 10; Q2: 20; Q3: 30", whole.quote
