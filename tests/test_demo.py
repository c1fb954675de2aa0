"""``mnote-kr demo --json``: offline end to end in a fresh home on a Python-only machine (no Node or
npm on the PATH, every outward socket refused), and nothing left running after it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mnote_kr_testkit.offline import python_only_env

from mnote_kr_lightrag.engine.tiktoken_cache import ENCODINGS, REQUIRED, is_valid
from tests.cli_helpers import cli_env

pytestmark = pytest.mark.integration




def processes_under(folder: Path) -> list[tuple[int, str]]:
    """Live processes whose working directory or command line lies in ``folder`` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            state = next((line for line in (entry / "status").read_text().splitlines() if line.startswith("State:")),
                         "")
        except OSError:
            continue
        if "zombie" in state:
            continue
        if cwd.startswith(str(folder)) or str(folder) in cmdline:
            found.append((int(entry.name), cmdline))
    return found


@pytest.mark.timeout(240)
def test_demo_json_on_a_python_only_offline_machine_cites_docx_pdf_and_markdown_then_stops_its_engine(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    net = tmp_path / "net"
    env = python_only_env(cli_env(home, None), net)
    assert not any(shutil.which(tool, path=env["PATH"]) for tool in ("npm", "node", "nodejs"))
    proc = subprocess.run([sys.executable, "-m", "mnote_kr", "demo", "--json"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, encoding="utf-8", timeout=200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    out = json.loads(proc.stdout)

    # The guard ran in the CLI, the model service and the LightRAG server, and nothing reached out:
    # tiktoken's o200k_base came from the installed wheel into this fresh home's cache.
    armed = (net / "armed.log").read_text(encoding="utf-8")
    for process in ("mnote_kr demo", "mnote_kr_lightrag.engine.modelservice", "mnote_kr_lightrag.engine.guard"):
        assert process in armed, armed
    assert not (net / "refused.log").exists(), (net / "refused.log").read_text(encoding="utf-8")
    assert is_valid(home / "cache" / "tiktoken", REQUIRED), sorted((home / "cache").rglob("*"))
    assert (home / "cache" / "tiktoken" / ENCODINGS[REQUIRED][0]).is_file()

    items = {Path(i["sourcePath"]).suffix: i for i in out["ingest"]["items"]}
    assert set(items) == {".docx", ".pdf", ".md"} and {i["status"] for i in items.values()} == {"processed"}
    assert out["searches"] and all(s["schema"] == "mnote.knowledge_rag.search_results.v1" for s in out["searches"])
    citations = [c for s in out["searches"] for c in s["results"]]
    by_type: dict[str, list[dict]] = {}
    for c in citations:
        by_type.setdefault(Path(c["sourceRootRelativePath"]).suffix, []).append(c)
        assert c["sourceRootRelativePath"].startswith("samples/")
    assert by_type.get(".docx"), "no DOCX citation"
    assert by_type.get(".md"), "no Markdown citation"
    pdf_boxes = [c for c in by_type.get(".pdf", []) if c["locatorPrecision"] == "bbox"]
    assert pdf_boxes, "no PDF citation with a box"
    loc = pdf_boxes[0]["locator"]
    assert loc["page"] >= 1 and len(loc["bbox"]) == 4 and loc["bboxUnit"] == "pt"
    assert f"p.{loc['page']}" in pdf_boxes[0]["citationMarkdown"]
    assert any(c["locatorPrecision"] == "paragraph" and c["locator"]["paragraphIndex"] is not None
               for c in by_type[".docx"])

    # the demo workspace is gone and no engine process of this home survives
    assert not Path(out["workspace"]).exists()
    status = subprocess.run([sys.executable, "-m", "mnote_kr", "engine", "status", "--json"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=60)
    assert status.returncode == 0 and json.loads(status.stdout) == {"running": False}
    assert not (home / "state" / "engine.json").exists()
    assert processes_under(home) == []
