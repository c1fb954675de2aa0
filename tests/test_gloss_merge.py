"""The glossed second retrieval (``glossmerge.GLOSS_MERGE``) seen from the host: LightRAG is asked with the
query's glosses too, but the host's ranking, locators, quotes and weak flag read the query as written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mnote_kr.citations.pipeline import _finish
from mnote_kr.models import ProviderQueryResult, ProviderReference
from mnote_kr_lightrag.client import glossmerge
from tests.test_pipeline_replay import Env, fresh_caches, make_env
from tests.test_weak_variants import place

QUERY = "风力原型"  # wind power prototype: notes.md's English passage holds its glosses, not its words


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Env:
    fresh_caches()
    env = make_env(tmp_path, monkeypatch)
    env.replay.sample("POST", "/query/data", "40_query_data_mix.json")
    return env


def _seen(env: Env, query: str) -> Any:
    """What the host made of a search: each card's file, place, quote and ranking parts, and the weak flag."""
    fresh_caches()
    found = env.search(query)
    return ([(c.source_root_relative_path, c.locator, c.display_quote, c.diagnostics.score_parts)
             for c in found.results], found.weak, found.weak_reason)


def test_the_host_reads_the_query_as_written_when_lightrag_is_also_asked_glossed(
        env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    as_written = _seen(env, QUERY)
    assert [q["query"] for q in env.sent_queries()] == [QUERY]  # off by default: asked once
    monkeypatch.setattr(glossmerge, "GLOSS_MERGE", True)
    glossed = glossmerge.glossed_query(QUERY, 1000)
    assert glossed is not None and glossed.startswith(f"{QUERY} (") and "wind" in glossed
    assert _seen(env, QUERY) == as_written  # the same passages: the host's reading is the query's own
    assert sorted(q["query"] for q in env.sent_queries()[1:]) == [QUERY, glossed]
    assert _seen(env, glossed) != as_written  # had the host read the glosses, its ranking would differ


def test_glossed_query_is_capped_and_kept_within_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    assert glossmerge.glossed_query("电池寿命", 1000) is None  # off: no second query
    monkeypatch.setattr(glossmerge, "GLOSS_MERGE", True)
    monkeypatch.setattr(glossmerge, "GLOSS_WORDS", 2)
    assert glossmerge.glossed_query("电池寿命", 1000) == "电池寿命 (battery life)"
    assert glossmerge.glossed_query("电池寿命", len("电池寿命 (battery)")) == "电池寿命 (battery)"
    assert glossmerge.glossed_query("2023", 1000) is None  # nothing to gloss


def _weak(first: list[Any], added: list[Any], query: str, *, marked: bool = True) -> str | None:
    refs = [ProviderReference(provider="lightrag", file_path=c.light_rag_file_path, added=marked and c in added)
            for c in first + added]
    return _finish(first + added, {}, 20, lambda c: c, query, ProviderQueryResult(provider="lightrag",
                                                                                  references=refs))[2]


def test_the_weak_flag_reads_the_first_list_only() -> None:
    english = place("c1", "The standing trustee shall file the plan with the court.", "kb/handbook.docx")
    worded = place("c2", "Mercury boils at 357 degrees.", "kb/mercury.docx", lexical=0.5)
    # an added file holding the query's words does not clear the flag ...
    assert _weak([english], [worded], "boiling point of mercury", marked=False) is None
    assert _weak([english], [worded], "boiling point of mercury") is not None
    # ... nor does an added passage in the query's script set it (the first list alone: across scripts)
    chinese = place("c3", "本誌は全国の高等学校に配布されます。", "kb/magazine.docx")
    assert _weak([english], [chinese], "演示答辩的时间有多长？", marked=False) is not None
    assert _weak([english], [chinese], "演示答辩的时间有多长？") is None
