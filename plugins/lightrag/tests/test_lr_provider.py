"""LightRAG provider hooks (ingest, sync, delete, status, query) against replayed 1.5.7 payloads."""

from __future__ import annotations

import copy
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import httpx
import pytest
from mnote_kr_testkit.data import SAMPLES as SAMPLES_DIR
from mnote_kr_testkit.replay import URL, Replay, load_sample, make_context, replayed_provider
from mnote_kr_testkit.replay import source_file as source

import mnote_kr_lightrag as plugin
from mnote_kr.errors import ProviderError
from mnote_kr.models import SourceEntry, SourceFile
from mnote_kr_lightrag.client import naming, provider, settings

REPO = Path(__file__).resolve().parents[3]
SAMPLES = SAMPLES_DIR


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    settings.clear_cache()
    slept: list[float] = []
    clock = [1_800_000_000.0]

    def fake_sleep(seconds: float) -> None:
        slept.append(seconds)
        clock[0] += seconds

    monkeypatch.setattr(provider, "sleep", fake_sleep)
    monkeypatch.setattr(provider, "now_s", lambda: clock[0])
    return slept


def listing(rows: list[dict[str, Any]]) -> dict[str, Any]:
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    counts["all"] = len(rows)
    return {"documents": rows, "pagination": {"page": 1, "page_size": 200, "total_count": len(rows),
                                              "total_pages": 1, "has_next": False, "has_prev": False},
            "status_counts": counts}


def sample_row(file_path: str, status: str = "processed", *, chunks: int = 1) -> dict[str, Any]:
    """A recorded processed row (samples/16), renamed to one of our link names."""
    _, body = load_sample(SAMPLES, "16_documents_paginated_after_scan.json")
    row = copy.deepcopy(body["documents"][1])
    row.update(id=naming.doc_id_for(file_path), file_path=file_path, status=status, chunks_count=chunks)
    return row


def write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path




def entry_for(src: SourceFile, **fields: Any) -> SourceEntry:
    base: dict[str, Any] = {"source_id": src.source_id, "source_path": src.path,
                            "source_root_relative_path": src.rel_path, "source_hash": src.sha256, "size": src.size}
    base.update(fields)
    return SourceEntry(**base)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, Any]:
    return replayed_provider(tmp_path, SAMPLES)


def std_routes(replay: Replay, rows: list[dict[str, Any]] | None = None, scan: str = "10_scan_started.json") -> None:
    replay.json("POST", "/documents/paginated", listing(rows or []))
    replay.sample("GET", "/documents/supported_file_types", "05_supported_file_types.json")
    replay.sample("POST", "/documents/scan", scan)


# --------------------------------------------------------------------------- ingest


def test_lr_ingest_same_named_files_get_distinct_symlinks_never_copies(env: dict[str, Any]) -> None:
    ws, inputs, replay = env["ws"], env["inputs"], env["replay"]
    write(ws / "a" / "readme.md", b"# A\nalpha")
    write(ws / "b" / "readme.md", b"# B\nbeta")
    before = {p: p.read_bytes() for p in (ws / "a" / "readme.md", ws / "b" / "readme.md")}
    std_routes(replay)
    sources = [source(ws, "a/readme.md"), source(ws, "b/readme.md")]
    updates = plugin.ingest(ctx=env["ctx"], sources=sources, force=False)
    assert [u.status for u in updates] == ["submitted", "submitted"]
    names = [u.light_rag_file_path for u in updates]
    assert names[0] != names[1] and all(n.startswith("readme.") and n.endswith(".md") for n in names)
    assert all("[" not in n for n in names)
    for src, update in zip(sources, updates, strict=True):
        link = inputs / update.light_rag_file_path
        assert link.is_symlink() and os.readlink(link) == src.path
        assert update.light_rag_doc_id == "doc-" + hashlib.md5(update.light_rag_file_path.encode()).hexdigest()
        assert update.track_id == "scan_20261129_214636_f34c01b5" and update.kind == "document"
    assert {p: p.read_bytes() for p in before} == before
    assert len(replay.sent("POST", "/documents/scan")) == 1


