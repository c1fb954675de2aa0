"""The locate cache: parsed models survive the process, and nothing untrustworthy is ever decoded."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from mnote_kr.citations.caches.filecache import DiskStore, FileCache, Persist
from mnote_kr.errors import DocumentError


@dataclass
class Model:
    """A stand-in parsed document: the cache must not care what it holds."""

    words: list[str]
    extra: dict[str, int] = field(default_factory=dict)


def _parser(calls: list[str]):
    def load(real: str, st: os.stat_result) -> Model:
        calls.append(real)
        return Model(Path(real).read_text(encoding="utf-8").split())

    return load


def _cache(calls: list[str], **persist: object) -> FileCache[Model]:
    return FileCache(_parser(calls), what="test file",
                     persist=Persist(name="t", version=str(persist.pop("version", "1")), model=Model, **persist))


def _entries() -> list[Path]:
    folder = Path(os.environ["MNOTE_KR_HOME"]) / "cache" / "locate" / "t"
    return sorted(folder.glob("e-*"))


def test_a_new_process_reads_the_model_from_disk_instead_of_parsing(tmp_path: Path) -> None:
    src = tmp_path / "a.txt"
    src.write_text("alpha beta gamma", encoding="utf-8")
    calls: list[str] = []
    assert _cache(calls).get(src).words == ["alpha", "beta", "gamma"]
    fresh = _cache(calls)  # a second FileCache has an empty memory, like a new process
    assert fresh.get(src).words == ["alpha", "beta", "gamma"]
    assert len(calls) == 1
    assert fresh.disk is not None and fresh.disk.stats["hits"] == 1


def test_a_changed_file_is_parsed_again_and_a_touched_one_is_not(tmp_path: Path) -> None:
    src = tmp_path / "a.txt"
    src.write_text("one two", encoding="utf-8")
    calls: list[str] = []
    _cache(calls).get(src)
    st = src.stat()
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))  # same bytes, new mtime
    assert _cache(calls).get(src).words == ["one", "two"]
    assert len(calls) == 1  # content hash unchanged: the entry still serves
    src.write_text("three four", encoding="utf-8")
    assert _cache(calls).get(src).words == ["three", "four"]
    assert len(calls) == 2


def test_the_same_content_at_another_path_is_one_entry(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("same words here", encoding="utf-8")
    (tmp_path / "b.txt").write_bytes((tmp_path / "a.txt").read_bytes())
    calls: list[str] = []
    _cache(calls).get(tmp_path / "a.txt")
    assert _cache(calls).get(tmp_path / "b.txt").words == ["same", "words", "here"]
    assert len(calls) == 1
    assert len(_entries()) == 1


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "garbage"])
def test_a_torn_or_foreign_entry_is_rebuilt_never_trusted(tmp_path: Path, damage: str) -> None:
    src = tmp_path / "a.txt"
    src.write_text("kept words", encoding="utf-8")
    calls: list[str] = []
    _cache(calls).get(src)
    (entry,) = _entries()
    blob = entry.read_bytes()
    if damage == "truncate":
        entry.write_bytes(blob[: len(blob) // 2])
    elif damage == "flip":
        entry.write_bytes(blob[:-1] + bytes([blob[-1] ^ 0xFF]))
    elif damage == "empty":
        entry.write_bytes(b"")
    else:
        entry.write_bytes(b"MKRLC1\n{}\n" + b"\0" * 64)
    fresh = _cache(calls)
    assert fresh.get(src).words == ["kept", "words"]
    assert len(calls) == 2  # rebuilt
    assert _cache(calls).get(src).words == ["kept", "words"]
    assert len(calls) == 2  # and the rebuilt entry serves again


def test_a_new_format_version_or_model_shape_is_a_miss(tmp_path: Path) -> None:
    src = tmp_path / "a.txt"
    src.write_text("x y", encoding="utf-8")
    calls: list[str] = []
    _cache(calls, version="1").get(src)
    _cache(calls, version="2").get(src)
    assert len(calls) == 2

    @dataclass
    class Other:  # a model from another module shape gives another fingerprint
        words: list[str]
        more: int = 0

    other = FileCache(_parser(calls), what="t", persist=Persist(name="t", version="2", model=Other))
    assert other.disk is not None and other.disk._format != _cache(calls, version="2").disk._format  # type: ignore[union-attr]


def test_the_folder_stays_under_its_byte_bound(tmp_path: Path) -> None:
    calls: list[str] = []
    cache = _cache(calls, max_bytes=4000)
    for i in range(30):
        f = tmp_path / f"f{i}.txt"
        f.write_text(" ".join(f"w{i}x{j}" for j in range(60)), encoding="utf-8")
        cache.get(f)
    folder = _entries()[0].parent
    total = sum(p.stat().st_size for p in folder.iterdir() if not p.name.startswith(".tmp-"))
    assert total <= 4000
    assert 0 < len(_entries()) < 30


def test_warm_fills_the_disk_once_and_keeps_nothing_in_memory(tmp_path: Path) -> None:
    src = tmp_path / "a.txt"
    src.write_text("warm me", encoding="utf-8")
    calls: list[str] = []
    cache = _cache(calls)
    assert cache.warm(src) is True
    assert cache.warm(src) is False
    assert len(calls) == 1
    assert _cache(calls).get(src).words == ["warm", "me"]
    assert len(calls) == 1


def test_turning_the_disk_cache_off_parses_every_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")
    src = tmp_path / "a.txt"
    src.write_text("a b", encoding="utf-8")
    calls: list[str] = []
    _cache(calls).get(src)
    _cache(calls).get(src)
    assert len(calls) == 2
    assert not (Path(os.environ["MNOTE_KR_HOME"]) / "cache" / "locate" / "t").exists()


def test_a_missing_file_is_a_document_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match="gone.txt"):
        _cache([]).get(tmp_path / "gone.txt")


_WRITER = """
import os, sys
from dataclasses import dataclass
from pathlib import Path
from mnote_kr.citations.caches.filecache import FileCache, Persist

@dataclass
class Model:
    words: list

parsed = []
def load(real, st):
    parsed.append(real)
    return Model(Path(real).read_text(encoding="utf-8").split())

for i in range(int(sys.argv[2])):
    cache = FileCache(load, what="t", persist=Persist(name="t", version="1", model=Model))
    words = cache.get(sys.argv[1]).words
    assert words[0] == "w0" and words[-1] == "w19999" and len(words) == 20000, len(words)
    if i % 4 == 3:
        cache.disk.clear()  # force rewrites while the others read
print(len(parsed))
"""


def test_concurrent_processes_never_read_half_an_entry(tmp_path: Path) -> None:
    src = tmp_path / "big.txt"
    src.write_text(" ".join(f"w{i}" for i in range(20000)), encoding="utf-8")
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(src), "16"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(3)]
    results = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], [err for _, err in results]
    parsed = [int(out) for out, _ in results]
    assert all(1 <= n < 16 for n in parsed)  # every get answered right, and some came from disk


def test_disk_store_is_generic_over_a_plugin_codec(tmp_path: Path) -> None:
    src = tmp_path / "a.txt"
    src.write_text("p q", encoding="utf-8")
    persist: Persist[str] = Persist(name="codec", version="1", encode=str.encode, decode=bytes.decode)
    store: DiskStore[str] = DiskStore(persist)
    st = src.stat()
    store.put(str(src), st, "P Q model")
    assert DiskStore(persist).get(str(src), st) == "P Q model"
