"""Workspaces sharing one LightRAG: tagged link names, no cross-workspace deletes, no crowding out,
and the first-start migration of a legacy shared namespace (unit level; the real engine is in
tests/test_workspaces_integration.py)."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import httpx
import pytest
from mnote_kr_testkit.data import SAMPLES
from mnote_kr_testkit.replay import Replay, load_sample, make_context

import mnote_kr_lightrag as plugin
from mnote_kr.models import QueryRequest, SourceEntry, SourceFile
from mnote_kr_lightrag.client import links, naming, querying, settings, workspaces
from mnote_kr_lightrag.engine.managed import EngineInfo

SHA = "sha256:" + "ab" * 32


@pytest.fixture(autouse=True)
def _fresh() -> None:
    settings.clear_cache()


def test_link_names_carry_the_workspace_tag_and_legacy_names_still_parse() -> None:
    a, b = naming.workspace_tag("/home/u/a"), naming.workspace_tag("/home/u/b")
    na, nb = naming.link_name("x/report.pdf", SHA, a), naming.link_name("x/report.pdf", SHA, b)
    legacy = naming.link_name("x/report.pdf", SHA)
    assert na != nb != legacy and na.startswith("report.w") and na.endswith(".pdf")
    assert naming.workspace_of(na) == a and naming.workspace_of(legacy) is None
    assert naming.same_source(na, "x/report.pdf", a) and not naming.same_source(nb, "x/report.pdf", a)
    assert naming.same_source(legacy, "x/report.pdf") and not naming.same_source(legacy, "x/report.pdf", a)
    assert naming.is_foreign(nb, a) and not naming.is_foreign(na, a) and not naming.is_foreign(legacy, a)
    assert not naming.is_foreign("notes.md", a)  # not one of our names at all: the registry decides
    dotted = naming.link_name("v1.2.final.md", SHA, a)
    assert naming.workspace_of(dotted) == a and naming.same_source(dotted, "v1.2.final.md", a)
    wrapper = naming.wrapper_name("img/p.png", SHA, a)
    assert naming.workspace_of(wrapper) == a and naming.same_source(wrapper, "img/p.png", a)


def _listing(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"documents": rows, "pagination": {"page": 1, "page_size": 200, "total_count": len(rows),
                                              "total_pages": 1, "has_next": False, "has_prev": False},
            "status_counts": {"processed": len(rows), "all": len(rows)}}


def _row(file_path: str) -> dict[str, Any]:
    _, body = load_sample(SAMPLES, "16_documents_paginated_after_scan.json")
    row = copy.deepcopy(body["documents"][1])
    row.update(id=naming.doc_id_for(file_path), file_path=file_path, status="processed", chunks_count=1)
    return row


def test_ingest_in_one_workspace_never_deletes_or_adopts_the_others_document(tmp_path: Path) -> None:
    inputs = tmp_path / "inputs"
    (inputs / "__parsed__").mkdir(parents=True)
    replay = Replay(SAMPLES)
    ctx_b = make_context(tmp_path, replay.transport, input_dir=str(inputs))
    other_root = tmp_path / "other"
    (other_root / "x").mkdir(parents=True)
    (ctx_b.workspace_root / "x").mkdir(parents=True)
    for root in (other_root, ctx_b.workspace_root):
        (root / "x" / "r.md").write_bytes(b"# same\nsame text")
    src = SourceFile(path=str(ctx_b.workspace_root / "x" / "r.md"), rel_path="x/r.md", source_id="s",
                     sha256="sha256:" + "cd" * 32, size=16, mtime_ns=1)
    # The other workspace's document of the same path (an older content version) and its link.
    theirs = naming.link_name("x/r.md", SHA, naming.workspace_tag(other_root))
    os.symlink(other_root / "x" / "r.md", inputs / "__parsed__" / theirs)
    replay.json("POST", "/documents/paginated", _listing([_row(theirs)]))
    replay.sample("GET", "/documents/supported_file_types", "05_supported_file_types.json")
    replay.sample("POST", "/documents/scan", "10_scan_started.json")
    [update] = plugin.ingest(ctx=ctx_b, sources=[src], force=False)
    assert update.status == "submitted" and update.light_rag_file_path != theirs
    assert naming.workspace_of(update.light_rag_file_path or "") == naming.workspace_tag(ctx_b.workspace_root)
    assert replay.sent("DELETE", "/documents/delete_document") == []
    assert (inputs / "__parsed__" / theirs).is_symlink()  # their link stays


def test_delete_of_a_legacy_name_relinked_by_another_workspace_leaves_its_document(tmp_path: Path) -> None:
    inputs = tmp_path / "inputs"
    (inputs / "__parsed__").mkdir(parents=True)
    replay = Replay(SAMPLES)
    ctx = make_context(tmp_path, replay.transport, input_dir=str(inputs))
    other = tmp_path / "other.md"
    other.write_text("x")
    legacy = naming.link_name("r.md", SHA)
    os.symlink(other, inputs / "__parsed__" / legacy)  # the other workspace linked it last
    entry = SourceEntry(source_id="s", source_path=str(ctx.workspace_root / "r.md"), source_root_relative_path="r.md",
                        light_rag_file_path=legacy, light_rag_doc_id=naming.doc_id_for(legacy), status="processed")
    [update] = plugin.delete(ctx=ctx, entries=[entry])
    assert replay.sent("DELETE", "/documents/delete_document") == []
    assert (inputs / "__parsed__" / legacy).is_symlink() and update.status == "delete_completed"


def _chunks_responder(ours: str, theirs: str, n_theirs: int, n_ours: int):  # noqa: ANN202
    """``/query/data`` over a namespace where ``n_theirs`` foreign chunks outrank ``n_ours`` of ours."""
    ranked = [theirs] * n_theirs + [ours] * n_ours

    def respond(request: httpx.Request) -> httpx.Response:
        payload = json.loads(request.content)
        k = payload.get("chunk_top_k") or querying.DEFAULT_CHUNK_TOP_K
        chunks = [{"reference_id": "1" if name == theirs else "2", "file_path": name,
                   "chunk_id": f"{naming.doc_id_for(name)}-chunk-{i:03d}", "content": f"passage {i}"}
                  for i, name in enumerate(ranked[:k])]
        refs = [{"reference_id": "1", "file_path": theirs}, {"reference_id": "2", "file_path": ours}]
        return httpx.Response(200, json={"status": "success", "message": "ok",
                                         "data": {"chunks": chunks, "references": refs}})
    return respond


def _beside_another_workspace(tmp_path: Path, n_theirs: int, n_ours: int) -> tuple[Replay, Any, str]:
    """A replayed LightRAG whose namespace holds ``n_theirs`` chunks of another workspace ranked above
    ``n_ours`` of this one's: the replay, this workspace's context and its file's link name."""
    replay = Replay(SAMPLES)
    ctx = make_context(tmp_path, replay.transport)
    ours = naming.link_name("mine.md", SHA, naming.workspace_tag(ctx.workspace_root))
    theirs = naming.link_name("big.md", SHA, naming.workspace_tag(tmp_path / "big-workspace"))
    replay.sample("GET", "/health", "02_health_auth.json")
    replay.add("POST", "/query/data", _chunks_responder(ours, theirs, n_theirs=n_theirs, n_ours=n_ours))
    return replay, ctx, ours


