"""The whole search / ask / open pipeline on recorded real LightRAG payloads.

``Host`` runs with an ``httpx.MockTransport`` that replays ``tests/data/lightrag/samples/``
(``/health``, ``/query/data``, ``/query``, ``/documents/paginated``). The registry maps
the samples' LightRAG file names (``aurora_报告.docx``, ``notes.md``) to the real input
files from ``samples/inputs_used/`` copied into the workspace, and the real sidecars from
``samples/sidecars/`` sit where the provider looks for them: ``<input_dir>/__parsed__/``
(``[providers.lightrag] input_dir``, ``workspace = ""``). ``upload_me.md`` is in the
payloads but not in the registry: it must never be cited.

Each test runs end to end through ``Host`` on recorded LightRAG payloads.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import pytest
from mnote_kr_testkit.data import SAMPLES as SAMPLES_DIR
from mnote_kr_testkit.pdfs import PdfBuilder
from mnote_kr_testkit.replay import URL, Replay, load_sample

import mnote_kr_lightrag as lightrag_plugin
from mnote_kr.app.host import Host
from mnote_kr.citations import pipeline
from mnote_kr.citations.caches import citecache, idstore
from mnote_kr.citations.map import stillindexing
from mnote_kr.citations.render.cards import render_answer
from mnote_kr.core.config import load_config
from mnote_kr.core.paths import config_dir
from mnote_kr.core.workspace import source_id_for
from mnote_kr.errors import NotFoundError
from mnote_kr.models import Citation, SourceEntry
from mnote_kr_lightrag.client import mapping, naming, settings
from mnote_kr_lightrag.client.querying import NO_CONTEXT_NOTE, NO_LLM_NOTE

REPO = Path(__file__).resolve().parents[1]
SAMPLES = SAMPLES_DIR
SIDECARS = SAMPLES / "sidecars"
INPUTS = SAMPLES / "inputs_used"
AURORA = "aurora_报告.docx"
AURORA_REL = f"docs/{AURORA}"
NOTES_REL = "docs/notes.md"
STUDY_REL = "papers/study.pdf"
AURORA_INTRO = "fa00db9a70e86d81ad1bf1b7ef233d4d"
AURORA_RESULTS = "c550ce0871df011b1ecceaa9b9813b71"
NOTES_ZEPHYR = "fd74970655924f60bb1ff3626087a921"
NOTES_CHINESE = "fb61af6b6e0f35106548bfdf031a2861"
STUDY_TITLE = "b4a1389d3f326a2a25ab2507da936986"
ID_RE = re.compile(r"^\[[0-9a-z]{4}\]$")


@pytest.fixture(autouse=True)
def _fresh_caches() -> None:
    fresh_caches()


def fresh_caches() -> None:
    """Forget what the provider and the pipeline remembered (each test's replay is its own)."""
    settings.clear_cache()
    mapping._cache.clear()
    lightrag_plugin._input_dirs.clear()
    pipeline.clear_memos()


def sample_body(name: str) -> Any:
    return copy.deepcopy(load_sample(SAMPLES, name)[1])


def sidecar_blocks(rel: str) -> dict[str, dict[str, Any]]:
    lines = (SIDECARS / rel).read_text(encoding="utf-8").splitlines()
    return {b["blockid"]: b for b in map(json.loads, lines) if b.get("type") == "content"}


def query_data(*chunks: tuple[str, str, str, str]) -> dict[str, Any]:
    """A ``/query/data`` body shaped like the recordings: (reference_id, file_path, chunk_id, content)."""
    refs = {rid: path for rid, path, _, _ in chunks}
    return {"status": "success", "message": "Query processed successfully",
            "data": {"entities": [], "relationships": [],
                     "chunks": [{"reference_id": rid, "content": text, "file_path": path, "chunk_id": cid}
                                for rid, path, cid, text in chunks],
                     "references": [{"reference_id": rid, "file_path": path} for rid, path in refs.items()]},
            "metadata": {"query_mode": "mix"}}


def study_pdf() -> bytes:
    """A PDF with the MinerU study sidecar's text: the title block on page 1, results on page 2."""
    p = PdfBuilder()
    one = p.add_page()
    for i, line in enumerate(["Solid-State Battery Study", "Nordwind Labs evaluated 12 cells.",
                              "Cell mAh A1 3200"]):
        p.text(one, 72, 740 - 24 * i, line, size=12)
    two = p.add_page()
    for i, line in enumerate(["Results", "Cycle life exceeded 800 cycles."]):
        p.text(two, 72, 740 - 24 * i, line, size=12)
    return p.build()


@dataclass
class Env:
    host: Host
    replay: Replay
    ws: Path
    parsed: Path

    def search(self, query: str, **kw: Any) -> Any:
        return self.host.search(query, **kw)

    def by_rel(self, results: list[Citation], rel: str) -> list[Citation]:
        """The places cited in ``rel``: its citation, then each of its ``alternatives`` as a citation."""
        out = []
        for c in results:
            if c.source_root_relative_path == rel:
                out.append(c)
                out += [msgspec.structs.replace(c, citation_id=a.citation_id, locator=a.locator,
                                                locator_precision=a.locator_precision, block_id=a.locator.block_id,
                                                display_quote=a.display_quote, alternatives=[])
                        for a in c.alternatives]
        return out

    def sent_queries(self) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.replay.sent("POST", "/query/data")]

    def new_host(self) -> Host:
        """A second Host on the same workspace (another process, as far as the cache goes)."""
        return Host(self.ws, config=self.host.config, transport=self.replay.transport)