def test_lr_ingest_changed_content_deletes_old_doc_then_links_new_name(env: dict[str, Any]) -> None:
    ws, inputs, replay = env["ws"], env["inputs"], env["replay"]
    write(ws / "r.md", b"version one")
    old = source(ws, "r.md")
    old_name = naming.link_name(old.rel_path, old.sha256, naming.workspace_tag(env["ws"]))
    os.symlink(old.path, inputs / "__parsed__" / old_name)  # LightRAG moved the processed link
    write(ws / "r.md", b"version two")
    new = source(ws, "r.md")
    replay.json("POST", "/documents/paginated", listing([sample_row(old_name)]))
    replay.sample("GET", "/documents/supported_file_types", "05_supported_file_types.json")
    replay.sample("DELETE", "/documents/delete_document", "50_delete_document.json")
    replay.sample("POST", "/documents/scan", "10_scan_started.json")
    [update] = plugin.ingest(ctx=env["ctx"], sources=[new], force=False)
    new_name = naming.link_name(new.rel_path, new.sha256, naming.workspace_tag(env["ws"]))
    assert update.status == "submitted" and update.light_rag_file_path == new_name != old_name
    assert not (inputs / "__parsed__" / old_name).exists() and (ws / "r.md").read_bytes() == b"version two"
    assert (inputs / new_name).is_symlink()
    [delete] = replay.sent("DELETE", "/documents/delete_document")
    assert json.loads(delete.content) == {"doc_ids": [naming.doc_id_for(old_name)], "delete_file": False,
                                          "delete_llm_cache": False}
    order = [c.url.path for c in replay.calls]
    assert order.index("/documents/delete_document") < order.index("/documents/scan")


@pytest.mark.parametrize("scan", ["11_scan_second_immediately.json", "19_scan_while_processing.json"])
def test_lr_ingest_scan_skipped_busy_is_pending_and_link_stays(env: dict[str, Any], scan: str) -> None:
    ws, inputs, replay = env["ws"], env["inputs"], env["replay"]
    write(ws / "n.md", b"# n")
    std_routes(replay, scan=scan)
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "n.md")], force=False)
    assert update.status == "pending" and update.pending_action == "ingest"
    assert update.retry_after_s and update.retry_after_s > 0 and "busy" in (update.last_error or "")
    assert (inputs / update.light_rag_file_path).is_symlink()


def test_lr_ingest_429_scan_uses_retry_after(env: dict[str, Any]) -> None:
    ws, replay = env["ws"], env["replay"]
    write(ws / "n.md", b"# n")
    replay.json("POST", "/documents/paginated", listing([]))
    replay.sample("GET", "/documents/supported_file_types", "05_supported_file_types.json")
    replay.json("POST", "/documents/scan", {"detail": "job store full"}, status=429, headers={"Retry-After": "30"})
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "n.md")], force=False)
    assert update.status == "pending" and update.retry_after_s == 30.0


def test_lr_ingest_lightrag_down_raises_one_clear_error_and_touches_nothing(env: dict[str, Any]) -> None:
    ws, inputs, replay = env["ws"], env["inputs"], env["replay"]
    write(ws / "n.md", b"# n")
    replay.error("POST", "/documents/paginated", httpx.ConnectError)
    # The host has queued the source as pending before calling; sync links and scans it later.
    with pytest.raises(ProviderError, match="not reachable") as info:
        plugin.ingest(ctx=env["ctx"], sources=[source(ws, "n.md")], force=False)
    assert URL in str(info.value) and "\n" not in str(info.value)
    assert [p.name for p in inputs.iterdir()] == ["__parsed__"]


def test_lr_ingest_wrong_key_raises_before_touching_input_dir(env: dict[str, Any]) -> None:
    ws, inputs, replay = env["ws"], env["inputs"], env["replay"]
    write(ws / "n.md", b"# n")
    replay.sample("POST", "/documents/paginated", "03b_pipeline_status_wrongkey.json")
    with pytest.raises(ProviderError, match="rejected the API key"):
        plugin.ingest(ctx=env["ctx"], sources=[source(ws, "n.md")], force=False)
    assert [p.name for p in inputs.iterdir()] == ["__parsed__"]


