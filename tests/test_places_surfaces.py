"""Several places per file, and the weak-result flag, in every surface.

The host's real pipeline runs over a provider that hands it four chunks of one Markdown file (each
with a sidecar-like block, so the text locator's paragraph is kept) and one chunk of another: the
first file is one citation carrying its next two places (``alternatives``), the fourth place is
dropped. The same result is then read through each surface: the CLI's text and ``--json``, the
HTTP API and its OpenAPI document, the MCP query tool, the web search page and the viewer.
A nonsense query gets ``weak`` with its reason in each of them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from mnote_kr_testkit.fakes import fake_host

from mnote_kr.agents.contracts import QueryInput
from mnote_kr.agents.tools import tool_query
from mnote_kr.app.host import Host
from mnote_kr.citations.render.cards import render_answer
from mnote_kr.models import SearchResults
from mnote_kr.server.app import ApiServer
from mnote_kr.viewer import web
from mnote_kr.viewer.webpages import view_url, view_url_of
from tests.surfaces import BlockProvider, api, cli_search, web_page

QUERY = "glacier melt"
NONSENSE = "zzzzqqqxx nonexistentterm"
API = "/api/knowledge-rag"
TOPICS = [
    "The glacier lost forty metres of ice in the dry summer of 2003, and its melt water filled the lake.",
    "Farmers below the glacier built stone channels to carry the melt to their fields in spring.",
    "A survey in 2019 found the glacier front had moved back two kilometres since the first map.",
    "Tourists still walk on the glacier, though guides now warn them about melt holes and crevasses.",
]
# Each paragraph 398 characters (the fake provider cuts 400-character chunks: one paragraph each),
# the rest of it sentences of its own (so the locator can tell the paragraphs apart).
PARAGRAPHS = [(t + " " + " ".join(f"Valley log {i}.{k} was kept by warden {chr(65 + i)}{k}." for k in range(12)))[:398]
              for i, t in enumerate(TOPICS)]


@dataclass
class Site:
    host: Host
    ws: Path
    found: SearchResults
    weak: SearchResults


@pytest.fixture
def site(tmp_path: Path) -> Site:
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    (ws / "docs" / "long.md").write_text("\n\n".join(PARAGRAPHS) + "\n", encoding="utf-8")
    (ws / "docs" / "other.md").write_text("A note on river fish in glacier-fed streams.\n", encoding="utf-8")
    host, _ = fake_host(ws, BlockProvider(delete_status="delete_completed", refs_per_file=4))
    host.roots_add(ws / "docs")
    host.ingest([ws / "docs"])
    weak = host.search(NONSENSE, top_k=10)
    return Site(host, ws, host.search(QUERY, top_k=10), weak)  # the last search's places are remembered


def _long(results: SearchResults) -> Any:
    (c,) = [c for c in results.results if c.source_root_relative_path == "docs/long.md"]
    return c


def test_a_file_is_one_citation_carrying_its_next_two_places(site: Site) -> None:
    c = _long(site.found)
    rels = [x.source_root_relative_path for x in site.found.results]
    assert len(rels) == len(set(rels)) == 2  # one citation per file
    assert c.locator_precision == "paragraph" and len(c.alternatives) == 2
    places = [c.locator.paragraph_index] + [a.locator.paragraph_index for a in c.alternatives]
    assert len(set(places)) == 3 and set(places) <= {0, 1, 2, 3}
    scores = [c.relevance_score] + [a.relevance_score for a in c.alternatives]
    assert scores == sorted(scores, reverse=True)  # best first
    assert site.found.diagnostics["placesDropped"] == 1  # the fourth place of the file
    for a in c.alternatives:
        assert a.locator_precision == a.locator.locator_precision == "paragraph"
        assert a.display_quote and a.display_quote in PARAGRAPHS[a.locator.paragraph_index]
        plan = site.host.open(a.citation_id)  # an alternative's own ID opens its place
        assert plan.citation_id == a.citation_id and plan.resource_root_relative_path == "docs/long.md"
        assert plan.locator.paragraph_index == a.locator.paragraph_index
    assert site.found.weak is False and site.found.weak_reason is None


def test_the_quote_is_the_answering_paragraph_and_the_chunk_is_context(site: Site) -> None:
    c = _long(site.found)
    assert c.display_quote and c.context_quote and c.display_quote in c.context_quote
    assert len(c.display_quote) < len(c.context_quote) and "glacier" in c.display_quote.casefold()
    assert c.display_quote.count("Valley log") < c.context_quote.count("Valley log")


def test_a_query_nothing_answers_is_weak_and_says_why(site: Site) -> None:
    assert site.weak.weak is True and "none of the query's words" in (site.weak.weak_reason or "")
    assert site.weak.diagnostics.get("citable", 0) >= 1  # the provider did return its nearest chunks


# --------------------------------------------------------------------------- the CLI


def _cli(site: Site, query: str, as_json: bool) -> str:
    return cli_search(site.host, query, as_json)


def test_cli_text_prints_the_next_places_under_the_first_with_precision_and_place(site: Site) -> None:
    text = _cli(site, QUERY, as_json=False)
    c = _long(site.found)
    card = text[text.index(f"{c.citation_id} docs/long.md"):]
    for n, a in enumerate(c.alternatives, 2):
        approx = " (approximate)" if a.locator_degraded else ""
        line = f"    also #{n}: {a.citation_id} paragraph {a.locator.paragraph_index + 1}{approx}"  # counted from 1
        assert line in card.splitlines(), card
    assert not text.startswith("Weak result")


def test_cli_text_says_a_weak_result_before_the_cards(site: Site) -> None:
    text = _cli(site, NONSENSE, as_json=False)
    assert text.splitlines()[0].startswith("Weak result: none of the query's words is in any passage found")


def test_cli_json_carries_alternatives_context_and_weak(site: Site) -> None:
    found = json.loads(_cli(site, QUERY, as_json=True))
    weak = json.loads(_cli(site, NONSENSE, as_json=True))
    assert found["weak"] is False and found["weakReason"] is None
    assert weak["weak"] is True and weak["weakReason"].startswith("none of the query's words")
    long = next(c for c in found["results"] if c["sourceRootRelativePath"] == "docs/long.md")
    assert [a["citationId"] for a in long["alternatives"]] == [a.citation_id for a in _long(site.found).alternatives]
    for a in long["alternatives"]:
        assert set(a) == {"citationId", "locatorPrecision", "locatorDegraded", "locator", "displayQuote",
                          "headingPath", "relevanceScore", "citationUrl", "viewerUrl"}
        assert a["viewerUrl"] is None  # no 'mnote-kr serve' runs for this workspace
        assert a["locator"]["paragraphIndex"] is not None and "paragraph=" in a["citationUrl"]
    assert long["contextQuote"] and long["displayQuote"] in long["contextQuote"]


def test_old_citation_json_without_the_new_fields_still_decodes(site: Site) -> None:
    from mnote_kr.models import Citation

    old = msgspec.to_builtins(_long(site.found))
    for key in ("alternatives", "contextQuote"):
        old.pop(key)
    c = msgspec.convert(old, Citation)
    assert c.alternatives == [] and c.context_quote is None
    assert msgspec.convert({"query": "q", "mode": "mix", "provider": "p"}, SearchResults).weak is False


# --------------------------------------------------------------------------- HTTP API and OpenAPI


@pytest.fixture
def served(site: Site) -> Iterator[tuple[ApiServer, httpx.Client]]:
    with api(site.host) as both:
        yield both


def test_http_search_and_query_return_alternatives_and_weak(served, site: Site) -> None:
    _, client = served
    found = client.post(f"{API}/search", json={"query": QUERY, "topK": 10}).json()
    long = next(c for c in found["results"] if c["sourceRootRelativePath"] == "docs/long.md")
    want = _long(site.found)
    assert [(a["citationId"], a["locator"]["paragraphIndex"]) for a in long["alternatives"]] == \
           [(a.citation_id, a.locator.paragraph_index) for a in want.alternatives]
    assert found["weak"] is False
    weak = client.post(f"{API}/search", json={"query": NONSENSE}).json()
    assert weak["weak"] is True and weak["weakReason"] == site.weak.weak_reason
    asked = client.post(f"{API}/query", json={"query": NONSENSE}).json()
    assert asked["weak"] is True and any(n.startswith("Weak result:") for n in asked["notes"])


def test_openapi_documents_alternatives_context_and_weak(served) -> None:
    _, client = served
    doc = client.get("/api/openapi.json").json()
    schemas = doc["components"]["schemas"]
    assert {"citationId", "locator", "locatorPrecision", "displayQuote", "relevanceScore"} <= \
        set(schemas["Place"]["properties"])
    citation = schemas["Citation"]["properties"]
    assert citation["alternatives"]["items"] == {"$ref": "#/components/schemas/Place"}
    assert "contextQuote" in citation
    assert {"weak", "weakReason"} <= set(schemas["SearchResults"]["properties"])
    assert {"weak", "weakReason"} <= set(schemas["AgentQueryResult"]["properties"])


# --------------------------------------------------------------------------- MCP


def test_mcp_query_returns_alternatives_context_and_weak(site: Site) -> None:
    from mnote_kr.agents.contracts import AgentQueryResult, object_schema

    found = tool_query(site.host, QueryInput(query=QUERY, top_k=10))
    long = next(c for c in found.citations if c.source_root_relative_path == "docs/long.md")
    want = _long(site.found)
    assert [(a.citation_id, a.paragraph_index, a.display_quote) for a in long.alternatives] == \
           [(a.citation_id, a.locator.paragraph_index, a.display_quote) for a in want.alternatives]
    assert long.context_quote == want.context_quote and found.weak is False
    weak = tool_query(site.host, QueryInput(query=NONSENSE))
    assert weak.weak is True and weak.weak_reason and any(n.startswith("Weak result:") for n in weak.notes)
    schema = object_schema(AgentQueryResult)  # the tool's declared output schema names them
    assert {"weak", "weakReason"} <= set(schema["properties"])
    assert {"alternatives", "contextQuote"} <= set(schema["$defs"]["AgentCitation"]["properties"])


def test_http_query_and_the_mcp_query_tool_share_the_agent_query_result_keys(served, site: Site) -> None:
    # One schema name, one set of keys: ``ask`` over HTTP (full citations) and the MCP tool (the agent's
    # compact citations) both say which named file cannot be cited, in ``notIndexed``.
    (site.ws / "docs" / "draft.md").write_text("A glacier note not indexed yet.\n", encoding="utf-8")
    query = f"{QUERY} in draft.md"
    _, client = served
    http = client.post(f"{API}/query", json={"query": query}).json()
    mcp = msgspec.to_builtins(tool_query(site.host, QueryInput(query=query, want_answer=True)))
    assert http["schema"] == mcp["schema"] == "mnote.knowledge_rag.agent_query_result.v1"
    assert set(http) == set(mcp)
    assert http["mode"] == mcp["mode"] == "mix"
    assert [m["sourcePath"] for m in http["notIndexed"]] == [m["sourcePath"] for m in mcp["notIndexed"]] == \
           ["docs/draft.md"]
    assert [c["citationId"] for c in http["citations"]] == [c["citationId"] for c in mcp["citations"]]
    assert http["answer"] == mcp["answer"] and mcp["answer"]
    assert [(x["text"], x["supported"], x["citationId"]) for x in http["sentences"]] == \
           [(x["text"], x["supported"], x["citationId"]) for x in mcp["sentences"]] != []
    shown = render_answer(site.host.ask(query)).splitlines()  # and 'ask' says it in words, before the cards
    said = next(i for i, line in enumerate(shown) if line.startswith("not indexed: docs/draft.md ("))
    assert said < next(i for i, line in enumerate(shown) if line.startswith("[")), shown


def test_a_query_over_the_length_limit_is_refused_alike_on_every_surface(served, site: Site) -> None:
    from mnote_kr.errors import UsageError

    pasted = ("glacier melt water " * 250).strip()  # 4,749 characters: a pasted text, not a question
    with pytest.raises(UsageError, match=r"4,749 characters long; at most 4,000 are accepted"):
        site.host.search(pasted)
    _, client = served
    for route in ("search", "query"):
        r = client.post(f"{API}/{route}", json={"query": pasted})
        assert r.status_code == 400 and "at most 4,000" in r.text, r.text
    with pytest.raises(msgspec.ValidationError, match="length <= 4000"):
        msgspec.convert({"query": pasted}, QueryInput)  # the MCP tool's declared limit is the same
    assert len(site.host.search(pasted[:3990]).results) > 0  # just under it: searched


# --------------------------------------------------------------------------- web page and viewer


_page = web_page


def test_search_page_lists_the_next_places_and_says_weak(served, site: Site) -> None:
    server, _ = served
    html = _page(server, f"/?q={QUERY.replace(' ', '+')}")
    c = _long(site.found)
    for n, a in enumerate(c.alternatives, 2):
        assert f'data-citation-id="{a.citation_id}"' in html
        alt = html[html.index(f'data-citation-id="{a.citation_id}"'):]
        # paragraphs counted from 1 for people, as the CLI and citationMarkdown count them
        assert alt[:alt.index("</li>")].count(f'<span class="where">¶{a.locator.paragraph_index + 1}</span>') == 1
        assert f'href="{view_url_of(c, place=n)}"'.replace("&", "&amp;") in html  # on this search's issue
    assert 'class="banner weak"' not in html
    weak = _page(server, f"/?q={NONSENSE.replace(' ', '+')}")
    assert 'class="banner weak"' in weak and "Weak result: none of the query" in weak


def _cited(html: str) -> list[int]:
    return [int(i) for i in re.findall(r'class="para[^"]*\bcited\b[^"]*"[^>]*data-paragraph-index="(\d+)"', html)]


def test_viewer_opens_at_the_first_place_and_steps_to_the_others(served, site: Site) -> None:
    server, _ = served
    c = _long(site.found)
    first = _page(server, view_url(c.citation_id))
    assert _cited(first) == [c.locator.paragraph_index]
    assert 'id="place-next"' in first and 'id="place-prev"' not in first and "place 1 of 3" in first
    for n, a in enumerate(c.alternatives, 2):
        html = _page(server, view_url(c.citation_id, place=n))
        assert _cited(html) == [a.locator.paragraph_index], n
        assert (f"place {n} of 3" if n < 3 else "last place of 3") in html and 'id="place-prev"' in html
        assert ('id="place-next"' in html) == (n < 3) and ('id="place-first"' in html) == (n == 3)
    with httpx.Client(base_url=server.url, timeout=30) as client:
        client.get(web.entry_url(server))
        assert client.get(view_url(c.citation_id, place=4)).status_code == 404
    # an alternative opened by its own ID steps on to the file's other places
    second = _page(server, view_url(c.alternatives[0].citation_id))
    assert _cited(second) == [c.alternatives[0].locator.paragraph_index] and "place 1 of 3" in second
