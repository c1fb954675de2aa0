"""The packed registry's version 5: chunk ids that count up are stored as runs, and every older
snapshot still loads, saves as version 5 and exports the same JSON."""

from __future__ import annotations

import json
from array import array
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnote_kr.core import registry as registry_module
from mnote_kr.core.registry import RegistryStore
from mnote_kr.core.registry_format import CHUNK
from mnote_kr.errors import RegistryCorruptError
from mnote_kr.models import SourceEntry
from tests.registry_helpers import by_hand, cold_load, decoded_count, entry, fill, store_holding

#: Written by the version-4 code (main at 7900197): 300 entries whose chunk ids are, by i % 6,
#: LightRAG's text-pipeline ids (0), none (1), one id (2), hash-like ids (3), ids across
#: 999 -> 1000 (4), and text ids mixed with a multimodal one (5); failed entries have none.
V4_FIXTURE = Path(__file__).parent / "data" / "registry" / "v4.msgpack"


def plain_entries(data: bytes) -> list[SourceEntry]:
    """The entries of a version-4 snapshot, read with msgspec alone (not the code under test)."""
    raw = msgspec.msgpack.decode(data)
    assert raw[:2] == ["mnote-kr-registry", 4]
    return msgspec.convert([m for chunk in msgspec.msgpack.decode(raw[14]) for m in chunk], list[SourceEntry])


def on_disk(store: RegistryStore) -> list[tuple[dict, list | None]]:
    """(map, run) of each entry of a version-5 file, read with msgspec alone."""
    raw = msgspec.msgpack.decode(store.path.read_bytes())
    assert raw[1] == 5
    return [pair for maps, runs in msgspec.msgpack.decode(raw[14]) for pair in zip(maps, runs, strict=True)]


def test_a_version_4_snapshot_loads_and_the_first_save_writes_version_5_with_runs(tmp_path: Path) -> None:
    store, v4 = store_holding(tmp_path, V4_FIXTURE)
    expected = plain_entries(v4)
    assert len(expected[30].chunk_ids) == 32 and expected[10].chunk_ids[-1].endswith("-chunk-1002")
    reg = cold_load(store)
    assert reg.entries["d/0030.pdf"] == expected[30] and decoded_count(reg) == CHUNK  # one chunk
    assert list(cold_load(store).entries.values()) == expected and reg.workspace_id == "ws-v4"
    assert cold_load(store).counts() == by_hand(expected) and decoded_count(reg) == CHUNK  # from the columns
    exported = cold_load(store)
    before = store.export_json()
    with store.transaction() as w:
        w.update("d/0002.pdf", retry_count=3)
    assert store.prev_path.read_bytes() == v4
    stored = on_disk(store)
    for i, (e, (raw_map, run)) in enumerate(zip(expected, stored, strict=True)):
        ids = e.chunk_ids
        if i % 6 in (0, 4) and ids:  # counting up: a run beside a map without them
            assert "chunkIds" not in raw_map and run == [ids[0][:-3], int(ids[0][-3:]), len(ids), 3]
        elif i % 6 in (2, 5) and ids:  # one id, or a mixed list: listed as they were
            assert raw_map["chunkIds"] == ids and run is None
        elif not ids:
            assert "chunkIds" not in raw_map and run is None
    assert len(store.path.read_bytes()) < len(v4) * 0.75  # the counting ids were over a quarter of it
    migrated = cold_load(store)
    assert migrated.counts() == exported.counts() and decoded_count(migrated) == 0  # the columns, written anew
    changed = [msgspec.structs.replace(e, retry_count=3) if e.source_root_relative_path == "d/0002.pdf" else e
               for e in expected]
    assert [msgspec.structs.replace(e, updated_at_ms=0) for e in migrated.entries.values()] == \
        [msgspec.structs.replace(e, updated_at_ms=0) for e in changed]
    after = json.loads(store.export_json())  # the export is the same JSON, every id listed
    assert [e for e in after["entries"] if e["sourceRootRelativePath"] != "d/0002.pdf"] == \
        [e for e in json.loads(before)["entries"] if e["sourceRootRelativePath"] != "d/0002.pdf"]


def test_the_export_lists_every_chunk_id_byte_for_byte_as_before_the_save(tmp_path: Path) -> None:
    store = RegistryStore(tmp_path / "a", workspace_id="ws", root_uri="file:///ws")
    made = [entry(f"r/{i:03d}.md", status="processed", light_rag_doc_id=f"doc-{i:032x}",
                  chunk_ids=[f"doc-{i:032x}-chunk-{c:03d}" for c in range(i % 9)]) for i in range(150)]
    with store.transaction() as reg:
        for e in made:
            reg.put(e)
    in_memory = store.export_json()  # from the entries just saved (the process cache)
    cold = cold_load(store)
    assert list(cold.entries.values()) == made
    assert fmt_export(cold) == in_memory  # decoded from the runs: the same bytes
    assert json.loads(in_memory)["entries"][8]["chunkIds"] == made[8].chunk_ids  # a full list
    assert sum(run is not None for _, run in on_disk(store)) == sum(i % 9 >= 2 for i in range(150))
    other = RegistryStore(tmp_path / "b")
    other.import_json(in_memory, tmp_path / "export.json")
    assert list(cold_load(other).entries.values()) == made
    assert json.loads(fmt_export(cold_load(other)))["entries"] == json.loads(in_memory)["entries"]


