"""Plugin loading, selection, blocking, tracing and failure isolation."""

from __future__ import annotations

import importlib
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mnote_kr import hookspecs
from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins

FAKE_LOCATOR = '''
from mnote_kr import hookimpl
from mnote_kr.models import Locator

__version__ = "9.9.9"
CALLS = []

@hookimpl
def locator_extensions():
    return [".pdf", ".fake"]

@hookimpl
def locate(request):
    CALLS.append(request.file)
    return Locator(locator_precision="file", locator_degraded=True, locator_plugin="fake_locator",
                   reason="fake plugin answered")
'''


def install_fake_dist(site: Path, name: str, module_source: str, version: str = "9.9.9") -> None:
    """A throwaway third-party distribution: a module plus a dist-info with an entry point."""
    site.mkdir(parents=True, exist_ok=True)
    module = name.replace("-", "_")
    (site / f"{module}.py").write_text(module_source)
    info = site / f"{module}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(f"[mnote_kr]\n{module} = {module}\n")
    (info / "RECORD").write_text("")


@pytest.fixture
def fake_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = tmp_path / "site"
    install_fake_dist(site, "fake-locator", FAKE_LOCATOR)
    install_fake_dist(site, "broken-plugin", "raise ImportError('needs libfoo 3')\n", version="0.0.1")
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    yield site
    for mod in ("fake_locator", "broken_plugin"):
        sys.modules.pop(mod, None)


def test_third_party_plugin_is_listed_with_version_origin_and_hooks(fake_site: Path) -> None:
    plugins = load_plugins({"provider": "lightrag", "locators": {}, "disabled_plugins": []})
    infos = {i.name: i for i in plugins.describe()}
    fake = infos["fake_locator"]
    assert fake.version == "9.9.9" and fake.origin == "entry point" and fake.distribution == "fake-locator"
    assert fake.hooks == ["locate", "locator_extensions"]
    assert infos["broken_plugin"].error == "ImportError: needs libfoo 3"


def test_third_party_locator_replaces_builtin_for_one_extension_by_config(fake_site: Path, tmp_path: Path) -> None:
    import fake_locator

    config = {"provider": "lightrag", "locators": {".pdf": "fake_locator"}, "disabled_plugins": []}
    plugins = load_plugins(config)
    pdf = tmp_path / "x.pdf"
    pdf.write_bytes(b"%PDF-1.4")
    loc = plugins.locate(LocateRequest(file=str(pdf), evidence="e", query="q"))
    assert loc.locator_plugin == "fake_locator" and fake_locator.CALLS == [str(pdf)]
    assert plugins.locator_plugin(".docx") == "docx_locator"  # other extensions unchanged
    assert plugins.locator_plugin(".fake") == "fake_locator"  # a new extension needs no config


def test_unconfigured_extension_falls_back_to_honest_file_locator(tmp_path: Path) -> None:
    plugins = load_plugins(None)
    f = tmp_path / "notes.xyz"
    f.write_text("hello")
    loc = plugins.locate(LocateRequest(file=str(f), evidence="hello", query="hello"))
    assert loc.locator_precision == "file" and loc.locator_degraded and loc.page is None and loc.bbox is None


def test_blocked_plugin_is_not_called_and_shown_blocked(fake_site: Path, tmp_path: Path) -> None:
    import fake_locator

    plugins = load_plugins({"provider": "lightrag", "locators": {}, "disabled_plugins": ["fake_locator"]})
    assert {i.name: i for i in plugins.describe()}["fake_locator"].blocked
    f = tmp_path / "a.fake"
    f.write_text("x")
    assert plugins.locate(LocateRequest(file=str(f))).locator_plugin == "file_locator"
    assert fake_locator.CALLS == []


def _run_cli(args: list[str], site: Path, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)  # a checkout's own first
    full_env = {**os.environ, "PYTHONPATH": path, **env}
    return subprocess.run([sys.executable, "-m", "mnote_kr", *args], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=120)


def test_broken_plugin_does_not_break_help_roots_list_or_plugins(fake_site: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "papers").mkdir(parents=True)
    assert _run_cli(["--help"], fake_site, ws).returncode == 0
    assert _run_cli(["roots", "add", "papers"], fake_site, ws).returncode == 0
    listed = _run_cli(["roots", "list", "--json"], fake_site, ws)
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout)["indexedRoots"][0]["rootRelativePath"] == "papers"
    shown = _run_cli(["plugins", "--json"], fake_site, ws)
    errors = {p["name"]: p["error"] for p in json.loads(shown.stdout)["plugins"]}
    assert errors["broken_plugin"] == "ImportError: needs libfoo 3"


