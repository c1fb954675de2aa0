"""A search names the files of its roots that were never ingested, as ``status`` does (nc22b item 7: status
said "New: mineru__docx_01.docx ... run 'mnote-kr ingest .'", while ``search --json`` gave ``notIndexed: []``).

Replayed with the real LightRAG provider over recorded payloads (sample 40: a chunk of the aurora report). The
names come from a walk of the roots (a stat per entry: no file is opened, nothing hashed); each is a
``notIndexed`` item of the contract's shape (``sourcePath``, ``status``, ``reason``)."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec
import pytest
from mnote_kr_testkit.files import digest_tree

from mnote_kr.citations.render.cards import render_search
from tests.test_pipeline_replay import AURORA, Env, chunk_of, make_env, query_data


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Env:
    env = make_env(tmp_path, monkeypatch)
    env.host.roots_add(env.ws / "docs")
    aurora = chunk_of("40_query_data_mix.json", AURORA)
    env.replay.json("POST", "/query/data", query_data(("1", AURORA, aurora["chunk_id"], aurora["content"])))
    return env


def test_a_search_names_new_files_of_its_roots_with_the_command_that_ingests_them(env: Env) -> None:
    (env.ws / "docs" / "fresh.md").write_text("# Fresh\n\nA note written after the last ingest.\n", encoding="utf-8")
    (env.ws / "docs" / "sub").mkdir()
    (env.ws / "docs" / "sub" / "later.txt").write_text("Another one.\n", encoding="utf-8")
    (env.ws / "outside.md").write_text("Not in any root.\n", encoding="utf-8")
    before = digest_tree(env.ws)
    result = env.search("aurora", mode="naive")
    assert [c.source_root_relative_path for c in result.results] == ["docs/aurora_报告.docx"]
    new = [msgspec.to_builtins(n) for n in result.not_indexed if n.status == "not_indexed"]
    fix = "in an indexed root but not ingested yet: 'mnote-kr ingest docs' indexes it"
    assert new == [{"sourcePath": "docs/fresh.md", "status": "not_indexed", "reason": fix},
                   {"sourcePath": "docs/sub/later.txt", "status": "not_indexed", "reason": fix}]
    assert result.diagnostics["newNotIngested"]["count"] == 2
    text = render_search(result).splitlines()
    said = [line for line in text if "not ingested" in line]
    assert said == ["2 new file(s) in the roots not ingested yet: docs/fresh.md, docs/sub/later.txt; "
                    "'mnote-kr ingest docs' indexes them"], text
    assert digest_tree(env.ws) == before  # a stat of each file, nothing written or moved


def test_a_search_whose_scope_holds_no_new_file_names_none(env: Env) -> None:
    (env.ws / "docs" / "sub").mkdir()
    (env.ws / "docs" / "sub" / "later.txt").write_text("Another one.\n", encoding="utf-8")
    result = env.search("aurora", mode="naive", scope=["docs/aurora_报告.docx"])
    assert not [n for n in result.not_indexed if n.status == "not_indexed"]
    assert "newNotIngested" not in result.diagnostics
    named = env.search("aurora", mode="naive", scope=["docs/sub"])
    # the scope's own line ("not in the knowledge base (never ingested)"), and its new file by name
    assert [n.source_path for n in named.not_indexed if n.status == "not_indexed"] == ["docs/sub", "docs/sub/later.txt"]


def test_the_roots_are_walked_again_only_when_a_folder_changed(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    """A search stats the folders the last walk saw; while none changed (nor the roots' rules or the registry) it
    keeps the last walk's list. A file added to any folder, however deep, changes that folder's mtime."""
    from mnote_kr.core import newseen

    sub = env.ws / "docs" / "sub" / "deeper"
    sub.mkdir(parents=True)
    (env.ws / "docs" / "fresh.md").write_text("new\n", encoding="utf-8")
    past = 1_600_000_000
    for folder in (env.ws / "docs", env.ws / "docs" / "sub", sub):
        os.utime(folder, (past, past))  # settled long ago: trusted by the next search
    walks: list[int] = []
    walk = newseen.new_files

    def counted(*args: object, **kwargs: object) -> list[str]:
        walks.append(1)
        return walk(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(newseen, "new_files", counted)
    named = lambda: [n.source_path for n in env.search("aurora", mode="naive").not_indexed  # noqa: E731
                     if n.status == "not_indexed"]
    assert named() == ["docs/fresh.md"] and len(walks) == 1
    assert named() == ["docs/fresh.md"] and len(walks) == 1  # nothing changed: no walk
    (sub / "late.md").write_text("later\n", encoding="utf-8")  # three folders down
    assert named() == ["docs/fresh.md", "docs/sub/deeper/late.md"] and len(walks) == 2