def _entry(ws: Path, rel: str, name: str, status: str = "processed") -> SourceEntry:
    path = ws / rel
    st = path.stat()
    return SourceEntry(source_id=source_id_for(rel), source_path=str(path), source_root_relative_path=rel,
                       source_hash="sha256:" + hashlib.sha256(path.read_bytes()).hexdigest(), size=st.st_size,
                       mtime_ns=st.st_mtime_ns, status=status,  # type: ignore[arg-type]
                       light_rag_file_path=name, light_rag_doc_id=naming.doc_id_for(name))


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Env:
    return make_env(tmp_path, monkeypatch)


def make_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Env:
    """The replay workspace of this module (``env``), for other test modules."""
    monkeypatch.setenv("MNOTE_KR_LIGHTRAG_API_KEY", "replay-key")
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    (ws / "papers").mkdir()
    shutil.copyfile(INPUTS / AURORA, ws / AURORA_REL)
    shutil.copyfile(INPUTS / "notes.md", ws / NOTES_REL)
    (ws / STUDY_REL).write_bytes(study_pdf())
    inputs = tmp_path / "lightrag-inputs"
    parsed = inputs / "__parsed__"
    parsed.mkdir(parents=True)
    for name in (f"{AURORA}.parsed", "notes.md.parsed"):
        shutil.copytree(SIDECARS / name, parsed / name)
    shutil.copytree(SIDECARS / "study.pdf.parsed__mineru_offline_ir_demo", parsed / "study.pdf.parsed")
    config = load_config(ws)
    config["providers"] = {"lightrag": {"url": URL, "input_dir": str(inputs), "workspace": ""}}
    replay = Replay(SAMPLES)
    replay.sample("GET", "/health", "02_health_auth.json")
    host = Host(ws, config=config, transport=replay.transport)
    with host.store.transaction() as reg:
        reg.put(_entry(ws, AURORA_REL, AURORA))
        reg.put(_entry(ws, NOTES_REL, "notes.md"))
        reg.put(_entry(ws, STUDY_REL, "study.pdf"))
    return Env(host=host, replay=replay, ws=ws, parsed=parsed)



def chunk_of(sample: str, file_path: str) -> dict[str, Any]:
    return next(c for c in sample_body(sample)["data"]["chunks"] if c["file_path"] == file_path)


def test_mapped_reference_generates_short_citation_id(env: Env) -> None:
    env.replay.sample("POST", "/query/data", "40_query_data_mix.json")
    result = env.search("What does Nordwind Labs do in Hamburg?")
    rels = [c.source_root_relative_path for c in result.results]
    assert sorted(rels) == [AURORA_REL, NOTES_REL]  # upload_me.md is in the payload, not in the registry
    assert result.diagnostics["providerReferences"] == 3 and result.diagnostics["dropped"] == {"unmapped": 1}
    for c in result.results:
        assert ID_RE.match(c.citation_id), c.citation_id
        assert c.diagnostics.raw_reference_mapped and c.light_rag_doc_id == naming.doc_id_for(c.light_rag_file_path)
        assert c.citation_url.startswith("mnote-kr://open?path=docs/")
    assert len({c.citation_id for c in result.results}) == 2
    assert result.schema == "mnote.knowledge_rag.search_results.v1" and result.provider == "lightrag"


