"""Ctrl-C stops ``mnote-kr mcp`` as it stops ``serve``: at once, exit 0, its token file gone (a newcomer
saw the stdio server wait for stdin to close, and ``mcp --http`` exit 1 with "Aborted."). Each server
is started with SIGINT ignored, as a script's background job starts it (the bare-clone CI run is one):
the server must set its own handler."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.surfaces import MCP_INIT, mcp_library


def _background() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stopped(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"still running 60 s after Ctrl-C: {err[-2000:]}")
    return proc.returncode, out, err


def test_ctrl_c_stops_the_stdio_server_while_its_client_keeps_stdin_open(tmp_path: Path) -> None:
    ws, env = mcp_library(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "mnote_kr", "mcp"], cwd=ws, env=env, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=_background)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(MCP_INIT) + "\n")
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["id"] == 1  # serving, and reading stdin again
    code, out, err = _stopped(proc)
    assert code == 0 and out == "" and "Aborted" not in err and "Traceback" not in err, (code, out, err)


def test_ctrl_c_stops_the_stdio_server_reading_a_terminal(tmp_path: Path) -> None:
    """A person starts it in a terminal and presses Ctrl-C: the read of the terminal must not hold it
    (the SDK's own stdin reader, a thread a cancel cannot stop, kept it running until Ctrl-D)."""
    import os
    import pty

    ws, env = mcp_library(tmp_path)
    leader, follower = pty.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "mnote_kr", "mcp"], cwd=ws, env=env, text=True,
                                stdin=follower, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_background)
        os.write(leader, (json.dumps(MCP_INIT) + "\n").encode())
        assert proc.stdout is not None
        assert json.loads(proc.stdout.readline())["id"] == 1  # serving, and blocked reading the terminal again
        code, _, err = _stopped(proc)
    finally:
        os.close(leader)
        os.close(follower)
    assert code == 0 and "Traceback" not in err, (code, err)
    assert "MCP server for " in err and "waits for an MCP client" in err  # a person is told what it is


def test_ctrl_c_stops_the_http_server_with_exit_0_and_removes_its_token_file(tmp_path: Path) -> None:
    ws, env = mcp_library(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "mnote_kr", "mcp", "--http"], cwd=ws, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_background)
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if line.startswith("Press Ctrl-C"):
            break
    token_file = Path(next(x for x in lines if x.startswith("Token file: ")).split(": ", 1)[1].strip())
    assert token_file.is_file()
    code, _, err = _stopped(proc)
    assert code == 0 and "Aborted" not in err and "Traceback" not in err, (code, err)
    assert not token_file.exists()


def test_a_closed_stdin_is_one_clear_error_not_a_crash(tmp_path: Path) -> None:
    """Started with stdin closed (``mnote-kr mcp <&-``), the next file the process opened took fd 0 and
    the server died on it with 'this is a bug'."""
    import os

    ws, env = mcp_library(tmp_path)
    done = subprocess.run([sys.executable, "-m", "mnote_kr", "mcp"], cwd=ws, env=env, text=True, capture_output=True,
                          preexec_fn=lambda: os.close(0), timeout=120)
    assert done.returncode == 2 and done.stdout == "", (done.returncode, done.stderr)
    assert done.stderr.strip() == ("Error: stdin is closed: 'mnote-kr mcp' talks to its client over stdin and stdout "
                                   "(start it from an MCP client, or use 'mnote-kr mcp --http')")
