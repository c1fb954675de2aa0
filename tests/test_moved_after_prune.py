"""An ID issued before a rename still opens after ``prune``; a pruned file's ID says why on every surface.

Seen by a newcomer (round 16): after ``mv`` an old ID opened at the new path, but ``mnote-kr prune`` (which
``status`` recommends) dropped the "moved to NEW" record the lookup followed: ``open`` then said "the file
is no longer in the knowledge base" though its bytes were indexed under the new name, and the viewer said
404 "never issued in this workspace", contradicting it. ``prune`` now keeps the move (``core.pruned_moves``,
bounded), and the viewer gives the reason ``open`` gives for a file pruned from the registry.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import httpx
import pytest
from mnote_kr_testkit.fakes import fake_host
from mnote_kr_testkit.files import digest_tree, write

from mnote_kr.agents.contracts import OpenReferenceInput
from mnote_kr.agents.tools import tool_open_reference
from mnote_kr.app.host import Host
from mnote_kr.core import pruned_moves
from mnote_kr.errors import NotFoundError
from mnote_kr.sync.reconcile import reconcile_and_apply
from mnote_kr.viewer import web
from tests.surfaces import api
from tests.test_cli_errors import Cli, closed_port

HERON = "# Heron\n\nThe grey heron waits over the marsh.\n"
NO_LONGER = "the file is no longer in the knowledge base"


def _cited(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Host, Cli, dict[str, str]]:
    """A workspace whose heron note and kettle note were cited, and the CLI on it (same home)."""
    ws = tmp_path / "ws"
    write(ws / "notes" / "heron.md", HERON)
    write(ws / "notes" / "kettle.md", "# Kettle\n\nA copper kettle sings on the stove.\n")
    cli = Cli(ws, url=f"http://127.0.0.1:{closed_port()}")  # the CLI never asks the provider to open
    monkeypatch.setenv("MNOTE_KR_HOME", str(cli.home))
    host, _ = fake_host(ws)
    host.roots_add(ws)
    host.ingest(["."])
    ids = {}
    for query, rel in (("heron over the marsh", "notes/heron.md"), ("copper kettle on the stove", "notes/kettle.md")):
        ids[rel] = next(c.citation_id for c in host.search(query).results if c.source_root_relative_path == rel)
    return host, cli, ids


def _view(host: Host, cid: str) -> httpx.Response:
    with api(host) as (server, _), httpx.Client(base_url=server.url, timeout=30) as browser:
        browser.get(web.entry_url(server))  # the sign-in link sets the session cookie
        return browser.get(f"/view/{cid.strip('[]')}")


def test_an_id_issued_before_a_rename_opens_at_the_new_path_after_prune_on_every_surface(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host, cli, ids = _cited(tmp_path, monkeypatch)
    cid = ids["notes/heron.md"]
    before = host.open(cid)
    (host.root / "notes" / "heron.md").rename(host.root / "notes" / "heron_renamed.md")
    reconcile_and_apply(host)  # sync: "moved to notes/heron_renamed.md"
    bytes_before = digest_tree(host.root)

    assert "notes/heron.md" in cli.ok("prune", "--json")["removed"]

    assert "notes/heron.md" not in host.registry().entries
    plan = host.open(cid)  # the Python API, as HTTP and MCP call it
    assert plan.resource_root_relative_path == "notes/heron_renamed.md"
    assert plan.locator == before.locator and plan.moved_from == "notes/heron.md"
    shown = cli.ok("open", cid)
    assert "heron_renamed.md" in shown and "moved from notes/heron.md" in shown
    assert tool_open_reference(host, OpenReferenceInput(citation_id=cid)).resource_root_relative_path \
        == "notes/heron_renamed.md"
    with api(host) as (_, client):
        answer = client.post("/api/knowledge-rag/open-reference", json={"citationId": cid})
    assert answer.status_code == 200, answer.text
    assert answer.json()["resourceRootRelativePath"] == "notes/heron_renamed.md"
    page = _view(host, cid)
    assert page.status_code == 200, page.text
    assert digest_tree(host.root) == bytes_before  # nothing written to the user's files


def test_a_pruned_files_id_gives_the_same_reason_in_open_and_the_viewer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host, cli, ids = _cited(tmp_path, monkeypatch)
    cid = ids["notes/kettle.md"]
    (host.root / "notes" / "kettle.md").unlink()
    reconcile_and_apply(host)
    cli.ok("prune")

    with pytest.raises(NotFoundError, match=NO_LONGER):
        host.open(cid)
    assert NO_LONGER in cli.fails("open", cid, code=1)
    with api(host) as (_, client):
        answer = client.post("/api/knowledge-rag/open-reference", json={"citationId": cid})
    assert answer.status_code == 404 and NO_LONGER in answer.json()["error"]["message"]
    page = _view(host, cid)
    assert page.status_code == 410 and NO_LONGER in page.text and "never issued" not in page.text


def test_a_new_file_at_the_old_path_wins_over_a_pruned_move(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host, cli, ids = _cited(tmp_path, monkeypatch)
    cid = ids["notes/heron.md"]
    (host.root / "notes" / "heron.md").rename(host.root / "notes" / "heron_renamed.md")
    reconcile_and_apply(host)
    host.prune()
    write(host.root / "notes" / "heron.md", "# Heron\n\nAnother heron, another marsh, other words.\n")
    host.ingest(["notes/heron.md"])

    with pytest.raises(NotFoundError, match="changed since"):
        host.open(cid)  # the path's entry now: not where the old bytes went


def test_pruned_moves_keep_the_latest_and_are_followed_along_later_moves(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pruned_moves, "MAX_MOVES", 3)
    index = tmp_path / "index"
    index.mkdir()
    pruned_moves.keep(index, {"a.md": "b.md", "x.md": "y.md"})
    pruned_moves.keep(index, {"c.md": "d.md", "a.md": "b2.md"})
    pruned_moves.keep(index, {"e.md": "f.md"})

    kept = json.loads((index / pruned_moves.PRUNED_MOVES_FILE).read_bytes())["moves"]
    assert kept == [["c.md", "d.md"], ["a.md", "b2.md"], ["e.md", "f.md"]]
    assert pruned_moves.load(index) == {"c.md": "d.md", "a.md": "b2.md", "e.md": "f.md"}
    (index / pruned_moves.PRUNED_MOVES_FILE).write_bytes(b"{not json")
    assert pruned_moves.load(index) == {}  # a damaged file never fails a lookup


def test_a_pruned_move_travels_with_registry_export_and_import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``registry export`` carries the moves ``prune`` kept (``prunedMoves``) and ``registry import`` puts
    them back: the workspace's ``.mnote/index`` lost (a folder restored without it), the export imported into
    a fresh one, an ID issued before the rename still opens at the renamed file."""
    host, cli, ids = _cited(tmp_path, monkeypatch)
    cid = ids["notes/heron.md"]
    (host.root / "notes" / "heron.md").rename(host.root / "notes" / "heron_renamed.md")
    reconcile_and_apply(host)
    cli.ok("prune", "--json")
    exported = tmp_path / "reg.json"
    exported.write_text(cli.run("registry", "export").stdout, encoding="utf-8")
    assert json.loads(exported.read_text())["prunedMoves"] == [["notes/heron.md", "notes/heron_renamed.md"]]

    shutil.rmtree(host.store.index_dir)
    fresh, _ = fake_host(host.root)
    assert "Imported" in cli.run("registry", "import", str(exported)).stdout
    assert pruned_moves.load(fresh.store.index_dir) == {"notes/heron.md": "notes/heron_renamed.md"}
    plan = fresh.open(cid)
    assert plan.resource_root_relative_path == "notes/heron_renamed.md" and plan.moved_from == "notes/heron.md"
    again = json.loads(cli.run("registry", "export").stdout)
    before = json.loads(exported.read_text())
    again.pop("updatedAtMs"), before.pop("updatedAtMs")  # the import's save
    assert again == before  # the round trip keeps it whole