def test_lr_ingest_image_gets_markdown_wrapper_in_input_dir(env: dict[str, Any]) -> None:
    ws, inputs, replay = env["ws"], env["inputs"], env["replay"]
    write(ws / "pics" / "rig.png", b"\x89PNG\r\n\x1a\n" + b"0" * 100)
    write(ws / "pics" / "rig.txt", b"Test rig with the Aurora cells")
    listing_before = sorted(p.name for p in (ws / "pics").iterdir())
    std_routes(replay)
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "pics/rig.png")], force=False)
    assert update.status == "submitted" and update.kind == "image"
    wrapper = Path(update.wrapper_path or "")
    assert wrapper.parent == inputs and wrapper.name == update.light_rag_file_path and wrapper.name.endswith(".png.md")
    assert wrapper.is_file() and not wrapper.is_symlink()
    text = wrapper.read_text(encoding="utf-8")
    assert "rig.png" in text and "pics" in text and "108 bytes" in text and "Test rig with the Aurora cells" in text
    assert sorted(p.name for p in (ws / "pics").iterdir()) == listing_before


def test_lr_ingest_unsupported_type_fails_clearly(env: dict[str, Any]) -> None:
    ws, replay = env["ws"], env["replay"]
    write(ws / "x.zip", b"PK")
    std_routes(replay)
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "x.zip")], force=False)
    assert update.status == "failed" and "'.zip'" in (update.last_error or "")
    assert not replay.sent("POST", "/documents/scan")


def test_lr_ingest_invisible_input_dir_is_reported_and_upload_only_when_asked(tmp_path: Path) -> None:
    replay = Replay(SAMPLES)
    replay.json("POST", "/documents/paginated", listing([]))
    replay.sample("GET", "/health", "02_health_auth.json")  # /srv/lr-spike/run/inputs: not here
    replay.sample("POST", "/documents/upload", "30_upload.json")
    ctx = make_context(tmp_path, replay.transport)
    write(ctx.workspace_root / "u.md", b"# upload me")
    src = source(ctx.workspace_root, "u.md")
    [update] = plugin.ingest(ctx=ctx, sources=[src], force=False)
    assert update.status == "failed" and "shared file system" in (update.last_error or "")
    assert not replay.sent("POST", "/documents/upload")
    settings.clear_cache()
    ctx2 = make_context(tmp_path, replay.transport, upload_fallback=True)
    [update] = plugin.ingest(ctx=ctx2, sources=[src], force=False)
    assert update.status == "submitted" and "copied" in (update.last_error or "")
    [upload] = replay.sent("POST", "/documents/upload")
    assert update.light_rag_file_path.encode() in upload.content and b"# upload me" in upload.content
    write(ctx.workspace_root / "q1.xlsm", b"PK")  # LightRAG takes no .xlsm: its text needs the input dir
    [update] = plugin.ingest(ctx=ctx2, sources=[source(ctx.workspace_root, "q1.xlsm")], force=False)
    assert (update.status, update.last_error) == ("failed", "'.xlsm' files need LightRAG's input directory "
                                                            "(no upload fallback)")
    assert len(replay.sent("POST", "/documents/upload")) == 1


def test_lr_ingest_adopts_document_lightrag_already_processed(env: dict[str, Any]) -> None:
    ws, replay = env["ws"], env["replay"]
    write(ws / "n.md", b"# n")
    src = source(ws, "n.md")
    name = naming.link_name(src.rel_path, src.sha256, naming.workspace_tag(env["ws"]))
    os.symlink(src.path, env["inputs"] / "__parsed__" / name)  # processed: LightRAG moved our link there
    std_routes(replay, rows=[sample_row(name, chunks=2)])
    [update] = plugin.ingest(ctx=env["ctx"], sources=[src], force=False)
    assert update.status == "processed"
    assert update.chunk_ids == [f"{naming.doc_id_for(name)}-chunk-000", f"{naming.doc_id_for(name)}-chunk-001"]
    assert not replay.sent("POST", "/documents/scan")


def _pipeline_deleting(busy: bool) -> dict[str, Any]:
    """The recorded pipeline status after a delete (samples/52), or the same job still running."""
    _, body = load_sample(SAMPLES, "52_pipeline_status_after_delete.json")
    body = copy.deepcopy(body)
    if busy:
        body.update(busy=True, cur_batch=0, latest_message="Starting document deletion process")
    return body


