"""End to end against the real lightrag-server (offline model stand-in), through the Host API.

One engine per session (``mnote_kr_testkit.engine``). Each test has its own workspace and
gives its files unique content, because LightRAG refuses identical content under a
second name. Source files are checked byte for byte after every operation.
"""

from __future__ import annotations

import hashlib
import shutil
import time
import uuid
from pathlib import Path

import httpx
import pytest
from mnote_kr_testkit.data import CORPUS as CORPUS_DIR
from mnote_kr_testkit.docx_docs import DocxBuilder
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)
from mnote_kr_testkit.waiting import wait_until

from mnote_kr.app.host import Host
from mnote_kr.core.config import load_config
from mnote_kr.errors import ProviderError
from mnote_kr_lightrag.engine.managed import start_engine, stop_engine
from tests.cli_helpers import turbine_pdf

pytestmark = pytest.mark.integration
CORPUS = CORPUS_DIR


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def make_host(ws: Path, engine, monkeypatch: pytest.MonkeyPatch) -> Host:  # noqa: ANN001
    monkeypatch.setenv("MNOTE_KR_LIGHTRAG_API_KEY", engine.api_key)
    ws.mkdir(parents=True, exist_ok=True)
    config = load_config(ws)
    config["providers"] = {"lightrag": {"url": engine.url, "input_dir": engine.input_dir}}
    return Host(ws, config=config)


@pytest.fixture
def host(tmp_path: Path, lightrag_engine, monkeypatch: pytest.MonkeyPatch) -> Host:  # noqa: F811, ANN001
    return make_host(tmp_path / "kb", lightrag_engine, monkeypatch)


def write_md(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body, encoding="utf-8")
    return path


def chem_docx(token: str) -> tuple[bytes, int, int]:
    """The acceptance trap: N-甲基吡咯烷酮 early, the 吡咯烷 paragraph later. Returns (bytes, trap idx, target idx)."""
    b = DocxBuilder()
    b.heading("保护基与溶剂 " + token, 1)
    b.para("本文记录实验室常用试剂的用途和注意事项，编号 " + token + "。")
    b.heading("溶剂", 2)
    trap = b.para("N-甲基吡咯烷酮 (NMP) 是常用的极性溶剂，涂布后需要在烘箱中除去。")
    b.para("N-甲基吗啉 可作为碱使用，但本项目没有采用。")
    b.heading("胺类", 2)
    target = b.para("吡咯烷 是一种环状仲胺，本项目用它合成新的电解液添加剂，添加量为千分之五。")
    b.para("三乙基硅 保护基在酸性条件下可以脱除，三甲基硅 更容易水解。")
    return b.build(), trap, target




def test_ingest_file_and_folder_then_cite_and_open_with_sources_unchanged(host: Host) -> None:
    token = uuid.uuid4().hex[:10]
    ws = host.root
    note = write_md(ws / "notes" / "turbines.md", f"# Turbines {token}\n\nIce on blades lowers output.\n")
    docx_bytes, trap_idx, target_idx = chem_docx(token)
    (ws / "papers").mkdir()
    (ws / "papers" / "chem.docx").write_bytes(docx_bytes)
    (ws / "papers" / "icing.pdf").write_bytes(turbine_pdf(token))
    sources = [note, ws / "papers" / "chem.docx", ws / "papers" / "icing.pdf"]
    before = {p: sha(p) for p in sources}

    one = host.ingest(["notes/turbines.md"], wait=True, wait_s=120)
    folder = host.ingest(["papers"], wait=True, wait_s=120)
    statuses = {i.source_path: i.status for i in one.items + folder.items}
    assert statuses == {"notes/turbines.md": "processed", "papers/chem.docx": "processed",
                        "papers/icing.pdf": "processed"}
    # an unchanged second run sends nothing
    again = host.ingest(["papers"])
    assert {i.status for i in again.items} == {"already_registered"}

    result = host.search("吡咯烷", top_k=10)
    assert result.rerank.requested is False and result.rerank.enabled is False  # as LightRAG reports it
    chem = [c for c in result.results if c.source_root_relative_path == "papers/chem.docx"]
    assert chem, result.diagnostics
    c = chem[0]
    assert "吡咯烷" in c.display_quote and "<equation" not in c.display_quote and "<drawing" not in c.display_quote
    assert c.locator_precision == "paragraph" and c.locator.page is None and c.locator.bbox is None
    assert c.locator.paragraph_index == target_idx != trap_idx
    assert c.citation_id.startswith("[") and len(c.citation_id) == 6

    pdf_hits = host.search("blade heating power loss", top_k=10).results
    pdf = [c for c in pdf_hits if c.source_root_relative_path == "papers/icing.pdf"]
    assert pdf and pdf[0].locator_precision == "bbox" and pdf[0].locator.page == 1
    assert "p.1" in pdf[0].citation_markdown

    for citation in result.results + pdf_hits:
        plan = host.open(citation.citation_id)
        assert Path(plan.resource_path).is_file()
        assert Path(plan.resource_path).resolve().is_relative_to(ws)
        assert plan.open_action.search_query
    assert {p: sha(p) for p in sources} == before