def test_unmapped_references_never_appear_even_when_they_are_all_there_is(env: Env) -> None:
    upload = chunk_of("40_query_data_mix.json", "upload_me.md")
    env.replay.json("POST", "/query/data", query_data(("1", "upload_me.md", upload["chunk_id"], upload["content"]),
                                                      ("2", "stranger.pdf", "doc-0-chunk-000", "Boreal sensor")))
    result = env.search("Boreal sensor")
    assert result.results == [] and result.diagnostics["dropped"] == {"unmapped": 2}


def test_citation_text_bundle_strips_equation_and_drawing_for_display(env: Env) -> None:
    env.replay.sample("POST", "/query/data", "40_query_data_mix.json")
    aurora = env.by_rel(env.search("energy formula").results, AURORA_REL)[0]
    raw, display, evidence = aurora.raw_quote or "", aurora.display_quote or "", aurora.locator_evidence_text or ""
    assert "<equation" in raw and "<drawing" in raw  # diagnostics keep the raw chunk
    for text in (display, evidence):
        assert not re.search(r"</?(equation|drawing|table|cite)\b", text), text
    # the quote is the located paragraph in the chunk's cleaned words (the equation as text, where
    # the paragraph model reads "E=mc2"); the next paragraph's formula is in the context
    assert aurora.locator.paragraph_index is not None and aurora.locator.place_text is None  # read, then cleared
    assert "E=mc^2" in display and "(a+b)/2" not in display and "(a+b)/2" in (aurora.context_quote or "")
    assert not re.search(r"</?(equation|drawing|table|cite)\b", aurora.context_quote or "")
    assert "energy formula" in display and aurora.diagnostics.display_cleaned
    assert aurora.block_id == AURORA_RESULTS and aurora.quote_source == "sidecar"
    assert aurora.heading_path == ["Project Aurora 项目概述", "Results 结果"]


def test_citation_text_bundle_preserves_query_for_locator(env: Env) -> None:
    env.replay.sample("POST", "/query/data", "40_query_data_mix.json")
    query = "项目负责人是王小明"
    aurora = env.by_rel(env.search(f"\n  {query}  ").results, AURORA_REL)[0]
    assert aurora.search_query == query  # whitespace-normalised, never lost
    assert "王小明" in (aurora.locator_evidence_text or "") and "王小明" in (aurora.display_quote or "")
    assert aurora.block_id == AURORA_INTRO  # the block holding the query wins inside a multi-block chunk
    plan = env.host.open(aurora.citation_id)
    assert plan.open_action.search_query == query
    assert plan.open_action.evidence_text == aurora.locator_evidence_text
    assert plan.open_action.display_quote == aurora.display_quote


def test_docx_paraid_block_returns_paragraph_locator(env: Env) -> None:
    env.replay.sample("POST", "/query/data", "40_query_data_mix.json")
    aurora = env.by_rel(env.search("Hamburg").results, AURORA_REL)[0]
    assert aurora.block_id == AURORA_INTRO and aurora.diagnostics.sidecar_block_mapped
    loc = aurora.locator
    assert aurora.locator_precision == loc.locator_precision == "paragraph" and not aurora.locator_degraded
    assert loc.page is None and loc.bbox is None  # never a faked page for a DOCX
    assert loc.paragraph_index == 1 and loc.para_id == "1A2B0002" and loc.highlight is not None
    assert "para=1A2B0002" in aurora.citation_url and "page=" not in aurora.citation_url
    assert "paragraph 2](" in aurora.citation_markdown  # located exactly: no "approximate"


def test_docx_missing_block_keeps_the_paragraph_the_locator_matched_in_the_docx(env: Env) -> None:
    shutil.rmtree(env.parsed / f"{AURORA}.parsed")  # LightRAG left no sidecar for this document
    env.replay.sample("POST", "/query/data", "40_query_data_mix.json")
    aurora = env.by_rel(env.search("Nordwind Labs Hamburg").results, AURORA_REL)[0]
    assert aurora.block_id is None and aurora.quote_source == "chunk"
    assert not aurora.diagnostics.sidecar_block_mapped and aurora.source_map_path is None
    # No block confirms it, but the DOCX locator found the evidence in the DOCX's own paragraphs: the same
    # paragraph a block names (test_docx_paraid_block_returns_paragraph_locator), never a guess.
    loc = aurora.locator
    assert (aurora.locator_precision, aurora.locator_degraded) == ("paragraph", False)
    assert (loc.paragraph_index, loc.para_id, loc.block_id) == (1, "1A2B0002", None)
    assert "para=1A2B0002" in aurora.citation_url and "paragraph 2](" in aurora.citation_markdown
    assert "Hamburg" in (aurora.display_quote or "") and "<equation" not in (aurora.display_quote or "")


