"""The scope rules through the real CLI and a real LightRAG server (see ``test_scope_rules`` for
each rule over every case): a folder's non-document files are passed over with exit 0 (and named by
``status`` and searches: ``test_skipped_listed``), a named one fails with exit 1, and a file excluded
after it was indexed is no longer cited."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)

from tests.test_cli_contract import make_workspace, sha

pytestmark = pytest.mark.integration


def _cited(cli: Any, query: str) -> set[str]:  # noqa: ANN401
    return {c["sourceRootRelativePath"] for c in cli.json("search", query, "--top-k", "50")["results"]}


def test_a_folder_of_mixed_files_and_a_later_exclude(tmp_path: Path, lightrag_engine: Any) -> None:  # noqa: ANN401, F811
    cli = make_workspace(tmp_path, lightrag_engine)
    token = uuid.uuid4().hex[:10]
    kb = cli.ws / "kb"
    (kb / "drafts").mkdir(parents=True)
    (kb / "zebra.md").write_text(f"# Zebra notes {token}\n\nThe zebra herd grazes by the river.\n", encoding="utf-8")
    (kb / "drafts" / "draft.md").write_text(f"# Draft {token}\n\nThe zebra draft on basalt.\n", encoding="utf-8")
    (kb / "data.bin").write_bytes(b"\x00\x01 hello\n")
    (kb / "archive.zip").write_bytes(b"PK\x05\x06" + b"\x00" * 18)
    sources = {p: sha(p) for p in kb.rglob("*") if p.is_file()}
    cli.run("roots", "add", "kb")

    for run in (1, 2):  # every run: passed over, exit 0, never sent
        out = cli.run("ingest", "kb", "--wait", "--timeout", "120").stdout
        for name in ("data.bin", "archive.zip"):
            line = next(ln for ln in out.splitlines() if ln.endswith(")") and f"kb/{name}" in ln)
            assert line.startswith("skipped") and "not a file type LightRAG indexes" in line, (run, out)
        assert "skipped: 2" in out and "failed" not in out, out
    entries = {e["sourcePath"] for e in cli.json("status")["registry"]["failed"]}
    assert entries == set()
    named = cli.run("ingest", "kb/data.bin", code=1)  # named: sent, and it fails with the reason
    assert "LightRAG cannot index '.bin' files" in named.stdout + named.stderr
    again = cli.json("ingest", "kb")  # a folder ingest drops that never-indexed failure
    item = {i["sourcePath"]: i for i in again["items"]}["kb/data.bin"]
    assert item["status"] == "skipped" and "failed record is dropped" in item["reason"]
    assert cli.json("status")["registry"]["failed"] == []
    said = cli.json("search", "what is in data.bin")["notIndexed"]
    # the file the query names first, then every file of the searched folders passed over for its type
    assert [(n["sourcePath"], n["status"]) for n in said] == [("kb/data.bin", "skipped"), ("kb/archive.zip", "skipped")]
    assert [f["sourcePath"] for f in cli.json("status")["skipped"]["files"]] == ["kb/archive.zip", "kb/data.bin"]
    assert "Skipped:   kb/archive.zip: not a file type LightRAG indexes" in cli.run("status").stdout

    assert {"kb/zebra.md", "kb/drafts/draft.md"} <= _cited(cli, f"zebra {token}")
    said = cli.run("roots", "add", "kb", "--exclude", "drafts").stdout
    assert "Dropped from the index: kb/drafts/draft.md (excluded by pattern 'drafts' of root kb)" in said, said
    root = cli.json("roots", "add", "kb", "--exclude", "drafts", "--exclude", "zebra.md")
    assert [d["sourcePath"] for d in root["droppedFromIndex"]] == ["kb/zebra.md"]  # only what is dropped now
    cli.run("roots", "add", "kb", "--exclude", "drafts")  # back: zebra.md is in the scope again
    readd = cli.run("ingest", "kb", "--wait", "--timeout", "120").stdout
    assert "kb/zebra.md" in readd and "excluded           kb/drafts/draft.md" in readd, readd
    assert "kb/drafts/draft.md" not in _cited(cli, f"zebra {token} draft basalt")
    assert "kb/zebra.md" in _cited(cli, f"zebra {token}")
    stale = cli.json("status")["registry"]["staleEntries"]
    assert [(s["sourcePath"], "'drafts'" in s["reason"]) for s in stale] == [("kb/drafts/draft.md", True)]
    assert cli.json("sync", "--wait", "30")["reconcile"]["excluded"]["count"] == 0
    text = cli.run("sync").stdout
    assert "Passed over 2 file(s) the provider cannot index: kb/archive.zip (not a file type LightRAG" in text, text
    assert {p: sha(p) for p in kb.rglob("*") if p.is_file()} == sources  # no source file touched


def test_a_file_excluded_and_taken_back_at_once_is_cited_again(tmp_path: Path, lightrag_engine: Any,  # noqa: ANN401, F811
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # The exclude sends the document's delete, which LightRAG runs in the background; taken back
    # at once (in process, no CLI start-up between), the re-ingest used to find the row LightRAG
    # still listed, record it processed, and lose it when the delete ended (3 of 4 runs).
    from mnote_kr.app.host import Host

    cli = make_workspace(tmp_path, lightrag_engine)
    monkeypatch.setenv("MNOTE_KR_HOME", str(cli.home))
    monkeypatch.setenv("MNOTE_KR_LIGHTRAG_API_KEY", lightrag_engine.api_key)
    kb = cli.ws / "kb"
    kb.mkdir()
    host = Host(cli.ws)
    host.roots_add("kb")
    for round_ in range(2):
        token = uuid.uuid4().hex[:10]
        note = kb / f"zebra{round_}.md"
        note.write_text(f"# Zebra notes {token}\n\nThe zebra herd grazes by the river.\n" + "Zebras graze. " * 300,
                        encoding="utf-8")
        before = sha(note)
        host.ingest(["kb"], wait=True, wait_s=120)
        host.roots_add("kb", exclude=[note.name])
        host.roots_add("kb")
        report = host.ingest(["kb"], wait=True, wait_s=120)
        cited = {c.source_root_relative_path for c in host.search(f"zebra {token}", top_k=50).results}
        assert f"kb/{note.name}" in cited, (round_, report)
        assert host.registry().entries[f"kb/{note.name}"].status == "processed"
        assert sha(note) == before
