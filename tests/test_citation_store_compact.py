"""The citation ID store is compact, keeps ``[citations] keep`` IDs, and still opens an earlier version's rows.

Measured in round 15: 1.65 KB an ID on disk (168 MB at the 100,000-ID cap), a third of it the slack of
pages that hold two 1.4 KB rows, and no setting to keep fewer. One search's records are now deflated
together (``idrecord.pack``: they repeat each other), free pages go back to the file system, and
``[citations] keep`` bounds the rows. A store the previous version wrote (schema 2, one record of its
own a row) is read as it is, upgraded in place, and shrunk once its old rows are evicted.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from benchmarks.citation_ids import PreviousStore, _prose, searches
from mnote_kr.app.host import Host
from mnote_kr.citations.caches import citecache, idrecord, idstore
from mnote_kr.citations.render import openplan
from mnote_kr.errors import ConfigError, NotFoundError
from tests.test_pipeline_unit import host  # noqa: F401  (the fixture)

#: Rows the previous version (3745dfe) wrote for ``cite("[0ld1]", 3, "a quote the previous version recorded",
#: alternatives=[[0ld2]'s place])`` with hash "sha256:abab..." and ``cite("[0ld2]", 4, "the second place")``
#: with no hash (``tests.test_citation_store.cite``), as ``idrecord.encode`` gave them then.
OLD_ROWS = [
    ("[0ld1]", -2693664128333612442, bytes.fromhex(
        "0178bb09749b0be596314ec33014862bd1bd57f0824407d2167a077a872a4342dba5a04889405ca19b7b03ba0003031b62fb154ee1"
        "a567e1e117c77e6904911818aa489e6cd9cfefffbe78df1bd0f8341fdf2c2671fbec97753acad6d1edc22ddbf7d40fd5340b292d22b0"
        "8ce0b70c315bba11a5930a36b84cc12306660c123254a04092020fb666b2e165006903781d68f6079c40e01d052129084b95ac29b0a7"
        "e04505672a5dab0a4231a8cd85babbaf457e7dee5a11b4da5c55bd4ed2bf7dcdc43d73e22621c0dbdd4c306c4e1365ef9155929331b2"
        "bb42dd536d741d8aba99e5940181ba99a6cb151519a94e6b55b222c0a3364174dc3df48819b105e900ddb60f3d6286adde704d095471"
        "79a09c8fb99da3ca77ef59358dcf1e86c260db4de0308be5457c005bab303eff0dcffe11e3296878fb4e5241c1a19fad3d6c888e6ebc"
        "7e1026ebd1bf7ff005bcde6766")),
    ("[0ld2]", 2904196825127221952, bytes.fromhex(
        "0178bb09749b0b85d43f0e823014c7710657efd05106f14ff40ede813088c082c644168f81477051070737a38bbf700b17ce62e551da"
        "57882e4ca54dd3f7f9964e5f7e4ffe781d4d83eed597341c6d536f13a9df4a47fcb88d7d91a22282ca08fecd10d9caad51ead5d8a066"
        "0a9a18c8183832d450c0a540c3ce4936740cc06b009d839cfa011510e84681450aac5205650ad429e85041952a6f5205961834e542f3"
        "bad76cb71aaaa7b0a7e34cd33131b11d8e0be6edf6d59ec5525d448160005f619cc8933d61af12cb4402f3ba80b67634c53e293772d3"
        "d696a6cdb7db69515dd4e0376b317ef8d51a51dc75bbc43c18ecdd0f48f03805")),
]


def _previous_store(path: Path, rows: list[tuple[str, int, bytes]]) -> None:
    """A store as the previous version left it: schema 2, no ``batch`` column, one record of its own a row."""
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.executescript(PreviousStore.SCHEMA)
    con.executemany("INSERT INTO ids (id, place, record) VALUES (?, ?, ?)", rows)
    con.close()


def _fill(host: Host, ids: int) -> list[str]:  # noqa: F811
    """``ids`` IDs in searches of 15 (5 files' places, each with two alternatives), real prose quotes."""
    issued = []
    for batch in searches(ids, _prose()):
        issued += [c.citation_id for c in citecache.remember(host, batch)]
    return issued


def _file_bytes(path: Path) -> int:
    with sqlite3.connect(path) as con:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    return path.stat().st_size


def test_a_store_the_previous_version_wrote_opens_every_id_before_and_after_new_writes(host: Host) -> None:  # noqa: F811
    path = citecache.store_path(host)
    _previous_store(path, OLD_ROWS)
    found = citecache.issued(host, "[0ld1]")
    assert found is not None and found[1] == "sha256:" + "ab" * 32
    assert found[0].display_quote == "a quote the previous version recorded"
    assert found[0].alternatives[0].citation_id == "[0ld2]" and found[0].locator.paragraph_index == 3
    _fill(host, 150)  # this version writes packs into the same file
    citecache._memory.clear()
    for cid, place, _ in OLD_ROWS:
        again = citecache.issued(host, cid)
        assert again is not None and idrecord.place_of(again[0]) == place
    assert citecache.find(host, "[0ld2]").display_quote == "the second place"  # type: ignore[union-attr]
    rows = list(idstore.every(path))
    assert len(rows) == 152 and all(idrecord.decode(data, cid) is not None for cid, _, data in rows)
    with sqlite3.connect(path) as con:
        assert con.execute("PRAGMA user_version").fetchone()[0] == idstore.SCHEMA_VERSION
    con.close()


def test_the_file_takes_under_three_quarters_of_the_bytes_of_records_deflated_one_by_one(host: Host) -> None:  # noqa: F811
    batches = searches(600, _prose())
    alone = sum(len(idrecord.encode(c, "sha256:" + "0" * 64)) for batch in batches for c in batch)
    for batch in batches:
        citecache.remember(host, batch)
    size = _file_bytes(citecache.store_path(host))
    assert size < 0.75 * alone, (size, alone)  # the whole file, pages and index, against the records alone
    wal = Path(str(citecache.store_path(host)) + "-wal")
    assert not wal.exists() or wal.stat().st_size <= idstore.WAL_PAGES * 4096


def test_a_damaged_pack_or_a_wrong_index_is_never_a_wrong_citation(host: Host) -> None:  # noqa: F811
    issued = _fill(host, 15)
    path = citecache.store_path(host)
    rows = {cid: data for cid, _, data in idstore.every(path)}
    first, second = issued[0], issued[1]
    assert idrecord.decode(rows[first], first) is not None
    assert idrecord.decode(rows[second][:1] + rows[first][1:], second) is None  # another ID's slot
    assert idrecord.decode(rows[first][:-7], first) is None  # a torn pack
    assert idrecord.decode(rows[first][:1] + b"\x63" + rows[first][2:], first) is None  # past the pack's end


def test_keep_bounds_the_rows_and_open_says_how_many_are_kept(host: Host) -> None:  # noqa: F811
    host.config["citations"] = {"keep": 100}
    issued = _fill(host, 300)
    citecache._memory.clear()
    rows = [cid for cid, _, _ in idstore.every(citecache.store_path(host))]
    assert len(rows) == 100 and rows == issued[-100:]
    with pytest.raises(NotFoundError) as caught:
        openplan.open_plan(host, issued[0])
    assert caught.value.message == (f"Citation {issued[0]} has expired: it was issued more than 100 citations ago "
                                    "and is no longer kept")


@pytest.mark.parametrize("value", ["lots", 99, True, 250.5])
def test_keep_that_is_not_a_whole_number_of_at_least_100_is_one_clear_error(host: Host, value: object) -> None:  # noqa: F811
    host.config["citations"] = {"keep": value}
    with pytest.raises(ConfigError) as caught:
        _fill(host, 15)
    assert caught.value.message == f"[citations] keep must be a whole number of IDs, at least 100 (not {value!r})"
    assert caught.value.hint is not None and "keep = 20000 under [citations] in .mnote/config.toml" in caught.value.hint


def test_a_lower_keep_gives_the_space_back(host: Host) -> None:  # noqa: F811
    _fill(host, 3000)
    path = citecache.store_path(host)
    full = _file_bytes(path)
    host.config["citations"] = {"keep": 150}
    _fill(host, 15)
    assert _file_bytes(path) < full / 4


def test_a_previous_versions_full_store_shrinks_once_its_rows_are_evicted(host: Host) -> None:  # noqa: F811
    path = citecache.store_path(host)
    path.parent.mkdir(parents=True, exist_ok=True)
    previous = PreviousStore(path, 10_000)
    for batch in searches(2000, _prose()):
        previous.remember(batch)
    previous.con.close()
    full = _file_bytes(path)
    host.config["citations"] = {"keep": 150}
    _fill(host, 150)  # the previous version's rows evicted: most of the file is free pages
    assert _file_bytes(path) < full / 4
    with sqlite3.connect(path) as con:
        assert con.execute("PRAGMA auto_vacuum").fetchone()[0] == 2  # from now on it gives space back itself
    con.close()


def test_a_previous_versions_store_this_process_may_not_write_is_still_read(
        host: Host, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    path = citecache.store_path(host)
    _previous_store(path, OLD_ROWS)

    def refused(con: sqlite3.Connection) -> None:  # what SQLite says on a file the process may only read
        exc = sqlite3.OperationalError("attempt to write a readonly database")
        exc.sqlite_errorcode = sqlite3.SQLITE_READONLY  # type: ignore[attr-defined]
        raise exc

    monkeypatch.setattr(idstore, "_upgrade", refused)
    found = citecache.find(host, "[0ld1]")
    assert found is not None and found.display_quote == "a quote the previous version recorded"
