"""After a rename, ``status`` offers one fix: ``sync``, which follows the move.

A newcomer (nc25b, problem 7) renamed an indexed file and read two fixes: "New: ... 'mnote-kr ingest .'"
for the new name and "Missing: ... 'mnote-kr sync'" for the old one. A new file whose bytes are those of
a missing entry is a move that ``sync`` follows (by content): ``status`` says so on one ``Moved:`` line,
counts it in ``movedSinceIndexed``, and neither as new nor as missing. Only a new file of a missing
file's size is read.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import digest_tree, write

from mnote_kr.agents.contracts import StatusInput
from mnote_kr.agents.tools import tool_status
from mnote_kr.app.host import Host
from mnote_kr.citations.render.statustext import render_status
from mnote_kr.sync.reconcile import reconcile_and_apply


@pytest.fixture
def renamed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Host:
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    ws = tmp_path / "ws"
    ws.mkdir()
    host, _ = fake_host(ws, FakeProvider())
    write(ws / "weekly.md", "the heron survey of the marsh, week one\n")
    write(ws / "gone.md", "the kettle sings at dawn, every day\n")
    host.roots_add(ws)
    host.ingest(["."])
    (ws / "weekly.md").rename(ws / "周报.md")  # a rename: same bytes, new name
    (ws / "gone.md").unlink()
    write(ws / "other.md", "the kettle hums at dusk, every day!\n")  # new, and of gone.md's size: not a move
    assert (ws / "other.md").stat().st_size == len("the kettle sings at dawn, every day\n")
    return host


def test_a_rename_is_one_move_that_sync_follows_not_a_new_and_a_missing_file(renamed: Host) -> None:
    host = renamed
    before = digest_tree(host.root)
    info = host.status()
    json.dumps(info)
    assert info["movedSinceIndexed"]["count"] == 1
    assert info["movedSinceIndexed"]["moves"] == [{"from": "weekly.md", "to": "周报.md"}]
    assert "mnote-kr sync" in info["movedSinceIndexed"]["fix"]
    assert info["pendingNew"]["paths"] == ["other.md"]  # the renamed file is not new
    assert info["missingSinceIndexed"]["paths"] == ["gone.md"]  # nor missing

    lines = render_status(info).splitlines()
    moved = [line for line in lines if "周报.md" in line]
    assert len(moved) == 1 and moved[0].startswith("Moved:") and "weekly.md -> 周报.md" in moved[0], lines
    assert "'mnote-kr sync' follows" in moved[0] and "ingest" not in moved[0]
    assert not any("weekly.md" in line for line in lines if line.startswith(("New:", "Missing:")))

    agent = msgspec.to_builtins(tool_status(host, StatusInput()))
    assert agent["movedSinceIndexed"]["moves"] == [{"from": "weekly.md", "to": "周报.md"}]
    assert agent["newFilesNotIngested"] == 1

    reconcile_and_apply(host)  # the fix it names does follow the move
    after = host.status()
    assert after["movedSinceIndexed"]["count"] == 0
    assert host.registry().entries["周报.md"].status == "processed"
    assert host.registry().entries["weekly.md"].stale_reason == "moved to 周报.md"
    assert digest_tree(host.root) == before


def test_a_move_sync_followed_says_so_on_its_own_status_line(renamed: Host) -> None:
    """nc25c: after 'sync' followed the rename, 'status' still printed a bare "Moved: OLD -> NEW" line, read as
    a move still to follow; the line itself now says it was followed and nothing is left to do."""
    host = renamed
    before = digest_tree(host.root)
    reconcile_and_apply(host)
    lines = render_status(host.status()).splitlines()
    moved = [line for line in lines if line.startswith("Moved:")]
    assert len(moved) == 1 and "weekly.md -> 周报.md" in moved[0], lines
    assert "followed" in moved[0] and "nothing to do" in moved[0], moved
    assert digest_tree(host.root) == before
