"""The declared plugin API from a third party's side: the documented minimal plugin installed from a
temporary folder and used by ``mnote-kr locate``, and two plugins with one name reported, not hidden."""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from mnote_kr.plugins import load_plugins

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "docs" / "example_plugin"


def install_from_folder(project: Path, site: Path) -> str:
    """Install a plugin project as pip would (its package plus a ``.dist-info`` with its entry points),
    reading name, version and entry points from its own pyproject.toml; returns the distribution name."""
    meta = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    site.mkdir(parents=True, exist_ok=True)
    for package in project.glob("mnote_kr_*"):
        shutil.copytree(package, site / package.name, ignore=shutil.ignore_patterns("__pycache__"))
    info = site / f"{meta['name'].replace('-', '_')}-{meta['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {meta['name']}\nVersion: {meta['version']}\n")
    groups = meta["entry-points"]
    (info / "entry_points.txt").write_text(
        "".join(f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()) for group, eps in groups.items()))
    (info / "RECORD").write_text("")
    return str(meta["name"])


def _cli(args: list[str], site: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run([sys.executable, "-m", "mnote_kr", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def test_documented_example_plugin_installs_from_a_folder_and_locates(tmp_path: Path) -> None:
    project = tmp_path / "example_plugin"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("__pycache__"))
    site = tmp_path / "site"
    assert install_from_folder(project, site) == "mnote-kr-example-lines"
    log = tmp_path / "app.log"
    log.write_text("12:00 service started\n12:01 cache warmed in 80 ms\n12:05 disk full on /var, writes paused\n"
                   "12:06 operator freed 4 GB\n", encoding="utf-8")
    before = hashlib.sha256(log.read_bytes()).hexdigest()

    listed = _cli(["plugins", "--json"], site, tmp_path)
    example = {p["name"]: p for p in json.loads(listed.stdout)["plugins"]}["example_lines"]
    assert (example["version"], example["origin"], example["distribution"]) == (
        "0.1.0", "entry point", "mnote-kr-example-lines")
    assert example["hooks"] == ["locate", "locator_extensions"] and example["error"] is None

    # the command docs/plugins.md shows, as it shows it
    guide = (REPO / "docs" / "plugins.md").read_text(encoding="utf-8")
    [shown] = re.findall(r"`mnote-kr (locate app\.log [^`]*)`", guide)
    assert shown.endswith("--json")
    found = _cli(shlex.split(shown), site, tmp_path)
    assert found.returncode == 0, found.stderr
    loc = json.loads(found.stdout)
    assert (loc["locatorPlugin"], loc["locatorPrecision"], loc["paragraphIndex"]) == ("example_lines", "paragraph", 2)
    missing = _cli(["locate", str(log), "--evidence", "kernel panic in the scheduler", "--query", "kernel panic",
                    "--json"], site, tmp_path)
    assert json.loads(missing.stdout)["locatorPrecision"] == "file"  # honest: no line matched
    assert hashlib.sha256(log.read_bytes()).hexdigest() == before


CLASHING = '''
from mnote_kr.plugin_api import Locator, hookimpl

@hookimpl
def locator_extensions():
    return [".clash"]

@hookimpl
def locate(request):
    return Locator(locator_precision="file", locator_plugin="impostor")
'''


@pytest.fixture
def clash_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two distributions registering ``file_locator`` (a built-in's name) and two registering ``twin``."""
    site = tmp_path / "site"
    site.mkdir()
    for dist, module, names in (("impostor-dist", "impostor_mod", ["file_locator", "twin"]),
                                ("second-dist", "second_mod", ["twin"])):
        (site / f"{module}.py").write_text(CLASHING)
        info = site / f"{dist.replace('-', '_')}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
        (info / "entry_points.txt").write_text("[mnote_kr]\n" + "".join(f"{n} = {module}\n" for n in names))
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    yield site
    for mod in ("impostor_mod", "second_mod"):
        sys.modules.pop(mod, None)


def test_plugin_name_clash_is_an_error_naming_both_distributions(clash_site: Path, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    plugins = load_plugins(None)
    infos = plugins.describe()
    builtin = [i for i in infos if i.name == "file_locator"]
    assert [(i.origin, i.distribution, i.error) for i in builtin if not i.error] == [("builtin", "mnote-kr", None)]
    clash = [i.error for i in builtin if i.error]
    assert len(clash) == 1 and "impostor-dist" in clash[0] and "mnote-kr (builtin)" in clash[0]
    twins = sorted((i.distribution, i.error is None) for i in infos if i.name == "twin")
    assert twins == [("impostor-dist", True), ("second-dist", False)]
    assert plugins.pm.get_plugin("file_locator").__name__ == "mnote_kr.default_plugins.file_locator"
    assert "Error: plugin name 'file_locator' is registered twice" in capsys.readouterr().err

    shown = _cli(["plugins", "--all"], clash_site, tmp_path)
    failed = [line for line in shown.stdout.splitlines() if "FAILED: plugin name 'twin'" in line]
    assert len(failed) == 1 and "second-dist" in failed[0] and "impostor-dist" in failed[0]
    assert "Error: plugin name 'twin' is registered twice" in shown.stderr
