"""``mnote-kr sync`` says in words what it did, and what the stale records it leaves are.

Seen by a newcomer after editing one file, adding two, deleting one and renaming one: ``sync`` ended with
``Registry: 16 processed, 2 stale (was: 2 pending, 14 processed, 2 stale)``. "pending" was never shown to
them (it was the registry between sync's disk step and its provider step), and nothing said that the 2
stale records are the deleted file and the renamed file's old path, no longer cited and kept until
``mnote-kr prune``. The ``--json`` report keeps its fields.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import write

from mnote_kr.app.host import Host
from mnote_kr.cli import reports
from mnote_kr.cli.main import cli
from tests.test_integration_flows import make_host


def _edited_library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Host:
    ws = tmp_path / "ws"
    for i in range(14):
        write(ws / "kb" / f"n{i:02}.md", f"# Note {i}\n\nThe note numbered {i}.\n")
    host, _ = fake_host(ws, FakeProvider(delete_status="delete_completed"))
    host.roots_add(ws / "kb")
    host.ingest([ws / "kb"])
    kb = ws / "kb"
    (kb / "n00.md").write_text("# Note 0\n\nEdited, and longer than it was.\n", encoding="utf-8")
    (kb / "n01.md").unlink()
    (kb / "n02.md").rename(kb / "renamed.md")
    write(kb / "fresh1.md", "# Fresh one\n")
    write(kb / "fresh2.md", "# Fresh two, a little longer\n")
    monkeypatch.setattr(reports.Ctx, "host", lambda self, progress=False: host)
    return host


def _run(*args: str) -> Any:  # noqa: ANN401
    out = CliRunner().invoke(cli, ["sync", *args])
    assert out.exit_code == 0, out.output
    return out.output


def test_sync_says_what_it_did_in_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _edited_library(tmp_path, monkeypatch)
    text = _run()
    done = [line for line in text.splitlines() if line.startswith("Synced:")]
    assert len(done) == 1, text
    assert "re-indexed 1 edited file" in done[0], done
    assert "indexed 2 new files" in done[0], done
    assert "followed 1 rename or move (cited under its new path)" in done[0], done
    assert "1 deleted file no longer cited" in done[0], done
    registry = [line for line in text.splitlines() if line.startswith("Registry:")]
    assert len(registry) == 1, text
    assert "15 indexed" in registry[0] and "1 stale, 1 moved and followed" in registry[0], registry
    assert "'mnote-kr prune'" in registry[0] and "not cited" in registry[0], registry
    # words the user was never shown are not used: no registry status names, no before/after
    assert "pending" not in text and "processed" not in text and "was:" not in text, text


def test_a_sync_with_nothing_to_do_says_so_and_json_keeps_its_fields(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    _edited_library(tmp_path, monkeypatch)
    report = json.loads(_run("--json"))
    assert report["reconcile"]["changed"]["paths"] == ["kb/n00.md"]
    assert {"before", "after", "followed", "failed", "stillFailed"} <= set(report["provider"])
    text = _run()
    assert "Disk: no changes in 15 file(s)" in text, text
    assert "Synced:" not in text, text


@pytest.mark.integration
@pytest.mark.timeout(600)
def test_on_the_real_engine_sync_says_what_it_did_and_what_is_still_on_its_way(
        tmp_path: Path, lightrag_engine, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811, ANN001
    """Through lightrag-server, where a sent file is first 'submitted' (the newcomer's 'pending' came from there):
    'sync --wait' names what it re-indexed and indexed; the statuses are words a person was shown."""
    token = uuid.uuid4().hex[:8]
    host = make_host(tmp_path / "kb", lightrag_engine, monkeypatch)
    for i in range(4):
        write(host.root / f"n{i}.md", f"# Note {i} {token}\n\nThe heron {i} {token} fishes at dawn.\n")
    host.roots_add(host.root)
    host.ingest([host.root], wait=True, wait_s=120)
    (host.root / "n0.md").write_text(f"# Note 0 {token}\n\nThe heron 0 {token} now fishes at dusk too.\n",
                                     encoding="utf-8")
    (host.root / "n1.md").unlink()
    (host.root / "n2.md").rename(host.root / "renamed.md")
    write(host.root / "fresh.md", f"# Fresh {token}\n\nA kingfisher {token} dives.\n")
    monkeypatch.setattr(reports.Ctx, "host", lambda self, progress=False: host)
    text = _run("--wait", "120")
    done = [line for line in text.splitlines() if line.startswith("Synced:")]
    assert done == ["Synced: re-indexed 1 edited file, indexed 1 new file, followed 1 rename or move (cited under its "
                    "new path), 1 deleted file no longer cited"], text
    registry = [line for line in text.splitlines() if line.startswith("Registry:")]
    assert registry and registry[0].startswith("Registry: 4 indexed, 1 stale, 1 moved and followed ("), text
    assert "pending" not in text and "processed" not in text, text


def test_sync_and_status_count_the_registry_in_the_same_words(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """nc24a: after one rename and one delete, ``sync`` said "2 stale" where ``status`` said "1 stale, 1 moved
    and followed" for the same two records. Both now give the same counts in the same words."""
    from mnote_kr_testkit.files import digest_tree

    host = _edited_library(tmp_path, monkeypatch)
    files = host.root / "kb"
    before = digest_tree(files)
    text = _run()
    synced = next(line for line in text.splitlines() if line.startswith("Registry:"))
    assert synced.startswith("Registry: 15 indexed, 1 stale, 1 moved and followed ("), synced
    status = CliRunner().invoke(cli, ["status"])
    assert status.exit_code == 0, status.output
    headline = next(line for line in status.output.splitlines() if line.startswith("Registry:"))
    assert headline.endswith("entries (15 indexed, 1 stale, 1 moved and followed)"), headline
    report = json.loads(_run("--json"))
    assert report["provider"]["movedFollowed"] == 1  # added beside the counts, which keep their shape
    assert report["provider"]["after"] == {"processed": 15, "stale": 2}
    assert digest_tree(files) == before
