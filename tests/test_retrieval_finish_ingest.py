"""The retrieval benchmark measures a finished index: it follows the ingest until every file is processed or failed
(round 24's engine run searched an index whose ingest wait had ended at 900 s, and read heldout3's recall as 0.517)."""

from __future__ import annotations

import sys
from types import SimpleNamespace
from typing import Any

from mnote_kr_testkit.data import REPO

sys.path.insert(0, str(REPO / "benchmarks"))
import retrieval  # noqa: E402


class _Host:
    """A host whose LightRAG finishes one more file at each sync."""

    def __init__(self, statuses: list[str]) -> None:
        self.statuses = statuses
        self.syncs = 0

    def sync(self, *, wait_s: float = 0.0) -> dict[str, Any]:
        self.syncs += 1
        i = next(i for i, s in enumerate(self.statuses) if s not in ("processed", "failed"))
        self.statuses[i] = "processed"
        return {}

    def registry(self) -> SimpleNamespace:
        return SimpleNamespace(entries={str(i): SimpleNamespace(status=s) for i, s in enumerate(self.statuses)})


def test_an_unfinished_ingest_is_followed_until_every_file_is_processed_or_failed() -> None:
    host = _Host(["processed", "processing", "submitted", "failed"])
    statuses = retrieval.finish_ingest(host, list(host.statuses))
    assert sorted(statuses) == ["failed", "processed", "processed", "processed"]
    assert host.syncs == 2


def test_a_finished_ingest_is_not_synced_again() -> None:
    host = _Host(["processed", "failed"])
    assert retrieval.finish_ingest(host, ["processed", "failed"]) == ["processed", "failed"]
    assert host.syncs == 0


def test_the_passes_search_question_by_question_each_first_in_turn() -> None:
    """Round 26's variants searched pass after pass while the load rose from 7 to 14: later passes read slower
    whatever they did. Each question is now searched by every pass, the order turned by one each question."""
    passes = ["default", "a", "b"]
    orders = [retrieval.turned(passes, i) for i in range(6)]
    assert all(sorted(o) == sorted(passes) for o in orders)
    firsts = [o[0] for o in orders]
    assert {p: firsts.count(p) for p in passes} == {"default": 2, "a": 2, "b": 2}
    assert orders[0] == passes and orders[1] == ["a", "b", "default"]
