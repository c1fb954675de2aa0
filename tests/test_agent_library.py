"""Which workspace ``mnote-kr mcp`` serves when an MCP client starts it from anywhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mnote_kr.agents.library import agent_workspace
from mnote_kr.app.host import Host
from mnote_kr.core import known, paths
from mnote_kr.errors import UsageError
from mnote_kr.models import SourceEntry
from tests.cli_helpers import cli_env


def _library(folder: Path, root: str = "papers") -> Path:
    (folder / root / "deep").mkdir(parents=True)
    (folder / root / "a.md").write_text("# A\n\nText.\n", encoding="utf-8")
    Host(folder).roots_add(root)
    return folder


def test_a_subfolder_of_an_indexed_root_finds_its_workspace(tmp_path: Path) -> None:
    ws = _library(tmp_path / "ws")
    assert agent_workspace(None, ws / "papers" / "deep") == ws.resolve()
    assert agent_workspace(None, ws) == ws.resolve()


def test_a_workspace_without_roots_on_the_way_up_is_passed_over(tmp_path: Path) -> None:
    outer = _library(tmp_path / "outer")
    inner = outer / "papers" / "deep"
    (inner / ".mnote").mkdir()  # a stray, empty workspace nearer to the cwd
    assert agent_workspace(None, inner) == outer.resolve()


def test_from_an_unrelated_folder_the_single_library_is_used(tmp_path: Path) -> None:
    ws = _library(tmp_path / "ws")
    elsewhere = tmp_path / "tmp"
    elsewhere.mkdir()
    assert known.known() == [ws.resolve()]
    assert agent_workspace(None, elsewhere) == ws.resolve()
    assert not (elsewhere / ".mnote").exists()


def test_two_libraries_and_none_are_refused_with_the_fix(tmp_path: Path) -> None:
    elsewhere = tmp_path / "tmp"
    elsewhere.mkdir()
    with pytest.raises(UsageError, match="none has anything indexed") as none:
        agent_workspace(None, elsewhere)
    assert "'mnote-kr ingest . --wait' in the folder of your documents" in str(none.value)
    one, two = _library(tmp_path / "one"), _library(tmp_path / "two")
    with pytest.raises(UsageError, match="you have 2") as exc:
        agent_workspace(None, elsewhere)
    assert str(one.resolve()) in str(exc.value) and str(two.resolve()) in str(exc.value)
    assert "--workspace" in str(exc.value)


def _ingested(folder: Path, status: str = "processed") -> Path:
    """A workspace whose registry holds one file in ``status``, as 'ingest' leaves it, and no root."""
    folder.mkdir(parents=True)
    (folder / "a.md").write_text("# A\n\nText.\n", encoding="utf-8")
    host = Host(folder)
    with host.store.transaction() as reg:
        reg.put(SourceEntry(source_id="src-a", source_path=str(folder / "a.md"), source_root_relative_path="a.md",
                            status=status, light_rag_file_path="a.md", light_rag_doc_id="doc-a"))
    assert host.roots_list() == []
    return folder


def test_a_given_workspace_with_nothing_indexed_is_refused_with_the_command_that_indexes_it(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(UsageError, match="^Nothing is indexed in ") as exc:
        agent_workspace(tmp_path / "empty", tmp_path)
    assert f"'cd {(tmp_path / 'empty').resolve()} && mnote-kr ingest . --wait'" in str(exc.value)
    assert not (tmp_path / "empty" / ".mnote").exists()
    # files recorded but none citable (failed, queued): still nothing an agent could cite
    for status in ("failed", "pending"):
        with pytest.raises(UsageError, match="^Nothing is indexed in "):
            agent_workspace(_ingested(tmp_path / status, status), tmp_path)
    ws = _library(tmp_path / "ws")
    assert agent_workspace(str(ws), tmp_path / "empty") == ws.resolve()
    # the one library the user has is named beside the fix
    with pytest.raises(UsageError, match=f"start 'mnote-kr --workspace {ws.resolve()} mcp', your library"):
        agent_workspace(tmp_path / "empty", tmp_path)


def test_a_folder_ingested_without_roots_add_is_a_library(tmp_path: Path) -> None:
    """nc23a P1: 'ingest .' alone makes files the CLI cites; the agent's server serves them, given or found."""
    ws = _ingested(tmp_path / "docs")
    assert agent_workspace(ws, tmp_path) == ws.resolve()
    (ws / "sub").mkdir()
    assert agent_workspace(None, ws / "sub") == ws.resolve()


def test_the_record_keeps_folders_only_privately_and_forgets_removed_ones(tmp_path: Path) -> None:
    a, b = _library(tmp_path / "a"), _library(tmp_path / "b")
    Host(a).roots_add("papers")  # adding again records it once
    record = paths.state_dir() / known.FILE
    assert json.loads(record.read_text(encoding="utf-8")) == {"workspaces": sorted([str(a.resolve()),
                                                                                    str(b.resolve())])}
    if os.name == "posix":
        assert record.stat().st_mode & 0o777 == 0o600
    for path in (b / ".mnote").rglob("*"):
        if path.is_file():
            path.unlink()
    for path in sorted((b / ".mnote").rglob("*"), reverse=True):
        path.rmdir()
    (b / ".mnote").rmdir()
    assert known.known() == [a.resolve()]


def test_mcp_started_outside_any_library_refuses_in_one_line_and_starts_nothing(tmp_path: Path) -> None:
    home, elsewhere = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    elsewhere.mkdir()
    proc = subprocess.run([sys.executable, "-m", "mnote_kr", "mcp"], cwd=elsewhere, env=cli_env(home, None),
                          capture_output=True, text=True, encoding="utf-8", timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: No mnote-kr workspace above"), proc.stderr
    assert "'mnote-kr ingest . --wait'" in lines[0]
    assert proc.stdout == ""  # stdout is the JSON-RPC channel: nothing else goes there
    assert not (elsewhere / ".mnote").exists()
    assert list(home.rglob("engine.json")) == []  # no engine was started for it
