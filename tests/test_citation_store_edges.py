"""Edges of the packed citation ID store found in review: a search bigger than ``[citations] keep``, a failure
after a write committed, a store busy for longer than the busy timeout."""

from __future__ import annotations

import sqlite3

import pytest

from benchmarks.citation_ids import _prose, searches
from mnote_kr.app.host import Host
from mnote_kr.citations.caches import citecache, idstore
from tests.test_citation_store import cite
from tests.test_pipeline_unit import host  # noqa: F401  (the fixture)


def test_a_search_issuing_more_ids_than_keep_still_opens_every_id_it_returned(host: Host) -> None:  # noqa: F811
    host.config["citations"] = {"keep": 100}  # the least allowed; a search of top-k 200 issues more
    big = [c for batch in searches(150, _prose()) for c in batch]
    issued = [c.citation_id for c in citecache.remember(host, big)]
    citecache._memory.clear()  # another process: the store alone
    assert [cid for cid in issued if citecache.find(host, cid) is None] == []
    assert not citecache.expired(host, issued[0])  # the best result, shown first, opens


def test_a_failure_after_the_write_committed_never_hands_out_an_id_the_store_holds_for_another_place(
        host: Host, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    citecache.remember(host, [cite("[dupe]", 1, "the place a note cites")])
    citecache._memory.clear()  # a later process: only the store knows [dupe] is paragraph 1's
    failing = [True]  # giving free pages back runs after the commit; a damaged page fails it so
    monkeypatch.setattr(idstore, "_give_back", lambda con: "SELECT zeroblob(2000000000);" if failing else "")
    issued = citecache.remember(host, [cite("[dupe]", 2, "another place hashing to the same ID")])[0]
    failing.clear()
    citecache._memory.clear()
    opened = citecache.find(host, issued.citation_id)
    assert opened is not None and opened.locator.paragraph_index == 2, (issued.citation_id, opened)


def test_a_store_another_process_holds_too_long_is_never_called_one_to_move_aside(
        host: Host, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    citecache.remember(host, [cite("[kept]", 1, "a place a note cites")])
    monkeypatch.setattr(idstore, "BUSY_SECONDS", 0.05)
    monkeypatch.setattr(idstore, "_open", idstore._Open())  # a fresh connection: it takes the short timeout
    monkeypatch.setattr(citecache, "_warned", [])
    other = sqlite3.connect(citecache.store_path(host), isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process's long write (a VACUUM of a large earlier store)
    try:
        issued = citecache.remember(host, [cite("[next]", 2, "the next search")])
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert [c.citation_id for c in issued] == ["[next]"]
    said = capsys.readouterr().err
    assert str(citecache.store_path(host)) in said and "aside" not in said, said  # moving it aside loses every ID
