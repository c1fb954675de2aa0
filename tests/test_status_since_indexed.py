"""``status`` names the indexed files that changed or went on disk since they were indexed, before any ``sync``.

Seen by a newcomer: after editing one file, deleting one and renaming one, ``status`` said only
``New: 3 file(s)``; the edit and the deletion were invisible until a search happened to warn
(``deleted from disk since indexed: ... run 'mnote-kr sync'``). ``status`` now asks what search asks
(``core.ondisk``: the walk's stat of each file, a hash only for a touched file of the indexed size) and
says which command brings them back.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import spy_opens, write

from mnote_kr.app.host import Host
from mnote_kr.citations.render.statustext import render_status
from mnote_kr.sync.reconcile import reconcile_and_apply


def _indexed(tmp_path: Path, **roots: Any) -> Host:  # noqa: ANN401
    ws = tmp_path / "ws"
    for name in ("amber", "birch", "cedar", "delta"):
        write(ws / "kb" / f"{name}.md", f"# {name}\n\nThe {name} note.\n")
    host, _ = fake_host(ws, FakeProvider(delete_status="delete_completed"))
    host.roots_add(ws / "kb", **roots)
    host.ingest([ws / "kb"])
    return host


def test_status_names_edited_deleted_and_renamed_files_before_sync(tmp_path: Path) -> None:
    host = _indexed(tmp_path)
    kb = host.root / "kb"
    (kb / "amber.md").write_text("# amber\n\nEdited, and longer than before.\n", encoding="utf-8")
    (kb / "birch.md").unlink()
    (kb / "cedar.md").rename(kb / "cypress.md")
    touched = kb / "delta.md"  # touched only: same bytes, new time, so still the indexed version
    os.utime(touched, ns=(touched.stat().st_atime_ns, touched.stat().st_mtime_ns + 5_000_000_000))
    info = host.status()
    assert info["changedSinceIndexed"]["count"] == 1 and info["changedSinceIndexed"]["paths"] == ["kb/amber.md"]
    assert info["missingSinceIndexed"]["count"] == 1
    assert info["missingSinceIndexed"]["paths"] == ["kb/birch.md"]
    assert "mnote-kr sync" in info["changedSinceIndexed"]["fix"]
    assert "mnote-kr sync" in info["missingSinceIndexed"]["fix"]
    # the rename is one move sync follows (ux26): neither missing nor new
    assert info["movedSinceIndexed"]["moves"] == [{"from": "kb/cedar.md", "to": "kb/cypress.md"}]
    assert info["pendingNew"]["paths"] == []
    text = render_status(info)
    changed = [line for line in text.splitlines() if line.startswith("Changed:")]
    missing = [line for line in text.splitlines() if line.startswith("Missing:")]
    assert len(changed) == 1 and "kb/amber.md" in changed[0] and "'mnote-kr sync'" in changed[0], text
    assert len(missing) == 1 and "kb/birch.md;" in missing[0] and "'mnote-kr sync'" in missing[0], text
    assert "renamed" in missing[0], missing  # a rename whose bytes are elsewhere: sync pairs them
    assert "kb/cedar.md -> kb/cypress.md" in text and "New:" not in text, text
    # after sync, nothing is changed or missing any more: the records say it (Stale:/Moved:)
    reconcile_and_apply(host)
    host.sync()
    after = host.status()
    assert after["changedSinceIndexed"]["count"] == 0 and after["missingSinceIndexed"]["count"] == 0, after
    assert after["movedSinceIndexed"]["count"] == 0, after
    assert not [line for line in render_status(after).splitlines() if line.startswith(("Changed:", "Missing:"))]


def test_a_changed_file_of_a_no_follow_root_is_fixed_by_ingesting_it(tmp_path: Path) -> None:
    host = _indexed(tmp_path, run_on_change=False)
    (host.root / "kb" / "amber.md").write_text("# amber\n\nEdited, and longer than before.\n", encoding="utf-8")
    info = host.status()
    assert info["changedSinceIndexed"]["paths"] == ["kb/amber.md"]
    assert "mnote-kr ingest" in info["changedSinceIndexed"]["fix"], info["changedSinceIndexed"]


def test_checking_registered_files_reads_none_of_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host = _indexed(tmp_path)
    (host.root / "kb" / "amber.md").write_text("# amber\n\nEdited, and longer than before.\n", encoding="utf-8")
    opened = spy_opens(monkeypatch)
    info = host.status()
    monkeypatch.undo()
    assert info["changedSinceIndexed"]["paths"] == ["kb/amber.md"]  # a size that differs: changed, unread
    assert not [p for p in opened if str(host.root / "kb") in p], opened
