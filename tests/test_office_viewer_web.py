"""The viewer's pages for a slide and a cell citation, over real HTTP without a browser.

The host's real pipeline and the real PPTX and XLSX locators run (``FakeProvider`` hands them the
files' own text, as LightRAG would); the browser test of the same pages against the real engine is
``test_office_viewer_browser.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path

import httpx
import msgspec
import pytest
from mnote_kr_testkit.fakes import FakeProvider, fake_host

from mnote_kr.citations.citecache import remember
from mnote_kr.core.host import Host
from mnote_kr.models import Citation, LocateRequest, Locator
from mnote_kr.server import webpages
from mnote_kr.server.app import ApiServer
from tests.test_office_integration import FERRY, _book, _deck, _sha

DECK_TEXT = "Passenger traffic\nCargo tonnage stayed flat through the winter months.\n" + FERRY
BOOK_TEXT = "Line item | 2022 | 2023\nRevenue | 3900 | 4100\nOperating costs | 2100 | 2300"


class Site:
    def __init__(self, server: ApiServer, host: Host, deck: Path, book: Path, cites: dict[str, Citation]) -> None:
        self.server, self.host, self.deck, self.book, self.cites = server, host, deck, book, cites


def _cite_at(host: Host, cite: Citation, loc: Locator, cid: str | None = None) -> Citation:
    """``cite`` with the real locator's answer (the pipeline caps a place LightRAG's sidecar has not
    confirmed at ``file``; the real engine's sidecar confirms it), remembered for the viewer."""
    out = msgspec.structs.replace(cite, citation_id=cid or cite.citation_id, locator=loc,
                                  locator_precision=loc.locator_precision, locator_degraded=loc.locator_degraded)
    remember(host, [out])
    return out


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    ws = tmp_path / "ws"
    (ws / "office").mkdir(parents=True)
    deck, book = ws / "office" / "harbour.pptx", ws / "office" / "results.xlsx"
    _deck(deck)
    _book(book)
    before = {p: _sha(p) for p in (deck, book)}
    host, provider = fake_host(ws)
    host.roots_add(ws / "office")
    host.ingest([ws / "office"])
    provider.texts[FakeProvider.name_for("office/harbour.pptx")] = DECK_TEXT
    provider.texts[FakeProvider.name_for("office/results.xlsx")] = BOOK_TEXT
    found = {Path(c.source_root_relative_path).suffix: c for c in host.search("Kestrelmoor ferry", top_k=10).results}
    assert set(found) == {".pptx", ".xlsx"}, found
    slide = host.locate(LocateRequest(file=str(deck), evidence=DECK_TEXT, query="Kestrelmoor ferry passengers"))
    cell = host.locate(LocateRequest(file=str(book), evidence="Revenue | 3900 | 4100", query="Revenue in 2023"))
    notes = host.locate(LocateRequest(file=str(deck), evidence="Mention the new timetable.", query="timetable"))
    assert (slide.locator_precision, slide.slide, slide.shape_name, slide.paragraph_index) == (
        "slide", 2, "Ferry figures", 1)
    assert (cell.locator_precision, cell.sheet, cell.range) == ("cell", "Results", "C2")
    assert (notes.locator_precision, notes.slide, notes.speaker_notes) == ("slide", 2, True)
    cites = {"slide": _cite_at(host, found[".pptx"], slide), "cell": _cite_at(host, found[".xlsx"], cell),
             "notes": _cite_at(host, found[".pptx"], notes, "[nt01]"),
             "row": _cite_at(host, found[".xlsx"], msgspec.structs.replace(cell, range="B3:C3"), "[rw01]")}
    with ApiServer(host, write_token_file=False) as server:
        yield Site(server, host, deck, book, cites)
    assert {p: _sha(p) for p in (deck, book)} == before  # the viewer never touched a source


def _page(site: Site, cite: Citation, **query: str | int) -> str:
    with httpx.Client(base_url=site.server.url, timeout=30) as client:
        assert client.get("/", params={"token": site.server.token}).status_code == 303
        r = client.get(webpages.view_url(cite.citation_id, **query))
        assert r.status_code == 200, r.text
        assert "style=" not in r.text and "<style" not in r.text  # the CSP allows no inline style
        return r.text


def _element(html: str, ident: str = "hl") -> tuple[str, str]:
    """The opening tag and the text of the element with ``id=ident`` (a div, td or section)."""
    m = re.search(rf'<(div|td|section) (?:[^>]* )?id="{ident}"[^>]*>', html) or re.search(
        rf'<(div|td|section) id="{ident}"[^>]*>', html)
    assert m is not None, f"no element #{ident}"
    end = html.index(f"</{m.group(1)}>", m.end())
    return m.group(0), unescape(re.sub(r"<[^>]+>", "", html[m.end():end].replace("</p>", " "))).strip()


