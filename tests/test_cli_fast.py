"""The plain ``status``, ``roots list`` and ``search`` run without click and print exactly what
the click command line prints; ``status`` and ``search`` ask the managed engine no more than they need
(a cold start of these commands is what shells and people wait for: docs/cold-start.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)

from mnote_kr.cli import fast

# Runs one command line in a fresh process, through the console script's ``main`` or straight
# through the click command line, and reports the exit code, the modules loaded and every
# HTTP exchange with the engine (all of them go through ``plainhttp.exchange``).
_PROBE = """
import importlib.util, json, sys, time
import mnote_kr.plainhttp as plainhttp
sent, sent_at, loaded_at = [], {}, {}
real = plainhttp.exchange
def counting(host, port, method, target, *args, **kwargs):
    sent.append([method, target])
    sent_at.setdefault(target.split("?")[0], time.perf_counter())
    return real(host, port, method, target, *args, **kwargs)
plainhttp.exchange = counting
class Timed:  # when the citation pipeline has finished loading
    def find_spec(self, name, path=None, target=None):
        if name != "mnote_kr.citations.pipeline":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        run = spec.loader.exec_module
        def exec_module(module):
            run(module)
            loaded_at["pipeline"] = time.perf_counter()
        spec.loader.exec_module = exec_module
        return spec
sys.meta_path.insert(0, Timed())
which, args = sys.argv[1], sys.argv[2:]
if which == "click":
    from mnote_kr.cli.main import main
else:
    from mnote_kr.cli import main
code = main(args)
sys.stdout.flush()
sent_first = {k: v < loaded_at["pipeline"] for k, v in sent_at.items()} if "pipeline" in loaded_at else {}
print(json.dumps({"code": code, "click": "click" in sys.modules, "sent": sent, "before_pipeline": sent_first,
                  "typing_extensions": "typing_extensions" in sys.modules}), file=sys.stderr)
