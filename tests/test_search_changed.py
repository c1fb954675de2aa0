"""A search names the files it would have cited that changed (or went) on disk since they were indexed.

Seen by a newcomer: a file of a root that follows the disk was edited with no ``watch`` running, and
``search`` gave no hint until ``sync`` (its passages were dropped without a word; ``open`` refused
such a citation). The pipeline already stats each cited file against the registry's size and time;
what it drops it now names: ``diagnostics.changedSinceIndexed`` / ``missingSinceIndexed`` and a
``notIndexed`` line each (status ``stale``), and the text says ``changed since indexed: FILE: run
'mnote-kr sync'``. No file is hashed or read for it: a stat of the cited files only.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from mnote_kr_testkit.fakes import fake_host
from mnote_kr_testkit.files import spy_opens, write

from mnote_kr.app.host import Host
from mnote_kr.citations.render.cards import render_answer, render_search
from mnote_kr.core import workspace


def _host(tmp_path: Path) -> Host:
    ws = tmp_path / "ws"
    write(ws / "kb" / "amber.md", "# Amber\n\nThe amber lamp glows over the harbour.\n")
    write(ws / "kb" / "blue.md", "# Blue\n\nThe blue lamp glows over the harbour.\n")
    write(ws / "slow" / "grey.md", "# Grey\n\nThe grey lamp glows over the harbour.\n")
    host, _ = fake_host(ws)
    host.roots_add(ws / "kb")
    host.roots_add(ws / "slow", run_on_change=False)
    host.ingest([ws / "kb", ws / "slow"])
    return host


def _edit(path: Path) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("\nA line written after it was indexed.\n")


def test_a_file_edited_since_it_was_indexed_is_named_by_search_with_what_re_indexes_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host = _host(tmp_path)
    _edit(host.root / "kb" / "amber.md")
    _edit(host.root / "slow" / "grey.md")
    opened = spy_opens(monkeypatch)
    monkeypatch.setattr(workspace, "sha256_file", lambda *a, **k: pytest.fail("a file was hashed at search time"))
    result = host.search("lamp over the harbour")
    monkeypatch.undo()
    assert {c.source_root_relative_path for c in result.results} == {"kb/blue.md"}
    assert not [p for p in opened if p.endswith(("amber.md", "grey.md"))], opened
    assert result.diagnostics["changedSinceIndexed"] == {"count": 2, "paths": ["kb/amber.md", "slow/grey.md"]}
    stale = {n.source_path: n for n in result.not_indexed if n.status == "stale"}
    assert set(stale) == {"kb/amber.md", "slow/grey.md"}
    assert stale["kb/amber.md"].reason.startswith("changed since indexed: run 'mnote-kr sync'")
    assert "'mnote-kr ingest slow/grey.md'" in stale["slow/grey.md"].reason  # its root does not follow
    lines = render_search(result).splitlines()
    assert "changed since indexed: kb/amber.md: run 'mnote-kr sync' (not cited until it is re-indexed)" in lines
    assert not any(line.startswith("not indexed: kb/amber.md") for line in lines), lines
    answer = host.ask("lamp over the harbour")
    assert any(line.startswith("changed since indexed: kb/amber.md: ") for line in render_answer(answer).splitlines())


def test_a_file_deleted_since_it_was_indexed_is_named_too(tmp_path: Path) -> None:
    host = _host(tmp_path)
    os.unlink(host.root / "kb" / "amber.md")
    result = host.search("lamp over the harbour")
    assert result.diagnostics["missingSinceIndexed"] == {"count": 1, "paths": ["kb/amber.md"]}
    assert "changedSinceIndexed" not in result.diagnostics
    lines = render_search(result).splitlines()
    assert any(line.startswith("deleted from disk since indexed: kb/amber.md: run 'mnote-kr sync'") for line in lines)


def test_a_file_moved_since_it_was_indexed_is_named_as_a_move_as_status_names_it(tmp_path: Path) -> None:
    # nc26c: status said "Moved: ... (sync follows the move)" while every search said "deleted from disk since
    # indexed: OLD" and "1 new file(s) ... not ingested yet: NEW; 'mnote-kr ingest kb' indexes them"
    host = _host(tmp_path)
    (host.root / "kb" / "old").mkdir()
    os.rename(host.root / "kb" / "amber.md", host.root / "kb" / "old" / "amber-moved.md")
    result = host.search("lamp over the harbour")
    assert result.diagnostics["missingSinceIndexed"] == {"count": 1, "paths": ["kb/amber.md"]}
    lines = render_search(result).splitlines()
    assert any(line.startswith("moved: kb/amber.md -> kb/old/amber-moved.md: run 'mnote-kr sync'") for line in lines), \
        lines
    assert not any("kb/old/amber-moved.md" in line and "not ingested" in line for line in lines), lines
    assert not any(line.startswith("deleted from disk since indexed: kb/amber.md") for line in lines), lines
    assert "newNotIngested" not in result.diagnostics


def test_after_sync_the_edited_file_is_cited_again_and_nothing_is_named(tmp_path: Path) -> None:
    host = _host(tmp_path)
    _edit(host.root / "kb" / "amber.md")
    from mnote_kr.sync.reconcile import reconcile_and_apply

    reconcile_and_apply(host)
    result = host.search("lamp over the harbour")
    assert "kb/amber.md" in {c.source_root_relative_path for c in result.results}
    assert "changedSinceIndexed" not in result.diagnostics
    assert not [n for n in result.not_indexed if n.source_path == "kb/amber.md"]
