"""The search page's weaker matches in a real headless Chromium: listed one line each, closed, and a
click on one shows its whole card (``citations.render.strength``, the CLI's rule).

The host's real citation pipeline scores the cards; ``FakeProvider`` returns every file in name order,
so the one file holding the query's words leads and the files after it are the nearest-by-meaning tail
a real provider also returns. No LightRAG: the pages are the server's real pages over loopback.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.browser import browser, chromium_path  # noqa: F401  (fixtures)
from mnote_kr_testkit.fakes import fake_host

from mnote_kr.citations.render.strength import by_strength
from mnote_kr.server.app import ApiServer
from mnote_kr.viewer import web
from mnote_kr.viewer.searchpage import search_page
from tests.test_weaker_listed import FIRST, _card, _search

QUERY = "blade heating power loss"
NOTES = {  # provider order is name order: the answer first, then four files without a word of the query
    "icing.md": "# Icing\n\nBlade heating kept the power loss below five percent on every turbine.\n",
    "keel.md": "# Ferry\n\nThe harbour ferry leaves at nine every morning from the north pier.\n",
    "loom.md": "# Bread\n\nKnead the dough for ten minutes and let it rise overnight.\n",
    "moth.md": "# Bees\n\nThe hive swarmed in May; the queen was marked with blue paint.\n",
    "newt.md": "# Newts\n\nThe pond holds three newts and a heron visits at dawn.\n",
}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[ApiServer, list[str], list[str]]]:
    (tmp_path / "ws" / "notes").mkdir(parents=True)
    for name, text in NOTES.items():
        (tmp_path / "ws" / "notes" / name).write_text(text, encoding="utf-8")
    host, _ = fake_host(tmp_path / "ws")
    host.roots_add(tmp_path / "ws" / "notes")
    host.ingest([tmp_path / "ws" / "notes"])
    whole, short = by_strength(host.search(QUERY, top_k=20).results)
    # the split this test is about happens: the answer whole, at least two files listed short
    assert whole[0].source_root_relative_path == "notes/icing.md" and len(short) >= 2, (whole, short)
    with ApiServer(host, write_token_file=False) as server:
        yield server, [c.citation_id for c in whole], [c.citation_id for c in short]


@pytest.fixture
def tab(browser, served) -> Iterator[Any]:  # noqa: F811
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    response = page.goto(web.entry_url(served[0]))
    assert response is not None and response.status == 200
    try:
        yield page
    finally:
        context.close()


def _quote_shown(tab: Any, cid: str) -> bool:
    return tab.is_visible(f'li.card[data-citation-id="{cid}"] blockquote.quote')


def test_weaker_matches_are_one_closed_line_each_and_a_click_shows_the_card(tab, served) -> None:
    _, whole, short = served
    tab.fill("#q", QUERY)
    tab.press("#q", "Enter")
    tab.wait_for_selector("ol.cards.weaker")
    assert tab.eval_on_selector_all("ol.cards:not(.weaker) > li.card", "els => els.map(e => e.dataset.citationId)") \
        == whole
    assert tab.eval_on_selector_all("ol.cards.weaker > li.card", "els => els.map(e => e.dataset.citationId)") == short
    assert all(_quote_shown(tab, cid) for cid in whole)  # the first card (and any as strong) whole
    first = f'li.card[data-citation-id="{whole[0]}"] blockquote.quote'
    assert "Blade heating" in tab.inner_text(first)
    for cid in short:  # closed: ID, file and place on one line, no quote
        assert not _quote_shown(tab, cid)
        line = tab.locator(f'li.card[data-citation-id="{cid}"] summary')
        assert line.is_visible() and cid in line.inner_text() and ".md" in line.inner_text()
        box = line.bounding_box()
        assert box is not None and box["height"] < 40, box  # one line
    # a click on the line (not the ID's link, which opens the viewer) shows the whole card, quote and all
    weak = short[-1]
    tab.click(f'li.card[data-citation-id="{weak}"] summary .file')
    tab.wait_for_selector(f'li.card[data-citation-id="{weak}"] details[open] blockquote.quote', state="visible")
    quote = tab.inner_text(f'li.card[data-citation-id="{weak}"] blockquote.quote')
    assert quote.strip() and quote.strip() in "".join(NOTES.values())
    assert all(not _quote_shown(tab, cid) for cid in short[:-1])  # the others stay closed
    assert tab.url.startswith(served[0].url + "/?")  # still the results page


OFF_TOPIC = "sourdough starter hydration"  # no word of it in any note: the search is weak


def test_a_weak_search_shows_its_banner_first_and_every_card_closed(tab, served) -> None:
    server = served[0]
    tab.fill("#q", OFF_TOPIC)
    tab.press("#q", "Enter")
    tab.wait_for_selector("p.banner.weak")
    banner = tab.locator("p.banner.weak")
    assert banner.is_visible() and banner.inner_text().startswith("Weak result:")
    assert "nearest by meaning" in banner.inner_text()
    ids = tab.eval_on_selector_all("li.card", "els => els.map(e => e.dataset.citationId)")
    assert len(ids) == len(NOTES)  # every result listed, none hidden
    assert tab.eval_on_selector_all("ol.cards:not(.weaker) > li.card", "els => els.length") == 0
    assert not any(_quote_shown(tab, cid) for cid in ids)  # not one whole card under the warning
    # the banner is above the first line, where the eye starts
    first = tab.locator(f'li.card[data-citation-id="{ids[0]}"] summary').bounding_box()
    assert first is not None and banner.bounding_box()["y"] < first["y"]
    tab.click(f'li.card[data-citation-id="{ids[0]}"] summary .file')
    tab.wait_for_selector(f'li.card[data-citation-id="{ids[0]}"] details[open] blockquote.quote', state="visible")
    assert tab.url.startswith(server.url + "/?")


def test_the_unnamed_tail_is_one_closed_line_that_a_click_opens(browser) -> None:  # noqa: F811
    """The weaker matches ``strength.weaker_named`` does not name (nc27a: the whole 13-file folder on every search)
    are folded under one closed line counting them: nothing shows until a click, then each is a line of its own."""
    cards = [FIRST, _card("[f004]", "form.docx", 0.07, 0.72), _card("[f001]", "page-breaks.docx", 0.2, 0.61),
             _card("[f002]", "scan.pdf", 0.1, 0.5)]
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    try:
        tab = context.new_page()
        tab.set_content(search_page("q", results=_search(cards)))
        line = tab.locator("details.weaker-more > summary")
        assert line.is_visible() and "2 more file(s)" in line.inner_text()
        assert tab.is_visible('li.card[data-citation-id="[f004]"] summary')  # named: its line shows
        assert not tab.is_visible('li.card[data-citation-id="[f001]"]')  # folded: nothing of it shows
        line.click()
        tab.wait_for_selector('li.card[data-citation-id="[f001]"] summary', state="visible")
        assert tab.is_visible('li.card[data-citation-id="[f002]"] summary')
        assert not _quote_shown(tab, "[f001]")  # each a closed line, as the named ones
    finally:
        context.close()