def fmt_export(reg: registry_module.Registry) -> bytes:
    from mnote_kr.core.registry_format import encode_json

    return encode_json(reg.snapshot())


def test_a_lookup_reads_one_chunk_of_the_file_and_reading_all_reads_the_rest(tmp_path: Path) -> None:
    store = RegistryStore(tmp_path / "index")
    made = fill(store, 300)
    reg = cold_load(store)
    packed = reg.entries._packed
    assert packed is not None
    assert reg.entries["d/0200.pdf"] == made[200] and reg.entries["d/0010.pdf"] == made[10]
    assert packed._blob is None and packed._source is not None  # two chunks read, not the blob
    assert list(reg.entries.values()) == made and packed._blob is not None and packed._source is None


def test_a_damaged_run_is_a_registry_error_naming_the_file(tmp_path: Path) -> None:
    store = RegistryStore(tmp_path / "index")
    with store.transaction() as reg:
        reg.put(entry("a.md", chunk_ids=["c-00", "c-01", "c-02"]))
    data = store.path.read_bytes()
    run = msgspec.msgpack.encode(["c-", 0, 3, 2])
    assert data.count(run) == 1
    store.path.write_bytes(data.replace(run, msgspec.msgpack.encode(["c-", 0, 3, 0])))  # width 0: same size
    with pytest.raises(RegistryCorruptError) as info:
        cold_load(store).entries["a.md"]
    assert str(store.path) in str(info.value) and "registry restore" in str(info.value)


chunk_id_lists = st.one_of(
    st.lists(st.text(alphabet=st.sampled_from("ab-0123456789\0"), max_size=5), max_size=4),
    st.builds(lambda p, s, n, w: [p + str(k).zfill(w) for k in range(s, s + n)],
              st.text(alphabet=st.sampled_from("ab-_\0"), max_size=4), st.integers(0, 2000), st.integers(0, 30),
              st.integers(1, 4)),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.lists(chunk_id_lists, min_size=1, max_size=CHUNK + 10))
def test_any_chunk_ids_survive_a_save_and_a_cold_load(tmp_path: Path, lists: list[list[str]]) -> None:
    store = RegistryStore(tmp_path / f"index-{len(lists)}-{abs(hash(str(lists)))}")
    made = [entry(f"f/{i:03d}", chunk_ids=ids) for i, ids in enumerate(lists)]
    with store.transaction() as reg:
        for e in made:
            reg.put(e)
    cold = cold_load(store)
    assert [cold.entries[e.source_root_relative_path].chunk_ids for e in made] == lists  # a lookup each
    assert list(cold_load(store).entries.values()) == made  # and all at once


def test_a_version_4_registry_exports_the_same_bytes_once_rewritten_as_version_5(tmp_path: Path) -> None:
    index = tmp_path / "index"
    index.mkdir()
    store = RegistryStore(index)
    store.path.write_bytes(V4_FIXTURE.read_bytes())
    before = store.export_json()
    store.save(cold_load(store))  # unchanged entries, re-encoded: a version-4 chunk is never copied
    assert msgspec.msgpack.decode(store.path.read_bytes())[1] == 5
    registry_module.clear_cache()
    after = store.export_json()
    # Equal up to the registry's own updatedAtMs (the last field: the save's time).
    assert before[: before.rindex(b',"updatedAtMs":')] == after[: after.rindex(b',"updatedAtMs":')]


def test_a_header_whose_chunk_offsets_go_backwards_is_corrupt_not_a_wild_read(tmp_path: Path) -> None:
    """Review: a lookup reads one chunk at the offsets the header gives (pread); offsets that go
    backwards (or a first one inside the array's own header) must be a corrupt file, found at
    load, not a read of some other range or an 'Invalid argument'."""
    store = RegistryStore(tmp_path / "index")
    fill(store, 300)  # several chunks of entries
    data = store.path.read_bytes()
    raw = msgspec.msgpack.decode(data)
    assert raw[1] == 5
    ends = array("Q", raw[9])
    assert len(ends) >= 3 and list(ends) == sorted(ends)
    for damaged in ([ends[1], ends[0], *ends[2:]], [0, *ends[1:]]):
        store.path.write_bytes(data.replace(raw[9], array("Q", damaged).tobytes(), 1))
        with pytest.raises(RegistryCorruptError) as info:
            cold_load(store).entries["d/0000.pdf"]
        assert str(info.value).startswith(f"Registry file is corrupt: {store.path}")