def test_query_is_not_crowded_out_by_another_workspaces_chunks(tmp_path: Path) -> None:
    replay, ctx, ours = _beside_another_workspace(tmp_path, n_theirs=150, n_ours=5)
    result = plugin.query(ctx=ctx, request=QueryRequest(query="blade heating", mode="naive", chunk_top_k=10))
    assert [r.file_path for r in result.references] == [ours] * 5
    assert [r.rank for r in result.references] == [1, 2, 3, 4, 5]
    asked = [json.loads(c.content)["chunk_top_k"] for c in replay.sent("POST", "/query/data")]
    assert asked == [10, 40, 160]  # stops once the server has nothing more to give


def test_query_without_foreign_chunks_asks_once(tmp_path: Path) -> None:
    replay = Replay(SAMPLES)
    ctx = make_context(tmp_path, replay.transport)
    ours = naming.link_name("mine.md", SHA, naming.workspace_tag(ctx.workspace_root))
    replay.sample("GET", "/health", "02_health_auth.json")
    replay.add("POST", "/query/data", _chunks_responder(ours, "x.md", n_theirs=0, n_ours=50))
    result = plugin.query(ctx=ctx, request=QueryRequest(query="q words", mode="naive"))
    assert len(result.references) == querying.DEFAULT_CHUNK_TOP_K
    assert len(replay.sent("POST", "/query/data")) == 1


def test_status_does_not_list_another_workspaces_documents_as_unmapped(tmp_path: Path) -> None:
    replay = Replay(SAMPLES)
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    ctx = make_context(tmp_path, replay.transport, input_dir=str(inputs))
    ours = naming.link_name("a.md", SHA, naming.workspace_tag(ctx.workspace_root))
    theirs = naming.link_name("a.md", SHA, naming.workspace_tag(tmp_path / "elsewhere"))
    replay.sample("GET", "/health", "02_health_auth.json")
    replay.json("POST", "/documents/paginated", _listing([_row(ours), _row(theirs), _row("loose.md")]))
    entry = SourceEntry(source_id="s", source_path="/x/a.md", source_root_relative_path="a.md", status="processed",
                        light_rag_file_path=ours, light_rag_doc_id=naming.doc_id_for(ours))
    status = plugin.provider_status(ctx=ctx, entries=[entry])
    assert [u["filePath"] for u in status.unmapped] == ["loose.md"]
    assert status.documents_by_status == {"processed": 2, "all": 2}
    assert status.extra["otherWorkspacesDocuments"] == 1 and status.extra["missingFromIndexCount"] == 0


