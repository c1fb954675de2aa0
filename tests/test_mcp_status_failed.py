"""``mnote_knowledge_rag_status`` names each failed file and why, as ``mnote-kr status`` does.

A newcomer's agent (nc25b, problem 6) read ``byStatus.failed: 1`` and could not tell the user which file
was broken, while ``status`` printed ``Failed: 周报_截断.docx: <why>``. The tool stays read-only; its
registry part gains ``failedFiles`` (``sourcePath``, ``reason``), added beside the counts.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import digest_tree, write

from mnote_kr.agents.contracts import StatusInput
from mnote_kr.agents.tools import tool_status
from mnote_kr.citations.render.statustext import render_status


def test_status_tool_names_the_failed_file_and_its_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    ws = tmp_path / "ws"
    ws.mkdir()
    host, _ = fake_host(ws, FakeProvider())
    write(ws / "notes.md", "the heron survey of the marsh\n")
    write(ws / "周报_截断.md", "a weekly report cut short\n")
    host.roots_add(ws)
    host.ingest(["."])
    with host.store.transaction() as reg:  # what a truncated file's ingest leaves in the registry
        reg.update("周报_截断.md", status="failed", last_error="file is truncated or corrupt")
    before = digest_tree(ws)

    agent = msgspec.to_builtins(tool_status(host, StatusInput()))
    assert agent["registry"]["byStatus"] == {"processed": 1, "failed": 1}
    assert agent["registry"]["failedFiles"] == [{"sourcePath": "周报_截断.md",
                                                 "reason": "file is truncated or corrupt"}]
    # the CLI's text names the same file with the same reason
    assert "Failed:    周报_截断.md: file is truncated or corrupt" in render_status(host.status())
    assert digest_tree(ws) == before  # status reads; it changes no file