def test_slide_page_lays_out_the_shapes_and_marks_the_cited_one(site: Site) -> None:
    cite = site.cites["slide"]
    html = _page(site, cite)
    tag, text = _element(html)
    assert 'class="shape cited"' in tag and 'data-shape-name="Ferry figures"' in tag
    assert f'data-shape-id="{cite.locator.shape_id}"' in tag
    assert " ".join(text.split()) == "Cargo tonnage stayed flat through the winter months. " + FERRY
    # the cited paragraph inside the shape, by the locator's paragraphIndex
    para = re.search(r'<p class="sp cited" data-paragraph-index="(\d+)">(.*?)</p>', html)
    assert para is not None and para.group(1) == "1" and re.sub("<[^>]+>", "", para.group(2)) == FERRY
    assert '<mark class="hl">' in para.group(2)  # the locator's highlight offsets, marked
    # its box on the slide, in percent: the deck's 914400 x 2286000 EMU box on a 9144000 x 6858000 slide
    assert 'data-box="10 33.33 80 53.33"' in tag
    assert 'data-aspect="9144000 / 6858000"' in html and "slide 2 of 2" in html
    # the slide's other shapes are there too, not marked; the notes below the slide
    assert ">Passenger traffic</p>" in html and html.count('class="shape cited"') == 1
    assert '<section class="notes"><h2>Speaker notes</h2>' in html and "Mention the new timetable." in html
    assert "banner file-only" not in html


def test_slide_page_of_another_slide_marks_nothing_and_links_back(site: Site) -> None:
    cite = site.cites["slide"]
    html = _page(site, cite, slide=1)
    assert "slide 1 of 2" in html and 'id="hl"' not in html and "shape cited" not in html and "sp cited" not in html
    assert "Harbour operations review" in html and "Ashgrove port board" in html
    assert f'href="{webpages.view_url(cite.citation_id)}">slide 2</a>' in html


def test_speaker_notes_citation_marks_the_notes(site: Site) -> None:
    html = _page(site, site.cites["notes"])
    tag, text = _element(html)
    assert tag.startswith("<section") and "notes cited" in tag
    assert "Mention the new timetable." in text and 'class="shape cited"' not in html


def test_sheet_page_shows_the_table_around_the_cell_and_marks_it(site: Site) -> None:
    html = _page(site, site.cites["cell"])
    tag, text = _element(html)
    assert tag == '<td id="hl" class="cited" data-cell="C2">' and text == "4100"
    assert html.count('class="cited"') == 1
    head = re.search(r"<thead>(.*?)</thead>", html)
    assert head is not None and re.findall(r"<th scope=\"col\">(\w+)</th>", head.group(1)) == ["A", "B", "C"]
    assert re.findall(r'<th scope="row">(\d+)</th>', html) == ["1", "2", "3", "4"]
    assert '<td data-cell="A2">Revenue</td>' in html and '<td data-cell="C1">2023</td>' in html
    assert '<li class=current>Results</li>' in html and "banner file-only" not in html


def test_sheet_page_marks_every_cell_of_a_cited_range(site: Site) -> None:
    html = _page(site, site.cites["row"])
    cited = re.findall(r'<td (?:id="hl" )?class="cited" data-cell="(\w+)">([^<]*)</td>', html)
    assert cited == [("B3", "2100"), ("C3", "2300")] and html.count('id="hl"') == 1


def test_file_precision_office_citations_show_the_banner_and_no_mark(site: Site) -> None:
    for kind in ("slide", "cell"):
        plain = _cite_at(site.host, site.cites[kind], Locator(reason="test: place not known"), f"[fi{kind[0]}1]")
        html = _page(site, plain)
        assert "banner file-only" in html and 'id="hl"' not in html and 'class="cited"' not in html, kind
        assert ("slide 1 of 2" in html) if kind == "slide" else ('data-cell="A1">Line item<' in html)


def test_sheet_window_is_bounded_around_the_cited_cell() -> None:
    from mnote_kr.models import ModelCell, ModelSheet

    sheet = ModelSheet(name="Big", cells=[ModelCell(row=r, column=c, text=f"{r}:{c}")
                                          for r in range(1, 501) for c in range(1, 41)])
    html = webpages.sheet_table(sheet, webpages.parse_range("T250"), header_row=1)
    rows = [int(r) for r in re.findall(r'<th scope="row">(\d+)</th>', html)]
    cols = re.findall(r'<th scope="col">(\w+)</th>', html)
    assert rows == [1] + list(range(250 - webpages.ROWS_AROUND, 250 + webpages.ROWS_AROUND + 1))
    assert cols[0] == "N" and cols[-1] == "Z" and len(cols) == 2 * webpages.COLUMNS_AROUND + 1
    assert '<td id="hl" class="cited" data-cell="T250">250:20</td>' in html and "…" in html


def test_place_words_name_the_slide_and_the_cells() -> None:
    slide = Locator(locator_precision="slide", locator_degraded=False, slide=3, shape_id=4)
    notes = Locator(locator_precision="slide", locator_degraded=False, slide=2, speaker_notes=True)
    cell = Locator(locator_precision="cell", locator_degraded=False, sheet="Results", range="B7:D7")
    assert [webpages.place_words(x) for x in (slide, notes, cell)] == ["slide 3", "slide 2 notes", "Results!B7:D7"]