def test_bbox_block_keeps_bbox_locator(env: Env) -> None:
    blocks = sidecar_blocks("study.pdf.parsed__mineru_offline_ir_demo/study.blocks.jsonl")
    chunk_id = naming.doc_id_for("study.pdf") + "-chunk-000"
    env.replay.json("POST", "/query/data", query_data(("1", "study.pdf", chunk_id, blocks[STUDY_TITLE]["content"])))
    [study] = env.search("Nordwind Labs evaluated cells").results
    assert study.source_root_relative_path == STUDY_REL and study.block_id == STUDY_TITLE
    loc = study.locator
    assert study.locator_precision == "bbox" and not study.locator_degraded and loc.page == 1
    assert loc.bbox is not None and len(loc.bbox) == 4 and loc.bbox_unit == "pt" and loc.bbox_origin == "top-left"
    x0, y0, x1, y1 = loc.bbox
    assert 0 <= x0 < x1 <= 612 and 0 <= y0 < y1 <= 792  # inside the generated US-letter page
    assert "p.1" in study.citation_markdown and "page=1" in study.citation_url and "bbox=" in study.citation_url
    assert "<equation" not in (study.display_quote or "") and "<table" not in (study.display_quote or "")
    plan = env.host.open(study.citation_id)
    assert plan.resource_kind == "pdf" and plan.locator == loc


def test_same_block_same_fingerprint_deduplicates(env: Env) -> None:
    aurora = chunk_of("40_query_data_mix.json", AURORA)
    notes = chunk_of("40_query_data_mix.json", "notes.md")
    env.replay.json("POST", "/query/data", query_data(
        ("1", AURORA, aurora["chunk_id"], aurora["content"]),
        ("2", "notes.md", notes["chunk_id"], notes["content"]),
        ("1", AURORA, aurora["chunk_id"], aurora["content"]),  # LightRAG listing the same chunk again
    ))
    result = env.search("Hamburg")
    assert [c.source_root_relative_path for c in result.results].count(AURORA_REL) == 1
    assert result.diagnostics["dropped"] == {"duplicate": 1}


def test_same_file_different_block_is_not_deduplicated(env: Env) -> None:
    blocks = sidecar_blocks("notes.md.parsed/notes.blocks.jsonl")
    doc = naming.doc_id_for("notes.md")
    env.replay.json("POST", "/query/data", query_data(
        ("1", "notes.md", f"{doc}-chunk-000", blocks[NOTES_ZEPHYR]["content"]),
        ("1", "notes.md", f"{doc}-chunk-001", blocks[NOTES_CHINESE]["content"]),
    ))
    result = env.search("Zephyr")
    notes = env.by_rel(result.results, NOTES_REL)
    assert {c.block_id for c in notes} == {NOTES_ZEPHYR, NOTES_CHINESE}
    assert len({c.citation_id for c in notes}) == 2 and result.diagnostics["dropped"] == {}


def test_provider_rerank_disabled_is_reported_in_status(env: Env) -> None:
    env.replay.sample("POST", "/documents/paginated", "34_documents_paginated_all.json")
    env.replay.sample("POST", "/query/data", "40_query_data_mix.json")
    status = env.host.status()
    provider = status["provider"]
    assert provider["reachable"] is True and provider["coreVersion"] == "1.5.7"
    assert provider["rerank"]["enabled"] is False and provider["rerank"]["model"] is None
    assert provider["rerank"]["binding"] == "null"
    # Status says so, and search still works: rerank off is sent explicitly, and reported.
    result = env.search("Hamburg")
    assert result.results and result.rerank.requested is False and result.rerank.enabled is False
    assert env.sent_queries()[-1]["enable_rerank"] is False
    unmapped = {u["filePath"] for u in provider["unmapped"]}
    assert "upload_me.md" in unmapped and AURORA not in unmapped and "notes.md" not in unmapped


def test_rerank_requested_is_passed_through_to_lightrag(env: Env) -> None:
    env.replay.sample("POST", "/query/data", "40_query_data_mix.json")
    result = env.search("Hamburg", rerank=True)
    assert result.rerank.requested is True and env.sent_queries()[-1]["enable_rerank"] is True
    assert result.rerank.enabled is False  # asked for, but LightRAG has no reranker configured ("null")
    body = env.sent_queries()[-1]
    assert body["include_references"] is True and body["include_chunk_content"] is True and body["top_k"] == 20


