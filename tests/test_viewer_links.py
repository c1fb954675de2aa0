"""Shell-facing parts of the viewer without a browser: ``viewerUrl`` in citations while ``serve`` runs,
``GET /view/{id}/place.json`` (what the page fetches to move to another citation), the folder menu.

The host's real pipeline runs over the fake provider of ``test_places_surfaces`` (a Markdown file cited
at three places) and of ``test_viewer_web`` (a PDF and a DOCX placed by the real locators); the browser
side of the contract is ``test_viewer_shell_browser.py``.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import msgspec

from mnote_kr.agents.contracts import QueryInput
from mnote_kr.agents.tools import tool_query
from mnote_kr.citations.caches.citecache import remember
from mnote_kr.citations.render.ids import issue_key
from mnote_kr.models import Citation, Locator
from mnote_kr.server.app import ApiServer
from mnote_kr.viewer import searchpage, web, webpages
from tests.test_places_surfaces import QUERY, Site, _cli, site  # noqa: F401  (fixture)
from tests.test_viewer_web import site as web_site  # noqa: F401  (fixture)

_ID = re.compile(r"^\[([A-Za-z0-9-]+)\]$")


def _viewer_urls(citations: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    """(citation ID, viewerUrl) of each citation and each of its places."""
    out = []
    for c in citations:
        out.append((c["citationId"], c["viewerUrl"]))
        out += [(a["citationId"], a["viewerUrl"]) for a in c["alternatives"]]
    return out


def _expected(base: str, cid: str) -> str:
    """The viewer's address of ``cid`` on the issue of the search that printed it (``QUERY``'s)."""
    m = _ID.match(cid)
    assert m is not None, cid
    return f"{base}/view/{m.group(1)}?issue={issue_key(QUERY)}"


def test_citations_carry_the_viewer_url_only_while_serve_runs_and_it_holds_no_secret(site: Site) -> None:  # noqa: F811
    before = json.loads(_cli(site, QUERY, as_json=True))["results"]
    assert before and all(url is None for _, url in _viewer_urls(before))

    with ApiServer(site.host) as server:  # writes server.json: 'serve' of this workspace runs
        cli = json.loads(_cli(site, QUERY, as_json=True))["results"]
        mcp = json.loads(json.dumps(_to_builtins(tool_query(site.host, QueryInput(query=QUERY)).citations)))
        with httpx.Client(base_url=server.url, timeout=30) as client:
            api = client.post("/api/knowledge-rag/search", json={"query": QUERY},
                              headers={"Authorization": f"Bearer {server.token}"}).json()["results"]
            for name, citations in (("cli", cli), ("mcp", mcp), ("http", api)):
                pairs = _viewer_urls(citations)
                assert len(pairs) >= 3, (name, pairs)  # a citation and its places
                for cid, url in pairs:
                    assert url == _expected(server.url, cid), (name, cid, url)
                    # no token, no code: only the search it came from
                    assert server.token not in url and urlsplit(url).query == f"issue={issue_key(QUERY)}"
            # It is the viewer's real address: the server's own session opens it, nobody else.
            url = cli[0]["viewerUrl"]
            assert client.get(url, headers={"Authorization": f"Bearer {server.token}"}).status_code == 200
            assert httpx.get(url, timeout=30).status_code == 401

    after = json.loads(_cli(site, QUERY, as_json=True))["results"]
    assert all(url is None for _, url in _viewer_urls(after))


def _to_builtins(citations: list[Any]) -> list[dict[str, Any]]:
    return msgspec.to_builtins(citations)


@contextlib.contextmanager
def _signed_in(server: ApiServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        assert client.get(web.entry_url(server)).status_code == 303
        yield client


def _place(client: httpx.Client, target: str, shown: str) -> httpx.Response:
    return client.get(f"/view/{webpages.bare_id(target)}/place.json", params={"from": webpages.bare_id(shown)})


def test_place_json_moves_a_docx_in_place_and_gives_a_pdf_its_page(web_site) -> None:  # noqa: F811
    server, host, by_file, idx = web_site
    docx: Citation = by_file[".docx"]
    pdf: Citation = by_file[".pdf"]
    with _signed_in(server) as client:
        r = _place(client, docx.citation_id, docx.citation_id)
        assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
        got = r.json()
        assert got["sameDocument"] is True and got["kind"] == "paragraphs"
        assert got["paragraphIndex"] == idx["target"] == docx.locator.paragraph_index
        h = docx.locator.highlight
        assert h is not None and got["highlight"] == {"start": h.start, "end": h.end}
        assert f'<span class="cid">{docx.citation_id}</span>' in got["headHtml"]
        assert "mainHtml" not in got  # the document is not sent again
        assert got["viewerPath"] == webpages.view_url(docx.citation_id, issue=docx.issue or "")  # its search's

        got = _place(client, pdf.citation_id, pdf.citation_id).json()
        assert got["sameDocument"] is True and got["kind"] == "pages" and got["page"] == pdf.locator.page == 1
        assert f'/view/{webpages.bare_id(pdf.citation_id)}/page/1.png' in got["mainHtml"]
        assert 'class="hl-primary"' in got["mainHtml"] and "<main>" not in got["mainHtml"]

        other = _place(client, pdf.citation_id, docx.citation_id).json()  # another file: the shell loads it
        assert other["sameDocument"] is False and "mainHtml" not in other and "headHtml" not in other
        assert other["viewerPath"] == webpages.view_url(pdf.citation_id, issue=pdf.issue or "")

        unplaced = msgspec.structs.replace(docx, citation_id="[fq7x]", locator_precision="file", locator_degraded=True,
                                           locator=Locator(locator_precision="file", locator_degraded=True))
        unplaced = remember(host, [unplaced])[0]  # as issued
        got = _place(client, unplaced.citation_id, docx.citation_id).json()  # same file, place not known
        assert got["sameDocument"] is True and got["paragraphIndex"] is None and got["highlight"] is None
        assert "not known" in got["headHtml"] and "banner file-only" in got["headHtml"]

        missing = _place(client, "[zzzz9]", docx.citation_id)
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    anonymous = httpx.get(f"{server.url}/view/{webpages.bare_id(docx.citation_id)}/place.json", timeout=30)
    assert anonymous.status_code == 401 and "Pyrolytic" not in anonymous.text


def _scope_options(html: str) -> list[tuple[str, str, bool]]:
    menu = re.search(r'<select name="scope"[^>]*>(.*?)</select>', html)
    assert menu is not None
    return [(value, text, bool(sel)) for value, sel, text in
            re.findall(r'<option value="([^"]*)"( selected)?>([^<]*)</option>', menu.group(1))]


def test_folder_menu_has_no_empty_option_when_the_workspace_itself_is_a_root() -> None:
    options = _scope_options(searchpage.search_page(roots=["", "papers"]))
    assert options == [("", "all indexed folders", False), ("papers", "papers", False)]
    chosen = _scope_options(searchpage.search_page(scope="papers", roots=["", "papers"]))
    assert [o for o in chosen if o[2]] == [("papers", "papers", True)]


def test_viewer_links_back_to_the_results_of_its_query() -> None:
    link = webpages.results_link("blade heating & ice")
    assert 'href="/?q=blade+heating+%26+ice"' in link and 'id="back-to-results"' in link
    assert 'href="/"' in webpages.results_link("  ")
