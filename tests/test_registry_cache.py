"""The registry is decoded only when its file changed (long-running serve/watch/API hosts)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mnote_kr.core import registry as registry_module
from mnote_kr.core.registry import RegistryStore
from mnote_kr.models import SourceEntry


def _entry(rel: str, status: str = "processed") -> SourceEntry:
    return SourceEntry(source_id="s-" + rel, source_path="/x/" + rel, source_root_relative_path=rel, status=status)


@pytest.fixture
def decodes(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    registry_module.clear_cache()
    seen: list[Path] = []
    real = registry_module.decode_snapshot

    def counting(data: bytes, path: Path):  # noqa: ANN202
        seen.append(path)
        return real(data, path)

    monkeypatch.setattr(registry_module, "decode_snapshot", counting)
    return seen


def test_unchanged_registry_is_not_decoded_again_and_loads_are_independent(tmp_path: Path,
                                                                           decodes: list[Path]) -> None:
    store = RegistryStore(tmp_path / "index")
    with store.transaction() as reg:
        reg.put(_entry("a.md"))
    decodes.clear()
    first = store.load()
    second = store.load()
    assert decodes == []  # the transaction's own save primed the cache
    assert set(first.entries) == {"a.md"}
    first.entries.clear()  # a caller changing its copy changes nobody else's
    assert set(second.entries) == {"a.md"} and set(store.load().entries) == {"a.md"}


def test_a_write_by_another_process_is_seen_at_once(tmp_path: Path, decodes: list[Path]) -> None:
    store = RegistryStore(tmp_path / "index")
    with store.transaction() as reg:
        reg.put(_entry("a.md"))
    assert set(store.load().entries) == {"a.md"}
    code = ("import sys; from pathlib import Path; from mnote_kr.core.registry import RegistryStore; "
            "from mnote_kr.models import SourceEntry\n"
            "s = RegistryStore(Path(sys.argv[1]))\n"
            "with s.transaction() as r:\n"
            "    r.put(SourceEntry(source_id='s', source_path='/x/b.md', source_root_relative_path='b.md'))\n")
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "index")], check=True, env=os.environ.copy())
    decodes.clear()
    assert set(store.load().entries) == {"a.md", "b.md"}
    assert decodes == [store.path]  # changed: decoded once
    store.load()
    assert decodes == [store.path]  # and not again


def test_a_file_replaced_with_the_same_size_is_decoded_again(tmp_path: Path, decodes: list[Path]) -> None:
    store = RegistryStore(tmp_path / "index")
    with store.transaction() as reg:
        reg.put(_entry("a.md", "processed"))
    store.load()
    data = store.path.read_bytes().replace(b"\xa9processed", b"\xa9submitted")  # MessagePack str, same length
    tmp = store.path.with_name("other")
    tmp.write_bytes(data)
    os.replace(tmp, store.path)  # same size, new inode
    assert store.load().entries["a.md"].status == "submitted"
