"""Slide and cell citations from the real lightrag-server, opened in a real headless Chromium: the
cited shape sits at its place on the slide frame and the cited cell in the sheet's table, each
highlighted, visible and holding the cited text (``mnote_kr_testkit.browser``: fails, never skips)."""

from __future__ import annotations

import copy
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from mnote_kr_testkit.browser import artefact_dir, browser, chromium_path  # noqa: F401  (fixtures)
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)

from mnote_kr.app.host import Host
from mnote_kr.citations.caches import citecache
from mnote_kr.core.config import DEFAULTS
from mnote_kr.models import Citation
from mnote_kr.server.app import ApiServer
from mnote_kr.viewer import web
from mnote_kr.viewer.webpages import view_url
from tests.test_office_integration import FERRY, _book, _deck, _sha

pytestmark = pytest.mark.integration


class Site:
    def __init__(self, server: ApiServer, slide: Citation, cell: Citation) -> None:
        self.server, self.slide, self.cell = server, slide, cell


def _make_unique(deck: Path, book: Path) -> None:
    """A token in both files: the session's engine may already hold the integration test's copies,
    and LightRAG keeps one document per content (the second would be a duplicate, cited from the first)."""
    from openpyxl import load_workbook
    from pptx import Presentation

    token = uuid.uuid4().hex[:10]
    prs = Presentation(str(deck))
    prs.slides[0].placeholders[1].text += f" (copy {token})"
    prs.save(str(deck))
    wb = load_workbook(book)
    wb["Results"]["H20"] = f"copy {token}"
    wb.save(book)


@pytest.fixture(scope="module")
def site(lightrag_engine, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:  # noqa: F811
    engine = lightrag_engine
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MNOTE_KR_LIGHTRAG_API_KEY", engine.api_key)
        ws = tmp_path_factory.mktemp("office-viewer-ws")
        (ws / "office").mkdir()
        deck, book = ws / "office" / "harbour.pptx", ws / "office" / "results.xlsx"
        _deck(deck)
        _book(book)
        _make_unique(deck, book)
        before = {p: _sha(p) for p in (deck, book)}
        config = copy.deepcopy(DEFAULTS)
        config["providers"] = {"lightrag": {"url": engine.url, "input_dir": engine.input_dir,
                                            "working_dir": engine.working_dir}}
        host = Host(ws, config=config)
        report = host.ingest(["office"], wait=True, wait_s=240)
        assert {i.status for i in report.items} == {"processed"}, [(i.source_path, i.reason) for i in report.items]
        slide = [c for c in host.search("Kestrelmoor ferry passengers").results
                 if c.source_root_relative_path == "office/harbour.pptx"]
        cell = [c for c in host.search("Revenue in 2023").results
                if c.source_root_relative_path == "office/results.xlsx"]
        assert slide and slide[0].locator_precision == "slide", slide
        assert cell and cell[0].locator_precision == "cell", cell
        with ApiServer(host, write_token_file=False) as server:
            yield Site(server, slide[0], cell[0])
        assert {p: _sha(p) for p in (deck, book)} == before  # the viewer never touched a source


@pytest.fixture
def page(browser, site: Site) -> Iterator[Any]:  # noqa: F811
    context = browser.new_context(viewport={"width": 1200, "height": 900}, device_scale_factor=1)
    tab = context.new_page()
    response = tab.goto(web.entry_url(site.server))
    assert response is not None and response.status == 200
    errors: list[str] = []
    tab.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)  # CSP refusals
    try:
        yield tab
        assert errors == []
    finally:
        context.close()


_RECT = "e => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; }"


def _open_cited(page: Any, site: Site, cite: Citation, selector: str) -> Any:
    """Open ``cite``'s viewer page; its highlighted element (``selector``), visible and in view."""
    page.goto(site.server.url + view_url(cite.citation_id))
    hl = page.wait_for_selector(selector)
    assert hl is not None and hl.is_visible()
    box = hl.evaluate(_RECT)
    assert 0 <= box[1] and box[3] <= 900, "the cited place is scrolled into view"
    return hl


