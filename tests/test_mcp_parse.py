"""A stdio line that is not a JSON-RPC message gets JSON-RPC's error for it, and the server goes on answering:
a client that waits for a reply to every line it sent must not hang (nc26c). A line that is not JSON gets
-32700 Parse error (id null); one that is JSON but no JSON-RPC message (no method, a list, a string, an id
that is no string or integer) gets -32600 Invalid Request, with its id when that is a string or an integer
(review r27: ``{"jsonrpc": "2.0", "id": 7}`` got no reply at all)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.surfaces import MCP_INIT, mcp_library


def _serving(tmp_path: Path) -> subprocess.Popen[str]:
    """``mnote-kr mcp`` on stdio, initialized."""
    ws, env = mcp_library(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "mnote_kr", "mcp"], cwd=ws, env=env, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(MCP_INIT) + "\n")
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["id"] == 1
    return proc


def _reply(proc: subprocess.Popen[str], line: str) -> dict:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(line + "\n")
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())


def _stop(proc: subprocess.Popen[str]) -> None:
    _, err = proc.communicate(timeout=60)  # closes stdin: the client is done
    assert proc.returncode == 0 and "Traceback" not in err, err


@pytest.mark.timeout(120)  # without the reply, readline would wait forever
def test_a_line_that_is_not_json_gets_a_parse_error_with_id_null_and_the_server_goes_on(tmp_path: Path) -> None:
    proc = _serving(tmp_path)
    try:
        reply = _reply(proc, "this is not json {")
        assert reply["jsonrpc"] == "2.0" and reply["id"] is None and reply["error"]["code"] == -32700, reply
        assert reply["error"]["message"].startswith("Parse error"), reply
        assert _reply(proc, json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"})) == {
            "jsonrpc": "2.0", "id": 2, "result": {}}
    finally:
        _stop(proc)


@pytest.mark.timeout(120)  # without the reply, readline would wait forever
def test_json_that_is_no_json_rpc_message_gets_invalid_request_with_its_id_and_the_server_goes_on(
        tmp_path: Path) -> None:
    proc = _serving(tmp_path)
    try:
        lines = {'{"jsonrpc": "2.0", "id": 7}': 7,  # no method: a client waits on id 7
                 '{"jsonrpc": "2.0", "id": "q-8", "params": {}}': "q-8",
                 '{"foo": 1}': None, "[1, 2]": None, '"just a string"': None, "42": None,
                 '{"jsonrpc": "1.0", "id": 9, "method": "ping"}': 9,
                 '{"jsonrpc": "2.0", "id": true, "method": "ping"}': None,  # an id, but neither string nor integer
                 '{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}': None}
        for line, ident in lines.items():
            reply = _reply(proc, line)
            assert reply["jsonrpc"] == "2.0" and reply["id"] == ident and reply["error"]["code"] == -32600, (line,
                                                                                                            reply)
            assert reply["error"]["message"].startswith("Invalid Request"), reply
        assert _reply(proc, json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"})) == {
            "jsonrpc": "2.0", "id": 2, "result": {}}
        # a notification (no id) still gets no reply: the next reply is the ping's
        assert _reply(proc, '{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}}\n'
                      + json.dumps({"jsonrpc": "2.0", "id": 3, "method": "ping"})) == {
            "jsonrpc": "2.0", "id": 3, "result": {}}
    finally:
        _stop(proc)
