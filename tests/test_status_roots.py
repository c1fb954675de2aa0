"""``status`` names the indexed roots and counts the files in them that are not indexed yet.

Seen by a newcomer: right after ``mnote-kr roots add .`` in a folder of 15 files, ``status`` showed
no Roots line and ``pendingNew.count: 0`` (the list was only ever written by ``sync`` and ``watch``,
and only for roots added with ``--no-follow``). ``pendingNew`` says what it is meant to: the files
the roots' rules admit that no registry entry records, found by walking the roots as ``sync`` does
(a stat per file: no file is read), each root with the command that indexes them.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import spy_opens, write

from mnote_kr.app.host import Host
from mnote_kr.citations.render.statustext import render_status


def _folder(ws: Path, n: int = 15) -> None:
    for i in range(n):
        write(ws / f"notes/n{i:02}.md" if i % 2 else ws / f"papers/p{i:02}.md", f"# {i}\n\nPage {i}.\n")


def _host(tmp_path: Path, **kw: Any) -> Host:  # noqa: ANN401
    ws = tmp_path / "ws"
    _folder(ws)
    host, _ = fake_host(ws, FakeProvider(delete_status="delete_completed", **kw))
    return host


def test_status_right_after_roots_add_names_the_root_and_counts_what_is_not_indexed(tmp_path: Path) -> None:
    host = _host(tmp_path)
    host.roots_add(host.root)
    info = host.status()
    pending = info["pendingNew"]
    assert pending["count"] == 15 and len(pending["paths"]) == 15 and "notes/n01.md" in pending["paths"]
    assert pending["byRoot"] == [{"root": ".", "count": 15, "fix": "mnote-kr ingest ."}]
    text = render_status(info)
    roots = [line for line in text.splitlines() if line.startswith("Roots:")]
    assert roots == ["Roots:     . (recursive)"], text
    new = [line for line in text.splitlines() if line.startswith("New:")]
    assert len(new) == 1 and "15 file(s)" in new[0] and "not indexed yet" in new[0], text
    assert "'mnote-kr ingest .'" in new[0], new


def test_ingested_excluded_and_unindexable_files_are_not_counted(tmp_path: Path) -> None:
    host = _host(tmp_path, suffixes=frozenset({".md"}))
    write(host.root / "papers" / "scan.zip", "zip")  # a type the provider does not index: passed over
    write(host.root / "papers" / "drafts" / "d.md", "# d\n")  # excluded by the root's rules
    write(host.root / "outside" / "o.md", "# o\n")  # in no root
    host.roots_add(host.root / "papers", exclude=["drafts"])
    host.roots_add(host.root / "notes", run_on_change=False)
    host.ingest([host.root / "papers" / "p00.md"])
    info = host.status()
    pending = info["pendingNew"]
    assert pending["count"] == 7 and "papers/p00.md" not in pending["paths"]
    assert not {"papers/scan.zip", "papers/drafts/d.md", "outside/o.md"} & set(pending["paths"])
    assert pending["byRoot"] == [{"root": "papers", "count": 7, "fix": "mnote-kr ingest papers"}]
    # the --no-follow root's new files: left behind, each with its fixes (docs/sync.md), in that list only
    behind = info["leftBehind"]
    assert behind["count"] == behind["newCount"] == 7
    assert all(f["sourcePath"].startswith("notes/") for f in behind["files"])
    text = render_status(host.status())
    assert "Roots:     notes (recursive, no-follow), papers (recursive) exclude=drafts" in text, text
    assert ("New:       7 file(s) in the roots not indexed yet: papers/p02.md, papers/p04.md, papers/p06.md, "
            "papers/p08.md, papers/p10.md and 2 more; 'mnote-kr ingest papers' indexes them") in text, text
    assert "Not indexed: notes/n01.md: new in an indexed root; not ingested" in text, text


def test_after_ingest_nothing_is_pending_and_status_says_no_new_line(tmp_path: Path) -> None:
    host = _host(tmp_path)
    host.roots_add(host.root)
    host.ingest([host.root])
    info = host.status()
    assert info["pendingNew"]["count"] == 0 and info["pendingNew"]["byRoot"] == []
    assert not [line for line in render_status(info).splitlines() if line.startswith("New:")]


def test_counting_thousands_of_files_reads_none_of_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = tmp_path / "ws"
    for d in range(50):
        folder = ws / "lib" / f"d{d:02}"
        folder.mkdir(parents=True)
        for i in range(100):
            (folder / f"f{i:03}.md").write_bytes(b"x" * (i + 1))
    host, _ = fake_host(ws)
    host.roots_add(ws / "lib")
    opened = spy_opens(monkeypatch)
    started = time.perf_counter()
    pending = host.status()["pendingNew"]
    elapsed = time.perf_counter() - started
    monkeypatch.undo()
    assert pending["count"] == 5000 and len(pending["paths"]) == 50
    assert not [p for p in opened if str(ws / "lib") in p], opened[:5]
    print(f"status over 5,000 files not indexed: {elapsed:.3f} s")
