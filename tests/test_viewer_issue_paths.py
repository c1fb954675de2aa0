"""Every way into the viewer opens an ID as the search that issued it showed it (round 28's ``?issue=``, carried on).

* A shell moving an open page in place (``postMessage`` ``mnote-kr.locate``) names the search with ``issue``: the
  page then shows that search's quote, its places to step through and its way back, not the newest search's.
* ``open-reference`` (HTTP, ``open --json``, MCP) gives each search that printed an ID its ``issue`` and, while a
  server runs, its ``viewerUrl``: a shell or a note reopens an older search's places.
* The key tells the same words asked in another mode or scope apart (each shows its own places); a search in the
  default mode over the whole library keeps round 28's key, so old links still open.

The server is ``test_viewer_web``'s site (the host's real citation pipeline, fake provider); the browser tests run
in a real headless Chromium.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from html import unescape
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import msgspec
import pytest
from click.testing import CliRunner
from mnote_kr_testkit.browser import browser, chromium_path  # noqa: F401  (fixtures)

from mnote_kr.citations.caches import citecache
from mnote_kr.citations.render.ids import issue_key
from mnote_kr.cli.main import open_
from mnote_kr.cli.reports import Ctx
from mnote_kr.models import Citation, Locator, Place
from mnote_kr.server.app import ApiServer
from mnote_kr.viewer import web
from mnote_kr.viewer.webpages import view_url
from tests.test_viewer_issues import Q1, Q2, _path, _signed_in, _steps, two_searches  # noqa: F401  (fixture)
from tests.test_viewer_web import QUERY, site  # noqa: F401  (fixture)

ANSWERS = "mnote-kr-viewer"


# --------------------------------------------------------------------------- a shell's in-place move


@pytest.fixture
def shell(browser, two_searches) -> Iterator[tuple[Any, ApiServer, dict[str, int], Citation, Citation]]:  # noqa: F811
    """A signed-in tab with a shell's listener (the viewer's answers from its origin only)."""
    server, idx, first, second = two_searches
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    tab = context.new_page()
    tab.add_init_script("window.__answers = []; window.addEventListener('message', function (e) {"
                        f" if (e.origin !== {server.url!r} || !e.data || e.data.source !== {ANSWERS!r}) return;"
                        " window.__answers.push(e.data); });")
    try:
        tab.goto(web.entry_url(server))
        yield tab, server, idx, first, second
    finally:
        context.close()


def _post(tab: Any, message: dict[str, Any]) -> dict[str, Any]:
    """The shell's move: post ``message`` (type ``mnote-kr.locate``) to the page; the viewer's answer to it."""
    tab.evaluate("m => window.postMessage({type: 'mnote-kr.locate', ...m}, location.origin)", message)
    tab.wait_for_function("rid => window.__answers.some(a => a.requestId === rid)", arg=message["requestId"])
    answers = tab.evaluate("rid => window.__answers.filter(a => a.requestId === rid)", message["requestId"])
    assert len(answers) == 1, answers
    return answers[0]


def _shown(tab: Any) -> tuple[list[int], str, str, str]:
    """(paragraphs marked, "place i of n", the back link's query, the quote) of the page as it is."""
    cited = tab.evaluate("() => [...document.querySelectorAll('.para.cited')].map(e => +e.dataset.paragraphIndex)")
    back = parse_qs(urlsplit(tab.get_attribute("#back-to-results", "href") or "").query)["q"][0]
    return cited, tab.inner_text(".place-no"), back, tab.inner_text(".viewer-head .quote")


def test_a_shell_moving_the_page_to_an_id_with_its_issue_steps_through_that_searchs_places(shell) -> None:
    tab, server, idx, first, second = shell
    target = first.locator.paragraph_index
    tab.goto(server.url + view_url(first.citation_id))  # no issue: the newest search's (Q2's)
    tab.wait_for_function("() => window.__answers.some(a => a.type === 'ready')")
    assert _shown(tab)[:3] == ([target], "place 1 of 2", Q2)
    tab.evaluate("() => { window.__shellMarker = 'kept'; }")

    moved = _post(tab, {"citationId": first.citation_id, "issue": issue_key(Q1), "requestId": "q1"})
    assert moved["type"] == "located" and tab.evaluate("() => window.__shellMarker") == "kept"  # in place
    assert _shown(tab) == ([target], "place 1 of 3", Q1, f"quote for {Q1}")
    assert moved.get("issue") == issue_key(Q1), moved
    assert parse_qs(urlsplit(tab.url).query)["issue"] == [issue_key(Q1)]  # a reload keeps the search
    tab.keyboard.press("n")  # the next place is Q1's, not the newest search's
    tab.wait_for_url("**place=2*")
    assert _shown(tab)[:3] == ([idx["bullet"]], "place 2 of 3", Q1)
    assert parse_qs(urlsplit(tab.url).query)["issue"] == [issue_key(Q1)]

    # Without an issue the move shows the newest search's, as before; a key that is no key is refused.
    back = _post(tab, {"citationId": first.citation_id, "requestId": "q2"})
    assert _shown(tab)[:3] == ([target], "place 1 of 2", Q2) and back["issue"] == issue_key(Q2)
    bad = _post(tab, {"citationId": first.citation_id, "issue": "<b>", "requestId": "q3"})
    assert bad["type"] == "failed" and bad["reason"] == "bad_request"


def test_place_json_gives_the_issue_asked_for_and_says_when_it_is_no_longer_kept(two_searches) -> None:  # noqa: F811
    server, _, first, _ = two_searches
    bare = first.citation_id.strip("[]")
    with _signed_in(server) as client:
        got = client.get(f"/view/{bare}/place.json", params={"from": bare, "issue": issue_key(Q1)}).json()
        gone = client.get(f"/view/{bare}/place.json", params={"from": bare, "issue": issue_key("forgotten")}).json()
    assert got["viewerPath"] == view_url(first.citation_id, issue=issue_key(Q1)) and got["issue"] == issue_key(Q1)
    assert "place 1 of 3" in got["headHtml"] and "issue-gone" not in got["headHtml"]
    assert gone["issue"] == issue_key(Q2) and "issue-gone" in gone["headHtml"] and "no longer kept" in gone["headHtml"]


# --------------------------------------------------------------------------- open-reference: a link per search


class _HostCtx(Ctx):
    def __init__(self, host: Any) -> None:
        super().__init__(None)
        self._host = host


def test_open_reference_gives_each_search_its_issue_and_viewer_url_over_http_and_the_cli(
        two_searches) -> None:  # noqa: F811
    server, idx, first, _ = two_searches
    host = server.host
    cli_before = json.loads(CliRunner().invoke(open_, [first.citation_id, "--json"], obj=_HostCtx(host)).output)
    assert [(i["issue"], i["viewerUrl"]) for i in cli_before["issues"]] == [
        (issue_key(q), None) for q in (Q2, Q1, QUERY)]  # no server of the workspace runs: no URL
    with ApiServer(host) as served:  # writes server.json: 'serve' of this workspace runs
        cli = json.loads(CliRunner().invoke(open_, [first.citation_id, "--json"], obj=_HostCtx(host)).output)
        with httpx.Client(base_url=served.url, timeout=30) as client:
            api = client.post("/api/knowledge-rag/open-reference", json={"citationId": first.citation_id},
                              headers={"Authorization": f"Bearer {served.token}"}).json()
            assert api["issues"] == cli["issues"]
            urls = {i["searchQuery"]: i["viewerUrl"] for i in api["issues"]}
            assert urls == {q: served.url + view_url(first.citation_id, issue=issue_key(q)) for q in (Q2, Q1, QUERY)}
            assert client.get(web.entry_url(served)).status_code == 303  # signed in, as a browser
            target = first.locator.paragraph_index
            for query, places in ((Q1, [target, idx["bullet"], idx["number2"]]), (Q2, [target, idx["number1"]])):
                assert _steps(client, urls[query][len(served.url):]) == (places, query, [])  # that search's own


# --------------------------------------------------------------------------- the key: query, mode and scope


def test_the_issue_key_tells_modes_and_scopes_apart_and_keeps_round_28s_key_for_the_default() -> None:
    q = "Which sensors sit on the blades?"
    default = issue_key(q)
    assert default == issue_key(q, "mix", ()) == issue_key(q, "hybrid") == issue_key(q, "mix", ["", "."])
    assert re.fullmatch(r"[0-9a-z]{4}", default)
    others = {issue_key(q, "naive"), issue_key(q, "local"), issue_key(q, "mix", ["papers"]),
              issue_key(q, "mix", ["papers/report.docx"]), issue_key(q, "naive", ["papers"])}
    assert len(others) == 5 and default not in others
    # the same scope however it is written, in every process
    assert issue_key(q, "mix", ["b", "a/"]) == issue_key(q, "hybrid", ["a", "b", "a"])


def _issued(host: Any, base: Citation, places: list[int], tag: str, issue: str) -> Citation:
    alternatives = [Place(citation_id=f"[{tag}{n}]", locator_precision="paragraph", locator_degraded=False,
                          locator=Locator(locator_precision="paragraph", locator_degraded=False, paragraph_index=i),
                          display_quote=f"{tag} place {n}", relevance_score=1.0 / n)
                    for n, i in enumerate(places, 2)]
    c = msgspec.structs.replace(base, search_query=Q1, display_quote=f"quote of {tag}", alternatives=alternatives)
    return citecache.remember(host, [c], issue=issue)[0]


def test_the_same_words_in_another_mode_or_scope_keep_their_own_places(site) -> None:  # noqa: F811
    server, host, cites, idx = site
    base = cites[".docx"]
    naive = _issued(host, base, [idx["bullet"], idx["number2"]], "na", issue_key(Q1, "naive"))
    scoped = _issued(host, base, [idx["number2"]], "sc", issue_key(Q1, "mix", ["papers"]))
    plain = _issued(host, base, [idx["number1"]], "pl", issue_key(Q1))
    assert naive.citation_id == scoped.citation_id == plain.citation_id  # one place, one ID
    target = base.locator.paragraph_index
    with _signed_in(server) as client:
        for _ in range(2):  # this process's memory, then the store alone
            assert _steps(client, _path(server, naive)) == ([target, idx["bullet"], idx["number2"]], Q1, [])
            assert _steps(client, _path(server, scoped)) == ([target, idx["number2"]], Q1, [])
            assert _steps(client, _path(server, plain)) == ([target, idx["number1"]], Q1, [])
            citecache._memory.clear()
    issues = host.open(plain.citation_id).issues
    assert [i.issue for i in issues[:3]] == [issue_key(Q1), issue_key(Q1, "mix", ["papers"]), issue_key(Q1, "naive")]


def test_a_search_stamps_its_mode_and_scope_into_the_key_its_links_carry(site) -> None:  # noqa: F811
    server, host, _, _ = site
    found = {(mode, tuple(scope)): host.search(QUERY, top_k=10, mode=mode, scope=scope)
             for mode, scope in (("mix", []), ("naive", []), ("mix", ["papers"]))}
    for (mode, scope), result in found.items():
        assert result.results and {c.issue for c in result.results} == {issue_key(QUERY, mode, scope)}
    with _signed_in(server) as client:
        page = client.get("/", params={"q": QUERY, "mode": "naive"}).text
    links = [unescape(h) for h in re.findall(r'href="(/view/[^"]+)"', page)]
    assert links and {parse_qs(urlsplit(h).query)["issue"][0] for h in links} == {issue_key(QUERY, "naive")}
