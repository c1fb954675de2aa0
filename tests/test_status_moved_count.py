"""``status`` counts a followed move apart from a stale file.

A newcomer (nc18b, problem 7) renamed a workbook and moved a deck (both followed, cited under their new
paths), then deleted one PDF, and read ``Registry: 17 entries (14 processed, 3 stale)``: the headline made
three files look broken where one was gone. The old path's record of a followed move is kept (``open``
follows old IDs through it) and is stale in the registry, so ``--json``'s ``byStatus`` keeps counting it
there; ``movedFollowed`` (added) says how many of those are moves followed, and the text counts them apart.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import digest_tree, write

from mnote_kr.agents.contracts import StatusInput
from mnote_kr.agents.tools import tool_status
from mnote_kr.app.host import Host
from mnote_kr.citations.render.statustext import render_status
from mnote_kr.sync.reconcile import reconcile_and_apply


@pytest.fixture
def moved_twice_one_gone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Host:
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    ws = tmp_path / "ws"
    ws.mkdir()
    host, _ = fake_host(ws, FakeProvider())
    for name in ("sheet", "deck", "report"):
        write(ws / f"{name}.md", f"the {name} of the heron survey\n")
    host.roots_add(ws)
    host.ingest(["."])
    (ws / "decks").mkdir()
    (ws / "sheet.md").rename(ws / "sheet_2024.md")  # a rename
    (ws / "deck.md").rename(ws / "decks" / "deck.md")  # a move into a folder
    host.ingest(["."])  # both followed: the old records say "moved to NEW"
    (ws / "report.md").unlink()
    reconcile_and_apply(host)  # the one file really gone
    return host


def test_status_counts_followed_moves_apart_from_the_file_that_is_gone(moved_twice_one_gone: Host) -> None:
    host = moved_twice_one_gone
    before = digest_tree(host.root)
    info = host.status()
    reg = info["registry"]
    assert reg["byStatus"] == {"processed": 2, "stale": 3} and reg["stale"] == 3  # the JSON contract, as before
    assert reg["movedFollowed"] == 2
    json.dumps(info)  # a field --json can print

    text = render_status(info)
    headline = next(line for line in text.splitlines() if line.startswith("Registry:"))
    assert headline == "Registry:  5 entries (2 indexed, 1 stale, 2 moved and followed)", headline
    assert "Moved:     sheet.md -> sheet_2024.md" in text and "Moved:     deck.md -> decks/deck.md" in text
    assert "Stale:     report.md" in text
    assert tool_status(host, StatusInput()).registry.moved_followed == 2  # the agents' status tool says it too
    assert digest_tree(host.root) == before


def test_after_prune_no_move_is_counted(moved_twice_one_gone: Host) -> None:
    host = moved_twice_one_gone
    assert {"sheet.md", "deck.md"} <= set(host.prune())
    info = host.status()
    assert info["registry"]["movedFollowed"] == 0
    text = render_status(info)
    headline = next(line for line in text.splitlines() if line.startswith("Registry:"))
    assert "moved" not in headline and "Moved:" not in text, text
