"""A file taken out with ``delete`` stays out: ``prune`` keeps the record that keeps it out while the file
is on disk (a user's delete is a decision, not housekeeping), and drops it once the file is gone (nc27b:
``delete`` + ``prune`` + ``sync`` indexed the file again, against docs/sync.md's promise)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mnote_kr_testkit.fakes import FakeProvider

from tests.surfaces import cli_kb


def test_a_deleted_file_stays_out_after_prune_and_sync(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    kb = cli_kb(tmp_path, monkeypatch, capsys, FakeProvider(delete_status="delete_completed"))
    kb.run("roots", "add", "kb")  # a root sync follows: the record is what keeps a.md out of it
    kb.run("ingest", "kb", "--wait")
    out, _ = kb.run("delete", "kb/a.md")
    assert out.splitlines()[0].split() == ["deleted", "kb/a.md"], out  # status's words, not delete_completed (nc27c)
    assert "'mnote-kr ingest FILE' adds one back" in out, out
    assert kb.host.registry().entries["kb/a.md"].status == "delete_completed"
    sent = kb.provider.calls.count("ingest")

    out, _ = kb.run("prune")
    assert "Pruned 0 record(s)" in out
    assert "Kept 1 record(s) of files taken out with 'mnote-kr delete'" in out and "kb/a.md" in out, out
    report = json.loads(kb.run("prune", "--json")[0])
    assert report["removed"] == [] and report["keptDeleted"] == ["kb/a.md"]

    kb.run("sync")  # follows the disk: the file is there, and stays out
    entry = kb.host.registry().entries["kb/a.md"]
    assert entry.stale and entry.status == "delete_completed"
    assert kb.provider.calls.count("ingest") == sent
    assert "kb/a.md" not in kb.provider.texts or not any(
        c.source_root_relative_path == "kb/a.md" for c in kb.host.search("amber lamp").results)
    status = kb.run("status")[0]
    # it does not tell the person prune drops what prune keeps (nc27c)
    assert "'mnote-kr prune' drops" not in status and "'mnote-kr prune' keeps the record" in status, status
    assert "New:" not in status or "kb/a.md" not in status.split("New:", 1)[1].split("\n", 1)[0], status

    (kb.ws / "kb" / "a.md").unlink()  # the file itself gone: its record may go
    report = json.loads(kb.run("prune", "--json")[0])
    assert report["removed"] == ["kb/a.md"] and report["keptDeleted"] == []
    assert "kb/a.md" not in kb.host.registry().entries
    assert (kb.ws / "kb" / "b.md").read_text(encoding="utf-8") == "# B\n\nThe blue kettle sings.\n"


@pytest.mark.parametrize("leave", [("roots", "remove", "kb"), ("roots", "add", "kb", "--exclude", "a.md")])
def test_a_deleted_file_out_of_every_indexed_root_is_pruned_though_on_disk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        leave: tuple[str, ...]) -> None:
    """review r28 finding 9: the record that keeps a deleted file out is kept only while a sync could send the file
    again; its root removed, or the file excluded, none ever will, and the record was kept forever."""
    kb = cli_kb(tmp_path, monkeypatch, capsys, FakeProvider(delete_status="delete_completed"))
    kb.run("roots", "add", "kb")  # a root sync follows: the record is what keeps a.md out of it
    kb.run("ingest", "kb", "--wait")
    kb.run("delete", "kb/a.md")
    assert json.loads(kb.run("prune", "--json")[0])["keptDeleted"] == ["kb/a.md"]  # in the root: kept

    kb.run(*leave)
    report = json.loads(kb.run("prune", "--json")[0])
    assert report["removed"] == ["kb/a.md"] and report["keptDeleted"] == []
    assert "kb/a.md" not in kb.host.registry().entries
    assert (kb.ws / "kb" / "a.md").is_file()  # the user's file is only read


def test_a_deleted_file_ingested_outside_every_root_is_pruned_though_on_disk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """No sync walks a folder that is no root, so no record keeps the file out of one (an 'ingest FOLDER' sends it
    again, record or not)."""
    kb = cli_kb(tmp_path, monkeypatch, capsys, FakeProvider(delete_status="delete_completed"))
    kb.run("ingest", "kb", "--wait")
    kb.run("delete", "kb/a.md")
    report = json.loads(kb.run("prune", "--json")[0])
    assert report["removed"] == ["kb/a.md"] and report["keptDeleted"] == []
    assert (kb.ws / "kb" / "a.md").is_file()


def test_a_deleted_file_in_a_folder_sync_never_walks_is_pruned_though_on_disk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """review r29 finding 11: ``prune`` asked "would a sync send it" by hand and left out the folders no walk enters
    (``SKIP_DIRS``: node_modules, target, .git ...); it now asks the walk's own rule (``scan.admitted``)."""
    kb = cli_kb(tmp_path, monkeypatch, capsys, FakeProvider(delete_status="delete_completed"))
    kb.run("roots", "add", "kb")
    note = kb.ws / "kb" / "node_modules" / "pkg.md"
    note.parent.mkdir()
    note.write_text("# Pkg\n\nThe copper kettle hums.\n", encoding="utf-8")
    kb.run("ingest", "kb/node_modules/pkg.md", "--wait")  # named by the person: sent, though no sync walks there
    assert "kb/node_modules/pkg.md" in kb.host.registry().entries
    kb.run("delete", "kb/node_modules/pkg.md")
    report = json.loads(kb.run("prune", "--json")[0])
    assert report["removed"] == ["kb/node_modules/pkg.md"] and report["keptDeleted"] == []
    assert note.read_text(encoding="utf-8") == "# Pkg\n\nThe copper kettle hums.\n"  # the user's file is only read