"""


def _run(which: str, args: list[str], env: dict[str, str], cwd: Path) -> tuple[str, str, dict[str, Any]]:
    proc = subprocess.run([sys.executable, "-c", _PROBE, which, *args], capture_output=True, text=True,
                          encoding="utf-8", env=env, cwd=cwd, timeout=180)
    *err, last = proc.stderr.strip().splitlines() or [""]
    assert last.startswith("{"), proc.stderr
    return proc.stdout, "\n".join(err), json.loads(last)


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNOTE_KR_")}
    env.update(MNOTE_KR_HOME=str(home), PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
               PYTHONIOENCODING="utf-8")
    return env


def test_only_the_plain_spellings_take_the_fast_path(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("x")
    defaults = {"scope": (), "top_k": 20, "mode": "mix", "rerank": None}
    assert fast.parse(["status"]) == (None, ("status",), False, {})
    assert fast.parse(["-w", "kb", "status", "--json"]) == ("kb", ("status",), True, {})
    assert fast.parse(["--workspace=kb", "roots", "list"]) == ("kb", ("roots", "list"), False, {})
    assert fast.parse(["search", "pump oil"]) == (None, ("search",), False, {**defaults, "query": "pump oil"})
    assert fast.parse(["search", "--scope", "a", "q", "--json", "--scope", "b c", "--top-k", "3", "--mode",
                       "naive", "--no-rerank"]) == (
        None, ("search",), True, {"query": "q", "scope": ("a", "b c"), "top_k": 3, "mode": "naive", "rerank": False})
    for argv in (["status", "--help"], ["--help"], ["status", "--json", "--json"], ["roots"], ["roots", "add", "x"],
                 ["-w", "kb", "-w", "kb", "status"], ["-wkb", "status"], ["-w", "--json", "status"],
                 ["--workspace=", "status"], ["-w", str(tmp_path / "a-file"), "status"], ["status", "x"],
                 ["search"], ["search", "a", "b"], ["search", "-q"], ["search", "q", "--top-k", "-1"],
                 ["search", "q", "--top-k", "x"], ["search", "q", "--top-k=3"], ["search", "q", "--mode", "MIX"],
                 ["search", "q", "--rerank", "--no-rerank"], ["search", "q", "--top-k", "1", "--top-k", "2"],
                 ["search", "q", "--scope"], ["search", "q", "--help"], ["ask", "q"], ["--version"], [],
                 ["search", "q", "--top-k", "1" * 5000]):  # past int()'s digit limit: click's one line
        assert fast.parse(argv) is None, argv


@pytest.mark.parametrize("args", [["status"], ["status", "--json"], ["roots", "list"], ["roots", "list", "--json"],
                                  ["-w", "nowhere", "status"], ["--workspace=nowhere", "roots", "list", "--json"],
                                  ["search", "pump oil", "--top-k", "3", "--json"], ["search", "  "],
                                  ["search", "pump", "--scope", "docs", "--mode", "naive"]])
def test_the_fast_path_prints_what_click_prints_and_never_imports_click(args: list[str], tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    env = _env(tmp_path / "home")
    assert subprocess.run([sys.executable, "-m", "mnote_kr", "roots", "add", "docs", "--exclude", "*.tmp"],
                          cwd=ws, env=env, capture_output=True, timeout=120).returncode == 0
    fast_out, fast_err, fast_info = _run("main", args, env, ws)
    click_out, click_err, click_info = _run("click", args, env, ws)
    assert (fast_out, fast_err, fast_info["code"]) == (click_out, click_err, click_info["code"])
    assert fast_out or fast_err  # something was said, the same both ways
    assert fast_info["click"] is False and click_info["click"] is True
    # msgspec loaded without typing_extensions on the plain path, and printed the same
    assert fast_info["typing_extensions"] is False


def test_typing_extensions_still_imports_after_the_plain_path_loaded_msgspec(tmp_path: Path) -> None:
    code = ("import sys; from mnote_kr.cli import fast; fast._msgspec_without_typing_extensions(); "
            "import msgspec; assert 'typing_extensions' not in sys.modules; "
            "import typing_extensions; print(typing_extensions.get_type_hints is not None, "
            "msgspec.json.decode(b'{\"a\": 1}', type=dict[str, int]))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=_env(tmp_path / "home"),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "{'a':", "1}"]


def test_the_package_main_stays_callable_after_the_click_path(tmp_path: Path) -> None:
    code = ("import mnote_kr.cli as c, sys; a = c.main(['--version']); b = c.main(['roots', 'list']); "
            "from mnote_kr.cli import main; print(a, b, callable(main))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=_env(tmp_path / "home"),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1].endswith("True")


def test_a_closed_pipe_exits_1_on_both_paths(tmp_path: Path) -> None:
    env = _env(tmp_path / "home")
    codes = []
    for argv in (["status"], ["-w" + str(tmp_path), "status"]):  # the second spelling goes through click
        reader, writer = os.pipe()
        os.close(reader)  # nobody reads: the first write meets a closed pipe
        proc = subprocess.run([sys.executable, "-m", "mnote_kr", *argv], cwd=tmp_path, env=env, stdout=writer,
                              stderr=subprocess.PIPE, text=True, timeout=120)
        os.close(writer)
        codes.append((proc.returncode, proc.stderr))
    assert codes == [(1, ""), (1, "")], codes


def test_status_help_still_goes_through_click(tmp_path: Path) -> None:
    out, _, info = _run("main", ["status", "--help"], _env(tmp_path / "home"), tmp_path)
    assert info["code"] == 0 and info["click"] is True and out.startswith("Usage: mnote-kr status [OPTIONS]")


@pytest.mark.integration
def test_status_and_search_ask_the_managed_engine_only_what_they_need(
        tmp_path: Path, lightrag_engine: Any) -> None:  # noqa: F811
    # MNOTE_KR_HOME = the session engine's home: the workspace uses *the* managed engine.
    env = _env(Path(lightrag_engine.working_dir).parents[2])
    ws = tmp_path / "ws"
    ws.mkdir()
    token = uuid.uuid4().hex[:10]
    (ws / "note.md").write_text(f"# Pump {token}\n\nThe pump {token} is serviced every spring.\n", encoding="utf-8")
    ingest = subprocess.run([sys.executable, "-m", "mnote_kr", "ingest", "note.md", "--wait", "--json"], cwd=ws,
                            env=env, capture_output=True, text=True, timeout=300)
    assert ingest.returncode == 0, ingest.stderr
    _run("main", ["status", "--json"], env, ws)  # the first status of a new server also probes its exposure

    out, _, info = _run("main", ["status", "--json"], env, ws)
    status = json.loads(out)
    assert info["code"] == 0 and status["provider"]["reachable"] is True
    assert status["provider"]["documentsByStatus"]["processed"] == 1
    # One /health (the engine check; the provider reuses its answer) and the document list.
    assert [path.split("?")[0] for _, path in info["sent"]] == ["/health", "/documents/paginated"], info["sent"]

    out, _, info = _run("main", ["search", f"pump {token} serviced", "--json"], env, ws)
    assert info["code"] == 0 and json.loads(out)["results"]
    # the question, and the question asked again for meaning (``meaningquery``: the managed engine embeds with
    # e5usexlang), nothing else
    assert [path for _, path in info["sent"]] == ["/health", "/query/data", "/query/data"], info["sent"]
    assert info["click"] is False
    # The query was on its way before the citation pipeline had loaded: the process imports
    # while LightRAG works, rather than one after the other.
    assert info["before_pipeline"] == {"/health": True, "/query/data": True}, info


def test_the_fast_search_spec_matches_clicks_search_command() -> None:
    from mnote_kr.cli.main import cli

    params = {p.name: p for p in cli.commands["search"].params}
    spec = fast._SPECS[("search",)]
    multi = {keyword for keyword, kind in spec.options.values() if kind == "multi"}
    for keyword, default in spec.defaults.items():
        if keyword in multi:
            assert params[keyword].multiple and default == (), keyword  # click gives () too
            continue
        assert params[keyword].default == default, keyword
    for spelling, (keyword, _kind) in spec.options.items():
        assert spelling in params[keyword].opts + params[keyword].secondary_opts, spelling
    assert tuple(params["mode"].type.choices) == fast.MODES
