"""The viewer opens an ID on the search it came from (nc28b surprise 1).

An ID names a place, and every search citing that place re-issues it with its own quote and its own
alternatives. A ``viewerUrl`` (and the search page's links, ``open ID --show``) names its search's issue
(``?issue=``, a short key of its query), so the viewer steps through that search's places and links back
to that search, even after another search re-issued the ID. A URL without an issue (an old note's
``/view/ID``) opens the newest issue; an issue the store no longer keeps falls back to it, saying so.

The server is ``test_viewer_web``'s site (the host's real citation pipeline, fake provider); the
browser test presses ``n`` in a real headless Chromium.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Iterator
from html import unescape
from urllib.parse import parse_qs, urlsplit

import httpx
import msgspec
import pytest
from mnote_kr_testkit.browser import browser, chromium_path  # noqa: F401  (fixtures)

from mnote_kr.citations.caches import citecache, idrecord
from mnote_kr.citations.render.ids import issue_key
from mnote_kr.models import Citation, Locator, Place
from mnote_kr.server.app import ApiServer
from mnote_kr.server.viewerlinks import with_viewer_urls
from mnote_kr.viewer import web
from tests.test_viewer_web import QUERY, site  # noqa: F401  (fixture)

Q1 = "Which sensors sit on the blades?"
Q2 = "What do the measurements say?"


def _issued(host, base: Citation, query: str, places: list[int], tag: str) -> Citation:
    """``base``'s place issued by a search for ``query`` whose next places are the paragraphs ``places``."""
    alternatives = [Place(citation_id=f"[{tag}{n}]", locator_precision="paragraph", locator_degraded=False,
                          locator=Locator(locator_precision="paragraph", locator_degraded=False, paragraph_index=i),
                          display_quote=f"{query} place {n}", relevance_score=1.0 / n)
                    for n, i in enumerate(places, 2)]
    c = msgspec.structs.replace(base, search_query=query, display_quote=f"quote for {query}",
                                alternatives=alternatives)
    return citecache.remember(host, [c])[0]


@pytest.fixture
def two_searches(site) -> Iterator[tuple[ApiServer, dict[str, int], Citation, Citation]]:  # noqa: F811
    """Two searches citing one DOCX place, the second re-issuing the first's ID with other next places."""
    server, host, cites, idx = site
    first = _issued(host, cites[".docx"], Q1, [idx["bullet"], idx["number2"]], "qa")
    second = _issued(host, cites[".docx"], Q2, [idx["number1"]], "qb")
    assert first.citation_id == second.citation_id  # one place, one ID
    yield server, idx, first, second