def test_stale_deleted_and_changed_sources_never_appear(env: Env) -> None:
    env.replay.sample("POST", "/query/data", "40_query_data_mix.json")
    first = env.search("Hamburg")
    assert {c.source_root_relative_path for c in first.results} == {AURORA_REL, NOTES_REL}
    issued = {c.source_root_relative_path: c.citation_id for c in first.results}
    with env.host.store.transaction() as reg:
        reg.update(AURORA_REL, stale=True, stale_reason="missing on disk")
        reg.update(NOTES_REL, status="delete_submitted")
    result = env.search("Hamburg")
    assert result.results == [] and sum(result.diagnostics["dropped"].values()) == 3
    with pytest.raises(NotFoundError, match="missing on disk"):
        env.host.open(issued[AURORA_REL])  # an ID issued before the source went stale stops too
    with pytest.raises(NotFoundError, match="not citable"):
        env.host.open(issued[NOTES_REL])


def test_sources_changed_or_deleted_on_disk_are_dropped_before_the_watcher_notices(env: Env) -> None:
    env.replay.sample("POST", "/query/data", "40_query_data_mix.json")
    with open(env.ws / NOTES_REL, "a", encoding="utf-8") as fh:
        fh.write("\nEdited after indexing.\n")
    (env.ws / AURORA_REL).unlink()
    result = env.search("Hamburg")
    assert result.results == []
    assert result.diagnostics["dropped"] == {"unmapped": 1, "changedOnDisk": 1, "missingOnDisk": 1}
    # and named, with what brings them back (a stat of each: nothing hashed)
    assert result.diagnostics["changedSinceIndexed"] == {"count": 1, "paths": [NOTES_REL]}
    assert result.diagnostics["missingSinceIndexed"] == {"count": 1, "paths": [AURORA_REL]}
    assert {(n.source_path, n.status) for n in result.not_indexed} == {(NOTES_REL, "stale"), (AURORA_REL, "stale")}


def test_empty_data_gives_zero_results_without_error(env: Env) -> None:
    env.replay.json("POST", "/query/data", {"status": "success", "message": "", "data": {}})
    result = env.search("nothing at all")
    assert result.results == [] and result.not_indexed == []
    assert result.diagnostics["providerReferences"] == 0 and result.diagnostics["providerStatus"] == "no_results"
    assert not citecache.store_path(env.host).exists()  # nothing issued, nothing kept


def test_query_naming_a_file_that_is_not_citable_is_reported_not_silently_missing(env: Env) -> None:
    env.replay.json("POST", "/query/data", {"status": "success", "message": "", "data": {}})
    with env.host.store.transaction() as reg:
        reg.update(NOTES_REL, status="failed", last_error="parser crashed")
    result = env.search("what is in notes.md")
    assert [(n.source_path, n.status, n.reason) for n in result.not_indexed] == [
        (NOTES_REL, "failed", "parser crashed")]


def test_same_passage_keeps_its_citation_id_across_searches_and_hosts(env: Env) -> None:
    env.replay.sample("POST", "/query/data", "40_query_data_mix.json")
    one = env.by_rel(env.search("Hamburg").results, AURORA_REL)[0]
    pipeline.clear_memos()
    two = env.by_rel(env.new_host().search("Hamburg").results, AURORA_REL)[0]
    three = env.by_rel(env.search("Nordwind Labs in Hamburg").results, AURORA_REL)[0]
    assert one.block_id == two.block_id == three.block_id == AURORA_INTRO
    assert one.citation_id == two.citation_id  # same passage, new process: same ID
    # Another query that lands on the same paragraph of the block cites the same passage.
    assert three.locator.paragraph_index == one.locator.paragraph_index
    assert three.citation_id == one.citation_id


def test_scope_keeps_only_the_given_files_and_folders(env: Env) -> None:
    env.replay.sample("POST", "/query/data", "40_query_data_mix.json")
    only_notes = env.search("Hamburg", scope=[NOTES_REL])
    assert [c.source_root_relative_path for c in only_notes.results] == [NOTES_REL]
    assert only_notes.diagnostics["dropped"] == {"unmapped": 1, "outOfScope": 1}
    folder = env.search("Hamburg", scope=[str(env.ws / "docs")])
    assert {c.source_root_relative_path for c in folder.results} == {AURORA_REL, NOTES_REL}
    assert env.search("Hamburg", scope=["papers"]).results == []


