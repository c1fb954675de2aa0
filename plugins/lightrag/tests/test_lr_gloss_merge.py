"""The glossed second retrieval (``glossmerge.GLOSS_MERGE``): LightRAG's ``/query/data`` is asked with
the query as written and, when it has glosses, with the glossed query; the second list only adds files
the first lacked, one chunk each, at most ``MAX_NEW_FILES``, after the first's top ``NEW_AFTER``."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from mnote_kr_testkit.data import SAMPLES
from mnote_kr_testkit.replay import load_sample, replayed_provider

import mnote_kr_lightrag as plugin
from mnote_kr.models import ProviderReference, QueryRequest
from mnote_kr_lightrag.client import glossmerge, settings

QUERY = "电池寿命"  # battery life: glosses "battery life span expectancy"
GLOSSED = f"{QUERY} (battery life span expectancy)"
FIRST = ["aurora_报告.docx", "notes.md", "upload_me.md"]


def _body(glossed: bool) -> Any:
    """The recorded mix body; for the glossed query a known file's chunk, then new files' chunks
    (a.md twice, b.md, c.md, d.md)."""
    body = load_sample(SAMPLES, "40_query_data_mix.json")[1]
    if not glossed:
        return body
    chunks = body["data"]["chunks"]
    new = [{**chunks[1], "chunk_id": f"chunk-new-{i}", "file_path": name, "content": f"New {i}."}
           for i, name in enumerate(["a.md", "a.md", "b.md", "c.md", "d.md"])]
    return {**body, "data": {**body["data"], "chunks": [chunks[0], *new]}}


@pytest.fixture
def env(tmp_path: Path) -> dict[str, Any]:
    settings.clear_cache()
    env = replayed_provider(tmp_path, SAMPLES)
    env["replay"].sample("GET", "/health", "02_health_auth.json").sample("POST", "/query", "43_query_mix.json")
    return env


def _serve(env: dict[str, Any], *, status: int = 200, hold: threading.Event | None = None) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        glossed = "(" in json.loads(request.content)["query"]
        if glossed and hold is not None:
            hold.wait()
        if glossed and status != 200:
            return httpx.Response(status, json={"detail": "refused"})
        return httpx.Response(200, json=_body(glossed))
    env["replay"].add("POST", "/query/data", answer)


def _sent(env: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(r.content) for r in env["replay"].sent("POST", "/query/data")]


def _on(monkeypatch: pytest.MonkeyPatch, **values: Any) -> None:
    monkeypatch.setattr(glossmerge, "GLOSS_MERGE", True)
    for name, value in values.items():
        monkeypatch.setattr(glossmerge, name, value)


def test_off_by_default_one_retrieval_with_the_query_as_written(env: dict[str, Any]) -> None:
    _serve(env)
    assert glossmerge.GLOSS_MERGE is False
    result = plugin.query(ctx=env["ctx"], request=QueryRequest(query=QUERY))
    assert [q["query"] for q in _sent(env)] == [QUERY] and [r.file_path for r in result.references] == FIRST


@pytest.mark.parametrize(("after", "files"), [(5, [*FIRST, "a.md", "b.md", "c.md"]),
                                               (1, ["aurora_报告.docx", "a.md", "notes.md", "b.md", "upload_me.md",
                                                    "c.md"])])
def test_second_list_adds_only_new_files_one_chunk_each_at_most_three_after_the_top(
        env: dict[str, Any], monkeypatch: pytest.MonkeyPatch, after: int, files: list[str]) -> None:
    _on(monkeypatch, NEW_AFTER=after)
    _serve(env)
    result = plugin.query(ctx=env["ctx"], request=QueryRequest(query=QUERY, want_answer=True))
    assert sorted(q["query"] for q in _sent(env)) == [QUERY, GLOSSED]
    assert [r.file_path for r in result.references] == files  # d.md: past the cap; a.md's second chunk: one a file
    assert [r.content for r in result.references if r.added] == ["New 0.", "New 2.", "New 3."]
    assert [r.file_path for r in result.references if not r.added] == FIRST  # the first list, as it was
    assert [r.rank for r in result.references] == [1, 2, 3, 4, 5, 6]
    assert [json.loads(r.content)["query"] for r in env["replay"].sent("POST", "/query")] == [QUERY]


@pytest.mark.parametrize(("mode", "top_k"), [("naive", 10), (None, None)])
def test_second_request_mode_and_depth_are_the_variant_s_or_the_first_s(
        env: dict[str, Any], monkeypatch: pytest.MonkeyPatch, mode: str | None, top_k: int | None) -> None:
    _on(monkeypatch, SECOND_MODE=mode, SECOND_TOP_K=top_k)
    _serve(env)
    plugin.query(ctx=env["ctx"], request=QueryRequest(query=QUERY, mode="mix", top_k=7))
    first, second = sorted(_sent(env), key=lambda q: "(" in q["query"])
    assert first["mode"] == "mix" and second["query"] == GLOSSED
    assert (second["mode"], second.get("chunk_top_k")) == (mode or first["mode"], top_k or first.get("chunk_top_k"))


def test_no_second_retrieval_without_glosses(env: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    _on(monkeypatch)
    _serve(env)
    plugin.query(ctx=env["ctx"], request=QueryRequest(query="2023 2024"))
    assert [q["query"] for q in _sent(env)] == ["2023 2024"]  # nothing to gloss: LightRAG is asked once


def test_a_failed_glossed_retrieval_leaves_the_search_as_written(
        env: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    _on(monkeypatch)
    _serve(env, status=422)
    result = plugin.query(ctx=env["ctx"], request=QueryRequest(query=QUERY))
    assert len(_sent(env)) == 2 and [r.file_path for r in result.references] == FIRST


def test_a_late_glossed_retrieval_is_not_waited_for(env: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    _on(monkeypatch, SECOND_TIMEOUT_S=0.05)
    hold = threading.Event()
    _serve(env, hold=hold)
    try:
        result = plugin.query(ctx=env["ctx"], request=QueryRequest(query=QUERY))
    finally:
        hold.set()  # the glossed request answers only now, after the search returned
        for thread in threading.enumerate():
            if thread.name == "mnote-kr-lightrag-glossed":
                thread.join()
    assert [r.file_path for r in result.references] == FIRST and not any(r.added for r in result.references)


def _ref(chunk: str, path: str) -> ProviderReference:
    return ProviderReference(provider="lightrag", file_path=path, chunk_id=chunk, rank=9)


def test_merge_adds_each_new_file_s_best_chunk_within_the_cap() -> None:
    first = [_ref(f"c{i}", f"f{i}.md") for i in range(7)]
    second = [_ref("x", "f3.md"), _ref("n1", "n1.md"), _ref("n1b", "n1.md"), _ref("n2", "n2.md"),
              _ref("n3", "n3.md"), _ref("n4", "n4.md")]
    merged = glossmerge.merge(first, second)
    assert [r.chunk_id for r in merged] == ["c0", "c1", "c2", "c3", "c4", "n1", "c5", "n2", "c6", "n3"]
    assert [r.chunk_id for r in merged if r.added] == ["n1", "n2", "n3"] and [r.rank for r in merged] == [
        *range(1, 11)]
    assert [r.chunk_id for r in glossmerge.merge(first, second, max_files=1)][5:7] == ["n1", "c5"]
    assert glossmerge.merge(first, second[:1]) == first  # nothing new: the first list as it was
