"""Registry persistence: atomic, locked, versioned, never silently emptied."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import msgspec
import pytest

from mnote_kr.core import registry as registry_module
from mnote_kr.core.registry import Registry, RegistryStore
from mnote_kr.errors import RegistryCorruptError
from mnote_kr.models import RegistrySnapshot, SourceEntry

WRITER = r"""
import sys
from mnote_kr.models import RegistrySnapshot, SourceEntry
from mnote_kr.core.registry import RegistryStore
store = RegistryStore(__import__('pathlib').Path(sys.argv[1]))
prefix, count = sys.argv[2], int(sys.argv[3])
for i in range(count):
    with store.transaction() as reg:
        rel = f"{prefix}/{i:05d}.md"
        reg.put(SourceEntry(source_id=rel, source_path="/x/" + rel, source_root_relative_path=rel, size=i))
    print(rel, flush=True)   # acknowledged only after the commit returned
"""


def entry(rel: str, **kw) -> SourceEntry:
    return SourceEntry(source_id="src-" + rel, source_path="/abs/" + rel, source_root_relative_path=rel, **kw)


def test_save_and_load_round_trip_keeps_every_field(tmp_path: Path) -> None:
    store = RegistryStore(tmp_path / "index", workspace_id="ws-1", root_uri="file:///w")
    counting = [f"doc-2-chunk-{c:03d}" for c in range(3)]
    with store.transaction() as reg:
        reg.put(entry("a/b.pdf", status="processed", chunk_ids=["doc-1-chunk-000"], size=5, stale_reason=None))
        reg.put(entry("a/c.pdf", status="processed", chunk_ids=counting))
    loaded = store.load()
    assert loaded.workspace_id == "ws-1"
    assert loaded.entries["a/b.pdf"].chunk_ids == ["doc-1-chunk-000"]
    assert loaded.entries["a/b.pdf"].status == "processed"
    packed = msgspec.msgpack.decode(store.path.read_bytes())  # any MessagePack reader can open it
    assert packed[:2] == ["mnote-kr-registry", 5] and packed[7] == ["a/b.pdf", "a/c.pdf"] and len(packed) == 15
    on_disk = msgspec.msgpack.decode(packed[14])  # the entries blob: chunks of [camelCase maps, chunk-id runs]
    maps, runs = on_disk[0]
    assert maps[0]["sourceRootRelativePath"] == "a/b.pdf" and maps[0]["chunkIds"] == ["doc-1-chunk-000"]
    # Ids that count up are a run [prefix, start, count, width] beside the map, which leaves them out.
    assert "chunkIds" not in maps[1] and runs == [None, ["doc-2-chunk-", 0, 3, 3]]
    registry_module.clear_cache()
    assert store.load().entries["a/c.pdf"].chunk_ids == counting
    # The columns: one tag byte (status 'processed' is code 3, not stale), provider names and ids.
    assert packed[10] == bytes([3, 3]) and msgspec.msgpack.decode(packed[11]) == [None, None]
    assert msgspec.msgpack.decode(packed[12]) == [None, None] and msgspec.msgpack.decode(packed[13]) == []
    data = store.path.read_bytes()  # field 2: where the entries start (their bin 32 marker)
    assert data[int.from_bytes(packed[2], "little")] == 0xC6
    raw = json.loads(store.export_json())
    assert raw["version"] == 2 and raw["entries"][0]["sourceRootRelativePath"] == "a/b.pdf"  # camelCase export
    assert raw["entries"][1]["chunkIds"] == counting  # the export lists every id


def test_previous_generation_is_kept_and_corrupt_file_is_reported_not_replaced(tmp_path: Path) -> None:
    store = RegistryStore(tmp_path / "index")
    with store.transaction() as reg:
        reg.put(entry("one.md"))
    with store.transaction() as reg:
        reg.put(entry("two.md"))
    assert set(store.load_previous().entries) == {"one.md"}
    store.path.write_bytes(b'{"version": 2, "entries": [')  # torn by some other tool
    with pytest.raises(RegistryCorruptError) as info:
        store.load()
    assert str(store.path) in str(info.value) and ".prev" in str(info.value)
    with pytest.raises(RegistryCorruptError):
        with store.transaction():
            pass  # a transaction must not overwrite a corrupt registry with an empty one
    assert store.path.read_bytes().endswith(b"[")
    store.restore_previous()
    assert set(store.load().entries) == {"one.md"}
    assert store.path.with_name(store.path.name + ".corrupt").exists()


def test_older_snapshot_version_loads(tmp_path: Path) -> None:
    store = RegistryStore(tmp_path / "index")
    store.index_dir.mkdir(parents=True)
    v1 = {
        "version": 1, "workspaceId": "old", "rootUri": "file:///old",
        "indexedRoots": [{"rootRelativePath": "papers", "recursive": True, "excludePatterns": ["*.tmp"],
                          "runOnChange": False, "updatedAtMs": 1}],
        "entries": [{"sourcePath": "/old/papers/a.pdf", "sourceRootRelativePath": "papers/a.pdf",
                     "sourceHash": "sha256:00", "size": 3, "mtime": 1700000000.5, "status": "processed",
                     "lightRagDocId": "doc-1", "someFutureField": {"x": 1}}],
    }
    store.path.write_text(json.dumps(v1))
    reg = store.load()
    e = reg.entries["papers/a.pdf"]
    assert e.mtime_ns == 1_700_000_000_500_000_000
    assert e.source_id.startswith("src-") and e.light_rag_doc_id == "doc-1"
    assert reg.roots["papers"].exclude_patterns == ["*.tmp"]


def test_two_processes_adding_500_entries_each_end_with_1000(tmp_path: Path) -> None:
    index = tmp_path / "index"
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(index), p, "500"], stdout=subprocess.DEVNULL)
        for p in ("left", "right")
    ]
    for p in procs:
        assert p.wait(timeout=240) == 0
    reg = RegistryStore(index).load()
    assert len(reg.entries) == 1000
    assert sum(1 for k in reg.entries if k.startswith("left/")) == 500


def test_registry_survives_kill_9_of_a_writer_at_random_points(tmp_path: Path) -> None:
    index = tmp_path / "index"
    rng = random.Random(20261129)
    acknowledged: set[str] = set()
    trials = 100
    for trial in range(trials):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(index), f"t{trial}", "100000"],
            stdout=subprocess.PIPE, text=True,
        )
        # Let it get through start-up and a random number of commits, then kill -9.
        assert proc.stdout is not None
        wanted = rng.randint(1, 4)
        for _ in range(wanted):
            line = proc.stdout.readline().strip()
            if line:
                acknowledged.add(line)
        time.sleep(rng.random() * 0.02)
        os.kill(proc.pid, signal.SIGKILL)
        rest = proc.stdout.read()
        acknowledged.update(x for x in rest.split() if x)
        proc.stdout.close()
        proc.wait()
        reg = RegistryStore(index).load()  # must always decode
        missing = acknowledged - set(reg.entries)
        assert not missing, f"trial {trial}: committed entries lost: {sorted(missing)[:5]}"
    assert len(acknowledged) >= trials
    # What the killed writers left half-written goes at the next save (taken under the lock).
    with RegistryStore(index).transaction():
        pass
    assert sorted(p.name for p in index.iterdir() if p.name.endswith(".tmp")) == []


def test_save_after_a_writer_killed_between_the_two_renames_leaves_no_temp_file(tmp_path: Path) -> None:
    # A writer killed after moving the current file to '.prev' but before renaming its new file
    # in leaves '.prev' and the current name as two links to one file. rename() between two links
    # of one file does nothing (POSIX), so a save that relinks '.prev' must not leave its temp name.
    store = RegistryStore(tmp_path / "index")
    with store.transaction() as reg:
        reg.put(entry("a.pdf"))
    store.prev_path.unlink(missing_ok=True)
    os.link(store.path, store.prev_path)
    with store.transaction() as reg:
        reg.put(entry("b.pdf"))
    assert sorted(p.name for p in store.index_dir.iterdir() if p.name.endswith(".tmp")) == []
    assert set(store.load().entries) == {"a.pdf", "b.pdf"}
    assert set(store.load_previous().entries) == {"a.pdf"}


def test_by_provider_name_only_lists_citable_entries() -> None:
    reg = Registry(RegistrySnapshot())
    reg.put(entry("ok.md", status="processed", light_rag_file_path="ok.md"))
    reg.put(entry("stale.md", status="processed", stale=True, light_rag_file_path="stale.md"))
    reg.put(entry("dup.md", status="duplicate", light_rag_file_path="dup.md"))
    reg.put(entry("del.md", status="delete_submitted", light_rag_file_path="del.md"))
    assert set(reg.by_provider_name()) == {"ok.md"}