@pytest.mark.parametrize("busy", [True, False])
def test_lr_ingest_of_a_file_whose_own_delete_is_running_waits_for_it(env: dict[str, Any], busy: bool) -> None:
    # Excluded (its document's delete sent, our link removed), then taken back before LightRAG has
    # finished deleting: the row it still lists is about to vanish, so it is not adopted.
    ws, replay, inputs = env["ws"], env["replay"], env["inputs"]
    write(ws / "n.md", b"# n")
    src = source(ws, "n.md")
    name = naming.link_name(src.rel_path, src.sha256, naming.workspace_tag(ws))
    std_routes(replay, rows=[sample_row(name)])
    replay.json("GET", "/documents/pipeline_status", _pipeline_deleting(busy))
    [update] = plugin.ingest(ctx=env["ctx"], sources=[src], force=False)
    # Not busy too: the delete may be accepted but not yet running (or LightRAG listed the row
    # just before it ended), and "unknown" must not be taken for "over".
    assert update.status == "pending" and update.pending_action == "ingest" and update.retry_after_s == 1.0
    assert "finish deleting" in (update.last_error or "")
    assert not replay.sent("POST", "/documents/scan") and not (inputs / name).exists()
    for count, expected in ((provider.LINK_GONE_RETRIES - 1, "pending"), (provider.LINK_GONE_RETRIES, "processed")):
        waiting = entry_for(src, status="pending", pending_action="ingest", retry_count=count, next_retry_at_ms=0,
                            light_rag_file_path=name)
        [update] = plugin.sync(ctx=env["ctx"], entries=[waiting], wait_s=0)
        # Past the short bound a link gone for another reason (a registry restored on a machine whose
        # input dir lost its links) adopts the row; a running delete is still waited for.
        assert update.status == (expected if not busy else "pending"), (count, update)
    assert not replay.sent("POST", "/documents/scan") and not (inputs / name).exists()


def test_lr_ingest_with_its_link_in_place_is_adopted_without_asking_the_pipeline(env: dict[str, Any]) -> None:
    ws, replay, inputs = env["ws"], env["replay"], env["inputs"]
    write(ws / "n.md", b"# n")
    src = source(ws, "n.md")
    name = naming.link_name(src.rel_path, src.sha256, naming.workspace_tag(ws))
    os.symlink(src.path, inputs / "__parsed__" / name)  # where LightRAG moved it after processing
    std_routes(replay, rows=[sample_row(name)])
    replay.json("GET", "/documents/pipeline_status", _pipeline_deleting(True))
    [update] = plugin.ingest(ctx=env["ctx"], sources=[src], force=False)
    assert update.status == "processed" and not replay.sent("GET", "/documents/pipeline_status")


def test_lr_ingest_force_same_content_deletes_then_relinks(env: dict[str, Any]) -> None:
    ws, inputs, replay = env["ws"], env["inputs"], env["replay"]
    write(ws / "n.md", b"# n")
    src = source(ws, "n.md")
    name = naming.link_name(src.rel_path, src.sha256, naming.workspace_tag(env["ws"]))
    os.symlink(src.path, inputs / "__parsed__" / name)
    std_routes(replay, rows=[sample_row(name)])
    replay.sample("DELETE", "/documents/delete_document", "50_delete_document.json")
    [update] = plugin.ingest(ctx=env["ctx"], sources=[src], force=True)
    assert update.status == "submitted"
    assert not (inputs / "__parsed__" / name).exists() and (inputs / name).is_symlink()
    assert json.loads(replay.sent("DELETE", "/documents/delete_document")[0].content)["doc_ids"] == [
        naming.doc_id_for(name)]


def test_lr_ingest_force_with_busy_delete_is_pending_reindex(env: dict[str, Any], _fresh: list[float]) -> None:
    ws, inputs, replay = env["ws"], env["inputs"], env["replay"]
    write(ws / "n.md", b"# n")
    src = source(ws, "n.md")
    name = naming.link_name(src.rel_path, src.sha256, naming.workspace_tag(env["ws"]))
    std_routes(replay, rows=[sample_row(name)])
    replay.sample("DELETE", "/documents/delete_document", "51_delete_again_immediately.json")
    [update] = plugin.ingest(ctx=env["ctx"], sources=[src], force=True)
    assert update.status == "pending" and update.pending_action == "reindex"
    assert len(replay.sent("DELETE", "/documents/delete_document")) == provider.DELETE_BUSY_RETRIES + 1
    assert _fresh == [0.5, 1.0, 2.0]  # bounded backoff
    assert not (inputs / name).exists()  # not linked while the old document still exists


# --------------------------------------------------------------------------- sync


