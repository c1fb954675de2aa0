"""``mnote-kr roots --json`` lists the roots, as ``roots list --json`` does.

The README lists ``roots`` among the commands that take ``--json``; a newcomer (nc25a, problem 4) ran
``mnote-kr roots --json`` and got "No such option '--json'". ``roots`` alone now lists the roots, and a
``--json`` before a subcommand's name is that subcommand's.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.cli_helpers import cli_env


def _run(ws: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mnote_kr", "--workspace", str(ws), *args], cwd=ws,
                          env=cli_env(home, None), capture_output=True, text=True, encoding="utf-8", timeout=120)


def test_roots_json_lists_the_roots_as_roots_list_json(tmp_path: Path) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    (ws / "papers").mkdir(parents=True)
    (ws / "decks").mkdir()
    home.mkdir()
    assert _run(ws, home, "roots", "add", "papers").returncode == 0
    added = _run(ws, home, "roots", "--json", "add", "decks", "--no-follow")  # --json before the name
    assert added.returncode == 0, added.stderr
    assert json.loads(added.stdout)["rootRelativePath"] == "decks"

    group = _run(ws, home, "roots", "--json")
    assert group.returncode == 0, group.stderr
    listed = json.loads(group.stdout)
    assert [(r["rootRelativePath"], r["runOnChange"]) for r in listed["indexedRoots"]] == [
        ("decks", False), ("papers", True)]
    assert listed == json.loads(_run(ws, home, "roots", "list", "--json").stdout)
    text = _run(ws, home, "roots")  # alone: the list, as people read it
    assert text.returncode == 0 and text.stdout == _run(ws, home, "roots", "list").stdout
    assert "papers" in text.stdout and "decks" in text.stdout
