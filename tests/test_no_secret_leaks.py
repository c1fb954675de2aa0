"""The LightRAG API key never leaks: not in any output, error, registry, cache, log or state file.

The key is the session engine's real one, given only through ``MNOTE_KR_LIGHTRAG_API_KEY``.
``MNOTE_KR_HOME`` is the engine's own base folder, so ``engine status`` sees the running
engine and the grep covers its logs and LightRAG's storage too. One file is allowed to hold
the key: the managed engine's state file ``state/engine.json`` (the engine needs it to talk
to its own server). For that file the test checks the mode is 0600 instead, and it is the
only file the grep may find.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import msgspec
import pytest
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)
from mnote_kr_testkit.pdfs import PdfBuilder

from mnote_kr.citations.caches import idrecord, idstore
from tests.cli_helpers import cli_env

pytestmark = pytest.mark.integration




def files_containing(folder: Path, needle: bytes) -> list[Path]:
    """Regular files under ``folder`` (symlinks not followed) whose bytes hold ``needle``."""
    hits = []
    for dirpath, _dirs, names in os.walk(folder, followlinks=False):
        for name in names:
            path = Path(dirpath, name)
            if path.is_symlink():
                continue
            try:
                if needle in path.read_bytes():
                    hits.append(path)
            except OSError:
                continue
    return hits


def config(ws: Path, url: str, input_dir: str) -> None:
    (ws / ".mnote").mkdir(parents=True, exist_ok=True)
    (ws / ".mnote" / "config.toml").write_text(
        f'[providers.lightrag]\nurl = "{url}"\ninput_dir = "{input_dir}"\n', encoding="utf-8")


def test_api_key_appears_in_no_output_and_no_file(tmp_path: Path, lightrag_engine: Any) -> None:  # noqa: F811
    key = lightrag_engine.api_key
    assert len(key) >= 24  # distinctive: a false "not found" is impossible
    home = Path(lightrag_engine.run_dir).parents[1]
    state_file = home / "state" / "engine.json"
    assert key.encode() in state_file.read_bytes()  # the one legitimate copy ...
    assert stat.S_IMODE(state_file.stat().st_mode) == 0o600  # ... readable by its owner only

    ws = tmp_path / "ws"
    config(ws, lightrag_engine.url, lightrag_engine.input_dir)
    token = uuid.uuid4().hex[:10]
    (ws / "kb").mkdir()
    (ws / "kb" / "vault.md").write_text(f"# Vault {token}\n\nThe vault door uses a cobalt hinge.\n", encoding="utf-8")
    pdf = PdfBuilder()
    page = pdf.add_page()
    pdf.text(page, 72, 700, f"Hinge load test {token}: the cobalt hinge held four tonnes.", size=11)
    (ws / "kb" / "hinge.pdf").write_bytes(pdf.build())
    env = cli_env(home, key)
    outputs: list[str] = []

    def run(*args: str, code: int = 0) -> str:
        proc = subprocess.run([sys.executable, "-m", "mnote_kr", *args], cwd=ws, env=env, capture_output=True,
                              text=True, encoding="utf-8", timeout=180)
        outputs.extend([proc.stdout, proc.stderr])
        assert proc.returncode == code, (args, proc.stdout, proc.stderr)
        return proc.stdout

    run("roots", "add", "kb")
    report = json.loads(run("ingest", "kb", "--wait", "--timeout", "120", "--json"))
    assert report["counts"] == {"processed": 2}
    run("ingest", "kb", "--force", "--wait", "--timeout", "120")  # the human form, sending again
    for as_json in ((), ("--json",)):
        run("status", *as_json)
        run("search", f"cobalt hinge {token}", *as_json)
        run("ask", f"cobalt hinge {token}", *as_json)
        run("engine", "status", *as_json)
        run("secrets", "get", "lightrag-api-key", *as_json)
        run("plugins", "--all", *as_json)
    results = json.loads(run("search", f"cobalt hinge {token}", "--json"))["results"]
    assert results
    for citation in results:
        run("open", citation["citationId"])
        run("open", citation["citationId"], "--json")
    run("sync", "--json")
    assert json.loads(run("engine", "status", "--json"))["running"] is True
    secret_info = json.loads(run("secrets", "get", "lightrag-api-key", "--json"))
    assert secret_info == {"name": "lightrag-api-key", "set": True,
                           "source": "environment variable MNOTE_KR_LIGHTRAG_API_KEY"}

    # error cases: a wrong URL (nothing listens there) and a provider that refuses a request
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]
    config(ws, f"http://127.0.0.1:{closed}", lightrag_engine.input_dir)
    (ws / "kb" / "new.md").write_text(f"# New {token}\n\nA note written while the URL is wrong.\n", encoding="utf-8")
    assert "not reachable" in run("ingest", "kb", code=1) + outputs[-1]
    run("search", "cobalt hinge", code=1)
    run("ask", "cobalt hinge", "--json", code=1)
    run("status")
    run("status", "--json")
    run("locate", str(ws / "kb" / "missing.pdf"), "--evidence", "x", code=2)

    assert all(key not in text for text in outputs)
    assert files_containing(ws / ".mnote", key.encode()) == []
    # the only file under the home holding the key is the engine's state file (which proves the grep sees it)
    assert files_containing(home, key.encode()) == [state_file]
    # the grep really covered the workspace's own files (registry); the citation ID store (in the state dir)
    # deflates its records, so they are read back and searched as text
    assert (ws / ".mnote" / "index" / "lightrag-source-registry.msgpack").is_file()
    stores = sorted((home / "state" / "citations").rglob(idstore.STORE_FILE))  # each workspace's (demo's too)
    records = [idrecord.decode(data, cid) for store in stores for cid, _, data in idstore.every(store)]
    assert records and all(r is not None and key.encode() not in msgspec.json.encode(r) for r in records)
    assert {c["citationId"] for c in results} <= {r.id for r in records if r is not None}  # the search's IDs
