"""The packed registry snapshot: lazy entries, migration from the JSON file, JSON export/import."""

from __future__ import annotations

import gc
import json
import os
from array import array
from pathlib import Path

import msgspec
import pytest

from mnote_kr.core import registry as registry_module
from mnote_kr.core import registry_format
from mnote_kr.core.registry import LEGACY_JSON_FILE, RegistryStore, failed_tag, fallback_tag, waiting_tag
from mnote_kr.core.registry_entries import EntryMap
from mnote_kr.core.registry_format import CHUNK
from mnote_kr.errors import RegistryCorruptError, RegistryError
from mnote_kr.models import SourceEntry
from tests.registry_helpers import by_hand, cold_load, decoded_count, entry, fill, store_holding

# The JSON an older mnote-kr wrote (v2): the fields as v1 named them, in camelCase.
LEGACY_V2 = {
    "version": 2, "workspaceId": "ws-old", "rootUri": "file:///old",
    "indexedRoots": [{"rootRelativePath": "papers", "recursive": True, "excludePatterns": [],
                      "runOnChange": False, "updatedAtMs": 5}],
    "entries": [
        {"sourceId": "src-a", "sourcePath": "/old/papers/a.pdf", "sourceRootRelativePath": "papers/a.pdf",
         "sourceHash": "sha256:aa", "size": 3, "mtimeNs": 7, "status": "processed", "lightRagDocId": "doc-a",
         "lightRagFilePath": "a.1-2.pdf", "chunkIds": ["chunk-1", "chunk-2"], "updatedAtMs": 9},
        {"sourceId": "src-b", "sourcePath": "/old/papers/b.md", "sourceRootRelativePath": "papers/b.md",
         "status": "stale", "stale": True, "staleReason": "deleted"},
    ],
    "updatedAtMs": 11,
}


def test_a_lookup_decodes_one_entry_and_iterating_decodes_all(tmp_path: Path) -> None:
    store = RegistryStore(tmp_path / "index")
    made = fill(store, 600)
    reg = cold_load(store)
    packed = reg.entries._packed
    assert packed is not None and len(reg.entries) == 600 and "d/0007.pdf" in reg.entries
    assert sum(e is not None for e in packed.decoded) == 0  # load decoded no entry
    assert reg.entries["d/0307.pdf"] == made[307]
    assert sum(e is not None for e in packed.decoded) == CHUNK  # only the chunk holding it
    first = 307 // CHUNK * CHUNK
    assert packed.decoded[first] is not None and packed.decoded[first - 1] is None
    assert packed.decoded[first + CHUNK] is None
    assert list(reg.entries.values()) == made  # registry order kept
    assert reg.entries == {e.source_root_relative_path: e for e in made}


def test_entry_map_behaves_like_a_dict_and_copies_are_independent(tmp_path: Path) -> None:
    store = RegistryStore(tmp_path / "index")
    made = fill(store, 5)
    reg = cold_load(store)
    other = store.load()  # from the cache: shares the packed bytes
    assert reg.entries.get("nope") is None and reg.entries.get("nope", 1) == 1
    assert reg.entries.pop("d/0001.pdf") == made[1]
    del reg.entries["d/0002.pdf"]
    reg.entries["new.md"] = entry("new.md")
    assert list(reg.entries) == ["d/0000.pdf", "d/0003.pdf", "d/0004.pdf", "new.md"]
    assert [k for k, _ in reg.entries.items()] == list(reg.entries.keys())
    assert set(other.entries) == {e.source_root_relative_path for e in made}
    assert isinstance(reg.entries, EntryMap) and len(reg.entries.copy()) == 4


def test_saving_after_a_load_keeps_unchanged_entries_and_the_changes(tmp_path: Path) -> None:
    store = RegistryStore(tmp_path / "index")
    made = fill(store, 700)
    with store.transaction() as reg:
        changed = reg.update("d/0300.pdf", status="failed", last_error="boom")
        del reg.entries["d/0010.pdf"]
        reg.put(entry("z/new.md"))
    expected = [changed if e.source_root_relative_path == "d/0300.pdf" else e
                for e in made if e.source_root_relative_path != "d/0010.pdf"] + [entry("z/new.md")]
    loaded = cold_load(store)
    assert len(loaded.entries) == 700 and "d/0010.pdf" not in loaded.entries
    assert loaded.entries["d/0300.pdf"].last_error == "boom" and loaded.entries["z/new.md"] == entry("z/new.md")
    assert list(loaded.entries.values()) == expected
    with store.transaction() as reg:  # unchanged: every chunk is copied, and still decodes the same
        pass
    assert list(cold_load(store).entries.values()) == expected


