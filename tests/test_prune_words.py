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
    assert "Kept 1 deleted record(s): LightRAG has not confirmed the delete yet" in words and "mnote-kr sync" in words
    assert cli.ok("prune", "--json") == {"removed": []}  # the JSON contract is unchanged
    assert note.exists() and sha(note) == digest


def test_prune_keeps_the_record_of_a_failed_file_still_on_disk_and_says_why(tmp_path: Path) -> None:
    """A newcomer's ``prune`` dropped the failed record of broken.pdf, still on disk: status then said
    everything was processed, until the next sync failed it again."""
    ws = tmp_path / "ws"
    (ws / "d").mkdir(parents=True)
    (ws / "d" / "note.md").write_text("# Note\n\nThe copper kettle hums.\n", encoding="utf-8")
    broken, gone = ws / "d" / "broken.pdf", ws / "d" / "gone.pdf"
    broken.write_bytes(b"%PDF-1.4 not really")
    gone.write_bytes(b"%PDF-1.4 not this one either")
    digest = sha(broken)
    host, _ = fake_host(ws, FakeProvider(suffixes=frozenset({".md"}), delete_status="delete_completed"))
    host.roots_add("d")
    report = host.ingest(["d/note.md", "d/broken.pdf", "d/gone.pdf"], wait=True)
    assert report.counts == {"failed": 2, "processed": 1}
    gone.unlink()  # its record describes nothing now: prune drops it

    assert host.prune() == ["d/gone.pdf"]
    assert [f["sourcePath"] for f in host.status()["registry"]["failed"]] == ["d/broken.pdf"]  # still seen

    cli = Cli(ws, url=f"http://127.0.0.1:{closed_port()}")
    words = cli.ok("prune").splitlines()
    assert words[0] == "Pruned 0 record(s)"
    kept = [line for line in words if line.startswith("Kept")]
    assert len(kept) == 1 and "1 record(s) of files still on disk" in kept[0] and "d/broken.pdf" in kept[0], words
    assert cli.ok("prune", "--json") == {"removed": []}  # the JSON contract is unchanged
    assert sha(broken) == digest
