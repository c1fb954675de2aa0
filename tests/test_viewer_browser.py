"""The web UI in a real headless Chromium, against the real LightRAG server.

Debian's ``chromium`` driven by Playwright (``mnote_kr_testkit.browser``: installed with
apt-get when missing and we are root, else the tests fail; they never skip). One
workspace with a DOCX and a PDF is ingested into the session's engine once per module;
the pages are the server's real pages over loopback. Screenshots of a PDF and a DOCX
citation are written under pytest's base temp dir (``screenshots/``), never committed.
"""

from __future__ import annotations

import hashlib
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from mnote_kr_testkit.browser import (  # noqa: F401  (fixtures)
    LAUNCH_ARGS,
    artefact_dir,
    browser,
    chromium_path,
    page_view_geometry,
    read_png,
)
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)

from mnote_kr.app.host import Host
from mnote_kr.citations.caches.citecache import remember
from mnote_kr.core.config import load_config
from mnote_kr.models import Citation, Locator, Place, Rect
from mnote_kr.server.app import ApiServer
from mnote_kr.viewer import web
from mnote_kr.viewer.webpages import view_url
from tests.cli_helpers import turbine_pdf
from tests.viewer_fixtures import report_docx

pytestmark = pytest.mark.integration

SEARCH = "blade heating power"
DOCX_QUERY = "Pyrolytic coating"
PDF_QUERY = "blade heating power loss"
HIGHLIGHT_RGB = (255, 228, 140)  # rgba(255, 196, 0, 0.45) over white (viewer.css --hl)


