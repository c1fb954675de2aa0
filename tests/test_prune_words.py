"""``prune`` keeps a record whose delete LightRAG has not confirmed, and says so (a newcomer ran
``delete`` then ``prune`` and read "Pruned 0 record(s)" with no reason)."""

from __future__ import annotations

from pathlib import Path

from mnote_kr_testkit.fakes import FakeProvider, fake_host

from tests.test_cli_errors import Cli, closed_port, sha


def test_prune_says_why_a_deleted_record_stays(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "d").mkdir(parents=True)
    note = ws / "d" / "gone.md"
    note.write_text("# Gone\n\nThe tungsten filament glows amber.\n", encoding="utf-8")
    digest = sha(note)
    host, _ = fake_host(ws, FakeProvider(delete_status="delete_submitted"))
    host.roots_add("d")
    host.ingest(["d"], wait=True)
    assert [e.status for e in host.delete(["d/gone.md"])] == ["delete_submitted"]
    assert host.prune() == [] and host.deletes_waiting() == 1

    cli = Cli(ws, url=f"http://127.0.0.1:{closed_port()}")
    words = cli.ok("prune")
    assert words.splitlines()[0] == "Pruned 0 record(s)"
    assert "Kept 1 deleted record(s): lightrag has not confirmed the delete yet" in words and "mnote-kr sync" in words
    pruned = cli.ok("prune", "--json")
    assert pruned["removed"] == [] and pruned["deletesWaiting"] == 1  # "removed" as before; the rest added
    assert note.exists() and sha(note) == digest
