"""Commands import only what they need: a fresh process for `--help` must not pay for LightRAG,
lxml, pdfium or the HTTP stack (rule: heavy modules load inside the code that uses them)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

_PROBE = """
import json, sys
from mnote_kr.cli import main
code = main(sys.argv[1:])
# the CLI's placeholder for httpx's own command line is not a loaded module
real = [m for m, mod in sys.modules.items() if not (m == "httpx._main" and not hasattr(mod, "__file__"))]
print(json.dumps({"code": code, "modules": sorted(real)}), file=sys.stderr)
"""
HEAVY = ("lightrag", "lxml", "pypdfium2", "mnote_kr.citations.locate.textmatch", "mnote_kr_lightrag.client.mapping")
NO_HTTP = ("httpx", "httpcore", "rich", "pygments")


def _modules(args: list[str], cwd: Path) -> tuple[int, set[str]]:
    proc = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120)
    last = proc.stderr.strip().splitlines()[-1]
    data = json.loads(last)
    return data["code"], set(data["modules"])


def _loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


@pytest.mark.parametrize("args", [["--help"], ["roots", "list"], ["secrets", "--help"], ["search", "--help"]])
def test_light_commands_load_no_engine_parser_or_http_stack(args: list[str], tmp_path: Path) -> None:
    code, modules = _modules(args, tmp_path)
    assert code == 0
    assert _loaded(modules, HEAVY + NO_HTTP) == []


def test_status_talks_http_but_loads_no_engine_or_document_parser(tmp_path: Path) -> None:
    code, modules = _modules(["status"], tmp_path)
    assert code == 0  # no engine: the provider is reported down, the command still answers
    assert _loaded(modules, HEAVY) == []
    assert "httpx" not in modules or "rich" not in modules  # httpx without its own CLI's imports


def test_help_still_lists_plugin_commands(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "mnote_kr", "--help"], capture_output=True, text=True, cwd=tmp_path,
                          timeout=120)
    assert proc.returncode == 0
    assert "engine" in proc.stdout and "demo" in proc.stdout



# The console script's own process (``python -m mnote_kr`` runs the same function), as a
# person's shell starts it: which modules it loaded by the time it ends.
_CONSOLE_PROBE = """
import atexit, json, sys
def report():
    real = [m for m, mod in sys.modules.items() if not (m == "httpx._main" and not hasattr(mod, "__file__"))]
    sys.stderr.write(json.dumps({"modules": sorted(real)}) + "\\n")
atexit.register(report)
sys.argv[0] = "mnote-kr"
from mnote_kr.cli import console
console()
"""
#: What finding plugins through package metadata loads; the remembered entry-point list
#: (``mnote_kr.entrypoints``) spares every command after the first one.
METADATA = ("importlib.metadata", "email", "zipfile", "csv")


@pytest.mark.parametrize("args", [["status"], ["status", "--json"], ["roots", "list"]])
def test_status_and_roots_list_load_only_what_they_use(args: list[str], tmp_path: Path) -> None:
    runs = []
    for _ in range(2):  # the first run in a new home lists the installed plugins (importlib.metadata)
        proc = subprocess.run([sys.executable, "-c", _CONSOLE_PROBE, *args], capture_output=True, text=True,
                              cwd=tmp_path, timeout=120)
        assert proc.returncode == 0, proc.stderr
        runs.append(set(json.loads(proc.stderr.strip().splitlines()[-1])["modules"]))
    first, second = runs
    assert "mnote_kr.app.host" in second  # a real run, not an early exit
    assert _loaded(second, HEAVY + NO_HTTP + METADATA + ("click", "mnote_kr.citations.pipeline")) == []
    if args[0] == "status":  # it asks the provider: plugins load, from the remembered list after the first run
        assert _loaded(first, METADATA) != [] and "mnote_kr_lightrag.client.provider" in second
    else:  # the roots are the registry's: no plugin, no HTTP
        assert _loaded(second, ("pluggy", "mnote_kr.plugins", "socket")) == []