class Site:
    def __init__(self, host: Host, server: ApiServer, pdf: Citation, docx: Citation, idx: dict[str, int],
                 digests: dict[Path, str]) -> None:
        self.host, self.server, self.pdf, self.docx, self.idx, self.digests = host, server, pdf, docx, idx, digests


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def site(lightrag_engine, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:  # noqa: F811
    engine = lightrag_engine
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MNOTE_KR_LIGHTRAG_API_KEY", engine.api_key)
        ws = tmp_path_factory.mktemp("viewer-ws")
        token = uuid.uuid4().hex[:10]
        (ws / "papers").mkdir()
        (ws / "papers" / "icing.pdf").write_bytes(turbine_pdf(token))
        data, idx = report_docx(token)
        (ws / "papers" / "report.docx").write_bytes(data)
        digests = {p: _sha(p) for p in (ws / "papers").iterdir()}
        config = load_config(ws)
        config["providers"] = {"lightrag": {"url": engine.url, "input_dir": engine.input_dir}}
        host = Host(ws, config=config)
        host.roots_add(ws / "papers")
        report = host.ingest(["papers"], wait=True, wait_s=240)
        assert {i.status for i in report.items} == {"processed"}, report
        pdf = [c for c in host.search(PDF_QUERY, top_k=10).results if c.source_root_relative_path.endswith(".pdf")]
        docx = [c for c in host.search(DOCX_QUERY, top_k=10).results if c.source_root_relative_path.endswith(".docx")]
        assert pdf and pdf[0].locator_precision == "bbox", pdf
        assert docx and docx[0].locator_precision == "paragraph", docx
        with ApiServer(host, write_token_file=False) as server:
            yield Site(host, server, pdf[0], docx[0], idx, digests)
        assert {p: _sha(p) for p in digests} == digests  # the viewer never touched a source


@pytest.fixture
def api_key(site: Site, lightrag_engine, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    # conftest gives every test a clean environment; the server's searches need the key.
    monkeypatch.setenv("MNOTE_KR_LIGHTRAG_API_KEY", lightrag_engine.api_key)


@pytest.fixture
def page(browser, site: Site) -> Iterator[Any]:  # noqa: F811
    context = browser.new_context(viewport={"width": 1200, "height": 900}, device_scale_factor=1)
    tab = context.new_page()
    response = tab.goto(web.entry_url(site.server))
    assert response is not None and response.status == 200 and tab.url == site.server.url + "/"
    try:
        yield tab
    finally:
        context.close()


def _shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return artefact_dir(tmp_path_factory)


def test_search_page_typing_a_query_shows_docx_and_pdf_cards(page, site: Site, api_key,
                                                             tmp_path_factory: pytest.TempPathFactory) -> None:
    page.fill("#q", SEARCH)
    page.press("#q", "Enter")
    page.wait_for_selector("li.card")
    cards = page.eval_on_selector_all(
        "li.card", "els => els.map(e => ({file: e.querySelector('.file').textContent, "
                   "precision: e.dataset.precision, badge: e.querySelector('.badge').textContent, "
                   "marks: [...e.querySelectorAll('mark.q')].map(m => m.textContent.toLowerCase())}))")
    files = {c["file"] for c in cards}
    assert "papers/icing.pdf" in files and "papers/report.docx" in files, cards
    pdf_card = next(c for c in cards if c["file"] == "papers/icing.pdf")
    assert pdf_card["precision"] == "bbox" and pdf_card["badge"].startswith("box · p.")
    assert {"blade", "heating"} <= set(pdf_card["marks"])
    page.screenshot(path=str(_shots(tmp_path_factory) / "search.png"))


def test_pdf_viewer_highlight_is_the_locator_bbox_and_shows_the_highlight_colour(
        page, site: Site, tmp_path_factory: pytest.TempPathFactory) -> None:
    page.goto(site.server.url + view_url(site.pdf.citation_id))
    geo = page_view_geometry(page)
    ix0, iy0, ix1, iy1 = geo["img"]
    hx0, hy0, hx1, hy1 = geo["hl"]
    in_points = geo["box"]
    bbox = site.pdf.locator.bbox
    assert bbox is not None
    assert all(abs(a - b) <= 1.0 for a, b in zip(in_points, bbox, strict=True)), (in_points, bbox)

    shot = _shots(tmp_path_factory) / "viewer-pdf.png"
    page.screenshot(path=str(shot))
    width, height, rows = read_png(shot.read_bytes())

    def tinted(x: int, y: int) -> bool:
        r, g, b = rows[y][x * 3:x * 3 + 3]
        return abs(r - HIGHLIGHT_RGB[0]) <= 12 and abs(g - HIGHLIGHT_RGB[1]) <= 16 and abs(b - HIGHLIGHT_RGB[2]) <= 28

    assert 0 <= hx0 and hx1 <= width and 0 <= hy0 and hy1 <= height, "the highlight is scrolled into view"
    inside = [tinted(x, y) for y in range(int(hy0) + 2, int(hy1) - 1) for x in range(int(hx0) + 2, int(hx1) - 1)]
    assert sum(inside) / len(inside) > 0.3, "the highlight colour fills the box (text aside)"
    margin = [tinted(x, y) for y in range(int(hy0) + 2, int(hy1) - 1) for x in range(int(ix0) + 4, int(hx0) - 4)]
    assert margin and not any(margin), "the page margin beside the box is not highlighted"


def test_docx_viewer_highlights_the_locator_paragraph_holding_the_query(
        page, site: Site, tmp_path_factory: pytest.TempPathFactory) -> None:
    page.goto(site.server.url + view_url(site.docx.citation_id))
    cited = page.query_selector_all(".para.cited")
    assert len(cited) == 1
    index = int(cited[0].get_attribute("data-paragraph-index") or -1)
    assert index == site.docx.locator.paragraph_index == site.idx["target"]
    assert DOCX_QUERY in cited[0].inner_text()
    mark = cited[0].query_selector("mark#hl")
    assert mark is not None and DOCX_QUERY.lower() in mark.inner_text().lower()
    # the document around it is the DOCX's own model: its table and text box are there
    assert page.inner_text("table.tbl").count("percent") == 2
    assert "Sidebar: ice sensors failed twice." in page.inner_text(".textbox")
    top, bottom = page.evaluate("() => { const b = document.querySelector('.para.cited').getBoundingClientRect();"
                                " return [b.top, b.bottom]; }")
    assert 0 <= top and bottom <= 900, "the cited paragraph is scrolled into view"
    page.screenshot(path=str(_shots(tmp_path_factory) / "viewer-docx.png"))


def _file_precision_copy(site: Site, original: Citation, cid: str) -> Citation:
    copy = msgspec.structs.replace(original, citation_id=cid, locator_precision="file", locator_degraded=True,
                                   locator=Locator(locator_precision="file", locator_degraded=True,
                                                   reason="test: place not known"))
    copy = remember(site.host, [copy])[0]  # as issued
    return copy


@pytest.mark.parametrize("kind", ["docx", "pdf"])
def test_file_precision_shows_the_banner_and_no_highlight(page, site: Site, kind: str) -> None:
    original = site.docx if kind == "docx" else site.pdf
    copy = _file_precision_copy(site, original, f"[f{kind[0]}x{uuid.uuid4().hex[:3]}]")
    page.goto(site.server.url + view_url(copy.citation_id))
    banner = page.query_selector(".banner.file-only")
    assert banner is not None and banner.is_visible() and "not known" in banner.inner_text()
    assert page.query_selector_all("#hl, mark.hl, .para.cited, svg.overlay rect") == []
    assert page.evaluate("() => window.scrollY") == 0
    if kind == "pdf":
        assert page.inner_text(".page-no") == "page 1 of 1"
    else:
        assert page.query_selector('[data-paragraph-index="0"]') is not None


def test_no_token_means_no_page(browser, site: Site) -> None:  # noqa: F811
    context = browser.new_context()
    try:
        tab = context.new_page()
        for path in (view_url(site.docx.citation_id), view_url(site.pdf.citation_id), "/"):
            response = tab.goto(site.server.url + path)
            assert response is not None and response.status == 401
            text = tab.inner_text("body")
            assert "Not signed in" in text and "Pyrolytic" not in text and "Blade" not in text
            assert tab.query_selector_all("img, li.card, .para") == []
    finally:
        context.close()


def _with_places(site: Site, original: Citation, cid: str, places: list[Locator]) -> Citation:
    """``original`` under a new ID, with ``places`` as its alternatives (the viewer is what is tested)."""
    alternatives = [Place(citation_id=f"{cid[:-1]}{n}]", locator_precision=loc.locator_precision,
                          locator_degraded=loc.locator_degraded, locator=loc, display_quote=f"place {n}",
                          relevance_score=1.0 / n) for n, loc in enumerate(places, 2)]
    copy = msgspec.structs.replace(original, citation_id=cid, alternatives=alternatives)
    copy = remember(site.host, [copy])[0]  # as issued
    return copy


def test_docx_viewer_steps_through_the_files_places_with_n_p_and_the_buttons(page, site: Site) -> None:
    places = [Locator(locator_precision="paragraph", locator_degraded=False, paragraph_index=site.idx[k])
              for k in ("bullet", "number2")]
    c = _with_places(site, site.docx, f"[d{uuid.uuid4().hex[:2]}]", places)
    page.goto(site.server.url + view_url(c.citation_id))

    def cited() -> list[int]:
        return [int(e.get_attribute("data-paragraph-index") or -1) for e in page.query_selector_all(".para.cited")]

    assert cited() == [site.idx["target"]] and page.inner_text(".place-no") == "place 1 of 3"
    page.keyboard.press("n")
    page.wait_for_url("**place=2*")
    assert cited() == [site.idx["bullet"]] and page.inner_text(".place-no") == "place 2 of 3"
    page.click("#place-next")  # the button does what the key does
    page.wait_for_url("**place=3*")
    assert cited() == [site.idx["number2"]] and page.query_selector("#place-next") is None
    assert page.inner_text(".place-no") == "last place of 3"  # the last says so (nc30a: n did nothing there)
    top, bottom = page.evaluate("() => { const b = document.querySelector('.para.cited').getBoundingClientRect();"
                                " return [b.top, b.bottom]; }")
    assert 0 <= top and bottom <= 900, "each place is scrolled into view"
    page.keyboard.press("p")
    page.wait_for_url("**place=2*")
    assert cited() == [site.idx["bullet"]]
    page.click("#place-prev")
    page.wait_for_function("() => !location.search.includes('place=')")
    assert cited() == [site.idx["target"]]


def test_pdf_viewer_steps_to_the_next_box_and_draws_it(page, site: Site) -> None:
    first = site.pdf.locator.bbox
    assert first is not None
    x0, y0, x1, y1 = first
    other = [x0, y0 + 60, x1, y1 + 60] if y1 + 60 < 780 else [x0, y0 - 60, x1, y1 - 60]
    place = Locator(locator_precision="bbox", locator_degraded=False, page=1, bbox=other,
                    rects=[Rect(page=1, bbox=other)])
    c = _with_places(site, site.pdf, f"[b{uuid.uuid4().hex[:2]}]", [place])

    def box() -> list[float]:
        return [float(page.get_attribute("#hl", a) or "nan") for a in ("x", "y", "width", "height")]

    page.goto(site.server.url + view_url(c.citation_id))
    assert box() == pytest.approx([x0, y0, x1 - x0, y1 - y0], abs=0.01)
    page.keyboard.press("n")
    page.wait_for_url("**place=2*")
    assert box() == pytest.approx([other[0], other[1], other[2] - other[0], other[3] - other[1]], abs=0.01)
    assert page.inner_text(".place-no") == "last place of 2" and page.query_selector("#place-next") is None
    page.keyboard.press("p")
    page.wait_for_function("() => !location.search.includes('place=')")
    assert box() == pytest.approx([x0, y0, x1 - x0, y1 - y0], abs=0.01)


def test_n_at_the_last_place_says_it_is_the_last_and_goes_back_to_the_first(page, site: Site) -> None:
    places = [Locator(locator_precision="paragraph", locator_degraded=False, paragraph_index=site.idx[k])
              for k in ("bullet", "number2")]
    c = _with_places(site, site.docx, f"[l{uuid.uuid4().hex[:2]}]", places)
    page.goto(site.server.url + view_url(c.citation_id, place=3))

    def cited() -> list[int]:
        return [int(e.get_attribute("data-paragraph-index") or -1) for e in page.query_selector_all(".para.cited")]

    assert cited() == [site.idx["number2"]] and page.inner_text(".place-no") == "last place of 3"
    assert "first" in page.inner_text("#place-first")  # going back to the first is offered, with its key
    page.keyboard.press("n")  # nc30a: at 3 of 3, n silently did nothing
    page.wait_for_function("() => !location.search.includes('place=')")
    assert cited() == [site.idx["target"]] and page.inner_text(".place-no") == "place 1 of 3"
    assert page.query_selector("#place-first") is None and page.query_selector("#place-next") is not None


@pytest.mark.parametrize("kind", ["docx", "pdf"])
def test_a_plain_headless_chromium_screenshot_of_a_viewer_link_shows_the_page(
        site: Site, chromium_path: str, kind: str, tmp_path_factory: pytest.TempPathFactory) -> None:  # noqa: F811
    """nc17b P15: ``chromium --headless --screenshot URL`` (a shell's thumbnail, one shot, no driver) of a
    DOCX viewer link was a blank grey image, a PDF's had an empty band on top."""
    cite = site.docx if kind == "docx" else site.pdf
    shot = _shots(tmp_path_factory) / f"headless-{kind}.png"
    shot.unlink(missing_ok=True)
    subprocess.run([chromium_path, *LAUNCH_ARGS, f"--screenshot={shot}", "--window-size=1200,900",
                    "--hide-scrollbars", web.viewer_url(site.server, cite.citation_id)],
                   check=True, capture_output=True, timeout=120)
    width, height, rows = read_png(shot.read_bytes())
    assert (width, height) == (1200, 900)

    def colours(top: int, bottom: int) -> int:
        return len({row[i:i + 3] for row in rows[top:bottom] for i in range(0, width * 3, 3)})

    # the page's head is drawn: no strip of it is one flat colour (the blank band / the blank image)
    blank = [top for top in range(0, 300, 30) if colours(top, top + 30) == 1]
    assert blank == [], f"rows {blank} of the shot are blank ({shot})"
    tint = {row[i:i + 3] for row in rows for i in range(0, width * 3, 3)}
    assert any(abs(r - HIGHLIGHT_RGB[0]) <= 12 and abs(g - HIGHLIGHT_RGB[1]) <= 16 and abs(b - HIGHLIGHT_RGB[2]) <= 28
               for r, g, b in tint), "the cited place is in the shot"


def test_the_keys_scroll_a_viewer_page_opened_at_its_place(page, site: Site) -> None:
    """The page opened at a cited place scrolls in its body (the P15 fix): Home and End still scroll it."""
    page.goto(site.server.url + view_url(site.docx.citation_id))
    top = "document.querySelector('header.top').getBoundingClientRect().top"
    assert page.evaluate(f"() => {top}") < 0  # opened at the cited paragraph, below the page's head
    # as a person would: after the page has settled (the cited place's flash is over)
    page.wait_for_function("() => document.getAnimations().length === 0")
    page.keyboard.press("Home")
    page.wait_for_function(f"() => {top} === 0")
    page.keyboard.press("End")
    page.wait_for_function(f"() => {top} < 0")