def test_a_citation_id_names_one_place_whatever_the_query(env: Env) -> None:
    """An ID handed out once (in an answer, a note) opens the place it was given for: two queries that
    land on different boxes of one PDF chunk get two IDs, and the same place keeps its ID."""
    p = PdfBuilder()
    page = p.add_page()
    p.text(page, 72, 740, "Blade icing on wind turbines cuts the power output in winter.", size=11)
    p.text(page, 72, 200, "Cooling towers of the plant were inspected for cracks in spring.", size=11)
    (env.ws / "papers/plain.pdf").write_bytes(p.build())
    with env.host.store.transaction() as reg:
        reg.put(_entry(env.ws, "papers/plain.pdf", "plain.pdf"))
    chunk = ("1", "plain.pdf", "doc-plain-chunk-000",
             "Blade icing on wind turbines cuts the power output in winter.\n"
             "Cooling towers of the plant were inspected for cracks in spring.")
    env.replay.json("POST", "/query/data", query_data(chunk))

    def cited(query: str) -> tuple[str, Any]:
        found = env.by_rel(env.search(query).results, "papers/plain.pdf")
        assert len(found) == 1 and found[0].locator.locator_precision == "bbox", found
        return found[0].citation_id, found[0].locator.bbox

    icing, icing_box = cited("blade icing on wind turbines")
    towers, towers_box = cited("cooling towers inspected for cracks")
    assert icing_box != towers_box  # two places of one chunk...
    assert icing != towers  # ...are two citations
    assert env.host.open(icing).locator.bbox == icing_box  # the first ID still opens its own box
    assert cited("blade icing on wind turbines") == (icing, icing_box)  # the same place keeps its ID


@pytest.mark.parametrize("scope", ["papers", "papers/bad.pdf", "papers/gone.docx", "ghost.pdf", "empty"])
def test_a_scoped_search_names_every_file_of_its_scope_that_cannot_be_cited(env: Env, scope: str) -> None:
    """A scope is never silently empty: each of its registered files that is failed, stale or still
    waiting is in ``notIndexed`` with its reason, and a scope with nothing registered says so."""
    env.replay.sample("POST", "/query/data", "40_query_data_mix.json")
    for rel in ("papers/bad.pdf", "papers/gone.docx", "papers/wait.md"):
        (env.ws / rel).write_bytes(b"x")
    (env.ws / "empty").mkdir()
    with env.host.store.transaction() as reg:
        reg.put(msgspec.structs.replace(_entry(env.ws, "papers/bad.pdf", "bad.pdf", status="failed"),
                                        last_error="no text layer"))
        reg.put(msgspec.structs.replace(_entry(env.ws, "papers/gone.docx", "gone.docx"), stale=True,
                                        stale_reason="missing on disk"))
        reg.put(_entry(env.ws, "papers/wait.md", "wait.md", status="submitted"))
    result = env.search("Hamburg", scope=[scope])
    assert result.results == [] and (named := {(n.source_path, n.status, n.reason) for n in result.not_indexed})
    uncitable = {("papers/bad.pdf", "failed", "no text layer"), ("papers/gone.docx", "stale", "missing on disk"),
                 ("papers/wait.md", "submitted", stillindexing.REASON)}  # named by every search, in its words
    expected = {n for n in uncitable if n[0] == scope or n[0].startswith(scope + "/")}
    if scope == "ghost.pdf":
        expected = {("ghost.pdf", "not_indexed", "no such file or folder")}
    elif scope == "empty":
        expected = {("empty", "not_indexed", "not in the knowledge base (never ingested)")}
    assert named == expected
    assert STUDY_REL not in {n.source_path for n in result.not_indexed}  # processed and live: citable


def test_open_resolves_inside_the_workspace_with_the_same_locator(env: Env) -> None:
    env.replay.sample("POST", "/query/data", "40_query_data_mix.json")
    before = {rel: hashlib.sha256((env.ws / rel).read_bytes()).hexdigest() for rel in (AURORA_REL, NOTES_REL)}
    results = env.search("Nordwind Labs Hamburg").results
    assert results
    for citation in results:
        for host in (env.host, env.new_host()):  # another process reads the same citation cache
            plan = host.open(citation.citation_id.strip("[]"))
            path = Path(plan.resource_path)
            assert path.is_file() and path.resolve().is_relative_to(env.ws.resolve())
            assert plan.resource_root_relative_path == citation.source_root_relative_path
            assert plan.locator == citation.locator and plan.citation_url == citation.citation_url
            assert plan.open_action.chunk_id == citation.light_rag_chunk_id
        assert plan.resource_kind == ("office" if citation.source_root_relative_path == AURORA_REL else "markdown")
    with pytest.raises(NotFoundError, match="Unknown citation"):
        env.host.open("[zzzz]")
    after = {rel: hashlib.sha256((env.ws / rel).read_bytes()).hexdigest() for rel in (AURORA_REL, NOTES_REL)}
    assert after == before