def test_lr_sync_records_processed_doc_chunks_and_time(env: dict[str, Any]) -> None:
    ws, replay = env["ws"], env["replay"]
    write(ws / "n.md", b"# n")
    src = source(ws, "n.md")
    name = naming.link_name(src.rel_path, src.sha256, naming.workspace_tag(env["ws"]))
    replay.json("POST", "/documents/paginated", listing([sample_row(name, chunks=3)]))
    entry = entry_for(src, status="submitted", light_rag_file_path=name, light_rag_doc_id=naming.doc_id_for(name))
    [update] = plugin.sync(ctx=env["ctx"], entries=[entry], wait_s=0)
    assert update.status == "processed"
    assert update.chunk_ids == [f"{naming.doc_id_for(name)}-chunk-{i:03d}" for i in range(3)]
    assert update.indexed_at_ms == 1795988797880


def test_lr_sync_duplicate_row_and_failed_corrupt_docx(env: dict[str, Any]) -> None:
    ws, replay = env["ws"], env["replay"]
    _, body = load_sample(SAMPLES, "34_documents_paginated_all.json")
    broken = copy.deepcopy(next(r for r in body["documents"] if r["file_path"] == "broken.docx"))
    dup = copy.deepcopy(next(r for r in body["documents"] if r["id"].startswith("dup-")))
    write(ws / "broken.docx", b"not a zip")
    write(ws / "copy.txt", b"Kestrel")
    s1, s2 = source(ws, "broken.docx"), source(ws, "copy.txt")
    ws = naming.workspace_tag(env["ws"])
    n1, n2 = naming.link_name(s1.rel_path, s1.sha256, ws), naming.link_name(s2.rel_path, s2.sha256, ws)
    broken.update(id=naming.doc_id_for(n1), file_path=n1)
    dup.update(file_path=n2)
    original = next(r for r in body["documents"] if r["id"] == dup["metadata"]["original_doc_id"])
    replay.json("POST", "/documents/paginated", listing([broken, dup, original]))  # the original is live
    entries = [entry_for(s1, status="submitted", light_rag_file_path=n1),
               entry_for(s2, status="processing", light_rag_file_path=n2)]
    u1, u2 = plugin.sync(ctx=env["ctx"], entries=entries, wait_s=0)
    assert u1.status == "failed" and "not a valid DOCX" in (u1.last_error or "") and "\n" not in u1.last_error
    assert u2.status == "duplicate" and u2.duplicate_of == "doc-f98f516f39a2d3ce116d55434f1a1250"


def test_lr_sync_follows_processing_to_processed_within_wait(env: dict[str, Any], _fresh: list[float]) -> None:
    ws, inputs, replay = env["ws"], env["inputs"], env["replay"]
    write(ws / "slow.txt", b"slow")
    src = source(ws, "slow.txt")
    name = naming.link_name(src.rel_path, src.sha256, naming.workspace_tag(env["ws"]))
    os.symlink(src.path, inputs / "__parsed__" / name)
    rows = []
    for sample in ("19e_track_status_mid_processing.json", "19f_track_status_after.json"):
        row = load_sample(SAMPLES, sample)[1]["documents"][0]
        row.update(id=naming.doc_id_for(name), file_path=name)
        rows.append(row)
    replay.json("POST", "/documents/paginated", listing([rows[0]])).json("POST", "/documents/paginated",
                                                                         listing([rows[0]]))
    replay.json("POST", "/documents/paginated", listing([rows[1]]))
    entry = entry_for(src, status="submitted", light_rag_file_path=name)
    [update] = plugin.sync(ctx=env["ctx"], entries=[entry], wait_s=10)
    assert update.status == "processed" and update.chunk_ids == [f"{naming.doc_id_for(name)}-chunk-000"]
    assert 0 < sum(_fresh) <= 10


def test_lr_sync_retries_pending_ingest_only_when_due(env: dict[str, Any]) -> None:
    ws, inputs, replay = env["ws"], env["inputs"], env["replay"]
    write(ws / "n.md", b"# n")
    src = source(ws, "n.md")
    std_routes(replay, scan="11_scan_second_immediately.json")
    later = entry_for(src, status="pending", pending_action="ingest", next_retry_at_ms=(1_800_000_000 + 60) * 1000)
    [update] = plugin.sync(ctx=env["ctx"], entries=[later], wait_s=0)
    assert update.status == "pending" and not replay.sent("POST", "/documents/scan")
    due = entry_for(src, status="pending", pending_action="ingest", retry_count=3, next_retry_at_ms=0)
    [update] = plugin.sync(ctx=env["ctx"], entries=[due], wait_s=0)
    assert update.status == "pending" and update.pending_action == "ingest" and update.retry_after_s == 40.0
    assert len(replay.sent("POST", "/documents/scan")) == 1 and (inputs / update.light_rag_file_path).is_symlink()


