"""``mnote_knowledge_rag_status`` says what ``mnote-kr status --json`` says of the files on disk.

An agent asked "is the knowledge base up to date?" saw only ``newFilesNotIngested``: an indexed file
edited or deleted since (which a search no longer cites), a file placed by words only until
``sync`` embeds its places, and a file indexed through the provider's fallback were all invisible to
it, while ``status`` named each. The tool is driven over stdio by the ``mcp`` SDK's own client, as in
``test_mcp.py``, against the real LightRAG; what it must say is read from ``mnote-kr status --json``,
run separately.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)

from tests.cli_helpers import cli_env
from tests.test_mcp import call, session

pytestmark = pytest.mark.integration

STATUS = "mnote_knowledge_rag_status"


def _cli(ws: Path, home: Path, api_key: str, *args: str) -> Any:
    import json

    proc = subprocess.run([sys.executable, "-m", "mnote_kr", *args, "--json"], cwd=ws, env=cli_env(home, api_key),
                          capture_output=True, text=True, encoding="utf-8", timeout=240)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_status_tool_carries_the_files_changed_missing_new_words_only_and_fallback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lightrag_engine: Any) -> None:  # noqa: F811
    ws, home = tmp_path / "ws", tmp_path / "home"
    (ws / ".mnote").mkdir(parents=True)
    home.mkdir()
    (ws / ".mnote" / "config.toml").write_text(
        f'[providers.lightrag]\nurl = "{lightrag_engine.url}"\ninput_dir = "{lightrag_engine.input_dir}"\n',
        encoding="utf-8")
    kb = ws / "kb"
    kb.mkdir()
    for name, text in (("edited.md", "The amber lamp glows in the hall."),
                       ("gone.md", "The blue kettle sings at dawn."),
                       ("scan.md", "The copper bell rings at noon.")):
        (kb / name).write_text(f"# {name}\n\n{text}\n", encoding="utf-8")
    key = lightrag_engine.api_key
    _cli(ws, home, key, "roots", "add", "kb")
    assert _cli(ws, home, key, "ingest", "kb", "--wait", "--timeout", "120")["counts"] == {"processed": 3}

    # What happens to a library between two syncs: an edit, a delete, a new file.
    (kb / "edited.md").write_text("# edited.md\n\nRewritten: the lamp is gone.\n", encoding="utf-8")
    (kb / "gone.md").unlink()
    (kb / "new.md").write_text("# new.md\n\nA new note.\n", encoding="utf-8")
    # scan.md: indexed through the provider's fallback, and a search found no vectors for its places.
    monkeypatch.setenv("MNOTE_KR_HOME", str(home))
    from mnote_kr.app.host import Host
    from mnote_kr.citations.rank import wordsonly

    host = Host(str(ws))
    with host.store.transaction() as reg:
        reg.update("kb/scan.md", kind="text_fallback", last_error=None)
    wordsonly._record(host, "kb/scan.md", "no-vectors-for-this-key")
    before = {p: p.read_bytes() for p in kb.iterdir()}

    cli = _cli(ws, home, key, "status")
    params = StdioServerParameters(command=sys.executable, args=["-m", "mnote_kr", "--workspace", str(ws), "mcp"],
                                   env=cli_env(home, key), cwd=str(home))

    async def body(client: Client) -> dict[str, Any]:
        return await call(client, STATUS, {})  # checked against the tool's declared output schema

    agent = session(params, body)
    # the CLI's facts, said by the same names
    assert agent["changedSinceIndexed"] == cli["changedSinceIndexed"]
    assert agent["changedSinceIndexed"]["count"] == 1 and agent["changedSinceIndexed"]["paths"] == ["kb/edited.md"]
    assert "mnote-kr sync" in agent["changedSinceIndexed"]["fix"]
    assert agent["missingSinceIndexed"] == cli["missingSinceIndexed"]
    assert agent["missingSinceIndexed"]["paths"] == ["kb/gone.md"]
    assert agent["pendingNew"] == cli["pendingNew"]
    assert agent["pendingNew"]["paths"] == ["kb/new.md"] and agent["newFilesNotIngested"] == 1
    assert agent["wordsOnly"] == cli["meaning"]["wordsOnly"]
    assert agent["wordsOnly"] == {"count": 1, "paths": ["kb/scan.md"], "command": "mnote-kr sync"}
    assert agent["registry"]["fallbacks"] == len(cli["registry"]["fallbacks"]) == 1
    # the rest as before
    assert agent["indexedRoots"] == ["kb"] and agent["registry"]["entries"] == 3
    assert agent["provider"]["reachable"] is True
    assert {p: p.read_bytes() for p in kb.iterdir()} == before  # status reads; it changes no file
