"""map_reference: LightRAG reference → registry entry → sidecar block, on the real recorded sidecars."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.data import SAMPLES as SAMPLES_DIR
from mnote_kr_testkit.replay import Replay, load_sample, make_context

import mnote_kr_lightrag as plugin
from mnote_kr.models import ProviderReference, SourceEntry
from mnote_kr_lightrag.client import mapping, naming, settings

REPO = Path(__file__).resolve().parents[3]
SAMPLES = SAMPLES_DIR
SIDECARS = SAMPLES / "sidecars"
AURORA_INTRO = "fa00db9a70e86d81ad1bf1b7ef233d4d"
AURORA_RESULTS = "c550ce0871df011b1ecceaa9b9813b71"


@pytest.fixture(autouse=True)
def _fresh() -> None:
    settings.clear_cache()
    mapping._cache.clear()
    plugin._input_dirs.clear()


@pytest.fixture
def env(tmp_path: Path) -> dict[str, Any]:
    inputs = tmp_path / "inputs"
    parsed = inputs / "__parsed__"
    parsed.mkdir(parents=True)
    for name in ("aurora_报告.docx.parsed", "notes.md.parsed", "upload_me.md.parsed"):
        shutil.copytree(SIDECARS / name, parsed / name)
    shutil.copytree(SIDECARS / "study.pdf.parsed__mineru_offline_ir_demo", parsed / "study.pdf.parsed")
    ctx = make_context(tmp_path, Replay().transport, input_dir=str(inputs), workspace="")
    entries = {name: SourceEntry(source_id=name, source_path=f"/src/{name}", source_root_relative_path=f"docs/{name}",
                                 status="processed", light_rag_file_path=name, light_rag_doc_id=naming.doc_id_for(name))
               for name in ("aurora_报告.docx", "notes.md", "upload_me.md", "study.pdf", "legacy.txt")}
    return {"ctx": ctx, "entries": entries, "parsed": parsed}


def chunks_of(sample: str) -> dict[str, dict[str, Any]]:
    return {c["file_path"]: c for c in load_sample(SAMPLES, sample)[1]["data"]["chunks"]}


def ref(file_path: str, content: str | None, chunk_id: str | None = None) -> ProviderReference:
    return ProviderReference(provider="lightrag", file_path=file_path, content=content, chunk_id=chunk_id,
                             doc_id=naming.doc_id_from_chunk_id(chunk_id) or naming.doc_id_for(file_path), rank=1)


def test_lr_map_reference_multi_block_chunk_prefers_block_with_query(env: dict[str, Any]) -> None:
    chunk = chunks_of("40_query_data_mix.json")["aurora_报告.docx"]
    reference = ref("aurora_报告.docx", chunk["content"], chunk["chunk_id"])
    by_query = {q: plugin.map_reference(ctx=env["ctx"], reference=reference, entries=env["entries"], query=q)
                for q in ("energy formula", "Hamburg", "")}
    assert by_query["energy formula"].block.blockid == AURORA_RESULTS
    assert by_query["Hamburg"].block.blockid == AURORA_INTRO
    assert by_query[""].block.blockid == AURORA_RESULTS  # the longer share of the chunk
    mapped = by_query["Hamburg"]
    assert mapped.entry.source_root_relative_path == "docs/aurora_报告.docx" and mapped.block_score == 1.0
    assert mapped.meta.doc_id == "doc-8c87484c16242b0b43fa5bfbce70b3c2"
    assert mapped.sidecar_path.endswith("aurora_报告.docx.parsed/aurora_报告.blocks.jsonl")


def test_lr_map_reference_markdown_chunk_and_chinese_query(env: dict[str, Any]) -> None:
    chunk = chunks_of("40_query_data_mix.json")["notes.md"]
    mapped = plugin.map_reference(ctx=env["ctx"], reference=ref("notes.md", chunk["content"], chunk["chunk_id"]),
                                  entries=env["entries"], query="西风原型机")
    assert mapped.block.blockid == "fb61af6b6e0f35106548bfdf031a2861" and mapped.block.heading == "中文部分"


def test_lr_map_reference_partial_overlapping_slice_lands_in_its_block(env: dict[str, Any]) -> None:
    text = "Figure 1 shows the test rig 测试装置.\n<drawing id=\"im-8c87484c16242b0b43fa5bfbce70b3c2-0001\""
    mapped = plugin.map_reference(ctx=env["ctx"], reference=ref("aurora_报告.docx", text),
                                  entries=env["entries"], query="")
    assert mapped.block.blockid == AURORA_RESULTS


def test_lr_map_reference_whitespace_and_id_differences_still_match(env: dict[str, Any]) -> None:
    # A P-chunked run of the same docx under another name: tag ids carry another doc id.
    chunk = next(iter(load_sample(SAMPLES, "92_storage_chunks_P_strategy_docx.json")[1]["chunks"].values()))
    content = chunk["content"].replace("\n", "  \n ")
    mapped = plugin.map_reference(ctx=env["ctx"], reference=ref("aurora_报告.docx", content),
                                  entries=env["entries"], query="second phase")
    assert mapped.block.blockid == AURORA_RESULTS and 0 < mapped.block_score < 1.0


def test_lr_map_reference_mineru_pdf_block(env: dict[str, Any]) -> None:
    mapped = plugin.map_reference(ctx=env["ctx"], reference=ref("study.pdf", "Cycle life exceeded 800 cycles."),
                                  entries=env["entries"], query="cycle life")
    assert mapped.block.blockid == "82fb704c758f3bf8743653566094044f"
    assert mapped.block.positions[0].type == "bbox" and mapped.block.positions[0].anchor == "2"


def test_lr_map_reference_unmapped_is_none_and_doc_id_fallback_works(env: dict[str, Any]) -> None:
    assert plugin.map_reference(ctx=env["ctx"], reference=ref("someone_else.md", "x"), entries=env["entries"],
                                query="") is None
    chunk = chunks_of("40_query_data_mix.json")["upload_me.md"]
    renamed = ProviderReference(provider="lightrag", file_path="upload_me_001.md", content=chunk["content"],
                                chunk_id=chunk["chunk_id"], rank=3)
    mapped = plugin.map_reference(ctx=env["ctx"], reference=renamed, entries=env["entries"], query="")
    assert mapped.entry.light_rag_file_path == "upload_me.md"
    assert mapped.block.blockid == "23584ddc6c5cd451c17512dc82cdc305"


def test_lr_map_reference_without_sidecar_maps_entry_only(env: dict[str, Any]) -> None:
    mapped = plugin.map_reference(ctx=env["ctx"], reference=ref("legacy.txt", "plain text chunk"),
                                  entries=env["entries"], query="")
    assert mapped.entry.light_rag_file_path == "legacy.txt" and mapped.block is None and mapped.sidecar_path is None


def test_lr_map_reference_unrelated_chunk_gives_no_block(env: dict[str, Any]) -> None:
    mapped = plugin.map_reference(ctx=env["ctx"], reference=ref("notes.md", "Completely unrelated words about llamas"),
                                  entries=env["entries"], query="llamas")
    assert mapped.block is None and mapped.meta is not None and mapped.sidecar_path


def test_lr_map_reference_survives_malformed_lines_and_caches(env: dict[str, Any],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    path = env["parsed"] / "notes.md.parsed" / "notes.blocks.jsonl"
    path.write_bytes(path.read_bytes() + b"{not json\n\xff\xfe\n" + json.dumps({"type": "content"}).encode() + b"\n")
    reads: list[Path] = []
    real = mapping.read_sidecar
    monkeypatch.setattr(mapping, "read_sidecar", lambda p: reads.append(p) or real(p))
    chunk = chunks_of("40_query_data_mix.json")["notes.md"]
    for _ in range(3):
        mapped = plugin.map_reference(ctx=env["ctx"], reference=ref("notes.md", chunk["content"]),
                                      entries=env["entries"], query="Kestrel")
        assert mapped.block.blockid == "fd74970655924f60bb1ff3626087a921"
    assert len(reads) == 1


def test_lr_find_sidecar_uses_archived_parsed_dir(tmp_path: Path) -> None:
    parsed = tmp_path / "__parsed__"
    shutil.copytree(SIDECARS / "upload_me.md.parsed", parsed / "upload_me.md.parsed_001")
    found = mapping.find_sidecar(tmp_path, "upload_me.md")
    assert found == parsed / "upload_me.md.parsed_001" / "upload_me.blocks.jsonl"
    assert mapping.find_sidecar(tmp_path, "nothing.md") is None


def test_lr_naming_link_names_are_unique_per_path_and_content() -> None:
    a1 = naming.link_name("a/readme.md", "sha256:" + "1" * 64)
    b1 = naming.link_name("b/readme.md", "sha256:" + "1" * 64)
    a2 = naming.link_name("a/readme.md", "sha256:" + "2" * 64)
    assert len({a1, b1, a2}) == 3 and all(n.startswith("readme.") and n.endswith(".md") for n in (a1, b1, a2))
    assert naming.same_source(a2, "a/readme.md") and not naming.same_source(b1, "a/readme.md")
    hinted = naming.link_name("x/report.[native-P].docx", "f" * 64)
    assert "[" not in hinted and "]" not in hinted and hinted.endswith(".docx")
    long = naming.link_name("d/" + "长" * 200 + ".pdf", "e" * 64)
    assert len(long.encode("utf-8")) < 255
    assert naming.chunk_ids_for("doc-1", 2) == ["doc-1-chunk-000", "doc-1-chunk-001"]
    assert naming.doc_id_for("notes.md") == "doc-db235fc914867ffea6b540c8732499d5"


def test_lr_match_block_prefers_block_where_short_query_stands_alone() -> None:
    from mnote_kr.citations.map.sidecar import Sidecar
    from mnote_kr.models import SidecarBlock
    from mnote_kr_lightrag.client.mapping import build_index, match_block

    trap = SidecarBlock(blockid="b-trap",
                        content="## 溶剂\nN-甲基吡咯烷酮 (NMP) 是常用的极性溶剂，涂布后需要在烘箱中除去。")
    target = SidecarBlock(blockid="b-target", content="## 胺类\n吡咯烷 是一种环状仲胺。")
    index = build_index(Sidecar(path="x.blocks.jsonl", meta=None, blocks=[trap, target]))
    chunk = trap.content + "\n\n" + target.content
    found = match_block(index, chunk, "吡咯烷")
    assert found is not None and found[0].blockid == "b-target"
    lo, hi = found[2]
    assert target.content[lo:hi] == target.content  # the chunk covers all of this block


def test_lr_match_block_reports_the_part_of_a_long_block_a_chunk_covers() -> None:
    from mnote_kr.citations.map.sidecar import Sidecar
    from mnote_kr.models import SidecarBlock
    from mnote_kr_lightrag.client.mapping import build_index, match_block

    paras = [f"Paragraph {i}: cell A{i} kept {3000 + i} mAh after {400 + i} cycles." for i in range(60)]
    block = SidecarBlock(blockid="big", content="\n".join(paras))
    index = build_index(Sidecar(path="x.blocks.jsonl", meta=None, blocks=[block]))
    chunk = "\n".join(paras[30:34])
    found = match_block(index, chunk, "cycles")
    assert found is not None
    lo, hi = found[2]
    assert block.content[lo:hi] == chunk


def test_lr_match_block_without_verbatim_query_prefers_block_with_its_words() -> None:
    from mnote_kr.citations.map.sidecar import Sidecar
    from mnote_kr.models import SidecarBlock
    from mnote_kr_lightrag.client.mapping import build_index, match_block

    methods = SidecarBlock(blockid="methods", content="## Methods\nEach cell was cycled until its capacity fell "
                           "below eighty percent, over many long weeks of careful and repeated measurement work.")
    results = SidecarBlock(blockid="results", content="## Results\nCell B2 kept the highest capacity.")
    index = build_index(Sidecar(path="x.blocks.jsonl", meta=None, blocks=[methods, results]))
    found = match_block(index, methods.content + "\n\n" + results.content, "cell B2 capacity")
    assert found is not None and found[0].blockid == "results"  # not the longer overlap
