"""A citation ID keeps the claim it was issued with, whatever a later search says of the same place.

Seen by a newcomer: ``search "빅포인트의 유효기간은?"`` issued ``[ioxf]`` as an exact box on p.1; a later
search (``Widget C 在2024年1月7日的收入是多少？``) found the same box only as the passage its evidence came
from and issued ``[ioxf]`` again, now a passage box (approximate). The log keeps the latest line of an
ID, so ``open "[ioxf]"`` and ``/view/ioxf`` then said approximate (a dashed box), and ``open --json`` gave
``locatorDegraded: true`` and the later search's ``openAction.searchQuery``, although the ID had been
pasted into a note when it was issued exact.

Two rules keep an ID's word (``mnote_kr.citations.render.ids``, ``mnote_kr.citations.caches.citecache``):
the claim (exact, approximate, the page a file citation knew) is part of the place an ID names, so an
exact and an approximate citation of one box get their own IDs; and the same place with the same claim
keeps its ID across searches, a later search never rewriting its claim (``open`` names each search that
printed it, with its own quote: ``tests/test_citation_reopen.py``). The workspace and replay are
``tests/test_pipeline_replay.py``'s; the PDF is one text block on page 1.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from mnote_kr_testkit.pdfs import PdfBuilder

from mnote_kr.agents.tools import OPEN_REFERENCE, call_tool
from mnote_kr.citations.caches import citecache
from mnote_kr.citations.render.cards import render_open
from mnote_kr.models import Citation
from mnote_kr.viewer.webpages import view_url
from mnote_kr_lightrag.client import naming
from tests.surfaces import api, web_page
from tests.test_pipeline_replay import Env, _entry, fresh_caches, make_env, query_data

REL = "papers/points.pdf"
LINE = "Big points stay valid for two years after the purchase."
EXACT_Q = "How long do big points stay valid?"  # its words stand in the box: exact
AGAIN_Q = "Are big points valid for two years?"  # another question the box answers: exact again
APPROX_Q = "What was the revenue of Widget C on 7 January 2024?"  # the passage only: approximate


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Env:
    fresh_caches()
    env = make_env(tmp_path, monkeypatch)
    p = PdfBuilder()
    p.text(p.add_page(), 72, 720, LINE, size=11)
    (env.ws / REL).write_bytes(p.build())
    with env.host.store.transaction() as reg:
        reg.put(_entry(env.ws, REL, "points.pdf"))
    return env


def cite(env: Env, query: str) -> Citation:
    """The one citation a search for ``query`` gives (LightRAG's chunk: the PDF's one line)."""
    doc = naming.doc_id_for("points.pdf")
    env.replay.json("POST", "/query/data", query_data(("1", "points.pdf", f"{doc}-chunk-000", LINE)))
    cited = env.by_rel(env.search(query).results, REL)
    assert len(cited) == 1 and cited[0].locator_precision == "bbox"
    return cited[0]


def another_process(env: Env) -> Env:
    """The same workspace in a fresh process: only the log on disk knows the IDs."""
    citecache._memory.clear()
    return Env(host=env.new_host(), replay=env.replay, ws=env.ws, parsed=env.parsed)


def test_an_exact_and_an_approximate_citation_of_one_box_get_their_own_ids(env: Env) -> None:
    exact, approx = cite(env, EXACT_Q), cite(env, APPROX_Q)
    assert (exact.locator.page, exact.locator.bbox) == (approx.locator.page, approx.locator.bbox)  # one box
    assert exact.locator_degraded is False and approx.locator_degraded is True
    assert exact.citation_id != approx.citation_id


@pytest.mark.parametrize("fresh", [False, True], ids=["same process", "another process"])
def test_open_of_an_id_issued_exact_stays_exact_after_a_search_cites_its_box_approximately(
        env: Env, fresh: bool) -> None:
    exact, approx = cite(env, EXACT_Q), cite(env, APPROX_Q)
    host = another_process(env).host if fresh else env.host
    plan = host.open(exact.citation_id)
    assert plan.locator.locator_degraded is False and plan.open_action.search_query == EXACT_Q
    assert " exact box, p.1 at (" in render_open(plan) and "approximate" not in render_open(plan)
    later = host.open(approx.citation_id)
    assert later.locator.locator_degraded is True and later.open_action.search_query == APPROX_Q
    assert "passage box (approximate), p.1" in render_open(later)


def test_cli_json_http_mcp_and_the_viewer_say_exact_for_the_id_issued_exact(
        env: Env, capsys: pytest.CaptureFixture[str]) -> None:
    # the console script's own entry (``mnote_kr.cli.main`` the function is shadowed by the submodule
    # of that name once any test imports ``mnote_kr.cli.main``)
    from mnote_kr.cli import _click_main as main

    exact, approx = cite(env, EXACT_Q), cite(env, APPROX_Q)
    capsys.readouterr()
    citecache._memory.clear()  # the CLI is another process: it reads the log
    assert main(["-w", str(env.ws), "open", exact.citation_id, "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["locator"]["locatorDegraded"] is False and plan["openAction"]["searchQuery"] == EXACT_Q
    mcp = msgspec.to_builtins(call_tool(env.host, OPEN_REFERENCE, {"citationId": exact.citation_id}))
    assert mcp["locator"]["locatorDegraded"] is False and mcp["openAction"]["searchQuery"] == EXACT_Q
    with api(env.host) as (server, client):
        over_http = client.post("/api/knowledge-rag/open-reference", json={"citationId": exact.citation_id}).json()
        assert over_http["locator"]["locatorDegraded"] is False
        assert over_http["openAction"]["searchQuery"] == EXACT_Q
        solid, dashed = (web_page(server, view_url(c.citation_id)) for c in (exact, approx))
    assert 'class="hl-primary" id="hl"' in solid and 'class="banner approx"' not in solid
    assert 'class="hl-primary approx" id="hl"' in dashed and 'class="banner approx"' in dashed


def test_the_same_place_with_the_same_claim_keeps_its_id_across_searches(env: Env) -> None:
    first = cite(env, EXACT_Q)
    approx = cite(env, APPROX_Q)
    again = cite(env, AGAIN_Q)
    assert again.locator_degraded is False and again.citation_id == first.citation_id
    assert cite(env, APPROX_Q).citation_id == approx.citation_id  # the approximate claim too


def test_the_anchor_of_an_exact_place_is_unchanged_and_each_other_claim_has_its_own() -> None:
    from mnote_kr.citations.render.claims import place_anchor
    from mnote_kr.models import Locator

    box = Locator(locator_precision="bbox", locator_degraded=False, page=1, bbox=[72.0, 61.6, 330.0, 74.46])
    assert place_anchor("blk", box) == "blk@b1:72,62,330,74"  # the IDs of exact places stay what they were
    assert place_anchor("blk", msgspec.structs.replace(box, locator_degraded=True)) == "blk@b1:72,62,330,74~"
    hinted = Locator(locator_precision="file", locator_degraded=True, page_hint=5)
    assert place_anchor("blk", hinted) == "blk@~p5"
    assert place_anchor("blk", Locator(locator_precision="file", locator_degraded=True)) == "blk"