def test_the_id_store_keeps_one_record_per_id_and_another_process_opens_the_latest(env: Env) -> None:
    env.replay.sample("POST", "/query/data", "40_query_data_mix.json")
    store = citecache.store_path(env.host)
    first = {c.citation_id for c in env.search("Hamburg").results}
    rows = [cid for cid, _, _ in idstore.every(store)]
    assert first <= set(rows) and len(rows) == len(set(rows))
    again = env.search("Hamburg")  # the same places again: the same IDs, re-issued, no new rows
    assert {c.citation_id for c in again.results} == first
    assert sorted(cid for cid, _, _ in idstore.every(store)) == sorted(rows)
    env.search("energy formula")  # another block: new rows, the earlier ones stay
    grown = [cid for cid, _, _ in idstore.every(store)]
    assert set(rows) < set(grown) and all(ID_RE.match(i) for i in grown)
    citecache._memory.clear()
    assert env.new_host().open(grown[-1]).citation_id == grown[-1]


def test_ask_with_the_offline_engine_gives_no_answer_and_a_note(env: Env) -> None:
    health = sample_body("02_health_auth.json")
    health["configuration"]["llm_model"] = "mnote-offline-llm"  # what the managed engine's stand-in reports
    env.replay.routes.pop(("GET", "/health"))
    env.replay.json("GET", "/health", health)
    env.replay.sample("POST", "/query/data", "40_query_data_mix.json")
    result = env.host.ask("What does Nordwind Labs do?")
    (note,) = [n for n in result.notes if n.startswith(NO_LLM_NOTE)]  # which config.toml: the real paths
    assert result.answer is None and f"{config_dir() / 'config.toml'} (every" in note, note
    assert str(env.ws / ".mnote" / "config.toml") in note and note.index("engine stop") < note.index("engine start")
    assert {c.source_root_relative_path for c in result.citations} == {AURORA_REL, NOTES_REL}
    assert env.replay.sent("POST", "/query") == []  # no canned text is passed off as an answer
    assert result.schema == "mnote.knowledge_rag.agent_query_result.v1"
    # 'ask' in words: before the cards, one line says plainly that no LLM is configured and where to set one
    # (the config section the README's Configuration names for the managed engine's LLM); the cards stay
    shown = render_answer(result).splitlines()
    first_card = next(i for i, line in enumerate(shown) if line.startswith("["))
    said = [line for line in shown[:first_card] if "No LLM is configured" in line]
    section = "[providers.lightrag.engine.llm]"
    assert len(said) == 1 and section in said[0], shown[:first_card]
    assert section in (REPO / "README.md").read_text(encoding="utf-8")
    assert not shown[0].startswith("(no answer)")
    # each citation is shown: a whole card, or one line under "Weaker matches"
    assert all(f"{c.citation_id} {c.source_root_relative_path}" in shown
               or any(line.startswith(f"  {c.citation_id} {c.source_root_relative_path}: ") for line in shown)
               for c in result.citations)


def test_ask_when_lightrag_finds_no_context_gives_no_answer(env: Env) -> None:
    env.replay.sample("POST", "/query/data", "40_query_data_mix.json")
    env.replay.sample("POST", "/query", "48_query_no_results.json")
    result = env.host.ask("Hamburg")
    assert result.answer is None and NO_CONTEXT_NOTE in result.notes and result.citations