def test_lr_sync_delete_submitted_completes_when_doc_is_gone(env: dict[str, Any]) -> None:
    ws, replay = env["ws"], env["replay"]
    write(ws / "a.md", b"a")
    write(ws / "b.md", b"b")
    sa, sb = source(ws, "a.md"), source(ws, "b.md")
    ws = naming.workspace_tag(env["ws"])
    na, nb = naming.link_name(sa.rel_path, sa.sha256, ws), naming.link_name(sb.rel_path, sb.sha256, ws)
    replay.json("POST", "/documents/paginated", listing([sample_row(nb)]))
    replay.sample("DELETE", "/documents/delete_document", "51_delete_again_immediately.json")
    entries = [entry_for(sa, status="delete_submitted", light_rag_file_path=na, light_rag_doc_id=naming.doc_id_for(na)),
               entry_for(sb, status="delete_submitted", light_rag_file_path=nb, light_rag_doc_id=naming.doc_id_for(nb))]
    ua, ub = plugin.sync(ctx=env["ctx"], entries=entries, wait_s=0)
    assert ua.status == "delete_completed"
    assert ub.status == "pending" and ub.pending_action == "delete"  # still listed, re-sent, busy
    sent = [json.loads(r.content) for r in replay.sent("DELETE", "/documents/delete_document")]
    assert all(s["doc_ids"] == [naming.doc_id_for(nb)] and s["delete_file"] is False for s in sent)


# --------------------------------------------------------------------------- delete


def test_lr_delete_removes_only_our_links_and_never_targets(env: dict[str, Any]) -> None:
    ws, inputs, replay = env["ws"], env["inputs"], env["replay"]
    write(ws / "d.md", b"keep me")
    src = source(ws, "d.md")
    name = naming.link_name(src.rel_path, src.sha256, naming.workspace_tag(env["ws"]))
    os.symlink(src.path, inputs / name)
    os.symlink(src.path, inputs / "__parsed__" / name)
    stem, ext = os.path.splitext(name)
    write(inputs / "__parsed__" / f"{stem}_001{ext}", b"an uploaded copy, not a link")
    replay.sample("GET", "/health", "02_health_auth.json")
    replay.sample("DELETE", "/documents/delete_document", "50_delete_document.json")
    entry = entry_for(src, status="processed", light_rag_file_path=name, light_rag_doc_id=naming.doc_id_for(name))
    [update] = plugin.delete(ctx=env["ctx"], entries=[entry])
    assert update.status == "delete_submitted" and update.light_rag_doc_id == naming.doc_id_for(name)
    assert not (inputs / name).is_symlink() and not (inputs / "__parsed__" / name).is_symlink()
    assert (inputs / "__parsed__" / f"{stem}_001{ext}").read_bytes() == b"an uploaded copy, not a link"
    assert (ws / "d.md").read_bytes() == b"keep me"
    assert json.loads(replay.sent("DELETE", "/documents/delete_document")[0].content)["delete_file"] is False


@pytest.mark.parametrize("busy", ["19c_delete_while_processing.json", "51_delete_again_immediately.json"])
def test_lr_delete_busy_retries_then_pending(env: dict[str, Any], busy: str, _fresh: list[float]) -> None:
    ws, replay = env["ws"], env["replay"]
    write(ws / "d.md", b"x")
    src = source(ws, "d.md")
    replay.sample("GET", "/health", "02_health_auth.json")
    replay.sample("DELETE", "/documents/delete_document", busy)
    entry = entry_for(src, status="processed", light_rag_file_path="d.x.md", light_rag_doc_id="doc-x")
    [update] = plugin.delete(ctx=env["ctx"], entries=[entry])
    assert update.status == "pending" and update.pending_action == "delete" and update.retry_after_s
    assert len(replay.sent("DELETE", "/documents/delete_document")) == 4 and len(_fresh) == 3


