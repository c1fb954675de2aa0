"""A file type LightRAG does not take, added by a plugin: the host says which suffixes a loaded plugin reads
as text (``ProviderContext.text_suffixes``, never which plugin), and the provider sends such a file as that
text under a wrapper name LightRAG takes, as it sends an ``.xlsm``; the entry keeps the user's path. Against
replayed 1.5.7 payloads (its supported types, samples/05, hold no ``.psv``)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.data import SAMPLES
from mnote_kr_testkit.replay import replayed_provider
from mnote_kr_testkit.replay import source_file as source

import mnote_kr_lightrag as plugin
from mnote_kr_lightrag.client import filetypes, links, querying, readings, settings

BIRDS = "name|wingspan_cm|habitat\nosprey|160|coasts\nkestrel|75|farmland\n"


def _rows(path: str) -> str | None:
    if not path.endswith(".psv"):
        return None
    return "\n\n".join(", ".join(row.split("|")) for row in Path(path).read_text(encoding="utf-8").splitlines())




@pytest.fixture
def env(tmp_path: Path) -> dict[str, Any]:
    settings.clear_cache()
    filetypes._SERVER_SUFFIXES.clear()
    env = replayed_provider(tmp_path, SAMPLES)
    env["ctx"] = dataclasses.replace(env["ctx"], extract_text=_rows, text_suffixes=lambda: frozenset({".psv"}))
    replay = env["replay"]
    replay.json("POST", "/documents/paginated", {
        "documents": [], "pagination": {"page": 1, "page_size": 200, "total_count": 0, "total_pages": 1,
                                        "has_next": False, "has_prev": False}, "status_counts": {"all": 0}})
    replay.sample("GET", "/documents/supported_file_types", "05_supported_file_types.json")
    replay.sample("POST", "/documents/scan", "10_scan_started.json")
    (env["ws"] / "data").mkdir(parents=True, exist_ok=True)
    (env["ws"] / "data" / "birds.psv").write_text(BIRDS, encoding="utf-8")
    return env


def test_a_type_a_plugin_reads_is_sent_as_the_plugins_text_under_a_name_lightrag_takes(env: dict[str, Any]) -> None:
    ws, inputs = env["ws"], env["inputs"]
    before = (ws / "data" / "birds.psv").read_bytes()
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "data/birds.psv")], force=False)
    assert (update.source_root_relative_path, update.status, update.kind) == (
        "data/birds.psv", "submitted", "text_fallback"), update
    name = update.light_rag_file_path or ""
    assert name.endswith(".psv.md") and update.wrapper_path == str(inputs / name)
    wrapper = inputs / name
    assert wrapper.is_file() and not wrapper.is_symlink() and links.is_our_wrapper(wrapper)
    text = wrapper.read_text(encoding="utf-8")
    assert text.startswith(f"{links.PLUGIN_TEXT_WRAPPER_MARK} data/birds.psv\n\nname, wingspan_cm, habitat\n\n")
    assert "kestrel, 75, farmland" in text
    assert update.last_error == ("indexed from the text a plugin reads in it, since LightRAG does not take '.psv' "
                                 "files; citations still point into the file")
    assert update.reading == readings.current(readings.PLUGIN)
    assert [p.name for p in inputs.iterdir() if p.is_file()] == [name]  # no link of the file itself
    assert (ws / "data" / "birds.psv").read_bytes() == before
    refs = querying.references_from_data({"chunks": [{"file_path": name, "chunk_id": "doc-1-chunk-000",
                                                      "content": text}]})
    assert refs[0].content is not None and refs[0].content.startswith("name, wingspan_cm")  # the mark is ours


def test_without_a_plugin_reading_the_type_the_failure_says_what_a_plugin_can_do(env: dict[str, Any]) -> None:
    ctx = dataclasses.replace(env["ctx"], text_suffixes=lambda: frozenset())
    [update] = plugin.ingest(ctx=ctx, sources=[source(env["ws"], "data/birds.psv")], force=False)
    assert update.status == "failed"
    assert update.last_error == ("LightRAG cannot index '.psv' files (a plugin adds a type by claiming it in "
                                 "locator_extensions and reading it in extract_text: docs/plugins.md)")


def test_a_plugin_that_reads_no_text_in_its_file_fails_it_with_that_reason(env: dict[str, Any]) -> None:
    ctx = dataclasses.replace(env["ctx"], extract_text=lambda p: "  \n")
    [update] = plugin.ingest(ctx=ctx, sources=[source(env["ws"], "data/birds.psv")], force=False)
    assert update.status == "failed" and not [p for p in env["inputs"].iterdir() if p.is_file()]
    assert update.last_error == ("LightRAG does not take '.psv' files, and the plugin reading them read no text in "
                                 "this one")


def test_a_type_a_plugin_reads_is_one_lightrag_indexes_for_the_folder_walk(env: dict[str, Any]) -> None:
    paths = ["a/birds.psv", "a/B.PSV", "a/x.bin"]
    assert plugin.unindexable(ctx=env["ctx"], paths=paths).keys() == {"a/x.bin"}
    without = dataclasses.replace(env["ctx"], text_suffixes=lambda: frozenset())
    assert plugin.unindexable(ctx=without, paths=paths).keys() == {"a/birds.psv", "a/B.PSV", "a/x.bin"}


def test_a_file_indexed_through_a_plugin_no_longer_installed_is_said_to_have_lost_its_reader(
        env: dict[str, Any]) -> None:
    """nc29a: birds.psv, indexed from the text a plugin read, was cited "whole file" once the plugin was gone, and
    nothing said why. ``check_readings`` names it (``readerMissing``) while no loaded plugin reads its type, and
    sends nothing again for it; with the plugin back, nothing is said."""
    from mnote_kr.plugin_api import SourceEntry

    entry = SourceEntry(source_id="data/birds.psv", source_path=str(env["ws"] / "data" / "birds.psv"),
                        source_root_relative_path="data/birds.psv", status="processed",
                        reading=readings.current(readings.PLUGIN))
    gone = dataclasses.replace(env["ctx"], text_suffixes=lambda: frozenset())
    check = plugin.check_readings(ctx=gone, entries=[entry], look=False)
    assert check is not None and list(check.reader_missing) == ["data/birds.psv"]
    assert "no plugin installed now reads '.psv' files" in check.reader_missing["data/birds.psv"]
    assert check.older == {} and check.unknown == {}
    assert plugin.check_readings(ctx=env["ctx"], entries=[entry], look=False).reader_missing == {}
