"""Registries made for the registry tests: entries, a store filled with them, a cold load, and
the two plain-way checks (counts by status, how many entries a load has decoded)."""

from __future__ import annotations

from pathlib import Path

from mnote_kr.core import registry as registry_module
from mnote_kr.core.registry import RegistryStore
from mnote_kr.models import SourceEntry


def entry(rel: str, **kw: object) -> SourceEntry:
    return SourceEntry(source_id="src-" + rel, source_path="/abs/" + rel, source_root_relative_path=rel, **kw)


def fill(store: RegistryStore, n: int) -> list[SourceEntry]:
    made = [entry(f"d/{i:04d}.pdf", status="processed", size=i, chunk_ids=[f"chunk-{i}-{c}" for c in range(i % 3)],
                  light_rag_file_path=f"{i:04d}.pdf") for i in range(n)]
    with store.transaction() as reg:
        for e in made:
            reg.put(e)
    return made


def store_holding(tmp_path: Path, fixture: Path) -> tuple[RegistryStore, bytes]:
    """A store whose registry file is a copy of ``fixture`` (a snapshot an older version wrote)."""
    store = RegistryStore(tmp_path / "index")
    store.index_dir.mkdir()
    data = fixture.read_bytes()
    store.path.write_bytes(data)
    return store, data


def cold_load(store: RegistryStore) -> registry_module.Registry:
    registry_module.clear_cache()
    return store.load()


def by_hand(entries: list[SourceEntry]) -> dict[str, int]:
    """Counts by status, computed the plain way (stale wins over any other status)."""
    counts: dict[str, int] = {}
    for e in entries:
        key = "stale" if e.stale else e.status
        counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))


def decoded_count(reg: registry_module.Registry) -> int:
    packed = reg.entries._packed
    return 0 if packed is None else sum(e is not None for e in packed.decoded)
