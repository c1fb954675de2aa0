"""``status`` with the managed engine stopped in the middle of a file (nc27b): it said "1 being indexed" and "1
file(s) still being indexed (cited once LightRAG has indexed them)" while nothing ran. Nothing indexes a sent file
while the engine is stopped: the file is named interrupted, with what indexes it again ('mnote-kr engine start',
then 'mnote-kr sync'). No engine is started here: the workspace's managed engine was never started (the same
report as one stopped with 'mnote-kr engine stop': ``test_lr_engine.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from mnote_kr_testkit.files import digest_tree
from mnote_kr_testkit.replay import source_file

from mnote_kr.app.host import Host
from mnote_kr.cli.main import main
from mnote_kr.models import SourceEntry
from mnote_kr_lightrag.client import naming

REL = "kb/handbook.md"


def _stopped_mid_file(tmp_path: Path) -> Host:
    """A workspace whose registry records ``REL`` sent and being processed, as an ingest left it when the engine
    stopped; the managed engine not running."""
    ws = tmp_path / "ws"
    (ws / "kb").mkdir(parents=True)
    (ws / REL).write_text("# Handbook\n\nThe amber lamp glows.\n", encoding="utf-8")
    host = Host(ws)
    host.roots_add(ws / "kb")
    src = source_file(ws, REL)
    name = naming.link_name(src.rel_path, src.sha256, naming.workspace_tag(ws))
    entry = SourceEntry(source_id=src.source_id, source_path=src.path, source_root_relative_path=REL,
                        source_hash=src.sha256, size=src.size, mtime_ns=src.mtime_ns, status="processing",
                        light_rag_file_path=name, light_rag_doc_id=naming.doc_id_for(name))
    with host.store.transaction() as reg:
        reg.put(entry)
    return host


def test_status_with_the_engine_stopped_names_the_file_interrupted_not_being_indexed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    host = _stopped_mid_file(tmp_path)
    before = digest_tree(host.root)
    info = host.status()
    assert info["provider"]["reachable"] is False and info["provider"]["startCommand"] == "mnote-kr engine start"
    assert info["registry"]["interrupted"] == {"count": 1, "paths": [REL], "startFirst": "mnote-kr engine start",
                                               "fix": "mnote-kr engine start && mnote-kr sync"}
    monkeypatch.chdir(host.root)
    capsys.readouterr()
    assert main(["status"]) == 0
    text = capsys.readouterr().out
    assert "being indexed" not in text, text
    assert "Registry:  1 entries (1 interrupted)" in text, text
    assert (f"Interrupted: {REL}: the engine is stopped, so nothing indexes it; 'mnote-kr engine start' then "
            "'mnote-kr sync' index it again") in text.splitlines(), text
    assert "Provider:  lightrag: not started: run 'mnote-kr engine start'" in text, text
    assert main(["status", "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["registry"]["interrupted"]["paths"] == [REL] and said["registry"]["byStatus"] == {"processing": 1}
    assert digest_tree(host.root) == before  # status reads; the user's files untouched


def test_status_with_the_engine_stopped_leaves_a_queued_or_indexed_file_as_it_is(tmp_path: Path) -> None:
    """Only files sent and not indexed wait for the engine: a file queued to send stays queued."""
    host = _stopped_mid_file(tmp_path)
    with host.store.transaction() as reg:
        reg.put(msgspec.structs.replace(reg.entries[REL], status="pending", pending_action="ingest"))
    info = host.status()
    assert info["registry"]["interrupted"]["count"] == 0
