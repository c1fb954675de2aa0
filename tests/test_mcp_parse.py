"""A stdio line that is not JSON gets JSON-RPC's -32700 Parse error (id null), and the server goes on
answering: a client that waits for a reply to every line it sent must not hang (nc26c)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_helpers import cli_env

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


@pytest.mark.timeout(120)  # without the reply, readline would wait forever
def test_a_line_that_is_not_json_gets_a_parse_error_with_id_null_and_the_server_goes_on(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    (ws / "docs" / "a.md").write_text("A note on glaciers.\n", encoding="utf-8")
    env = cli_env(tmp_path / "home", None)
    added = subprocess.run([sys.executable, "-m", "mnote_kr", "roots", "add", "docs", "--no-follow"], cwd=ws, env=env,
                           capture_output=True, text=True, timeout=120)
    assert added.returncode == 0, added.stderr
    proc = subprocess.Popen([sys.executable, "-m", "mnote_kr", "mcp"], cwd=ws, env=env, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(json.dumps(INIT) + "\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 1
        proc.stdin.write("this is not json {\n")
        proc.stdin.flush()
        reply = json.loads(proc.stdout.readline())
        assert reply["jsonrpc"] == "2.0" and reply["id"] is None and reply["error"]["code"] == -32700, reply
        assert reply["error"]["message"].startswith("Parse error"), reply
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"}) + "\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline()) == {"jsonrpc": "2.0", "id": 2, "result": {}}
    finally:
        _, err = proc.communicate(timeout=60)  # closes stdin: the client is done
    assert proc.returncode == 0 and "Traceback" not in err, err
