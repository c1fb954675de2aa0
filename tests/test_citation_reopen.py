"""An ID a search printed reopens what that search showed, and one place of one file version has one ID.

Seen by a newcomer (round 18): ``search "Table 2-1 FUNCTION_USAGE view"`` printed ``[1150]`` quoting the
caption and the sentence after it; ``search "FUNCTION_USAGE 视图有哪些列？"`` then cited the same caption box
again as ``[1150]``, quoting the caption alone, and ``open "[1150]" --json`` gave that later quote and the
later query as if they were the ID's: a note holding ``[1150]`` and the first quote no longer matched what
``open`` said. Meanwhile the box below the caption got ``[rbqt]`` in the first search and ``[675q]`` in the
second: the two searches reached it through two overlapping chunks, and the ID was hashed from the chunk.

The rules (``mnote_kr.citations.render.claims.id_anchor``, ``mnote_kr.citations.caches.citecache``): a
located place's ID is hashed from the file's version and the place with its claim, not from the chunk or
block that reached it; and ``open`` gives, besides the latest search's quote in ``openAction``, every
search that printed the ID (``issues``: its query, the quote it showed, when), newest first, and says in
words which search the quote it shows came from. Here a fake provider hands each query one chunk of a
Markdown file; the two chunks overlap on the paragraph both questions are about.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from mnote_kr_testkit.fakes import fake_host

from mnote_kr.agents.tools import OPEN_REFERENCE, call_tool
from mnote_kr.app.host import Host
from mnote_kr.citations.caches import citecache
from mnote_kr.citations.render.cards import render_open
from mnote_kr.hookspecs import hookimpl
from mnote_kr.models import Citation, ProviderQueryResult, ProviderReference, QueryRequest
from tests.surfaces import BlockProvider, api

REL = "docs/valley.md"
PARAGRAPHS = [
    "Sheep graze the upper pastures from June until the first snow falls in October.",
    "The glacier lost forty metres of ice in the dry summer of 2003, the worst year on record. Its tongue "
    "now ends above the old chapel, where a plaque marks the front of 1850. Wardens measure the front "
    "each autumn with a tape and a compass. Farmers below it built stone channels to carry the melt water "
    "to their fields, and the channels still run in spring.",
    "A survey in 2019 mapped the lake that the melt water filled behind the old moraine.",
]
ICE_Q = "How much ice did the glacier lose in 2003?"
CHANNELS_Q = "What did the farmers build to carry the melt water?"


class TwoChunks(BlockProvider):
    """Each query gets one chunk of the file: the ice question paragraphs 1-2, the channels question
    paragraphs 2-3 (LightRAG's chunks overlap so); each chunk is its own sidecar block."""

    @hookimpl
    def query(self, ctx: Any, request: QueryRequest) -> ProviderQueryResult:
        (name,) = self.texts
        first = request.query == ICE_Q
        text = "\n\n".join(PARAGRAPHS[:2] if first else PARAGRAPHS[1:])
        ref = ProviderReference(provider="fake", file_path=name, reference_id="1",
                                chunk_id=f"doc-{name}-chunk-{0 if first else 1}", doc_id=f"doc-{name}",
                                content=text, rank=0)
        return ProviderQueryResult(provider="fake", references=[ref], answer=None)


@pytest.fixture
def host(tmp_path: Path) -> Host:
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    (ws / REL).write_text("\n\n".join(PARAGRAPHS) + "\n", encoding="utf-8")
    h, _ = fake_host(ws, TwoChunks(delete_status="delete_completed"))
    h.roots_add(ws / "docs")
    h.ingest([ws / "docs"])
    return h


def cite(host: Host, query: str) -> Citation:
    (c,) = [c for c in host.search(query, top_k=5).results if c.source_root_relative_path == REL]
    assert c.locator_precision == "paragraph" and c.locator.paragraph_index == 1 and not c.locator_degraded
    return c


def test_one_place_reached_through_two_chunks_keeps_one_id(host: Host) -> None:
    ice, channels = cite(host, ICE_Q), cite(host, CHANNELS_Q)
    assert ice.light_rag_chunk_id != channels.light_rag_chunk_id  # two chunks, one paragraph
    assert ice.citation_id == channels.citation_id


@pytest.mark.parametrize("fresh", [False, True], ids=["same process", "another process"])
def test_open_of_an_id_names_every_search_that_printed_it_with_its_own_quote(host: Host, fresh: bool) -> None:
    ice, channels = cite(host, ICE_Q), cite(host, CHANNELS_Q)
    assert "forty metres" in (ice.display_quote or "") and "forty metres" not in (channels.display_quote or "")
    if fresh:
        citecache._memory.clear()  # another process: only the store knows the ID
    plan = host.open(ice.citation_id)
    said = [(i.search_query, i.display_quote) for i in plan.issues]
    assert said == [(CHANNELS_Q, channels.display_quote), (ICE_Q, ice.display_quote)]  # newest first
    assert all(i.issued_at for i in plan.issues)
    # openAction stays the latest search's (the viewer's "back to results"), and the words say whose it is
    assert (plan.open_action.search_query, plan.open_action.display_quote) == said[0]
    text = render_open(plan)
    assert f"quote from the latest of 2 searches that printed {ice.citation_id}" in text
    assert f"search {CHANNELS_Q!r}" in text and f"search {ICE_Q!r}" in text
    assert (ice.display_quote or "").split()[0] in text.split(f"search {ICE_Q!r}", 1)[1]


def test_the_same_search_again_is_one_issue_and_json_http_mcp_carry_the_issues(host: Host) -> None:
    ice = cite(host, ICE_Q)
    cite(host, CHANNELS_Q)
    cite(host, ICE_Q)  # the first search again: its quote is the latest now, said once
    plan = host.open(ice.citation_id)
    assert [i.search_query for i in plan.issues] == [ICE_Q, CHANNELS_Q]
    wire = json.loads(msgspec.json.encode(plan))
    assert [i["searchQuery"] for i in wire["issues"]] == [ICE_Q, CHANNELS_Q]
    assert wire["openAction"]["searchQuery"] == ICE_Q  # the contract's fields as they were
    mcp = msgspec.to_builtins(call_tool(host, OPEN_REFERENCE, {"citationId": ice.citation_id}))
    assert [i["searchQuery"] for i in mcp["issues"]] == [ICE_Q, CHANNELS_Q]
    with api(host) as (_, client):
        over_http = client.post("/api/knowledge-rag/open-reference", json={"citationId": ice.citation_id}).json()
    assert [i["displayQuote"] for i in over_http["issues"]] == [i.display_quote for i in plan.issues]


def test_an_id_one_search_printed_says_so_without_a_list(host: Host) -> None:
    ice = cite(host, ICE_Q)
    plan = host.open(ice.citation_id)
    assert [i.search_query for i in plan.issues] == [ICE_Q]
    text = render_open(plan)
    assert f"quote from search {ICE_Q!r}" in text and "latest of" not in text
