"""How sure a place is, said the same way in every surface: one rule, one field.

The host's real pipeline and the real PDF locator run over a provider that hands them one chunk of
each of three PDFs and one of a Markdown file, for the query ``glacier melt``:

* ``exact.pdf``: the query stands in a text block: an exact box (``locatorDegraded`` false);
* ``passage.pdf``: the chunk is found but none of its blocks holds the query's words (a semantic
  match): the locator cites the passage, a *passage box* (``locatorDegraded`` true);
* ``hint.pdf`` (five pages): the chunk is not in the text layer, and its sidecar block names page 5
  without a box: ``file`` precision, no ``page``, ``pageHint`` 5;
* ``notes.md``: a paragraph, numbered for people from 1.

The same result is then read through each surface: the CLI's cards and ``open`` line, ``--json``,
the HTTP API and its OpenAPI document, the MCP query tool, ``citationMarkdown``, the web search page
and the viewer's HTML, and the viewer in a real headless Chromium. Each test asserts that the
passage box is shown as approximate and the exact box is not, and that the file citation opens at
(or names) its hinted page.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from mnote_kr_testkit.browser import browser, chromium_path  # noqa: F401  (fixtures)
from mnote_kr_testkit.fakes import fake_host
from mnote_kr_testkit.pdfs import PdfBuilder

from mnote_kr.agents.contracts import AgentQueryResult, QueryInput, object_schema
from mnote_kr.agents.tools import tool_query
from mnote_kr.app.host import Host
from mnote_kr.citations.render.cards import render_open
from mnote_kr.hookspecs import hookimpl
from mnote_kr.models import (
    Citation,
    ProviderQueryResult,
    ProviderReference,
    SearchResults,
    SidecarPosition,
    SourceEntry,
)
from mnote_kr.server.app import ApiServer
from mnote_kr.viewer import web
from mnote_kr.viewer.webpages import bare_id, view_url
from tests.surfaces import BlockProvider, api, cli_search, web_page

QUERY = "glacier melt"
API = "/api/knowledge-rag"
EXACT_LINES = ["Survey of the northern valley in the year 2019.",
               "Every summer the glacier melt fills the lake below the ridge.",
               "The wardens kept a log of the water level each morning."]
PASSAGE_LINES = ["The harbour crane lifted steel beams onto the ship at dawn.",
                 "Dock workers checked every cable twice before the lift began.",
                 "By noon the cargo was stowed and the vessel left the quay."]
# Not in hint.pdf's text layer: LightRAG's parser read it (say, by OCR), the locator cannot find it.
HINT_CHUNK = "Quartz pebbles lined the dry riverbed where the old mill once turned its wheel all year."
NOTES = ["# Field notes", "The hut stood on a moraine above the valley.",
         "Each spring the glacier melt swelled the stream and flooded the lower path.",
         "We left the hut in October."]


def _pdf(pages: list[list[str]]) -> bytes:
    b = PdfBuilder()
    for lines in pages:
        page = b.add_page()
        for i, line in enumerate(lines):
            b.text(page, 72, 720 - 16 * i, line, size=11)
    return b.build()


class Chunks(BlockProvider):
    """The fake provider answering every query with one chosen chunk per file, each mapped with a
    sidecar-like block (as LightRAG's sidecar gives one): ``hint.pdf``'s block names its page 5
    without a box."""

    def __init__(self, chunks: dict[str, str]) -> None:
        super().__init__(delete_status="delete_completed")
        self.chunks = chunks

    @hookimpl
    def query(self, ctx: Any, request: Any) -> ProviderQueryResult:
        refs = [ProviderReference(provider="fake", file_path=self.name_for(rel), reference_id=str(i + 1),
                                  chunk_id=f"chunk-{i}", doc_id=f"doc-{i}", content=text, rank=i)
                for i, (rel, text) in enumerate(self.chunks.items())]
        return ProviderQueryResult(provider="fake", references=refs[: request.top_k])

    def positions(self, entry: SourceEntry) -> list[SidecarPosition]:
        hint = entry.source_root_relative_path.endswith("hint.pdf")
        return [SidecarPosition(type="bbox", anchor="5")] if hint else []  # page 5 named, no box


@dataclass
class Site:
    host: Host
    ws: Path
    found: SearchResults

    def cite(self, name: str) -> Citation:
        (c,) = [c for c in self.found.results if c.source_root_relative_path == f"docs/{name}"]
        return c


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    ws = tmp_path_factory.mktemp("precision") / "ws"
    docs = ws / "docs"
    docs.mkdir(parents=True)
    (docs / "exact.pdf").write_bytes(_pdf([EXACT_LINES]))
    (docs / "passage.pdf").write_bytes(_pdf([PASSAGE_LINES]))
    (docs / "hint.pdf").write_bytes(_pdf([[f"Page {n} of the mill survey."] for n in range(1, 6)]))
    (docs / "notes.md").write_text("\n\n".join(NOTES) + "\n", encoding="utf-8")
    chunks = {"docs/exact.pdf": "\n".join(EXACT_LINES), "docs/passage.pdf": "\n".join(PASSAGE_LINES),
              "docs/hint.pdf": HINT_CHUNK, "docs/notes.md": NOTES[2]}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MNOTE_KR_HOME", str(tmp_path_factory.mktemp("home")))
        host, _ = fake_host(ws, Chunks(chunks))
        host.roots_add(docs)
        host.ingest([docs])
        found = host.search(QUERY, top_k=10)
    return Site(host, ws, found)


def test_the_pipeline_gives_an_exact_box_a_passage_box_a_page_hint_and_a_paragraph(site: Site) -> None:
    """The cases the surfaces are tested on, as the real locators answer them."""
    exact, passage, hint, notes = (site.cite(n) for n in ("exact.pdf", "passage.pdf", "hint.pdf", "notes.md"))
    assert exact.locator_precision == "bbox" and not exact.locator_degraded and exact.locator.page == 1
    assert passage.locator_precision == "bbox" and passage.locator_degraded and passage.locator.locator_degraded
    assert "semantic match" in (passage.locator.locator_reason or "")
    assert hint.locator_precision == "file" and hint.locator_degraded
    assert hint.locator.page is None and hint.locator.bbox is None and hint.locator.page_hint == 5
    assert notes.locator_precision == "paragraph" and notes.locator.paragraph_index == 2


# --------------------------------------------------------------------------- citationMarkdown


def test_citation_markdown_says_approximate_for_the_passage_box_and_names_the_hinted_page(site: Site) -> None:
    assert site.cite("exact.pdf").citation_markdown.startswith("[exact.pdf · p.1](")
    assert site.cite("passage.pdf").citation_markdown.startswith("[passage.pdf · p.1 (approximate location)](")
    hint = site.cite("hint.pdf")
    assert hint.citation_markdown.startswith("[hint.pdf · p.5 (page known, place not found)](")
    assert "pageHint=5" in hint.citation_url and "&page=" not in hint.citation_url
    # people count paragraphs from 1; paragraphIndex 2 is the third paragraph
    assert site.cite("notes.md").citation_markdown.startswith("[notes.md · paragraph 3](")


# --------------------------------------------------------------------------- the CLI


def _cli(site: Site, as_json: bool) -> str:
    return cli_search(site.host, QUERY, as_json)


def _located(text: str, cid: str) -> str:
    """The place words of citation ``cid``: its card's "located:" line, or its line under "Weaker matches"
    (a card far below the best is listed in one line: ``  [id] file: place``), as a card would say them."""
    lines = text.splitlines()
    at = next((i for i, line in enumerate(lines) if line.startswith(cid + " ")), None)
    if at is not None:
        return lines[at + 1]
    short = next(line for line in lines if line.startswith(f"  {cid} "))
    return "    located: " + short.split(": ", 1)[1]


def test_cli_cards_say_passage_box_approximate_exact_box_and_the_hinted_page(site: Site) -> None:
    text = _cli(site, as_json=False)
    assert _located(text, site.cite("exact.pdf").citation_id) == "    located: exact box, p.1"
    passage = _located(text, site.cite("passage.pdf").citation_id)
    assert passage == "    located: passage box (approximate), p.1" and "exact" not in passage
    assert _located(text, site.cite("hint.pdf").citation_id) == \
        "    located: whole file (page 5 known, place not found)"
    assert _located(text, site.cite("notes.md").citation_id) == "    located: paragraph 3"


def test_cli_open_line_says_approximate_for_the_passage_box(site: Site) -> None:
    words = {name: render_open(site.host.open(site.cite(name).citation_id)).splitlines()[0]
             for name in ("exact.pdf", "passage.pdf", "hint.pdf", "notes.md")}
    assert "[pdf] exact box, p.1 at (" in words["exact.pdf"] and "approximate" not in words["exact.pdf"]
    assert "[pdf] passage box (approximate), p.1 at (" in words["passage.pdf"]
    assert "exact" not in words["passage.pdf"]
    assert words["hint.pdf"].endswith("[pdf] whole file (page 5 known, place not found)")
    assert "paragraph 3" in words["notes.md"]


def test_cli_json_marks_the_passage_box_degraded_and_gives_the_page_as_a_hint(site: Site) -> None:
    found = {c["sourceRootRelativePath"]: c for c in json.loads(_cli(site, as_json=True))["results"]}
    exact, passage, hint = found["docs/exact.pdf"], found["docs/passage.pdf"], found["docs/hint.pdf"]
    assert exact["locatorDegraded"] is False and exact["locator"]["locatorDegraded"] is False
    assert passage["locatorDegraded"] is True and passage["locator"]["locatorDegraded"] is True
    assert "(approximate location)" in passage["citationMarkdown"]
    assert "(approximate location)" not in exact["citationMarkdown"]
    assert hint["locatorPrecision"] == "file" and hint["locator"]["page"] is None
    assert hint["locator"]["pageHint"] == 5 and hint["locator"]["bbox"] is None
    assert found["docs/notes.md"]["locator"]["paragraphIndex"] == 2  # the wire stays 0-based


def test_cli_locate_json_gives_a_file_locator_its_page_as_a_hint(site: Site) -> None:
    from mnote_kr.citations.locate.locating import locate_one

    sidecar = site.ws / "blocks.jsonl"
    sidecar.write_text('{"blockid": "b1", "content": "x", "positions": [{"type": "bbox", "anchor": "5"}]}\n',
                       encoding="utf-8")
    loc = json.loads(json.dumps(_builtins(locate_one(site.host.plugins, {
        "file": str(site.ws / "docs" / "hint.pdf"), "evidence": HINT_CHUNK, "query": QUERY,
        "sidecar": str(sidecar), "blockId": "b1"}))))
    assert loc["locatorPrecision"] == "file" and loc["page"] is None and loc["pageHint"] == 5


def _builtins(obj: Any) -> Any:
    import msgspec

    return msgspec.to_builtins(obj)


# --------------------------------------------------------------------------- HTTP API and OpenAPI


@pytest.fixture(scope="module")
def served(site: Site) -> Iterator[tuple[ApiServer, httpx.Client]]:
    with api(site.host) as both:
        yield both


def test_http_search_marks_the_passage_box_and_gives_the_page_hint(served, site: Site) -> None:
    _, client = served
    found = {c["sourceRootRelativePath"]: c for c in
             client.post(f"{API}/search", json={"query": QUERY, "topK": 10}).json()["results"]}
    assert found["docs/passage.pdf"]["locatorDegraded"] is True
    assert found["docs/exact.pdf"]["locatorDegraded"] is False
    hint = found["docs/hint.pdf"]["locator"]
    assert hint["page"] is None and hint["pageHint"] == 5
    doc = client.get("/api/openapi.json").json()
    assert "pageHint" in doc["components"]["schemas"]["Locator"]["properties"]


# --------------------------------------------------------------------------- MCP


def test_mcp_marks_the_passage_box_and_describes_the_page_as_a_hint(site: Site) -> None:
    found = {c.source_root_relative_path: c for c in tool_query(site.host, QueryInput(query=QUERY)).citations}
    passage, exact, hint = found["docs/passage.pdf"], found["docs/exact.pdf"], found["docs/hint.pdf"]
    assert passage.locator_degraded is True and "(approximate location)" in passage.citation_markdown
    assert exact.locator_degraded is False and "approximate" not in exact.citation_markdown
    assert hint.locator_precision == "file" and hint.page is None and hint.page_hint == 5
    assert found["docs/notes.md"].paragraph_index == 2
    props = object_schema(AgentQueryResult)["$defs"]["AgentCitation"]["properties"]
    assert "hint" in props["pageHint"]["description"] and "approximate" in props["locatorDegraded"]["description"]


# --------------------------------------------------------------------------- web page and viewer HTML


_page = web_page


def _badge(html: str, cid: str) -> tuple[str, str]:
    """The certainty and text of the badge on ``cid``'s card."""
    card = html[html.index(f'data-citation-id="{cid}"'):]
    m = re.search(r'<span class="badge[^"]*" data-certainty="(\w+)"[^>]*>([^<]*)</span>', card)
    assert m is not None, card[:400]
    return m.group(1), m.group(2)


def test_search_page_badges_the_passage_box_approximate_and_the_hinted_page(served, site: Site) -> None:
    server, _ = served
    html = _page(server, "/?q=glacier+melt")
    assert _badge(html, site.cite("exact.pdf").citation_id) == ("exact", "box · p.1")
    kind, text = _badge(html, site.cite("passage.pdf").citation_id)
    assert kind == "approximate" and "approximate" in text and not text.startswith("box")
    assert _badge(html, site.cite("hint.pdf").citation_id) == ("file", "p.5 · place not found")
    assert _badge(html, site.cite("notes.md").citation_id) == ("exact", "paragraph 3")


def test_viewer_html_draws_the_passage_box_approximate_and_opens_the_hinted_page(served, site: Site) -> None:
    server, _ = served
    exact = _page(server, view_url(site.cite("exact.pdf").citation_id))
    passage = _page(server, view_url(site.cite("passage.pdf").citation_id))
    assert re.search(r'<rect class="hl-primary" id="hl"', exact) and "approx" not in exact.split("<svg", 1)[1]
    assert re.search(r'<rect class="hl-primary approx" id="hl"', passage)
    assert 'class="banner approx"' in passage and 'class="banner approx"' not in exact
    hint = _page(server, view_url(site.cite("hint.pdf").citation_id))
    assert "page 5 of 5" in hint and "/page/5.png" in hint
    assert "Page 5 known, place not found" in hint and "shown from its start" not in hint
    assert "<rect" not in hint.split("<svg", 1)[1]  # nothing is drawn: the place is not known


# --------------------------------------------------------------------------- the viewer in Chromium


@pytest.fixture
def tab(browser, served) -> Iterator[Any]:  # noqa: F811
    server, _ = served
    context = browser.new_context(viewport={"width": 1200, "height": 900}, device_scale_factor=1)
    page = context.new_page()
    response = page.goto(web.entry_url(server))
    assert response is not None and response.status == 200
    try:
        yield page
    finally:
        context.close()


_STYLE = """() => { const s = getComputedStyle(document.getElementById('hl'));
                    return {dash: s.strokeDasharray, fill: s.fill}; }"""


def test_browser_draws_the_passage_box_dashed_and_the_exact_box_solid(tab, served, site: Site) -> None:
    server, _ = served
    tab.goto(server.url + view_url(site.cite("exact.pdf").citation_id))
    exact = tab.evaluate(_STYLE)
    tab.goto(server.url + view_url(site.cite("passage.pdf").citation_id))
    passage = tab.evaluate(_STYLE)
    assert exact["dash"] == "none", exact
    assert passage["dash"] not in ("none", ""), passage
    assert passage["fill"] != exact["fill"]  # lighter: the passage, not the answer
    banner = tab.query_selector(".banner.approx")
    assert banner is not None and banner.is_visible() and "Approximate place" in banner.inner_text()


def test_browser_opens_a_file_citation_at_its_hinted_page(tab, served, site: Site) -> None:
    server, _ = served
    tab.goto(server.url + view_url(site.cite("hint.pdf").citation_id))
    tab.wait_for_function("() => { const i = document.querySelector('img.page-image');"
                          " return i && i.complete && i.naturalWidth > 0; }")
    assert tab.inner_text(".page-no") == "page 5 of 5"
    assert "/page/5.png" in (tab.get_attribute("img.page-image", "src") or "")
    banner = tab.query_selector(".banner.page-hint")
    assert banner is not None and banner.is_visible() and "Page 5 known, place not found" in banner.inner_text()
    assert tab.query_selector_all("svg.overlay rect, #hl") == []


def test_a_shell_moving_the_viewer_gets_the_same_drawing_and_the_hinted_page(served, site: Site) -> None:
    """``place.json`` (what the page fetches when a shell moves it) draws and says what the page does."""
    server, _ = served

    def place(name: str) -> dict[str, Any]:
        cid = bare_id(site.cite(name).citation_id)
        with httpx.Client(base_url=server.url, timeout=30) as client:
            client.get(web.entry_url(server))
            response = client.get(f"/view/{cid}/place.json", params={"from": cid})
            assert response.status_code == 200, response.text
            return response.json()

    passage, exact, hint = place("passage.pdf"), place("exact.pdf"), place("hint.pdf")
    assert '<rect class="hl-primary approx" id="hl"' in passage["mainHtml"]
    assert '<rect class="hl-primary" id="hl"' in exact["mainHtml"]
    assert "page 5 of 5" in hint["mainHtml"] and "/page/5.png" in hint["mainHtml"]
    assert "Page 5 known, place not found" in hint["mainHtml"] + hint.get("headHtml", "")