def test_disable_env_and_trace_env_work_from_the_command_line(fake_site: Path, tmp_path: Path) -> None:
    f = tmp_path / "a.fake"
    f.write_text("x")
    traced = _run_cli(["locate", str(f), "--json"], fake_site, tmp_path, MNOTE_KR_TRACE_PLUGINS="1")
    assert json.loads(traced.stdout)["locatorPlugin"] == "fake_locator"
    assert "locate" in traced.stderr and "fake_locator" in traced.stderr  # pluggy's trace lines
    blocked = _run_cli(["locate", str(f), "--json"], fake_site, tmp_path, MNOTE_KR_DISABLE_PLUGINS="fake_locator")
    assert json.loads(blocked.stdout)["locatorPlugin"] == "file_locator"


def test_every_hookspec_is_documented_with_its_calling_convention() -> None:
    specs = [getattr(hookspecs, n) for n in dir(hookspecs) if hasattr(getattr(hookspecs, n), "mnote_kr_spec")]
    names = {s.__name__ for s in specs}
    assert {"ingest", "query", "map_reference", "classify_locator", "clean_text"} <= names
    for spec in specs:
        doc = inspect.getdoc(spec) or ""
        assert "Calling convention" in doc, spec.__name__
        firstresult = spec.mnote_kr_spec.get("firstresult", False)
        assert ("firstresult" in doc) == firstresult, spec.__name__


def test_every_hookspec_has_an_implementation_among_installed_plugins() -> None:
    plugins = load_plugins(None)
    assert not plugins.failures(), plugins.failures()
    for name in ("provider_names", "locator_extensions", "ingest", "sync", "delete", "provider_status", "query",
                 "map_reference", "clean_text", "classify_locator", "locate", "register_commands"):
        assert getattr(plugins.pm.hook, name).get_hookimpls(), f"no plugin implements {name}"


def test_prepare_search_reaches_only_locators_and_never_fails_the_search() -> None:
    import types

    from mnote_kr import hookimpl

    calls: list[str] = []

    def plugin(name: str, exts: list[str] | None, fail: bool) -> types.ModuleType:
        def prepare_search() -> None:
            calls.append(name)
            if fail:
                raise RuntimeError("broken head start")

        module = types.ModuleType(name)
        module.prepare_search = hookimpl(prepare_search)  # type: ignore[attr-defined]
        if exts is not None:
            module.locator_extensions = hookimpl(lambda: exts)  # type: ignore[attr-defined]
        return module

    plugins = load_plugins(extra=[("broken_loc", plugin("broken_loc", [".zz1"], True)),
                                  ("good_loc", plugin("good_loc", [".zz2"], False)),
                                  ("not_a_locator", plugin("not_a_locator", None, False))])
    plugins.prepare_search()  # the broken plugin's exception is swallowed
    assert sorted(calls) == ["broken_loc", "good_loc"]  # a plugin that locates nothing is not asked


def test_the_bundled_distributions_are_the_plugins_folder_s() -> None:
    """``OWN_DISTRIBUTIONS`` (what a third-party locator comes before) names each bundled plugin's distribution."""
    from mnote_kr.plugins import OWN_DISTRIBUTIONS

    root = Path(__file__).resolve().parents[1]
    names = {line.split('"')[1] for toml in root.glob("plugins/*/pyproject.toml")
             for line in toml.read_text(encoding="utf-8").splitlines() if line.startswith("name = ")}
    assert names and OWN_DISTRIBUTIONS == names | {"mnote-kr"}


def test_plain_plugins_shows_which_locator_serves_each_extension_and_what_a_third_party_one_took(
        fake_site: Path, tmp_path: Path) -> None:
    """nc29a: a third-party locator silently took .txt from the built-in text_locator; only 'plugins --json' showed
    the table. Plain 'plugins' lists it too, and says which extension a third-party plugin took from which
    plugin of mnote-kr (fake_locator claims .pdf, which pdf_bbox serves without it)."""
    plugins = load_plugins({"provider": "lightrag", "locators": {}, "disabled_plugins": []})
    assert plugins.locator_claims()[".pdf"] == ("fake_locator", ["pdf_bbox"])
    assert plugins.locator_claims()[".docx"] == ("docx_locator", [])
    shown = _run_cli(["plugins"], fake_site, tmp_path)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert any(line.split()[:2] == [".docx", "docx_locator"] for line in lines)
    assert any(line.split()[:2] == [".txt", "text_locator"] for line in lines)  # the built-in, without --all
    taken = [line for line in lines if line.split()[:2] == [".pdf", "fake_locator"]]
    assert taken and "takes it from pdf_bbox" in taken[0]
    assert "third-party" in shown.stdout and "[locators]" in shown.stdout
    # chosen in the config, the bundled plugin serves it again and nothing is said taken
    config = {"provider": "lightrag", "locators": {".pdf": "pdf_bbox"}, "disabled_plugins": []}
    assert load_plugins(config).locator_claims()[".pdf"] == ("pdf_bbox", [])