@contextlib.contextmanager
def _signed_in(server: ApiServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        assert client.get(web.entry_url(server)).status_code == 303
        yield client


def _path(server: ApiServer, c: Citation) -> str:
    url = with_viewer_urls([c], server.url)[0].viewer_url
    assert url is not None and url.startswith(server.url)
    return url[len(server.url):]


def _cited(page: str) -> list[int]:
    return [int(i) for i in re.findall(r'class="para[^"]*\bcited\b[^"]*"[^>]*data-paragraph-index="(\d+)"', page)]


def _href(page: str, element_id: str) -> str | None:
    m = re.search(rf'id="{element_id}"[^>]*href="([^"]+)"', page) or re.search(
        rf'href="([^"]+)"[^>]*id="{element_id}"', page)
    return unescape(m.group(1)) if m else None


def _back_query(page: str) -> str:
    href = _href(page, "back-to-results")
    assert href is not None
    return parse_qs(urlsplit(href).query)["q"][0]


def _steps(client: httpx.Client, path: str) -> tuple[list[int], str, list[str]]:
    """The paragraphs the viewer highlights from ``path`` on, pressing "next" to the end; the back link's
    query; the pages' notices."""
    seen, notes, back = [], [], ""
    while path:
        r = client.get(path)
        assert r.status_code == 200, r.text[:300]
        seen += _cited(r.text)
        back = back or _back_query(r.text)
        notes += re.findall(r'class="banner issue-gone"[^>]*>([^<]+)<', r.text)
        path = _href(r.text, "place-next") or ""
    return seen, back, notes


def test_each_searchs_viewer_url_steps_through_its_own_places_after_another_search_reissued_the_id(
        two_searches) -> None:
    server, idx, first, second = two_searches
    target = first.locator.paragraph_index
    with _signed_in(server) as client:
        for _ in range(2):  # this process's memory, then the store alone (a note opened in another process)
            assert _steps(client, _path(server, first)) == ([target, idx["bullet"], idx["number2"]], Q1, [])
            assert _steps(client, _path(server, second)) == ([target, idx["number1"]], Q2, [])
            # an old note's link names no search: the newest, as before
            assert _steps(client, f"/view/{first.citation_id.strip('[]')}") == ([target, idx["number1"]], Q2, [])
            citecache._memory.clear()


def test_an_issue_the_store_no_longer_keeps_opens_the_newest_and_says_so(two_searches) -> None:
    server, idx, first, _ = two_searches
    path = f"/view/{first.citation_id.strip('[]')}?issue={issue_key('a search long forgotten')}"
    with _signed_in(server) as client:
        seen, back, notes = _steps(client, path)
    assert seen == [first.locator.paragraph_index, idx["number1"]] and back == Q2
    assert notes and "no longer kept" in notes[0] and Q2 in unescape(notes[0])


def test_the_search_pages_links_and_open_show_name_their_search(site) -> None:  # noqa: F811
    server, host, cites, _ = site
    with _signed_in(server) as client:
        page = client.get("/", params={"q": QUERY}).text
    links = [unescape(h) for h in re.findall(r'href="(/view/[^"]+)"', page)]
    assert links and all(parse_qs(urlsplit(h).query).get("issue") == [issue_key(QUERY)] for h in links), links
    from mnote_kr.server.show import show

    url = show(host, cites[".docx"].citation_id, linger_s=0.0, browser=False, wait=True,
               out=io.StringIO(), err=io.StringIO())
    assert parse_qs(urlsplit(url).query).get("issue") == [issue_key(QUERY)], url


def test_pressing_n_on_each_searchs_viewer_url_highlights_its_own_next_place(two_searches, browser) -> None:  # noqa: F811
    server, idx, first, second = two_searches
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    try:
        tab = context.new_page()
        tab.goto(web.entry_url(server))
        for c, nxt, query in ((first, idx["bullet"], Q1), (second, idx["number1"], Q2)):
            tab.goto(server.url + _path(server, c))
            assert tab.inner_text(".place-no") == f"place 1 of {1 + len(c.alternatives)}"
            tab.keyboard.press("n")
            tab.wait_for_url("**place=2*")
            cited = [int(e.get_attribute("data-paragraph-index") or -1) for e in tab.query_selector_all(".para.cited")]
            assert cited == [nxt], (query, cited)
            href = tab.get_attribute("#back-to-results", "href") or ""
            assert parse_qs(urlsplit(href).query)["q"] == [query]
    finally:
        context.close()


def test_each_issue_keeps_its_own_places_through_the_record_and_open_lists_each_searchs_key(two_searches) -> None:
    server, idx, first, second = two_searches
    host = server.host
    # A third search sees the place with another highlight: its locator is kept beside the latest's.
    loc = msgspec.structs.replace(first.locator, highlight=None)
    third = msgspec.structs.replace(second, search_query="third", issue=issue_key("third"), locator=loc,
                                    locator_precision=loc.locator_precision)
    record = idrecord.record_of(third, "h", idrecord.history(idrecord.issue_of(third), [
        idrecord.issue_of(second), idrecord.issue_of(first)]))
    back = idrecord.decode(idrecord.pack([record])[0][0] + idrecord.pack([record])[1], record.id)
    assert back is not None
    got = {i.search_query: (i.alternatives, i.locator) for i in idrecord.issues(back)}
    assert got == {"third": (second.alternatives, loc), Q2: (second.alternatives, first.locator),
                   Q1: (first.alternatives, first.locator)}
    assert back.earlier[0].alternatives is None  # Q2's places are the latest's: stored once
    # A record written before issues kept their places: its earlier issue opens the newest, never a guess.
    old = msgspec.msgpack.encode({"searchQuery": Q1, "displayQuote": "q", "issuedAt": ""})
    assert idrecord.issue_for([msgspec.msgpack.decode(old, type=idrecord.Issue)], issue_key(Q1)) is None
    plan = msgspec.to_builtins(host.open(first.citation_id))
    # query, quote, time and the search's key (no places); viewerUrl is the served surfaces' (HTTP, CLI, MCP)
    assert all(set(i) == {"searchQuery", "displayQuote", "issuedAt", "issue", "viewerUrl", "searchMode", "searchScope"}
               for i in plan["issues"])
    assert [(i["searchQuery"], i["issue"], i["viewerUrl"]) for i in plan["issues"]] == [
        (Q2, issue_key(Q2), None), (Q1, issue_key(Q1), None), (QUERY, issue_key(QUERY), None)]
