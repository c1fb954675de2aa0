"""A forced ID collision through the whole search pipeline: an ID a note holds keeps its place.

IDs are 4-character hashes (``render.ids``), so two places can hash to one ID. The replayed search
issues its IDs; the store is then made to hold one of them for another place, as a hash collision
(or a note from long ago) would. Searching again must not take that ID over: the place gets a
5-character ID of its own, alternatives follow, and both IDs open their own place in another process.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from mnote_kr.citations.caches import citecache
from tests.test_pipeline_replay import Env, fresh_caches, make_env


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Env:
    fresh_caches()
    env = make_env(tmp_path, monkeypatch)
    env.replay.sample("POST", "/query/data", "40_query_data_mix.json")
    return env


def _ids(results: list) -> set[str]:
    return {c.citation_id for c in results} | {a.citation_id for c in results for a in c.alternatives}


def test_a_search_never_takes_over_an_id_held_for_another_place(env: Env) -> None:
    first = env.search("Hamburg").results
    victim = first[0]
    other = next(c for c in first if c.source_root_relative_path != victim.source_root_relative_path)
    held = victim.citation_id
    for extra in ("", "-wal", "-shm"):  # a store where the victim's ID was issued for the other file's place
        Path(str(citecache.store_path(env.host)) + extra).unlink(missing_ok=True)
    citecache._memory.clear()
    forged = msgspec.structs.replace(other, citation_id=held, display_quote="the place a note holds")
    assert citecache.remember(env.host, [forged])[0].citation_id == held

    again = env.search("Hamburg").results
    moved = next(c for c in again if c.source_root_relative_path == victim.source_root_relative_path
                 and c.citation_url == victim.citation_url)  # the victim's place
    assert moved.citation_id != held and len(moved.citation_id) == 7  # [xxxxx]
    assert held not in _ids(again)  # nowhere in the results, alternatives included

    citecache._memory.clear()  # another process: the CLI a user pastes the note's ID into
    host = env.new_host()
    assert host.open(held).resource_root_relative_path == other.source_root_relative_path
    assert host.open(moved.citation_id).resource_root_relative_path == victim.source_root_relative_path
    assert moved.citation_id in _ids(env.search("Hamburg").results)  # the renamed ID is stable
