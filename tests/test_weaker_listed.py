"""A search shows the answer, not the whole folder (nc27a): which weaker matches the plain ``search``/``ask`` and
the web page name, how many at most, and when a file after the first earns a whole card (``strength``)."""

from __future__ import annotations

import re

import msgspec

from mnote_kr.citations.render import strength
from mnote_kr.citations.render.cards import render_answer, render_search
from mnote_kr.models import AgentQueryResult, Citation, SearchResults
from mnote_kr.viewer.searchpage import search_page
from tests.test_search_text import cit


def _card(cid: str, name: str, score: float, meaning: float | None, **parts: float) -> Citation:
    """A card as the pipeline scores it: its ``scoreParts`` (``provider``: LightRAG's rank) and its cosine."""
    c = cit(cid, name, score, f"the quote of {name}")
    return msgspec.structs.replace(
        c, locator=msgspec.structs.replace(c.locator, meaning_score=meaning),
        diagnostics=msgspec.structs.replace(c.diagnostics, score_parts={"provider": parts.pop("provider", score),
                                                                         **parts}))


def _search(cards: list[Citation], *, weak: bool = False) -> SearchResults:
    return SearchResults(query="q", mode="mix", provider="lightrag", results=cards, not_indexed=[], diagnostics={},
                         weak=weak, weak_reason="nothing answers" if weak else None)


def _listed(text: str) -> list[str]:
    return re.findall(r"^  (\[\w+\])", text, re.M)


# nc27a's first question: the first card holds the query's words and is near it by meaning (0.80); the rest of the
# 13-file folder comes in LightRAG's order, each by its rank alone, 0.17 or more further away by meaning.
FIRST = _card("[f000]", "amt_handbook.pdf", 1.05, 0.80, provider=0.5, lexical=0.55)


def test_a_weaker_match_far_in_meaning_holding_no_query_word_is_counted_not_listed() -> None:
    cards = [FIRST,
             _card("[f001]", "page-breaks.docx", 0.2, 0.61),  # rank only, 0.19 away: not listed
             _card("[f002]", "medrpt.pdf", 0.09, 0.61, provider=0.077, inFile=0.014),  # its own passages reordered
             _card("[f003]", "ocr_test.pdf", 0.07, 0.60, provider=0.067, lexical=0.009, farInMeaning=-0.009),
             _card("[f004]", "form.docx", 0.07, 0.72),  # rank only, but as near the query as the first, nearly
             _card("[f005]", "endnotes.docx", 0.05, 0.55, provider=0.048, lexical=0.02),  # holds a query word
             _card("[f006]", "scan.pdf", 0.05, None)]  # no vector for its place: unknown, so named
    text = render_search(_search(cards))
    head, _, tail = text.partition("Weaker matches")
    assert "the quote of amt_handbook.pdf" in head and "[f001]" not in head  # only the first is whole
    assert _listed(tail) == ["[f004]", "[f005]", "[f006]"]
    assert "3 more file(s)" in tail and "--json" in tail  # counted, never silently gone
    # ask: the same lines, and a card its answer cites stays whole however far it is
    text = render_answer(AgentQueryResult(query="q", answer="See [f002].", citations=cards))
    assert "the quote of medrpt.pdf" in text and _listed(text) == ["[f004]", "[f005]", "[f006]"]
    assert "2 more file(s)" in text


def test_at_most_six_weaker_matches_are_listed_in_order() -> None:
    cards = [FIRST] + [_card(f"[g{i:03d}]", f"g{i}.md", 0.1 - i / 100, 0.5, provider=0.05, lexical=0.01)
                       for i in range(9)]
    tail = render_search(_search(cards)).partition("Weaker matches")[2]
    assert _listed(tail) == [f"[g{i:03d}]" for i in range(strength.WEAKER_LINES)]
    assert f"{9 - strength.WEAKER_LINES} more file(s)" in tail


def test_a_weak_search_lists_the_nearest_and_counts_the_rest() -> None:
    cards = [_card("[w000]", "a.md", 0.5, 0.70), _card("[w001]", "b.md", 0.3, 0.66),
             _card("[w002]", "c.md", 0.2, 0.52), _card("[w003]", "d.md", 0.1, 0.50)]
    text = render_search(_search(cards, weak=True))
    assert _listed(text) == ["[w000]", "[w001]"] and "2 more file(s)" in text


def test_a_later_file_with_nothing_of_its_own_is_not_a_whole_card() -> None:
    """nc27a: "What colour of pen do I need for the visa application?" printed the lorem-ipsum PDF whole under the
    form (its one query word weighed back out as far in meaning, the rest its rank and its own places reordered);
    "what does page 2 of the medical report say" printed another file whole for having a page 2."""
    form = _card("[v000]", "form_footnotes.docx", 0.545, 0.682, provider=0.5, inFile=0.045)
    lorem = _card("[v001]", "pdflatex-outline.pdf", 0.2, 0.629, provider=0.125, lexical=0.017, farInMeaning=-0.017,
                  inFile=0.075)
    near = _card("[v002]", "visa-guide.docx", 0.2, 0.66)  # rank only, but near the query as the first is
    worded = _card("[v003]", "ink.docx", 0.2, 0.5, provider=0.1, lexical=0.1)  # holds the query's words
    whole, short = strength.by_strength([form, lorem, near, worded])
    assert [c.citation_id for c in whole] == ["[v000]", "[v002]", "[v003]"] and short == [lorem]
    report = _card("[p000]", "medrpt.pdf", 1.5, 0.68, provider=0.5, lexical=0.53, fileTerms=0.33)
    page2 = _card("[p001]", "paperless.pdf", 1.25, 0.55, provider=0.25, named=1.0)
    whole, short = strength.by_strength([report, page2])
    assert whole == [report] and short == [page2]
    assert strength.weaker_named([report, page2], short) == ([], [page2])  # 0.13 further by meaning: counted


def test_web_page_folds_the_unlisted_tail_closed_with_its_count() -> None:
    cards = [FIRST, _card("[f004]", "form.docx", 0.07, 0.72), _card("[f001]", "page-breaks.docx", 0.2, 0.61)]
    html = search_page("q", results=_search(cards))
    listed, _, rest = html.partition('class="weaker-more"')
    assert 'data-citation-id="[f004]"' in listed and 'data-citation-id="[f001]"' not in listed
    assert "1 more file" in rest and 'data-citation-id="[f001]"' in rest  # folded away, one click opens it


def test_the_demo_prints_its_searches_as_search_does() -> None:
    """nc27a: ``mnote-kr demo``, the first thing a newcomer runs, printed its first three citations whole: for
    "capacity of cell B2" the solvent notes and the icing paper, each with an "(approximate)" place."""
    from mnote_kr_lightrag.commands import demo_search_text

    report = _card("[2gky]", "aurora-battery-report.docx", 1.4, 0.86, provider=0.5, lexical=0.9)
    solvent = _card("[pd7a]", "solvent-handling.md", 0.4, 0.71)
    icing = _card("[yf5k]", "wind-turbine-icing.pdf", 0.33, 0.69)
    text = demo_search_text(_search([report, solvent, icing]))
    assert text.count("    quote:") == 1 and "the quote of aurora-battery-report.docx" in text
    assert "    locator: paragraph 3" in text  # the whole card keeps the demo's locator line
    assert "solvent-handling.md" not in text and "2 more file(s)" in text
    weak = demo_search_text(_search([report, solvent], weak=True))
    assert weak.startswith("Weak result: nothing answers.") and "    quote:" not in weak