def test_lr_delete_when_down_is_pending_with_error(env: dict[str, Any]) -> None:
    ws, replay = env["ws"], env["replay"]
    write(ws / "d.md", b"x")
    src = source(ws, "d.md")
    replay.error("GET", "/health", httpx.ConnectError).error("DELETE", "/documents/delete_document",
                                                             httpx.ConnectError)
    entry = entry_for(src, status="processed", light_rag_file_path="d.x.md", light_rag_doc_id="doc-x")
    [update] = plugin.delete(ctx=env["ctx"], entries=[entry])
    assert update.status == "pending" and update.pending_action == "delete"
    assert "not reachable" in (update.last_error or "")


# --------------------------------------------------------------------------- status


def test_lr_status_reports_health_rerank_counts_and_unmapped(env: dict[str, Any]) -> None:
    replay = env["replay"]
    replay.sample("GET", "/health", "02_health_auth.json")
    replay.sample("POST", "/documents/paginated", "34_documents_paginated_all.json")
    mapped = SourceEntry(source_id="s", source_path="/x/notes.md", source_root_relative_path="notes.md",
                         light_rag_file_path="notes.md", light_rag_doc_id="doc-db235fc914867ffea6b540c8732499d5")
    status = plugin.provider_status(ctx=env["ctx"], entries=[mapped])
    assert status.reachable and status.core_version == "1.5.7" and status.api_version == "0344"
    assert status.pipeline_busy is False and status.llm_model == "stub-llm" and status.embedding_model == "stub-embed"
    assert status.rerank == {"enabled": False, "binding": "null", "model": None, "queue": {"available": False}}
    assert status.webui_url == f"{URL}/webui/"
    assert status.documents_by_status["processed"] == 4 and status.documents_by_status["failed"] == 2
    unmapped = {u["filePath"] for u in status.unmapped}
    assert "notes.md" not in unmapped and {"aurora_报告.docx", "broken.docx", "kestrel_note_copy.txt"} <= unmapped
    assert status.input_directory == str(env["inputs"]) and status.extra["inputDirVisible"] is True


def test_lr_status_raises_when_lightrag_is_down(env: dict[str, Any]) -> None:
    env["replay"].error("GET", "/health", httpx.ConnectError)
    with pytest.raises(ProviderError, match="not reachable"):
        plugin.provider_status(ctx=env["ctx"], entries=[])


def test_lr_ingest_gateway_error_is_pending_not_failure(env: dict[str, Any]) -> None:
    ws, replay = env["ws"], env["replay"]
    write(ws / "n.md", b"# n")
    replay.raw("POST", "/documents/paginated", status=502, content=b"<html>Bad Gateway</html>",
               headers={"content-type": "text/html"})
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "n.md")], force=False)
    assert update.status == "pending" and "HTTP 502" in (update.last_error or "")


def test_lr_status_with_wrong_key_reports_health_and_the_auth_error(env: dict[str, Any]) -> None:
    replay = env["replay"]
    replay.sample("GET", "/health", "01_health_noauth.json")
    replay.sample("POST", "/documents/paginated", "03b_pipeline_status_wrongkey.json")
    status = plugin.provider_status(ctx=env["ctx"], entries=[])
    assert status.reachable and status.core_version == "1.5.7"
    assert "rejected the API key" in (status.error or "") and "test-key" not in (status.error or "")
    assert status.documents_by_status == {}


# --------------------------------------------------------------------------- moves


def _moved(env: dict[str, Any]) -> tuple[SourceFile, str, str]:
    """``old/m.md`` renamed to ``new/m.md`` (same bytes); the old link already removed by the delete."""
    ws = env["ws"]
    write(ws / "new" / "m.md", b"# moved\nthe same bytes")
    new = source(ws, "new/m.md")
    tag = naming.workspace_tag(ws)
    return new, naming.link_name("old/m.md", new.sha256, tag), naming.link_name(new.rel_path, new.sha256, tag)


def test_lr_ingest_moved_file_waits_while_lightrag_still_lists_the_old_document(env: dict[str, Any]) -> None:
    inputs, replay = env["inputs"], env["replay"]
    new, old_name, new_name = _moved(env)
    os.symlink(new.path, inputs / new_name)  # placed while LightRAG was down
    std_routes(replay, [sample_row(old_name)])
    [update] = plugin.ingest(ctx=env["ctx"], sources=[new], force=False)
    assert update.status == "pending" and update.pending_action == "ingest"
    assert update.retry_after_s == 1.0 and old_name in (update.last_error or "")
    assert not (inputs / new_name).exists() and not replay.sent("POST", "/documents/scan")


