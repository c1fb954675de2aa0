"""Each search that printed an ID says its mode and scope, and the viewer's way back runs it again as it was.

nc29b searched the same words with ``--mode mix``, ``--mode naive`` and ``--scope FILE``: all three cited one
place, and ``open-reference`` listed three issues alike in all but their keys (no mode, no scope), so nobody could
tell which was which; and each viewer page's "back to the results" ran the words again in the default mode over
the whole library. Now every issue (``open --json``, HTTP ``open-reference``, MCP) carries ``searchMode`` and
``searchScope``, ``open`` says them in words, and the back link keeps them.

The server is ``test_viewer_web``'s site (the host's real citation pipeline, fake provider); the browser test
clicks the link in a real headless Chromium.
"""

from __future__ import annotations

import json
import re
from html import unescape
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import msgspec
from click.testing import CliRunner
from mnote_kr_testkit.browser import browser, chromium_path  # noqa: F401  (fixtures)

from mnote_kr.citations.caches import citecache
from mnote_kr.citations.render.ids import issue_key
from mnote_kr.cli.main import open_
from mnote_kr.cli.reports import Ctx
from mnote_kr.models import Citation
from mnote_kr.viewer import web
from mnote_kr.viewer.searchlinks import search_href
from tests.test_viewer_issues import _path, _signed_in
from tests.test_viewer_web import QUERY, site  # noqa: F401  (fixture)

DOCX = "papers/report.docx"
#: (mode asked, scope asked) -> (mode, scope) as each issue says them; ``hybrid`` is ``mix``
WAYS = {("naive", ()): ("naive", []), ("mix", (DOCX,)): ("mix", [DOCX]), ("hybrid", ()): ("mix", [])}


class _HostCtx(Ctx):
    def __init__(self, host: Any) -> None:  # noqa: ANN401
        super().__init__(None)
        self._host = host


def _three_ways(host: Any) -> dict[tuple[str, tuple[str, ...]], Citation]:  # noqa: ANN401
    """The DOCX's citation as each of three searches of the same words printed it (naive, scoped, default last)."""
    out = {}
    for (mode, scope), said in WAYS.items():
        [c] = [c for c in host.search(QUERY, top_k=10, mode=mode, scope=list(scope)).results
               if c.source_root_relative_path == DOCX]
        assert (c.search_mode, c.search_scope) == said and c.issue == issue_key(QUERY, mode, scope)
        out[said[0], tuple(said[1])] = c
    assert len({c.citation_id for c in out.values()}) == 1  # one place, one ID
    return out


def test_open_reference_says_each_searchs_mode_and_scope_over_the_cli_http_and_the_store(site) -> None:  # noqa: F811
    server, host, _, _ = site
    cid = next(iter(_three_ways(host).values())).citation_id
    newest_first = [("mix", []), ("mix", [DOCX]), ("naive", [])]  # the site's own default search: the same as hybrid
    for _ in range(2):  # this process's memory, then the store alone (another process)
        issues = host.open(cid).issues
        assert [(i.search_mode, i.search_scope) for i in issues] == newest_first, issues
        assert len({i.issue for i in issues}) == 3
        citecache._memory.clear()
    cli = json.loads(CliRunner().invoke(open_, [cid, "--json"], obj=_HostCtx(host)).output)
    assert [(i["searchMode"], i["searchScope"]) for i in cli["issues"]] == newest_first
    with httpx.Client(base_url=server.url, timeout=30) as client:
        api = client.post("/api/knowledge-rag/open-reference", json={"citationId": cid},
                          headers={"Authorization": f"Bearer {server.token}"}).json()
    assert [(i["searchMode"], i["searchScope"]) for i in api["issues"]] == newest_first
    text = CliRunner().invoke(open_, [cid], obj=_HostCtx(host)).output
    # the three quotes are alike here: said once, the searches named under it, each its own way
    assert f"{QUERY!r} over {DOCX}" in text and f"{QUERY!r} in mode naive" in text, text
    assert re.search(rf"search {re.escape(repr(QUERY))} \(\d{{4}}-", text), text  # the default way: as before


def test_an_id_kept_with_another_key_alone_says_its_mode_and_scope_are_not_known(site) -> None:  # noqa: F811
    _, host, cites, _ = site
    # as a store written before modes and scopes were kept: the key alone
    old = msgspec.structs.replace(cites[".docx"], search_query="an older search")
    citecache.remember(host, [old], issue=issue_key("an older search", "naive"))
    issue = host.open(old.citation_id).issues[0]
    assert issue.search_query == "an older search" and issue.issue == issue_key("an older search", "naive")
    assert (issue.search_mode, issue.search_scope) == (None, None)  # not said "mix": never a guess


def _back(page: str) -> dict[str, list[str]]:
    m = re.search(r'id="back-to-results"[^>]*href="([^"]+)"', page)
    assert m is not None, page[:500]
    return parse_qs(urlsplit(unescape(m.group(1))).query)


def _files(page: str) -> set[str]:
    return set(re.findall(r'<span class="file">([^<]+)</span>', page))


def test_the_viewers_way_back_runs_each_search_again_in_its_mode_and_scope(site) -> None:  # noqa: F811
    server, host, _, _ = site
    ways = _three_ways(host)
    with _signed_in(server) as client:
        for (mode, scope), c in ways.items():
            back = _back(client.get(_path(server, c)).text)
            # the default mode and the whole library are left out, as the search form leaves them
            assert back == {"q": [QUERY], **({"mode": [mode]} if mode != "mix" else {}),
                            **({"scope": list(scope)} if scope else {})}, back
        page = client.get(search_href(QUERY, "mix", [DOCX])).text
        assert _files(page) == {DOCX}, _files(page)  # the scoped search again, not the whole library
        assert re.search(rf'<option value="{re.escape(DOCX)}" selected>', page)  # and the form keeps the scope
        assert len(_files(client.get(search_href(QUERY)).text)) == 3


def test_clicking_back_to_the_results_in_the_browser_lands_on_the_same_search(site, browser) -> None:  # noqa: F811
    server, host, _, _ = site
    ways = _three_ways(host)
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    try:
        tab = context.new_page()
        tab.goto(web.entry_url(server))
        for (mode, scope), c in ways.items():
            tab.goto(server.url + _path(server, c))
            tab.click("#back-to-results")
            tab.wait_for_selector("form.search")
            assert tab.eval_on_selector("select[name=mode]", "e => e.value") == mode
            chosen = tab.eval_on_selector("select[name=scope]", "e => [...e.selectedOptions].map(o => o.value)")
            assert chosen == (list(scope) or [""]), (mode, scope, chosen)
            files = {e.inner_text() for e in tab.query_selector_all(".viewer-head .file, .card .file")}
            assert (files == {DOCX}) == bool(scope), files
            tab.click("form.search button[type=submit]")  # searched again from the form: still that search
            tab.wait_for_url(re.compile(r".*[?&]q=.*"))
            again = parse_qs(urlsplit(tab.url).query)
            assert again["mode"] == [mode] and [s for s in again.get("scope", []) if s] == list(scope), again
    finally:
        context.close()
