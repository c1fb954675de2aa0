"""An ID issued before its file was renamed opens the same place in the file at its new path.

Seen by a newcomer: after ``mv`` and ``sync`` (the registry says "moved to NEW": same bytes, the document
taken over), ``open "[n6lf]"`` answered "the file was moved to ... since this citation was issued",
though the README says a moved file is cited under its new path. The bytes are the same, so the locator
is too: ``open`` (CLI, HTTP, MCP share ``Host.open``) and the viewer open the new path and say it moved.
A file whose bytes changed after the move is still refused.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mnote_kr_testkit.files import digest_tree

from mnote_kr.app.host import Host
from mnote_kr.citations.render.cards import render_open
from mnote_kr.errors import NotFoundError
from mnote_kr.sync.reconcile import reconcile_and_apply
from mnote_kr.viewer import web
from tests.heron import heron_host

QUERY = "heron over the marsh"


def _issued_then_moved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Host, str, dict]:
    host = heron_host(tmp_path, monkeypatch, other="# Other\n\nA kettle on the stove.\n")
    ws = host.root
    found = [c for c in host.search(QUERY).results if c.source_root_relative_path == "notes/heron.md"]
    assert found, "the fake provider cites the heron note"
    before = host.open(found[0].citation_id)
    (ws / "notes" / "heron.md").rename(ws / "notes" / "heron_renamed.md")
    reconcile_and_apply(host)  # sync: the registry now says "moved to notes/heron_renamed.md"
    assert host.registry().entries["notes/heron.md"].stale_reason == "moved to notes/heron_renamed.md"
    return host, found[0].citation_id, {"plan": before, "bytes": digest_tree(ws)}


def test_an_id_issued_before_a_rename_opens_the_same_place_at_the_new_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host, cid, before = _issued_then_moved(tmp_path, monkeypatch)

    plan = host.open(cid)

    assert plan.resource_root_relative_path == "notes/heron_renamed.md"
    assert Path(plan.resource_path) == host.root / "notes" / "heron_renamed.md"
    assert plan.locator == before["plan"].locator  # same bytes, same place
    assert plan.moved_from == "notes/heron.md"
    # the URL a desktop shell or an agent follows names the file where it is now (a newcomer's named the old one)
    assert plan.citation_url.startswith("mnote-kr://open?path=notes/heron_renamed.md&")
    assert plan.citation_url.split("&", 1)[1] == before["plan"].citation_url.split("&", 1)[1]
    assert "moved" in (plan.note or "") and "notes/heron_renamed.md" in (plan.note or "")
    shown = render_open(plan)
    assert "heron_renamed.md" in shown and "moved from notes/heron.md" in shown
    assert digest_tree(host.root) == before["bytes"]  # nothing written to the user's files


def test_the_viewer_shows_a_moved_files_citation_from_its_new_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host, cid, _ = _issued_then_moved(tmp_path, monkeypatch)

    src = web._source(host, cid)

    assert src is not None and src.path == host.root / "notes" / "heron_renamed.md"
    assert src.citation.source_root_relative_path == "notes/heron_renamed.md"


def test_an_id_whose_file_changed_after_the_move_is_still_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host, cid, _ = _issued_then_moved(tmp_path, monkeypatch)
    moved = host.root / "notes" / "heron_renamed.md"
    moved.write_text("# Heron\n\nThe heron has flown; the marsh is empty now.\n", encoding="utf-8")
    reconcile_and_apply(host)

    with pytest.raises(NotFoundError, match="changed"):
        host.open(cid)
    with pytest.raises(web._Gone):
        web._source(host, cid)