def test_lr_sync_sends_the_moved_file_once_the_old_document_is_gone(env: dict[str, Any]) -> None:
    inputs, replay = env["inputs"], env["replay"]
    new, old_name, new_name = _moved(env)
    std_routes(replay, [sample_row(old_name)])
    waiting = entry_for(new, status="pending", pending_action="ingest", retry_count=2, next_retry_at_ms=0)
    [update] = plugin.sync(ctx=env["ctx"], entries=[waiting], wait_s=0)
    assert update.status == "pending" and update.retry_after_s == 3.0 and not replay.sent("POST", "/documents/scan")
    replay.routes.clear()
    std_routes(replay, [])  # LightRAG finished the delete
    [update] = plugin.sync(ctx=env["ctx"], entries=[waiting], wait_s=0)
    assert update.status == "submitted" and update.light_rag_file_path == new_name
    assert (inputs / new_name).is_symlink() and len(replay.sent("POST", "/documents/scan")) == 1


def test_lr_ingest_copy_of_a_live_document_and_a_long_wait_are_sent_at_once(env: dict[str, Any]) -> None:
    inputs, replay = env["inputs"], env["replay"]
    new, old_name, new_name = _moved(env)
    os.symlink(new.path, inputs / "__parsed__" / old_name)  # the other copy is still indexed: not a move
    std_routes(replay, [sample_row(old_name)])
    [update] = plugin.ingest(ctx=env["ctx"], sources=[new], force=False)
    assert update.status == "submitted" and (inputs / new_name).is_symlink()
    (inputs / "__parsed__" / old_name).unlink()
    (inputs / new_name).unlink()
    tired = entry_for(new, status="pending", pending_action="ingest", retry_count=provider.TWIN_WAIT_RETRIES,
                      next_retry_at_ms=0)
    [update] = plugin.sync(ctx=env["ctx"], entries=[tired], wait_s=0)
    assert update.status == "submitted" and (inputs / new_name).is_symlink()


def _dup_row(name: str, original_id: str) -> dict[str, Any]:
    """A post-parse content duplicate under our own document id (recorded dup row, renamed)."""
    _, body = load_sample(SAMPLES, "34_documents_paginated_all.json")
    row = copy.deepcopy(next(r for r in body["documents"] if r["id"].startswith("dup-")))
    row.update(id=naming.doc_id_for(name), file_path=name)
    row["metadata"]["original_doc_id"] = original_id
    return row


def test_lr_sync_duplicate_of_a_document_being_deleted_is_sent_again_once(env: dict[str, Any]) -> None:
    replay = env["replay"]
    new, old_name, new_name = _moved(env)
    replay.json("POST", "/documents/paginated",
                listing([_dup_row(new_name, naming.doc_id_for(old_name)), sample_row(old_name)]))
    entry = entry_for(new, status="submitted", light_rag_file_path=new_name)
    [update] = plugin.sync(ctx=env["ctx"], entries=[entry], wait_s=0)
    assert update.status == "pending" and update.pending_action == "ingest"
    assert update.duplicate_of == naming.doc_id_for(old_name)
    again = entry_for(new, status="submitted", light_rag_file_path=new_name, duplicate_of=naming.doc_id_for(old_name))
    [update] = plugin.sync(ctx=env["ctx"], entries=[again], wait_s=0)
    assert update.status == "duplicate"  # the same original a second time: LightRAG's verdict stands


def test_lr_ingest_clears_our_duplicate_record_of_a_deleted_document_before_sending(env: dict[str, Any]) -> None:
    inputs, replay = env["inputs"], env["replay"]
    new, old_name, new_name = _moved(env)
    std_routes(replay, [_dup_row(new_name, naming.doc_id_for(old_name))])  # the original is gone
    replay.sample("DELETE", "/documents/delete_document", "50_delete_document.json")
    [update] = plugin.ingest(ctx=env["ctx"], sources=[new], force=False)
    assert update.status == "pending" and update.pending_action == "ingest"
    [delete] = replay.sent("DELETE", "/documents/delete_document")
    assert json.loads(delete.content)["doc_ids"] == [naming.doc_id_for(new_name)]
    assert not replay.sent("POST", "/documents/scan") and not (inputs / new_name).exists()
    replay.routes.clear()
    std_routes(replay, [])  # LightRAG dropped the duplicate record
    [update] = plugin.ingest(ctx=env["ctx"], sources=[new], force=False)
    assert update.status == "submitted" and (inputs / new_name).is_symlink()