def test_first_start_migration_copies_the_shared_namespace_and_moves_only_our_links(tmp_path: Path) -> None:
    working, inputs = tmp_path / "engine" / "rag_storage", tmp_path / "engine" / "inputs"
    (inputs / "__parsed__").mkdir(parents=True)
    working.mkdir(parents=True)
    (working / "vdb_chunks.json").write_text('{"vectors": 1}')
    (working / "kv_store_doc_status.json").write_text("{}")
    root, other = tmp_path / "ws", tmp_path / "other"
    for r in (root, other):
        r.mkdir()
        (r / "a.md").write_text("a")
    mine, theirs = naming.link_name("a.md", SHA), naming.link_name("b.md", SHA)
    os.symlink(root / "a.md", inputs / "__parsed__" / mine)
    (inputs / "__parsed__" / f"{mine}.parsed").mkdir()
    os.symlink(other / "a.md", inputs / "__parsed__" / theirs)
    shared = EngineInfo(url="http://127.0.0.1:1", api_key="k", input_dir=str(inputs), working_dir=str(working),
                        pids={}, offline_models=True)
    kept = workspaces.prepare_legacy(shared, "mnote_x", root)
    assert kept == {mine}
    assert (working / "mnote_x" / "vdb_chunks.json").read_text() == '{"vectors": 1}'
    assert (working / "vdb_chunks.json").exists()  # the shared namespace is copied, not moved
    assert (inputs / "mnote_x" / "__parsed__" / mine).is_symlink()
    assert (inputs / "mnote_x" / "__parsed__" / f"{mine}.parsed").is_dir()
    assert (inputs / "__parsed__" / theirs).is_symlink() and not (inputs / "__parsed__" / mine).exists()
    assert (root / "a.md").read_text() == "a"
    assert workspaces.prepare_legacy(shared, "mnote_x", root) is None  # once only
    assert links.owns_legacy(inputs / "mnote_x", mine, root)


def test_a_report_that_may_not_start_servers_says_this_workspaces_engine_is_not_started(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``status`` of a workspace with no files must not start its LightRAG server (~0.5 GB) just to report."""
    import dataclasses

    shared = EngineInfo(url="http://127.0.0.1:1", api_key="k", input_dir=str(tmp_path / "in"),
                        working_dir=str(tmp_path / "engine" / "rag_storage"), pids={}, offline_models=True)
    started: list[str] = []
    monkeypatch.setattr(settings, "_engine_info", lambda ctx: shared)
    monkeypatch.setattr(workspaces, "engine_status", lambda state_dir, **kw: None)  # not running yet
    monkeypatch.setattr(workspaces, "_start", lambda *a, **k: started.append("start") or pytest.fail("started"))
    ctx = dataclasses.replace(make_context(tmp_path, None, url=""), may_start=False)
    from mnote_kr_lightrag.engine import managed

    managed._write_state(ctx.state_dir / managed.STATE_FILE, shared)  # running, as recorded (no stop begun)
    status = plugin.provider_status(ctx=ctx, entries=[])
    assert status is not None and not status.reachable and started == []
    assert status.not_started and "starts on the first ingest" in status.not_started
    assert plugin.unindexable(ctx=ctx, paths=["a.odd-type"]) == {} and started == []  # asked nothing, started nothing
    with pytest.raises(pytest.fail.Exception, match="started"):  # a call that may start it does
        plugin.provider_status(ctx=dataclasses.replace(ctx, may_start=True), entries=[])
    assert started == ["start"]


def test_no_answer_is_not_told_it_may_draw_on_other_workspaces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With no LLM there is no answer text, so the note that an answer may draw on other workspaces'
    passages would only bury the reason there is no answer (``ask`` prints the notes in order)."""
    replay, ctx, ours = _beside_another_workspace(tmp_path, n_theirs=3, n_ours=5)
    monkeypatch.setattr(querying, "is_offline_llm", lambda settings, health: True)
    result = plugin.query(ctx=ctx, request=QueryRequest(query="blade heating", mode="naive", chunk_top_k=10,
                                                        want_answer=True))
    assert result.answer is None and len(result.notes) == 1
    assert not any(querying.OTHER_WORKSPACES_NOTE in n for n in result.notes)
