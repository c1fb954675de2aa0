"""KeyedStore: small derived values on disk, under the locate cache's rules (MAC'd, versioned, bounded)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mnote_kr.citations.caches.filecache import KeyedStore


def _folder() -> Path:
    return Path(os.environ["MNOTE_KR_HOME"]) / "cache" / "locate" / "ks"


def test_a_value_survives_the_process_object_and_names_its_key() -> None:
    KeyedStore("ks", "v1").put("doc:chunk", b"[0, 3, 9, 1.0]")
    fresh = KeyedStore("ks", "v1")
    assert fresh.get("doc:chunk") == b"[0, 3, 9, 1.0]"
    assert fresh.get("doc:other") is None
    assert fresh.stats["hits"] == 1 and fresh.stats["misses"] == 1


def test_another_code_version_never_reads_an_old_value() -> None:
    KeyedStore("ks", "v1").put("k", b"old")
    newer = KeyedStore("ks", "v2")
    assert newer.get("k") is None
    newer.put("k", b"new")
    assert KeyedStore("ks", "v2").get("k") == b"new"
    assert KeyedStore("ks", "v1").get("k") is None  # the entry now belongs to v2


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "foreign"])
def test_a_torn_or_foreign_entry_is_a_miss_never_decoded(damage: str) -> None:
    store = KeyedStore("ks", "v1")
    store.put("k", b"value bytes")
    (entry,) = _folder().glob("k-*")
    blob = entry.read_bytes()
    if damage == "truncate":
        entry.write_bytes(blob[: len(blob) - 4])
    elif damage == "flip":
        entry.write_bytes(blob[:-1] + bytes([blob[-1] ^ 0xFF]))
    elif damage == "empty":
        entry.write_bytes(b"")
    else:  # a well-formed entry written with another key (another cache dir's, or forged)
        entry.write_bytes(blob.replace(b'"v1"', b'"v9"'))
    fresh = KeyedStore("ks", "v1")
    assert fresh.get("k") is None
    assert fresh.stats["rejected"] == 1
    fresh.put("k", b"value bytes")  # the caller recomputes and stores again
    assert KeyedStore("ks", "v1").get("k") == b"value bytes"


def test_an_entry_under_another_key_at_the_same_name_is_a_miss() -> None:
    store = KeyedStore("ks", "v1")
    store.put("k", b"v")
    (entry,) = _folder().glob("k-*")
    other = KeyedStore("ks", "v1")
    other.put("x", b"w")
    (entry_x,) = [p for p in _folder().glob("k-*") if p != entry]
    entry.write_bytes(entry_x.read_bytes())  # a valid entry of key "x" under the name of "k"
    assert KeyedStore("ks", "v1").get("k") is None


def test_the_folder_is_trimmed_to_its_bound_oldest_first() -> None:
    store = KeyedStore("ks", "v1", max_entries=10)
    for i in range(30):
        store.put(f"k{i}", b"x")
        past = 1_000_000 + i  # distinct write times, oldest first
        os.utime(_folder() / KeyedStore._entry_name(f"k{i}"), (past, past))
    store.trim()
    left = len(list(_folder().glob("k-*")))
    assert left <= 10
    assert store.get("k29") == b"x" and store.get("k0") is None


def test_turned_off_with_the_locate_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")
    store = KeyedStore("ks", "v1")
    store.put("k", b"v")
    assert store.get("k") is None
    assert not _folder().exists() or not list(_folder().glob("k-*"))


def test_writes_trim_at_random_about_once_per_share_of_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    from mnote_kr.citations.caches import filecache

    assert all(filecache.one_in(1) for _ in range(100)) and all(filecache.one_in(0) for _ in range(10))
    hits = sum(filecache.one_in(50) for _ in range(20_000))
    assert 250 <= hits <= 550  # 400 expected; far outside this only if the chance were wrong
    # A fresh process's first write does not scan a large folder: the chance is one in max_entries / 8.
    asked: list[int] = []
    monkeypatch.setattr(filecache, "one_in", lambda n: asked.append(n) or False)
    KeyedStore("ks", "v1", max_entries=50_000).put("k", b"v")
    assert asked == [50_000 // 8]


def test_many_short_writers_keep_the_folder_near_its_bound() -> None:
    bound = 16  # trims with a chance of one in two per write
    for i in range(300):
        KeyedStore("ks", "v1", max_entries=bound).put(f"k{i}", b"x")  # a new store: as many processes would
        assert len(list(_folder().glob("k-*"))) <= bound + 40, i  # 40 writes without a trim: 2**-40
    assert KeyedStore("ks", "v1").get("k299") == b"x"


def test_an_older_version_named_readable_is_read_and_held_another_is_neither() -> None:
    KeyedStore("ks", "v1").put("same", b"vectors")
    KeyedStore("ks", "v0").put("gone", b"older vectors")
    store = KeyedStore("ks", "v2", reads=("v1",))
    assert store.get("same") == b"vectors" and store.holds("same")
    assert store.get("gone") is None and not store.holds("gone")  # present on disk, not readable
    assert not store.holds("never")
    store.put("same", b"vectors")
    assert KeyedStore("ks", "v2").holds("same")