def test_same_named_files_in_different_folders_both_index_and_cite_the_right_one(host: Host) -> None:
    token = uuid.uuid4().hex[:10]
    a = write_md(host.root / "alpha" / "readme.md", f"# Readme {token} A\n\nThe alpha pump runs on diesel.\n")
    b = write_md(host.root / "beta" / "readme.md", f"# Readme {token} B\n\nThe beta compressor uses nitrogen.\n")
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in (a, b)}
    report = host.ingest(["alpha", "beta"], wait=True, wait_s=120)
    assert {i.status for i in report.items} == {"processed"}
    reg = host.registry()
    assert reg.entries["alpha/readme.md"].light_rag_file_path != reg.entries["beta/readme.md"].light_rag_file_path
    hits = host.search(f"beta compressor nitrogen {token}", top_k=10, mode="naive").results
    rels = [c.source_root_relative_path for c in hits]
    assert "beta/readme.md" in rels
    first_beta = next(c for c in hits if c.source_root_relative_path == "beta/readme.md")
    assert "nitrogen" in first_beta.display_quote and "diesel" not in first_beta.display_quote
    # The sources are byte for byte what they were before ingest and search (and not rewritten).
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in (a, b)} == before


@pytest.mark.timeout(900)  # its two waits allow 420 s; a loaded CI machine took over 300 (2026-12-06)
def test_busy_pipeline_during_ingest_recovers_without_user_action(host: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    token = uuid.uuid4().hex[:10]
    paragraphs = "\n\n".join(f"Paragraph {i} of the long log {token}: pressure {i * 7 % 101} kPa, "
                             f"temperature {i * 13 % 97} C, operator note {uuid.uuid4().hex}." for i in range(2500))
    write_md(host.root / "big" / "long-log.md", f"# Long log {token}\n\n{paragraphs}\n")
    write_md(host.root / "small" / "short.md", f"# Short {token}\n\nThe short note mentions a cobalt anode.\n")
    seen: list[str] = []
    original = host.apply_updates

    def recording(updates):  # noqa: ANN001, ANN202
        updates = list(updates)
        seen.extend(u.status for u in updates if u.source_root_relative_path == "small/short.md")
        return original(updates)

    monkeypatch.setattr(host, "apply_updates", recording)
    host.ingest(["big"])  # keeps the pipeline busy for a while
    report = host.ingest(["small"], wait=True, wait_s=180)
    assert report.items[0].status == "processed", (seen, report)
    assert "pending" in seen, f"the pipeline was never busy: {seen}"  # busy was recorded, then retried
    host.ingest(["big"], wait=True, wait_s=240)  # leave the shared engine idle for the next test


def test_changed_file_is_reindexed_and_old_chunks_are_not_cited(host: Host) -> None:
    token = uuid.uuid4().hex[:10]
    note = write_md(host.root / "notes" / "plan.md", f"# Plan {token}\n\nThe launch uses the zircon valve.\n")
    host.ingest(["notes"], wait=True, wait_s=120)
    old = host.registry().entries["notes/plan.md"]
    assert old.status == "processed"
    time.sleep(0.01)
    note.write_text(f"# Plan {token}\n\nThe launch now uses the obsidian manifold instead.\n", encoding="utf-8")
    report = host.ingest(["notes"], wait=True, wait_s=120)
    assert report.items[0].status == "processed"
    new = host.registry().entries["notes/plan.md"]
    assert new.light_rag_doc_id != old.light_rag_doc_id and new.source_hash != old.source_hash
    old_hits = host.search(f"zircon valve {token}", top_k=20, mode="naive").results
    assert not any("zircon" in (c.display_quote or "") for c in old_hits)
    new_hits = host.search(f"obsidian manifold {token}", top_k=20, mode="naive").results
    assert any(c.source_root_relative_path == "notes/plan.md" and "obsidian" in c.display_quote for c in new_hits)


def test_delete_then_prune_leave_the_source_byte_identical(host: Host) -> None:
    token = uuid.uuid4().hex[:10]
    note = write_md(host.root / "d" / "gone.md", f"# Gone {token}\n\nThe tungsten filament glows.\n")
    digest = sha(note)
    host.roots_add("d")  # a root a sync follows: the record of a deleted file is what keeps it out of it
    host.ingest(["d"], wait=True, wait_s=120)
    assert sha(note) == digest
    entries = host.delete(["d/gone.md"])
    assert entries[0].status in ("delete_submitted", "delete_completed") and entries[0].stale
    assert not any(c.source_root_relative_path == "d/gone.md"
                   for c in host.search(f"tungsten filament {token}", mode="naive").results)
    deadline = time.monotonic() + 60
    while host.registry().entries["d/gone.md"].status != "delete_completed" and time.monotonic() < deadline:
        host.sync(wait_s=2)
    assert host.registry().entries["d/gone.md"].status == "delete_completed"
    assert host.prune() == [] and "d/gone.md" in host.registry().entries  # on disk: its record keeps it out
    assert sha(note) == digest and note.exists()
    moved = note.rename(host.root.parent / "gone.md")  # this test's own file, out of the workspace
    assert host.prune() == ["d/gone.md"]
    assert "d/gone.md" not in host.registry().entries
    assert sha(moved) == digest


def test_unmapped_provider_documents_are_reported_in_status(host: Host, lightrag_engine) -> None:  # noqa: F811, ANN001
    name = f"stray-{uuid.uuid4().hex[:8]}.txt"
    r = httpx.post(f"{lightrag_engine.url}/documents/text", headers={"X-API-Key": lightrag_engine.api_key},
                   json={"text": f"A stray note {name} that no registry knows.", "file_source": name}, timeout=30)
    assert r.status_code == 200, r.text
    def reported() -> dict | None:
        status = host.status()
        return status if name in _unmapped(status) else None

    try:
        status = wait_until(reported, timeout_s=60, poll_s=0.5,
                            what=lambda: f"{name} not reported unmapped: {_unmapped(host.status())}")
        assert status["provider"]["reachable"] is True and status["provider"]["coreVersion"] == "1.5.7"
        assert status["provider"]["rerank"]["enabled"] is False
    finally:
        _drop_stray(host, lightrag_engine, name)


def _unmapped(status: dict) -> dict[str, str]:
    """The unmapped documents status reports: file name -> doc id."""
    return {u.get("filePath") or u.get("file_path"): u.get("docId") for u in status["provider"]["unmapped"]}


def _drop_stray(host: Host, engine, name: str) -> None:  # noqa: ANN001
    """Delete the stray document (``delete_file=false``) and wait until LightRAG lists it no more: the
    session's engine is shared, and a later test's status must not find it unmapped. A delete LightRAG
    refuses while it is still indexing the note is sent again on the next look."""
    def gone() -> bool:
        doc_id = _unmapped(host.status()).get(name)
        if doc_id is None:
            return True
        httpx.request("DELETE", f"{engine.url}/documents/delete_document", headers={"X-API-Key": engine.api_key},
                      json={"doc_ids": [doc_id], "delete_file": False}, timeout=30)
        return False

    wait_until(gone, timeout_s=120, what=f"the stray {name} still listed", poll_s=0.5)


def test_lightrag_stopped_mid_run_gives_one_clear_error_and_an_intact_registry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = tmp_path / "own-engine"
    engine = start_engine(data_dir=base / "data", state_dir=base / "state", cache_dir=base / "cache", wait_s=120)
    try:
        host = make_host(tmp_path / "kb", engine, monkeypatch)
        token = uuid.uuid4().hex[:10]
        write_md(host.root / "n" / "a.md", f"# A {token}\n\nThe amber relay clicks.\n")
        host.ingest(["n"], wait=True, wait_s=120)
    finally:
        stop_engine(base / "state")
    before = host.store.path.read_bytes()
    write_md(host.root / "n" / "b.md", f"# B {token}\n\nThe basalt relay hums.\n")
    with pytest.raises(ProviderError) as info:
        host.ingest(["n"])
    message = str(info.value)
    assert "\n" not in message and "not reachable" in message and "queued" in message
    reg = host.registry()
    assert reg.entries["n/a.md"].status == "processed"  # nothing lost
    assert reg.entries["n/b.md"].status == "pending" and reg.entries["n/b.md"].pending_action == "ingest"
    with pytest.raises(ProviderError, match="not reachable"):
        host.search("amber relay")
    status = host.status()
    assert status["provider"]["reachable"] is False and status["registry"]["entries"] == 2
    assert len(before) > 0 and host.store.load().entries["n/a.md"].light_rag_doc_id


def test_corpus_sample_search_every_open_plan_resolves_inside_the_workspace(host: Host) -> None:
    samples = host.root / "corpus"
    samples.mkdir()
    # Files no other test sends to the shared engine (it refuses identical content under a new name).
    picks = ["docx/docling__word_sample.docx", "docx/mineru__test.docx", "pdf/pdfjs__tracemonkey.pdf",
             "pdf/markitdown__test.pdf"]
    for rel in picks:
        shutil.copyfile(CORPUS / rel, samples / Path(rel).name)
    digests = {p: sha(p) for p in samples.iterdir()}
    report = host.ingest(["corpus"], wait=True, wait_s=240)
    processed = [i for i in report.items if i.status == "processed"]
    assert len(processed) + sum(i.status == "duplicate" for i in report.items) == len(picks), report
    cited = 0
    for query in ("trace-based just-in-time compilation", "合同 违约", "word sample heading", "large language models"):
        for citation in host.search(query, top_k=10).results:
            plan = host.open(citation.citation_id)
            path = Path(plan.resource_path)
            assert path.is_file() and path.resolve().is_relative_to(host.root)
            assert plan.resource_kind in ("office", "pdf")
            if citation.locator_precision == "bbox":
                assert citation.locator.page and citation.locator.bbox and len(citation.locator.bbox) == 4
            cited += 1
    assert cited > 0
    assert {p: sha(p) for p in samples.iterdir()} == digests


def test_provider_down_at_ingest_queues_and_sync_recovers(host: Host) -> None:
    token = uuid.uuid4().hex[:10]
    write_md(host.root / "q" / "later.md", f"# Later {token}\n\nThe quartz oscillator drifts.\n")
    real_url = host.config["providers"]["lightrag"]["url"]
    host.config["providers"]["lightrag"]["url"] = "http://127.0.0.1:9"  # nothing listens there
    with pytest.raises(ProviderError):
        host.ingest(["q"])
    assert host.registry().entries["q/later.md"].status == "pending"
    host.config["providers"]["lightrag"]["url"] = real_url
    deadline = time.monotonic() + 120
    while host.registry().entries["q/later.md"].status != "processed" and time.monotonic() < deadline:
        with host.store.transaction() as reg:  # let the retry happen now instead of after backoff
            reg.update("q/later.md", next_retry_at_ms=0)
        host.sync(wait_s=3)
    assert host.registry().entries["q/later.md"].status == "processed"


def test_watcher_on_real_lightrag_stops_citing_deleted_and_follows_moves(host: Host) -> None:
    from mnote_kr.sync.watch import Watcher

    token = uuid.uuid4().hex[:10]
    keep = write_md(host.root / "w" / "keep.md", f"# Keep {token}\n\nThe saffron lantern stays.\n")
    doomed = write_md(host.root / "w" / "doomed.md", f"# Doomed {token}\n\nThe cobalt lantern goes away.\n")
    mover = write_md(host.root / "w" / "old" / "mover.md", f"# Mover {token}\n\nThe jade lantern travels.\n")
    host.roots_add("w", run_on_change=True)
    host.ingest(["w"], wait=True, wait_s=120)
    before = {p: sha(p) for p in (keep, mover)}
    assert any(c.source_root_relative_path == "w/doomed.md"
               for c in host.search(f"cobalt lantern {token}", mode="naive").results)
    with Watcher(host, debounce_s=0.3, sync_interval_s=1.0) as watcher:
        assert watcher.wait_idle(30)
        doomed.unlink()
        (host.root / "w" / "new").mkdir()
        mover.rename(host.root / "w" / "new" / "mover.md")
        assert watcher.wait_idle(60)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            entry = host.registry().entries.get("w/new/mover.md")
            if entry is not None and entry.status == "processed":
                break
            host.sync(wait_s=2)
        reg = host.registry()
    assert reg.entries["w/doomed.md"].stale and "missing" in (reg.entries["w/doomed.md"].stale_reason or "")
    assert reg.entries["w/old/mover.md"].stale and "moved" in (reg.entries["w/old/mover.md"].stale_reason or "")
    assert reg.entries["w/new/mover.md"].status == "processed"
    cobalt = host.search(f"cobalt lantern {token}", mode="naive").results
    assert not any(c.source_root_relative_path == "w/doomed.md" for c in cobalt)
    jade = host.search(f"jade lantern travels {token}", mode="naive").results
    rels = {c.source_root_relative_path for c in jade}
    assert "w/new/mover.md" in rels and "w/old/mover.md" not in rels
    assert sha(keep) == before[keep] and sha(host.root / "w" / "new" / "mover.md") == before[mover]
