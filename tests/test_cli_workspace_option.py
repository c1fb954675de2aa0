"""``--workspace`` after the command as well as before it: a newcomer's ``mnote-kr status --workspace X``
failed with "No such option '--workspace'" (the group's option worked only before the command)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mnote_kr.cli.main import main


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "ws"
    (folder / "d").mkdir(parents=True)
    (folder / ".mnote").mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the workspace is only what --workspace names
    return folder


def _roots(capsys: pytest.CaptureFixture[str], *args: str) -> list[str]:
    capsys.readouterr()
    assert main(["roots", "list", "--json", *args]) == 0
    return [r["rootRelativePath"] for r in json.loads(capsys.readouterr().out)["indexedRoots"]]


def test_workspace_after_the_command_is_the_workspace(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["roots", "add", "d", "--workspace", str(ws)]) == 0  # after a nested command too
    assert _roots(capsys, "--workspace", str(ws)) == ["d"]
    assert _roots(capsys, "-w", str(ws)) == ["d"]
    assert main(["-w", str(ws), "roots", "list", "-w", str(ws / ".")]) == 0  # the same folder twice is fine
    assert main(["status", "--help"]) == 0 and "--workspace" in capsys.readouterr().out


def test_two_different_workspaces_are_one_usage_error(ws: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["-w", str(ws), "roots", "list", "--workspace", str(tmp_path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("Error: ") and "--workspace" in err[0], err
    assert str(ws) in err[0] and str(tmp_path) in err[0], err