def test_ask_answer_keeps_only_host_issued_citation_ids(env: Env) -> None:
    env.replay.sample("POST", "/query/data", "40_query_data_mix.json")
    answer = ("Aurora is run by Nordwind Labs in Hamburg [1]. Zephyr is a turbine [2]. The Boreal sensor [3] "
              "and an invented source [9].\n\n### References\n\n- [1] aurora_报告.docx\n- [2] notes.md\n"
              "- [3] upload_me.md\n")
    env.replay.json("POST", "/query", {"response": answer, "references": [], "llm_generated": True})
    result = env.host.ask("Who runs Aurora?")
    assert result.answer is not None
    # each sentence is marked with the place that supports it , an ID the host issued and opens
    hamburg, turbine, boreal = result.sentences
    assert hamburg.source_root_relative_path == AURORA_REL and turbine.source_root_relative_path == NOTES_REL
    assert f"Hamburg {hamburg.citation_id}." in result.answer and f"turbine {turbine.citation_id}." in result.answer
    for s in (hamburg, turbine):
        assert env.new_host().open(str(s.citation_id)).resource_root_relative_path == s.source_root_relative_path
    # [3] (unmapped) and [9] are gone: no cited place supports that sentence
    assert not boreal.supported and result.answer.endswith("invented source [unsupported].")
    assert re.findall(r"\[[^\]]+\]", result.answer) == [hamburg.citation_id, turbine.citation_id, "[unsupported]"]
    assert "References" not in result.answer and "upload_me" not in result.answer
    sent = json.loads(env.replay.sent("POST", "/query")[-1].content)
    assert sent["include_references"] is False and sent["query"] == "Who runs Aurora?"


def test_ask_with_a_real_llm_answer_returns_it_with_the_citations(env: Env) -> None:
    env.replay.sample("POST", "/query/data", "40_query_data_mix.json")
    env.replay.sample("POST", "/query", "43_query_mix.json")
    result = env.host.ask("What is Aurora?")
    assert result.answer is not None and result.answer.startswith("STUB ANSWER")
    assert not any(n.startswith(NO_LLM_NOTE) for n in result.notes) and len(result.citations) == 2


def test_query_sends_the_api_key_only_as_header(env: Env) -> None:
    env.replay.sample("POST", "/query/data", "40_query_data_mix.json")
    env.search("Hamburg")
    request = env.replay.sent("POST", "/query/data")[-1]
    assert request.headers["X-API-Key"] == "replay-key"
    assert "replay-key" not in str(request.url) and b"replay-key" not in request.content


def test_same_block_different_paragraphs_stay_apart(env: Env) -> None:
    # LightRAG's native DOCX blocks span a whole section; two chunks of one block that land
    # on different paragraphs are different passages (different paragraphs stay apart).
    doc = naming.doc_id_for(AURORA)
    english = ("Project Aurora is a battery research program run by Nordwind Labs in Hamburg. "
               "It studies solid-state cells.")
    chinese = "极光项目由北风实验室负责，研究固态电池的安全性与能量密度。项目负责人是王小明。"
    env.replay.json("POST", "/query/data", query_data(
        ("1", AURORA, f"{doc}-chunk-000", english),
        ("1", AURORA, f"{doc}-chunk-001", chinese),
        ("1", AURORA, f"{doc}-chunk-002", english),  # the first passage again
    ))
    result = env.search("Project Aurora 极光项目")
    cited = env.by_rel(result.results, AURORA_REL)
    assert {c.block_id for c in cited} == {AURORA_INTRO}
    assert len({c.locator.paragraph_index for c in cited}) == 2 == len(cited)
    assert len({c.citation_id for c in cited}) == 2 and result.diagnostics["dropped"] == {"duplicate": 1}


def test_search_citing_a_hostile_docx_still_returns_its_other_citations(env: Env) -> None:
    # 1,500 nested tables once crashed the locator (RecursionError) and the whole search
    from mnote_kr_testkit.docx_docs import nested_tables_docx

    (env.ws / "docs" / "nested.docx").write_bytes(nested_tables_docx(1500))
    with env.host.store.transaction() as reg:
        reg.put(_entry(env.ws, "docs/nested.docx", "nested.docx"))
    notes = chunk_of("40_query_data_mix.json", "notes.md")
    env.replay.json("POST", "/query/data", query_data(
        ("1", "nested.docx", "chunk-nested-1", "deep tables"),  # words: a passage's (one cut word is not cited)
        ("2", "notes.md", notes["chunk_id"], notes["content"]),
    ))
    results = env.search("Hamburg").results
    hostile = env.by_rel(results, "docs/nested.docx")
    assert len(hostile) == 1 and hostile[0].locator_precision == "file" and hostile[0].locator_degraded
    assert "locator failed" in (hostile[0].locator.reason or "") and "limit" in (hostile[0].locator.reason or "")
    other = env.by_rel(results, NOTES_REL)
    assert len(other) == 1 and other[0].locator_precision == "paragraph"
