"""The viewer's pages for a slide and a cell citation, over real HTTP without a browser.

The host's real pipeline and the real PPTX and XLSX locators run (``FakeProvider`` hands them the
files' own text, as LightRAG would); the browser test of the same pages against the real engine is
``test_office_viewer_browser.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import escape as html_escape
from html import unescape
from pathlib import Path

import httpx
import msgspec
import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.fakes import FakeProvider, fake_host

from mnote_kr.app.host import Host
from mnote_kr.citations.caches.citecache import remember
from mnote_kr.models import Citation, LocateRequest, Locator
from mnote_kr.server.app import ApiServer
from mnote_kr.viewer import web, webpages
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
    return remember(host, [out])[0]  # as issued: renamed when its ID is held for another place


def _office_host(ws: Path, texts: dict[str, str]) -> Host:
    """A host on ``ws`` with ``ws/office`` ingested; the fake provider holds ``texts`` (path -> text)."""
    host, provider = fake_host(ws)
    host.roots_add(ws / "office")
    host.ingest([ws / "office"])
    for rel, text in texts.items():
        provider.texts[FakeProvider.name_for(rel)] = text
    return host


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    ws = tmp_path / "ws"
    (ws / "office").mkdir(parents=True)
    deck, book = ws / "office" / "harbour.pptx", ws / "office" / "results.xlsx"
    _deck(deck)
    _book(book)
    before = {p: _sha(p) for p in (deck, book)}
    host = _office_host(ws, {"office/harbour.pptx": DECK_TEXT, "office/results.xlsx": BOOK_TEXT})
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


def _page(site: Site | ApiServer, cite: Citation, status: int = 200, **query: str | int) -> str:
    server = site.server if isinstance(site, Site) else site
    with httpx.Client(base_url=server.url, timeout=30) as client:
        assert client.get(web.entry_url(server)).status_code == 303
        r = client.get(webpages.view_url(cite.citation_id, **query))
        assert r.status_code == status, r.text
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
    assert f'href="{html_escape(webpages.view_url_of(cite))}">slide 2</a>' in html


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
    assert '<li class="current" aria-current="page">Results</li>' in html and "banner file-only" not in html


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


def test_sheet_tabs_show_other_sheets_unmarked_and_link_back(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "office").mkdir(parents=True)
    book = ws / "office" / "book.xlsx"
    book.write_bytes((CORPUS / "xlsx" / "docling__xlsx_01.xlsx").read_bytes())
    row = "7 | 14 | 21 | 28"
    host = _office_host(ws, {"office/book.xlsx": "col-1 | col-2 | col-3 | col-4\n" + row})
    (cite,) = host.search("col-4 28", top_k=5).results
    loc = host.locate(LocateRequest(file=str(book), evidence=row, query="col-4 28"))
    assert (loc.locator_precision, loc.sheet) == ("cell", "Sheet2") and "8" in (loc.range or ""), loc
    cite = _cite_at(host, cite, loc)
    with ApiServer(host, write_token_file=False) as server:
        home = _page(server, cite)
        marked = re.findall(r'class="cited" data-cell="([A-Z]+)(\d+)">([^<]*)<', home)
        assert marked and {r for _, r, _ in marked} == {"8"} and {t for *_, t in marked} <= {"7", "14", "21", "28"}
        assert '<li class="current" aria-current="page">Sheet2</li>' in home
        link = html_escape(webpages.view_url_of(cite, sheet="Sheet1"))
        assert f'<li><a href="{link}">Sheet1</a></li>' in home
        other = _page(server, cite, sheet="Sheet1")
        assert 'class="cited"' not in other and 'id="hl"' not in other and "banner file-only" not in other
        assert '<td data-cell="A1">first</td>' in other and '<td data-cell="C7">-6</td>' in other
        assert f'>Sheet2!{loc.range}</a>' in other  # the way back to the cited cells
        assert "No such sheet" in _page(server, cite, 404, sheet="Nope")


def test_a_shape_the_slide_does_not_hold_is_not_guessed(site: Site) -> None:
    cite = site.cites["slide"]
    gone = msgspec.structs.replace(cite.locator, shape_id=999, shape_name="Not here")
    html = _page(site, _cite_at(site.host, cite, gone, "[ns01]"))
    assert 'id="hl"' not in html and "shape cited" not in html and "The cited shape is not on this slide" in html
    assert "slide 2 of 2" in html  # still the cited slide
