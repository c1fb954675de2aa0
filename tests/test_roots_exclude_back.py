"""An exclude taken away brings its files back into the scope, and says so (nc17b P7).

``roots add . --exclude decks`` dropped the deck; ``roots add .`` again said only "Updated root ." and the
deck stayed out of the index until a sync nobody was told to run, while ``status`` still said "Moved:
chart.pptx -> decks/chart.pptx (followed: cited under the new path)" of a file cited nowhere. The real CLI
in a workspace whose provider is down (nothing here needs it); the registry is the one a move and an index
left behind."""

from __future__ import annotations

import hashlib
from pathlib import Path

from mnote_kr.app.host import Host
from mnote_kr.models import SourceEntry
from tests.test_cli_errors import Cli, closed_port


def _workspace(tmp_path: Path) -> tuple[Cli, dict[Path, str]]:
    cli = Cli(tmp_path / "ws", url=f"http://127.0.0.1:{closed_port()}")
    (cli.ws / "decks").mkdir()
    chart = cli.ws / "decks" / "chart.md"
    chart.write_text("# Ducks\n\nSaltwater ducks in 2021.\n", encoding="utf-8")
    (cli.ws / "decks" / "later.md").write_text("# Later\n\nNever indexed.\n", encoding="utf-8")
    (cli.ws / "notes.md").write_text("# Notes\n\nThe herons.\n", encoding="utf-8")
    cli.ok("roots", "add", ".")
    host = Host(cli.ws)
    with host.store.transaction() as reg:  # chart.md was indexed at the top, then moved to decks/ and followed
        for rel, extra in (("chart.md", {"stale": True, "stale_reason": "moved to decks/chart.md"}),
                           ("decks/chart.md", {}), ("notes.md", {})):
            reg.put(SourceEntry(source_id="src-" + rel, source_path=str(cli.ws / rel), source_root_relative_path=rel,
                                status="pending", **extra))
    return cli, {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in cli.ws.rglob("*.md")}


def test_taking_an_exclude_away_names_what_comes_back_and_the_sync_that_indexes_it(tmp_path: Path) -> None:
    cli, sources = _workspace(tmp_path)
    said = cli.ok("roots", "add", ".", "--exclude", "decks")
    assert "Dropped from the index: decks/chart.md (excluded by pattern 'decks' of root .)" in said, said
    status = cli.ok("status")
    assert "Moved:" not in status and "followed" not in status, status  # cited nowhere: no move followed
    assert "chart.md: its file moved to decks/chart.md, which is not cited: excluded by pattern 'decks'" in status

    said = cli.ok("roots", "add", ".")
    assert "Updated root .: now (recursive), was (recursive) exclude=decks" in said, said
    assert "Back in the scope: decks/chart.md (no longer excluded); 'mnote-kr sync' indexes it" in said, said
    assert "Back in the scope: decks/later.md (no longer excluded); 'mnote-kr sync' indexes it" in said, said
    assert "notes.md" not in said
    status = cli.ok("status")
    assert "Moved:" not in status and "excluded by pattern" not in status, status
    assert "decks/chart.md: back in the scope of root . (no longer excluded); 'mnote-kr sync' indexes it" in status

    cli.ok("roots", "add", ".", "--exclude", "decks", "--no-follow")
    root = cli.ok("roots", "add", ".", "--no-follow", "--json")  # a root that does not follow: ingest indexes it
    assert root["backInScope"] == [
        {"sourcePath": "decks/chart.md", "fix": "'mnote-kr ingest decks/chart.md' indexes it"},
        {"sourcePath": "decks/later.md", "fix": "'mnote-kr ingest decks/later.md' indexes it"}]
    assert "backInScope" not in cli.ok("roots", "add", ".", "--json")  # the same scope: nothing comes back
    assert {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in sources} == sources