def test_a_damaged_entry_is_a_registry_error_naming_the_file(tmp_path: Path) -> None:
    store = RegistryStore(tmp_path / "index")
    fill(store, 3)
    data = store.path.read_bytes()
    assert data.count(b"\xa9processed") == 3
    store.path.write_bytes(data.replace(b"\xa9processed", b"\xa9processeX", 1))  # not a status
    reg = cold_load(store)
    with pytest.raises(RegistryCorruptError) as info:
        list(reg.entries.values())
    assert str(store.path) in str(info.value) and "registry restore" in str(info.value)
    store.path.write_bytes(data[: len(data) // 2])  # torn
    with pytest.raises(RegistryCorruptError):
        cold_load(store)


def test_the_json_file_of_an_older_version_loads_and_the_first_save_migrates_it(tmp_path: Path) -> None:
    index = tmp_path / "index"
    index.mkdir()
    legacy = index / LEGACY_JSON_FILE
    legacy_bytes = json.dumps(LEGACY_V2).encode()
    legacy.write_bytes(legacy_bytes)
    store = RegistryStore(index)
    reg = cold_load(store)
    assert reg.workspace_id == "ws-old" and list(reg.roots) == ["papers"]
    assert reg.entries["papers/a.pdf"].chunk_ids == ["chunk-1", "chunk-2"]
    assert reg.entries["papers/b.md"].stale_reason == "deleted"
    assert not store.path.exists() and legacy.read_bytes() == legacy_bytes  # reading changed nothing
    with store.transaction() as reg:
        reg.update("papers/a.pdf", retry_count=1)
    assert store.path.read_bytes()[:1] == b"\x9f" and not legacy.exists()  # packed v5: 15 fields
    assert store.prev_path.read_bytes() == legacy_bytes  # the JSON is the previous generation
    migrated = cold_load(store)
    assert migrated.entries["papers/a.pdf"].retry_count == 1 and migrated.workspace_id == "ws-old"
    assert migrated.entries["papers/b.md"] == reg.entries["papers/b.md"]
    store.restore_previous()  # and can be put back
    assert cold_load(store).entries["papers/a.pdf"].retry_count == 0


def test_export_is_the_seeds_json_and_import_round_trips_it(tmp_path: Path) -> None:
    store = RegistryStore(tmp_path / "a", workspace_id="ws-a", root_uri="file:///a")
    made = fill(store, 20)
    exported = json.loads(store.export_json())
    assert exported["version"] == 2 and exported["workspaceId"] == "ws-a"
    first = exported["entries"][1]
    assert first["sourceRootRelativePath"] == "d/0001.pdf" and first["lightRagFilePath"] == "0001.pdf"
    assert first["chunkIds"] == ["chunk-1-0"] and first["status"] == "processed"
    other = RegistryStore(tmp_path / "b")
    fill(other, 2)
    imported = other.import_json(store.export_json(), tmp_path / "export.json")
    assert list(imported.entries.values()) == made
    again = cold_load(other)
    assert list(again.entries.values()) == made and again.workspace_id == "ws-a"
    assert set(other.load_previous().entries) == {"d/0000.pdf", "d/0001.pdf"}  # what it replaced


def test_import_of_a_non_registry_file_changes_nothing(tmp_path: Path) -> None:
    store = RegistryStore(tmp_path / "index")
    fill(store, 2)
    before = store.path.read_bytes()
    for bad in (b"not json", b'{"entries": [{"size": "big"}]}', msgspec.msgpack.encode([1, 2])):
        with pytest.raises(RegistryError) as info:
            store.import_json(bad, tmp_path / "bad.json")
        assert "bad.json" in str(info.value) and "registry export" in str(info.value)
    assert store.path.read_bytes() == before


def test_the_v1_seed_shape_imports(tmp_path: Path) -> None:
    store = RegistryStore(tmp_path / "index")
    v1 = {"version": 1, "workspaceId": "w", "rootUri": "file:///w", "indexedRoots": [],
          "entries": [{"sourcePath": "/w/a.pdf", "sourceRootRelativePath": "a.pdf", "mtime": 2.5,
                       "status": "processed"}]}
    reg = store.import_json(json.dumps(v1).encode(), tmp_path / "v1.json")
    got = cold_load(store).entries["a.pdf"]
    assert got == reg.entries["a.pdf"] and got.mtime_ns == 2_500_000_000 and got.source_id.startswith("src-")


def test_iterating_a_mostly_replaced_map_decodes_only_the_chunks_still_needed(tmp_path: Path) -> None:
    store = RegistryStore(tmp_path / "index")
    made = fill(store, 600)
    reg = cold_load(store)
    replaced = [msgspec.structs.replace(e, retry_count=7) for e in made[:590]]
    for e in replaced:
        reg.put(e)
    packed = reg.entries._packed
    assert packed is not None
    assert list(reg.entries.values()) == replaced + made[590:]
    assert packed.decoded[599] is not None and packed.decoded[0] is None  # the last chunk only


# ---------------------------------------------------------------- columns: aggregates without decoding

V3_FIXTURE = Path(__file__).parent / "data" / "registry" / "v3.msgpack"  # written by the v3 code (300 entries)


def varied(store: RegistryStore, n: int) -> None:
    """Entries of every kind status needs: failed with reasons, waiting, stale, fallbacks."""
    with store.transaction() as reg:
        for i in range(n):
            status = ("processed", "failed", "pending", "submitted", "processed")[i % 5]
            reg.put(entry(f"v/{i:04d}.pdf", status=status, stale=i % 7 == 0,
                          last_error=f"boom {i}" if status == "failed" else None,
                          pending_action="ingest" if i % 11 == 0 else None,
                          kind="pdf_fallback" if i % 13 == 0 else "document",
                          light_rag_doc_id=f"doc-{i}" if i % 3 else None, light_rag_file_path=f"{i:04d}.pdf"))


def test_counts_selections_and_columns_come_from_the_columns_without_decoding(tmp_path: Path) -> None:
    store = RegistryStore(tmp_path / "index")
    varied(store, 1000)
    reg = cold_load(store)
    counts, stale = reg.counts(), reg.stale_count()
    live = reg.by_provider_name()
    columns = reg.all_entries().columns()
    failed_notes = reg.notes(failed_tag)
    assert decoded_count(reg) == 0  # none of that decoded an entry
    failed = reg.select(lambda t: t & 0x0F == 4 and not t & 0x10)  # 'failed' is code 4 in EntryStatus
    everything = list(cold_load(store).entries.values())
    assert counts == by_hand(everything) and stale == sum(e.stale for e in everything)
    assert failed == [e for e in everything if e.status == "failed" and not e.stale]
    assert failed[0].last_error == "boom 1"
    assert [(rel, n.last_error) for rel, n in failed_notes] == [(e.source_root_relative_path, e.last_error)
                                                                for e in failed]
    # Citable: processed, or sent and not yet recorded as processed (the provider answers from it).
    citable = ("processed", "submitted", "processing")
    assert set(live) == {e.light_rag_file_path for e in everything if e.status in citable and not e.stale}
    assert any(e.status == "submitted" and not e.stale for e in everything)
    assert live["0004.pdf"].source_root_relative_path == "v/0004.pdf" and "0007.pdf" not in live  # 7: stale
    assert list(columns.paths) == [e.source_root_relative_path for e in everything]
    assert list(columns.doc_ids) == [e.light_rag_doc_id for e in everything]
    assert list(columns.names) == [e.light_rag_file_path for e in everything]
    assert list(columns.live) == [int(e.status == "processed" and not e.stale) for e in everything]


def test_counts_follow_changes_made_since_the_load(tmp_path: Path) -> None:
    store = RegistryStore(tmp_path / "index")
    varied(store, 600)
    reg = cold_load(store)
    before = reg.counts()
    reg.update("v/0004.pdf", status="failed", last_error="now broken")  # processed -> failed
    del reg.entries["v/0001.pdf"]  # a failed one
    reg.put(entry("new.md", status="pending"))
    after = reg.counts()
    assert after["processed"] == before["processed"] - 1 and after["failed"] == before["failed"]
    assert after["pending"] == before["pending"] + 1
    assert after == by_hand(list(reg.entries.values()))
    failed = [e.source_root_relative_path for e in reg.select(lambda t: t & 0x0F == 4 and not t & 0x10)]
    assert "v/0004.pdf" in failed and "v/0001.pdf" not in failed
    assert failed == [k for k, e in reg.entries.items() if e.status == "failed" and not e.stale]  # registry order
    live = reg.by_provider_name()
    assert "0004.pdf" not in live and "0009.pdf" in live
    columns = reg.all_entries().columns()
    assert list(columns.paths) == list(reg.entries) and columns.live[list(reg.entries).index("v/0004.pdf")] == 0
    assert columns.names[-1] is None and columns.paths[-1] == "new.md"
    with store.transaction() as w:  # saved and loaded again: the columns on disk agree
        w.update("v/0004.pdf", status="failed", last_error="now broken")
        del w.entries["v/0001.pdf"]
        w.put(entry("new.md", status="pending"))
    again = cold_load(store)
    assert again.counts() == after and decoded_count(again) == 0
    # The notes column (what status lists), reindexed after the deletion shifted every chunk.
    listed = [(rel, n.status, n.last_error, n.pending_action) for rel, n in again.notes(failed_tag)]
    assert decoded_count(again) == 0
    plain = list(again.entries.items())
    assert listed == [(k, e.status, e.last_error, e.pending_action) for k, e in plain if e.status == "failed"
                      and not e.stale]
    assert ("v/0004.pdf", "failed", "now broken", None) in listed
    assert [rel for rel, _ in again.notes(waiting_tag)] == [k for k, e in plain if e.pending_action
                                                           or e.status == "pending"]
    assert [rel for rel, _ in again.notes(fallback_tag)] == [k for k, e in plain if e.kind.endswith("_fallback")
                                                            and e.status != "failed"]
    assert [rel for rel, _ in reg.notes(waiting_tag)] == [rel for rel, _ in again.notes(waiting_tag)]  # in memory


def test_reading_entries_keeps_them_packed_so_a_save_copies_them(tmp_path: Path) -> None:
    store = RegistryStore(tmp_path / "index")
    varied(store, 600)
    reg = cold_load(store)
    assert len(list(reg.entries.values())) == 600 and reg.entries["v/0003.pdf"].status == "submitted"
    assert reg.entries._untouched() is not None  # read, not changed
    old_blob = bytes(reg.entries._packed.blob)
    store.save(reg)
    assert bytes(reg.entries._packed.blob) == old_blob


def test_a_version_3_snapshot_loads_and_the_first_save_writes_version_5(tmp_path: Path) -> None:
    store, v3 = store_holding(tmp_path, V3_FIXTURE)
    assert msgspec.msgpack.decode(v3)[1] == 3
    reg = cold_load(store)
    everything = list(reg.entries.values())
    assert len(everything) == 300 and reg.workspace_id == "ws-v3" and everything[1].last_error == "boom 1"
    assert cold_load(store).counts() == by_hand(everything)  # no columns on disk: derived from the entries
    assert [(rel, n.last_error) for rel, n in cold_load(store).notes(failed_tag)] == \
        [(e.source_root_relative_path, e.last_error) for e in everything if e.status == "failed" and not e.stale]
    with store.transaction() as w:
        w.update("d/0002.pdf", status="processed")
    data = store.path.read_bytes()
    assert msgspec.msgpack.decode(data)[1] == 5 and store.prev_path.read_bytes() == v3
    migrated = cold_load(store)
    expected = [msgspec.structs.replace(e, status="processed") if e.source_root_relative_path == "d/0002.pdf" else e
                for e in everything]
    assert migrated.counts() == by_hand(expected) and decoded_count(migrated) == 0
    assert [msgspec.structs.replace(e, updated_at_ms=0) for e in migrated.entries.values()] == \
        [msgspec.structs.replace(e, updated_at_ms=0) for e in expected]


def test_status_questions_need_no_key_index_and_a_lookup_builds_it(tmp_path: Path) -> None:
    store = RegistryStore(tmp_path / "index")
    varied(store, 300)
    reg = cold_load(store)
    assert len(reg.entries) == 300 and reg.counts() == by_hand(list(cold_load(store).entries.values()))
    assert list(reg.entries)[:2] == ["v/0000.pdf", "v/0001.pdf"] and not reg.entries._indexed()
    copy = reg.copy()
    assert "v/0005.pdf" in reg.entries and reg.entries._indexed() and not copy.entries._indexed()
    assert copy.entries["v/0005.pdf"] == reg.entries["v/0005.pdf"]
    warm, other = store.load(), store.load()  # from the cache: one snapshot, one shared key index
    assert warm.entries["v/0006.pdf"] == reg.entries["v/0006.pdf"] and warm.entries._data is other.entries._data
    warm.entries["zzz.md"] = entry("zzz.md")
    del warm.entries["v/0000.pdf"]  # changing one map copies the index first: no other map sees it
    assert "zzz.md" not in other.entries and "v/0000.pdf" in other.entries and len(other.entries) == 300
    assert "zzz.md" not in store.load().entries and "v/0000.pdf" in reg.entries
    assert "v/0000.pdf" in copy.entries and len(copy.entries) == 300
    store.save(copy)  # an unread map saves by copying every chunk
    assert cold_load(store).entries == reg.entries


def test_a_load_reads_the_header_only_and_the_entries_from_the_same_file(tmp_path: Path) -> None:
    store = RegistryStore(tmp_path / "index")
    made = fill(store, 300)
    reg = cold_load(store)
    packed = reg.entries._packed
    assert packed is not None and packed._blob is None  # the entries' bytes are not read yet
    assert reg.counts() == {"processed": 300} and packed._blob is None
    # Another process's save renames a new file into place (nothing of it is read here): this
    # load's one-chunk lookup still reads its own file, through the descriptor it opened.
    other = RegistryStore(tmp_path / "other")
    fill(other, 2)
    os.replace(other.path, store.path)
    assert reg.entries["d/0299.pdf"] == made[299] and packed._blob is None  # one chunk read, from the old file
    assert list(reg.entries.values()) == made and packed._blob is not None and packed._source is None
    assert [e.source_root_relative_path for e in cold_load(store).entries.values()] == ["d/0000.pdf", "d/0001.pdf"]


def test_a_file_rewritten_in_place_under_a_load_is_a_clear_error(tmp_path: Path) -> None:
    store = RegistryStore(tmp_path / "index")
    fill(store, 300)
    reg = cold_load(store)
    data = store.path.read_bytes()
    with open(store.path, "r+b") as fh:  # what 'cp other.msgpack lightrag-source-registry.msgpack' does
        fh.write(data[:100] + b"\0" * (len(data) - 100))
    os.utime(store.path, ns=(1, 1))  # a different mtime, as any rewrite has
    with pytest.raises(RegistryError) as info:
        reg.entries["d/0001.pdf"]
    assert "changed in place" in str(info.value) and "registry import" in str(info.value)


def open_descriptors() -> int:
    """This process's open file descriptors, once no snapshot is held (cached ones hold their files open)."""
    registry_module.clear_cache()
    gc.collect()
    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("no /proc/self/fd to count descriptors on this system")
    return len(os.listdir("/proc/self/fd"))


def test_loads_do_not_leak_file_descriptors(tmp_path: Path) -> None:
    store = RegistryStore(tmp_path / "index")
    fill(store, 100)
    open_fds = open_descriptors()
    for i in range(30):
        reg = cold_load(store)
        if i % 3 == 1:
            reg.entries["d/0001.pdf"]  # a lookup reads one chunk; the file stays open with the snapshot
        elif i % 3 == 2:
            list(reg.entries.values())  # reading them all reads the whole blob and closes the file
    del reg
    assert open_descriptors() == open_fds


def test_saves_in_one_process_do_not_leak_file_descriptors(tmp_path: Path) -> None:
    # A saved registry reads its entries back from the file it wrote (what the next save copies):
    # the descriptor must go with the generation it belongs to.
    store = RegistryStore(tmp_path / "index")
    fill(store, 200)
    open_fds = open_descriptors()
    for i in range(30):
        with store.transaction() as reg:
            reg.update(f"d/{i:04d}.pdf", retry_count=i + 1)
    assert cold_load(store).entries["d/0029.pdf"].retry_count == 30
    del reg
    assert open_descriptors() == open_fds


def test_a_save_failing_midway_leaves_the_registry_and_no_temp_file(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # The entries are encoded while the file is written: a failure there must not leave a partial file.
    store = RegistryStore(tmp_path / "index")
    made = fill(store, 300)
    before = store.path.read_bytes()
    real = registry_format.entry_tags
    calls = []

    def failing(entries: list[SourceEntry]) -> bytes:
        calls.append(1)
        if len(calls) == 3:
            raise MemoryError("out of memory in the middle of a save")
        return real(entries)

    monkeypatch.setattr(registry_format, "entry_tags", failing)
    with pytest.raises(MemoryError):
        with store.transaction() as reg:
            for e in made:
                reg.put(msgspec.structs.replace(e, retry_count=1))
    monkeypatch.undo()
    assert store.path.read_bytes() == before
    assert sorted(p.name for p in store.index_dir.iterdir() if p.name.endswith(".tmp")) == []
    assert [e.retry_count for e in cold_load(store).entries.values()] == [0] * 300


def test_a_save_whose_file_cannot_be_reopened_still_saves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # After the rename the saved file is opened anew to read its entries back from; if that fails
    # (no descriptor left), the save stands and the registry keeps its entries in memory.
    store = RegistryStore(tmp_path / "index")
    fill(store, 200)

    real_open = os.open

    def no_descriptors(path: object, *args: object, **kwargs: object) -> int:
        if Path(str(path)) == store.path:
            raise OSError(24, "Too many open files")
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    with store.transaction() as reg:
        reg.update("d/0150.pdf", retry_count=7)
        monkeypatch.setattr(registry_module.os, "open", no_descriptors)
    monkeypatch.undo()
    assert reg.entries["d/0150.pdf"].retry_count == 7 and len(reg.entries) == 200
    assert cold_load(store).entries["d/0150.pdf"].retry_count == 7


def test_a_temp_file_a_killed_writer_left_is_removed_by_the_next_save(tmp_path: Path) -> None:
    store = RegistryStore(tmp_path / "index")
    fill(store, 10)
    left = store.index_dir / f"{store.path.name}.4194301.tmp"  # a pid no writer here has
    left.write_bytes(b"half a snapshot")
    other = store.index_dir / "notes.tmp"
    other.write_bytes(b"not ours")
    with store.transaction() as reg:
        reg.update("d/0001.pdf", retry_count=1)
    assert not left.exists() and other.read_bytes() == b"not ours"
    assert cold_load(store).entries["d/0001.pdf"].retry_count == 1


def test_the_written_offsets_and_length_are_what_a_plain_reader_finds(tmp_path: Path) -> None:
    # The header is written before the entries, with their offsets filled in afterwards: read the
    # file with msgspec alone and check every offset against the chunks it delimits.
    store = RegistryStore(tmp_path / "index")
    made = fill(store, 700)
    data = store.path.read_bytes()
    raw = msgspec.msgpack.decode(data)
    header_length = int.from_bytes(raw[2], "little")
    starts, ends = array("Q", raw[8]), array("Q", raw[9])
    assert data[header_length] == 0xC6 and int.from_bytes(data[header_length + 1 : header_length + 5], "big") \
        == len(raw[14]) == len(data) - header_length - 5
    assert len(ends) == len(starts) - 1 == -(-700 // CHUNK) and starts[-1] == 700
    blob = raw[14]
    bounds = [5, *ends]
    read = []
    for c in range(len(ends)):
        maps, _runs = msgspec.msgpack.decode(blob[bounds[c] : bounds[c + 1]])
        assert len(maps) == starts[c + 1] - starts[c]
        read += [m["sourceRootRelativePath"] for m in maps]
    assert read == [e.source_root_relative_path for e in made]
