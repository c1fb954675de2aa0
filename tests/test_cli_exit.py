"""The console script ends a plain read-only command without the interpreter's teardown
(``fast.exit_now``), and loses nothing by it: every byte written is out, the exit
code is the command's, ``atexit`` functions run, and a thread still working is waited for."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNOTE_KR_")}
    env.update(MNOTE_KR_HOME=str(home), PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
               PYTHONIOENCODING="utf-8")
    return env


def _python(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=_env(tmp_path / "home"),
                          capture_output=True, text=True, timeout=120)


def test_exit_now_flushes_both_streams_runs_atexit_and_keeps_the_code(tmp_path: Path) -> None:
    code = ("import atexit, sys\n"
            "from mnote_kr.cli import fast\n"
            "atexit.register(lambda: sys.stdout.write('from atexit\\n'))\n"
            "sys.stdout.write('unflushed out ' * 2000)\n"  # more than one buffer, the tail unflushed
            "sys.stderr.write('unflushed err')\n"
            "fast.exit_now(3)\n"
            "print('never reached')\n")
    proc = _python(code, tmp_path)
    assert proc.returncode == 3
    assert proc.stdout == "unflushed out " * 2000 + "from atexit\n"
    assert proc.stderr == "unflushed err"


def test_exit_now_waits_for_a_working_thread(tmp_path: Path) -> None:
    code = ("import sys, threading, time\n"
            "from mnote_kr.cli import fast\n"
            "def work():\n"
            "    time.sleep(0.3)\n"
            "    print('thread done', flush=True)\n"
            "threading.Thread(target=work).start()\n"
            "fast.exit_now(0)\n")
    proc = _python(code, tmp_path)
    assert (proc.returncode, proc.stdout) == (0, "thread done\n")


@pytest.mark.parametrize("args", [["status"], ["status", "--json"], ["roots", "list"], ["search", "  "],
                                  ["-w", "nowhere", "status"]])
def test_the_console_script_prints_and_exits_as_main_returns(args: list[str], tmp_path: Path) -> None:
    """``python -m mnote_kr`` (the console script's function) against ``main`` returning normally."""
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    env = _env(tmp_path / "home")
    assert subprocess.run([sys.executable, "-m", "mnote_kr", "roots", "add", "docs"], cwd=ws, env=env,
                          capture_output=True, timeout=120).returncode == 0
    console = subprocess.run([sys.executable, "-m", "mnote_kr", *args], cwd=ws, env=env, capture_output=True,
                             text=True, timeout=120)
    returned = subprocess.run([sys.executable, "-c", "import sys; from mnote_kr.cli import main; "
                               "sys.exit(main(sys.argv[1:]))", *args], cwd=ws, env=env, capture_output=True,
                              text=True, timeout=120)
    assert (console.returncode, console.stdout, console.stderr) == (
        returned.returncode, returned.stdout, returned.stderr)
    assert console.stdout or console.stderr
    assert console.returncode == (2 if args in (["search", "  "], ["-w", "nowhere", "status"]) else 0)  # usage: 2


def test_the_console_script_is_the_fast_exit_entry() -> None:
    import tomllib

    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["scripts"]["mnote-kr"] == "mnote_kr.cli:console"


_PROBE = ("import sys\n"
          "class Probe:\n"
          "    def __del__(self):\n"
          "        sys.stderr.write('teardown ran')\n"
          "probe = Probe()\n")


def test_the_console_script_skips_the_teardown_only_as_the_process_entry(tmp_path: Path) -> None:
    """As a script's entry the teardown is skipped (a module global's ``__del__`` never runs);
    run by ``runpy`` (what ``python -m cProfile``/``pdb`` do) the exit is a ``SystemExit`` the
    runner catches, and its own work after that still happens."""
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    env = _env(tmp_path / "home")
    assert subprocess.run([sys.executable, "-m", "mnote_kr", "roots", "add", "docs"], cwd=ws, env=env,
                          capture_output=True, timeout=120).returncode == 0
    as_entry = subprocess.run(
        [sys.executable, "-c", _PROBE + "sys.argv = ['mnote-kr', 'roots', 'list']\n"
         "from mnote_kr.cli import console\nconsole()\n"],
        cwd=ws, env=env, capture_output=True, text=True, timeout=120)
    assert as_entry.returncode == 0 and "docs" in as_entry.stdout
    assert "teardown ran" not in as_entry.stderr
    hosted = subprocess.run(
        [sys.executable, "-c", _PROBE + "import runpy\nsys.argv = ['mnote_kr', 'roots', 'list']\n"
         "try:\n    runpy.run_module('mnote_kr', run_name='__main__')\n"
         "except SystemExit as exc:\n    print('runner got', exc.code)\n"],
        cwd=ws, env=env, capture_output=True, text=True, timeout=120)
    assert "docs" in hosted.stdout and "runner got 0" in hosted.stdout
    assert "teardown ran" in hosted.stderr  # the ordinary exit: finalizers run
