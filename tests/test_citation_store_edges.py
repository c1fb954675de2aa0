"""Edges of the packed citation ID store found in review: a search bigger than ``[citations] keep``, ..."""

from __future__ import annotations

from benchmarks.citation_ids import _prose, searches
from mnote_kr.app.host import Host
from mnote_kr.citations.caches import citecache
from tests.test_pipeline_unit import host  # noqa: F401  (the fixture)


def test_a_search_issuing_more_ids_than_keep_still_opens_every_id_it_returned(host: Host) -> None:  # noqa: F811
    host.config["citations"] = {"keep": 100}  # the least allowed; a search of top-k 200 issues more
    big = [c for batch in searches(150, _prose()) for c in batch]
    issued = [c.citation_id for c in citecache.remember(host, big)]
    citecache._memory.clear()  # another process: the store alone
    assert [cid for cid in issued if citecache.find(host, cid) is None] == []
    assert not citecache.expired(host, issued[0])  # the best result, shown first, opens