def test_slide_citation_highlights_the_cited_shape_at_its_place(page, site: Site,
                                                                tmp_path_factory: pytest.TempPathFactory) -> None:
    loc = site.slide.locator
    hl = _open_cited(page, site, site.slide, "#hl")
    assert {"shape", "cited"} <= set((hl.get_attribute("class") or "").split())
    assert hl.get_attribute("data-shape-name") == loc.shape_name
    assert FERRY in hl.inner_text()
    cited = hl.query_selector("p.sp.cited")
    assert cited is not None and cited.inner_text() == FERRY  # the paragraph the locator names
    frame = page.eval_on_selector(".slide", _RECT)
    box = hl.evaluate(_RECT)
    fx0, fy0, fx1, fy1 = frame
    assert abs((fx1 - fx0) / (fy1 - fy0) - 4 / 3) < 0.01, frame  # the 10 x 7.5 in slide's shape
    # the shape sits where the locator's box puts it on the slide (its left, top and width; its
    # height may grow with its text)
    assert loc.bbox_fraction is not None
    want = [fx0 + loc.bbox_fraction[0] * (fx1 - fx0), fy0 + loc.bbox_fraction[1] * (fy1 - fy0),
            fx0 + loc.bbox_fraction[2] * (fx1 - fx0)]
    assert all(abs(a - b) <= 2 for a, b in zip(box[:3], want, strict=True)), (box, want)
    colour = hl.evaluate("e => getComputedStyle(e).outlineColor")
    assert colour == "rgb(224, 138, 0)"  # viewer.css --hl-edge: the highlight is drawn
    page.screenshot(path=str(artefact_dir(tmp_path_factory) / "viewer-slide.png"))


def test_cell_citation_highlights_the_cited_cell_in_the_sheet_table(page, site: Site,
                                                                    tmp_path_factory: pytest.TempPathFactory) -> None:
    loc = site.cell.locator
    hl = _open_cited(page, site, site.cell, "td#hl")
    assert hl.get_attribute("data-cell") == loc.range == "C2" and hl.inner_text() == "4100"
    assert page.eval_on_selector_all("td.cited", "els => els.map(e => e.dataset.cell)") == ["C2"]
    # its column letter and row number head it
    assert page.evaluate("""() => { const td = document.getElementById('hl'); const tr = td.parentElement;
        const col = document.querySelectorAll('table.sheet thead th')[td.cellIndex].textContent;
        return [col, tr.querySelector('th').textContent]; }""") == ["C", "2"]
    background = hl.evaluate("e => getComputedStyle(e).backgroundColor")
    assert background == "rgba(255, 196, 0, 0.45)"  # viewer.css --hl
    page.screenshot(path=str(artefact_dir(tmp_path_factory) / "viewer-sheet.png"))


def _approximate(site: Site, cite: Citation) -> Citation:
    """``cite``'s place as an approximate one (``locatorDegraded``, the passage's shape or cells), issued
    beside it as a search issues both: under an ID of its own."""
    loc = msgspec.structs.replace(cite.locator, locator_degraded=True)
    approx = msgspec.structs.replace(cite, locator=loc, locator_degraded=True)
    _, issued = citecache.remember(site.server.host, [cite, approx])  # one ID, two places: the second renamed
    assert issued.citation_id != cite.citation_id  # an approximate claim is another place's ID
    return issued


@pytest.mark.parametrize("kind", ["slide", "cell"])
def test_an_approximate_office_place_is_dashed_under_the_banner_an_exact_one_solid(
        page, site: Site, kind: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """nc17b P14: an approximate slide shape or cell range is drawn as a PDF's or a DOCX's passage is,
    dashed and lighter under the approximate banner; the exact place stays solid with no banner."""
    exact = site.slide if kind == "slide" else site.cell
    selector = "#hl" if kind == "slide" else "td#hl"
    style = "e => { const s = getComputedStyle(e); return [s.outlineStyle, s.backgroundColor]; }"
    hl = _open_cited(page, site, exact, selector)
    solid, solid_bg = hl.evaluate(style)
    assert solid == "solid" and "approx" not in (hl.get_attribute("class") or "").split()
    assert page.query_selector(".banner.approx") is None
    hl = _open_cited(page, site, _approximate(site, exact), selector)
    dashed, dashed_bg = hl.evaluate(style)
    assert dashed == "dashed", dashed
    assert dashed_bg != solid_bg  # lighter: the tint is not the exact place's
    banner = page.wait_for_selector(".banner.approx")
    assert banner is not None and banner.is_visible() and "Approximate place" in banner.inner_text()
    b_top, hl_top = banner.evaluate(_RECT)[1], hl.evaluate(_RECT)[1]
    assert b_top < hl_top  # the banner heads the page, above the marked place
    page.screenshot(path=str(artefact_dir(tmp_path_factory) / f"viewer-{kind}-approx.png"))
