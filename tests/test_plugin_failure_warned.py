"""A plugin that failed to load is said on ``search`` and ``ask``, not only by ``mnote-kr plugins``.

Its files are then read by a fallback (or not at all), so citations may be coarser than the user
expects: one ``Warning:`` line per failed plugin on stderr; with ``--json`` also in the answer's
notes (``diagnostics.notes`` for search, ``notes`` for ask), never as a stray line in stdout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from mnote_kr_testkit.fakes import fake_host

from mnote_kr.cli import cli
from mnote_kr.cli.reports import Ctx
from mnote_kr.models import PluginInfo
from tests.test_plugins import fake_site  # noqa: F401  (fixture)

WARNING = ("Warning: plugin broken_plugin failed to load (ImportError: needs libfoo 3); "
           "'mnote-kr plugins' lists it")


@pytest.fixture
def broken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    ws = tmp_path / "ws"
    (ws / "kb").mkdir(parents=True)
    (ws / "kb" / "pumps.md").write_text("# Pumps\n\nThe pump oil is changed every spring.\n", encoding="utf-8")
    host, _ = fake_host(ws)
    host.roots_add(ws / "kb")
    host.ingest([ws / "kb"])
    host.plugins.infos["broken_plugin"] = PluginInfo(name="broken_plugin", version="0.0.1", origin="entry point",
                                                     distribution="broken-plugin", error="ImportError: needs libfoo 3")
    monkeypatch.setattr(Ctx, "host", lambda self, progress=False: host)
    return ws


@pytest.mark.parametrize("command", ["search", "ask"])
def test_search_and_ask_warn_once_per_failed_plugin_on_stderr(broken: Path, command: str) -> None:
    out = CliRunner().invoke(cli, [command, "pump oil"])
    assert out.exit_code == 0, out.output
    assert out.stderr.splitlines().count(WARNING) == 1, out.stderr
    assert "broken_plugin" not in out.stdout and "pumps.md" in out.stdout


@pytest.mark.parametrize("command", ["search", "ask"])
def test_with_json_the_warning_is_a_note_and_stdout_stays_json(broken: Path, command: str) -> None:
    out = CliRunner().invoke(cli, [command, "pump oil", "--json"])
    assert out.exit_code == 0, out.output
    answer = json.loads(out.stdout)  # nothing but the JSON document
    notes = answer["diagnostics"]["notes"] if command == "search" else answer["notes"]
    assert WARNING.removeprefix("Warning: ") in notes, notes
    assert answer["results" if command == "search" else "citations"]


def test_a_real_entry_point_that_fails_to_import_is_warned_by_search(fake_site: Path, tmp_path: Path) -> None:  # noqa: F811
    """Through the installed entry point and ``python -m mnote_kr`` (the fast path parses a plain search)."""
    ws = tmp_path / "ws"
    (ws / ".mnote").mkdir(parents=True)
    (ws / ".mnote" / "config.toml").write_text('[providers.lightrag]\nurl = "http://127.0.0.1:9"\n', encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(fake_site), os.environ.get("PYTHONPATH", "")]),
           "MNOTE_KR_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-m", "mnote_kr", "search", "pump oil"], cwd=ws, env=env,
                          capture_output=True, text=True, timeout=120)
    # the provider is down (nothing listens on port 9): the warning still comes first, then the one error
    assert done.stderr.splitlines()[0] == WARNING, done.stderr
    assert done.returncode == 1 and done.stderr.splitlines()[1].startswith("Error: "), done.stderr
