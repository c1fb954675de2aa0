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
    with pytest.raises(UsageError, match="none has indexed roots") as none:
        agent_workspace(None, elsewhere)
    assert "mnote-kr roots add" in str(none.value)
    one, two = _library(tmp_path / "one"), _library(tmp_path / "two")
    with pytest.raises(UsageError, match="you have 2") as exc:
        agent_workspace(None, elsewhere)
    assert str(one.resolve()) in str(exc.value) and str(two.resolve()) in str(exc.value)
    assert "--workspace" in str(exc.value)


def test_a_given_workspace_without_roots_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(UsageError, match="has no indexed roots"):
        agent_workspace(tmp_path / "empty", tmp_path)
    ws = _library(tmp_path / "ws")
    assert agent_workspace(str(ws), tmp_path / "empty") == ws.resolve()


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
    assert "mnote-kr roots add" in lines[0]
    assert proc.stdout == ""  # stdout is the JSON-RPC channel: nothing else goes there
    assert not (elsewhere / ".mnote").exists()
    assert list(home.rglob("engine.json")) == []  # no engine was started for it
