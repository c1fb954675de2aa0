"""A malformed citation ID is the caller's mistake on every surface; an unknown well-formed one is not found.

The viewer's ``mnote-kr.locate`` already answers ``bad_request`` for ``"hello world"`` (``shell.js``);
``open``, ``POST /open-reference`` and the MCP tool answered ``404 Unknown citation [hello world]``.
The syntax is the viewer's: ``[`` optional, 1-40 of ``A-Z a-z 0-9 -``, ``]`` optional (``[a3z1`` is ``[a3z1]``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mnote_kr_testkit.fakes import fake_host

from mnote_kr.agents import tools
from mnote_kr.citations.render.openplan import normalize_citation_id
from mnote_kr.errors import NotFoundError, UsageError
from mnote_kr.server.app import ApiServer
from tests.test_viewer_web import site  # noqa: F401  (fixture)

API = "/api/knowledge-rag"
MALFORMED = ["hello world", "a3z1]]", "[]", "[[a3z1]]", "a3z1/../x", "é3z1", "x" * 41, "[a b]"]


def test_the_id_syntax_is_the_viewers() -> None:
    for good, norm in (("a3z1", "[a3z1]"), ("[a3z1]", "[a3z1]"), (" [IMG-p4f2] ", "[IMG-p4f2]"),
                       ("[a3z1", "[a3z1]"), ("zz9q", "[zz9q]")):
        assert normalize_citation_id(good) == norm
    for bad in MALFORMED:
        with pytest.raises(UsageError, match="Not a citation ID"):
            normalize_citation_id(bad)


def test_a_citation_url_given_for_an_id_is_told_what_open_takes() -> None:
    """A newcomer passed ``open`` the ``citationUrl`` it had printed and read only "Not a citation ID"."""
    url = "mnote-kr://open?path=notes/heron.md&precision=paragraph&paragraph=2"
    with pytest.raises(UsageError) as bad:
        normalize_citation_id(url)
    assert "citation URL" in bad.value.message and "[a3z1]" in bad.value.message
    assert "mnote-kr://" in bad.value.message


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[ApiServer, httpx.Client]]:
    (tmp_path / "ws" / "docs").mkdir(parents=True)
    host, _ = fake_host(tmp_path / "ws")
    with ApiServer(host) as server, httpx.Client(
        base_url=server.url, headers={"Authorization": f"Bearer {server.token}"}, timeout=10
    ) as client:
        yield server, client


def test_open_reference_over_http_is_400_for_a_malformed_id_and_404_for_an_unknown_one(served) -> None:
    _, client = served
    for bad in MALFORMED:
        r = client.post(f"{API}/open-reference", json={"citationId": bad})
        assert r.status_code == 400, (bad, r.text)
        error = r.json()["error"]
        assert error["code"] == "usage" and error["message"].startswith("Not a citation ID")
        assert "\n" not in error["message"]
    unknown = client.post(f"{API}/open-reference", json={"citationId": "[zz9q]"})
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "not_found"


def test_the_mcp_tool_says_the_same(served) -> None:
    server, _ = served
    with pytest.raises(UsageError) as bad:
        tools.call_tool(server.host, tools.OPEN_REFERENCE, {"citationId": "hello world"})
    assert tools.error_text(bad.value).startswith("Error: Not a citation ID: 'hello world' (")
    with pytest.raises(NotFoundError, match=r"Unknown citation \[zz9q\]"):
        tools.call_tool(server.host, tools.OPEN_REFERENCE, {"citationId": "zz9q"})


def test_the_viewers_place_lookup_answers_bad_request_for_a_malformed_from(site) -> None:  # noqa: F811
    server, _, cites, _ = site
    cid = cites[".docx"].citation_id.strip("[]")
    bearer = {"Authorization": f"Bearer {server.token}"}
    with httpx.Client(base_url=server.url, headers=bearer, timeout=30) as client:
        bad = client.get(f"/view/{cid}/place.json", params={"from": "hello world"})
        assert bad.status_code == 400 and bad.headers["content-type"] == "application/json"
        assert bad.json()["error"]["code"] == "bad_request" and "Not a citation ID" in bad.json()["error"]["message"]
        ok = client.get(f"/view/{cid}/place.json", params={"from": "zz9q"})  # well-formed, unknown: not this file
        assert ok.status_code == 200 and ok.json()["sameDocument"] is False
