"""A deck's and a workbook's citation carries the file's next places (``alternatives``), as a DOCX's does.

The host's real pipeline and the real PPTX and XLSX locators run over docling's sample deck and duck
workbook (corpus files), handed to them as one passage each (the whole deck or sheet, the text mnote-kr
reads in it, as the LightRAG provider sends such a deck): each file is one citation with places behind
its first (other shapes or notes of the deck holding the question's words, other rows of the sheet), each
its own place with its own quote and ID, in every surface: the CLI's text and ``--json``, the HTTP API, the
MCP query tool and the viewer, which steps to them. The question about the second slide's notes is the
newcomer's: the evidence LightRAG picked was the third slide's, and the second slide's notes, which answer,
were offered nowhere.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.fakes import fake_host

from mnote_kr.agents.contracts import QueryInput
from mnote_kr.agents.tools import tool_query
from mnote_kr.citations import pipeline
from mnote_kr.citations.render.precision import certainty
from mnote_kr.models import Citation, SearchResults
from mnote_kr.viewer.webpages import view_url
from tests.surfaces import OnePassage, api, cli_search, web_page

DECK = CORPUS / "pptx" / "docling__powerpoint_sample.pptx"
BOOK = CORPUS / "xlsx" / "docling__xlsx_03_chartsheet.xlsx"
NOTES_QUESTION = "What do the notes on the second slide say?"
DUCKS_QUESTION = "How many saltwater ducks were observed in 2022?"
SECOND_NOTES = "Some notes on the second slide."  # the deck's own words (python-pptx reads the same)


def _text(path: Path) -> str:
    from mnote_kr.plugins import load_plugins

    return load_plugins(None).extract_text(str(path))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Any:
    pipeline.clear_memos()
    ws = tmp_path_factory.mktemp("office") / "ws"
    (ws / "office").mkdir(parents=True)
    deck, book = ws / "office" / DECK.name, ws / "office" / BOOK.name
    shutil.copy(DECK, deck)
    shutil.copy(BOOK, book)
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in (deck, book)}
    provider = OnePassage(delete_status="delete_completed")
    host, _ = fake_host(ws, provider)
    host.roots_add(ws / "office")
    host.ingest([ws / "office"], wait=True)  # citable, then its preparation step embeds the places
    for path in (deck, book):
        provider.texts[provider.name_for(f"office/{path.name}")] = _text(path)
    found = {q: host.search(q, top_k=10) for q in (NOTES_QUESTION, DUCKS_QUESTION)}
    yield host, ws, found
    assert {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in (deck, book)} == before  # never written


def _of(results: SearchResults, suffix: str) -> Citation:
    (c,) = [c for c in results.results if c.source_root_relative_path.endswith(suffix)]
    return c


def test_a_deck_citation_carries_the_decks_places_holding_the_questions_words_each_its_own(site: Any) -> None:
    host, _, found = site
    c = _of(found[NOTES_QUESTION], ".pptx")
    assert c.locator_precision == "slide" and c.alternatives
    places = [(c.locator.slide, c.locator.speaker_notes, c.locator.shape_id, c.locator.paragraph_index)] + [
        (a.locator.slide, a.locator.speaker_notes, a.locator.shape_id, a.locator.paragraph_index)
        for a in c.alternatives]
    assert len(set(places)) == len(places)  # each a place of its own, not one place twice
    quotes = [c.display_quote] + [a.display_quote for a in c.alternatives]
    assert SECOND_NOTES in quotes  # the notes that answer are one of them
    # the first slide's "With footnote" holds no word of the question and is farther from it by meaning than
    # the third slide's notes: not shown (round 18, ``folding.WORDED_FIRST``)
    assert "With footnote" not in quotes
    for a in c.alternatives:
        assert a.locator_precision == a.locator.locator_precision == "slide" and a.locator_degraded
        assert a.display_quote and a.locator.runners_up == [] and a.citation_id != c.citation_id
        plan = host.open(a.citation_id)  # an alternative's own ID opens its place
        assert (plan.locator.slide, plan.locator.speaker_notes) == (a.locator.slide, a.locator.speaker_notes)


def test_a_sheet_citation_offers_its_rows_other_cell_and_another_row_each_read_by_its_headers(site: Any) -> None:
    host, _, found = site
    c = _of(found[DUCKS_QUESTION], ".xlsx")
    assert (c.locator_precision, c.locator.range) == ("cell", "C5")
    assert c.display_quote == "Year: 2022; Saltwater Ducks: 110"
    assert len(c.alternatives) == 2
    rows = [int(re.sub(r"\D", "", a.locator.range or "")) for a in c.alternatives]
    # one other cell of the cited row, one other row; the header row is no answer
    assert sorted(r == 5 for r in rows) == [False, True] and 1 not in rows
    for a in c.alternatives:
        assert a.locator_precision == "cell" and a.locator.sheet == "Duck Observations" and a.locator_degraded
        assert a.locator.range != "C5" and a.display_quote  # each read by its header: "Year: 2022; Ducks: 280"
        assert re.fullmatch(r"Year: 20\d\d; [A-Za-z ]*Ducks: \d+", a.display_quote), a.display_quote
        assert host.open(a.citation_id).locator.range == a.locator.range


def test_cli_text_and_json_show_the_office_places_behind_the_first(site: Any) -> None:
    host, _, found = site
    c = _of(found[NOTES_QUESTION], ".pptx")
    text = cli_search(host, NOTES_QUESTION, as_json=False)
    card = text[text.index(f"{c.citation_id} office/{DECK.name}"):].splitlines()
    assert c.alternatives
    for n, a in enumerate(c.alternatives, 2):
        where = f"slide {a.locator.slide} notes" if a.locator.speaker_notes else f"slide {a.locator.slide}, shape"
        line = next(k for k, line in enumerate(card) if line.startswith(f"    also #{n}: {a.citation_id} {where}"))
        assert card[line].endswith("(approximate)") and card[line + 1].strip() == a.display_quote
    data = json.loads(cli_search(host, DUCKS_QUESTION, as_json=True))
    book = next(r for r in data["results"] if r["sourceRootRelativePath"].endswith(".xlsx"))
    want = _of(found[DUCKS_QUESTION], ".xlsx")
    assert [(a["citationId"], a["locator"]["range"], a["displayQuote"]) for a in book["alternatives"]] == \
           [(a.citation_id, a.locator.range, a.display_quote) for a in want.alternatives]


def test_http_and_mcp_carry_the_office_alternatives(site: Any) -> None:
    host, _, found = site
    want = _of(found[NOTES_QUESTION], ".pptx")
    with api(host) as (_, client):
        got = client.post("/api/knowledge-rag/search", json={"query": NOTES_QUESTION, "topK": 10}).json()
    deck = next(r for r in got["results"] if r["sourceRootRelativePath"].endswith(".pptx"))
    assert [(a["citationId"], a["locator"]["slide"], a["locator"]["speakerNotes"]) for a in deck["alternatives"]] == \
           [(a.citation_id, a.locator.slide, a.locator.speaker_notes) for a in want.alternatives] != []
    mcp = tool_query(host, QueryInput(query=NOTES_QUESTION, top_k=10))
    deck_mcp = next(c for c in mcp.citations if c.source_root_relative_path.endswith(".pptx"))
    assert [(a.citation_id, a.display_quote) for a in deck_mcp.alternatives] == \
           [(a.citation_id, a.display_quote) for a in want.alternatives]


def test_the_viewer_steps_to_each_place_of_the_deck(site: Any) -> None:
    host, _, found = site
    c = _of(found[NOTES_QUESTION], ".pptx")
    assert c.alternatives
    with api(host) as (server, _):
        for n, a in enumerate(c.alternatives, 2):
            html = web_page(server, view_url(c.citation_id, place=n))
            total = 1 + len(c.alternatives)  # the last place says so
            assert (f"place {n}" if n < total else "last place") + f" of {total}" in html
            assert f'data-slide="{a.locator.slide}"' in html
            if a.locator.speaker_notes:  # drawn approximate (dashed, under the banner) as its card says
                approx = " approx" if certainty(a.locator) == "approximate" else ""
                assert f'<section class="notes cited{approx}" id="hl">' in html
            else:
                approx = " approx" if certainty(a.locator) == "approximate" else ""
                cited = rf'<div id="hl" class="shape[^"]*cited{approx}"[^>]*data-shape-id="{a.locator.shape_id}"'
                assert re.search(cited, html)
