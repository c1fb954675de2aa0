"""Files from LightRAG's deeper list: a search passes on the first files its first ``chunk_top_k`` chunks lack.

Replays ``deep_chunks_t5_zh04.json``: a tuning question (Chinese, over a Japanese DOCX) and the first 60
chunks of the engine store it was measured on, in the engine's order (``benchmarks/xlang_deep.py``).
The answering DOCX's first chunk is the 24th, after seven other files' 20.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from mnote_kr_testkit.data import SAMPLES
from mnote_kr_testkit.replay import Replay, make_context

import mnote_kr_lightrag as plugin
from mnote_kr.errors import ConfigError
from mnote_kr.models import ProviderReference, QueryRequest
from mnote_kr_lightrag.client import naming, passages, settings

RECORDED = json.loads((Path(__file__).parent / "deep_chunks_t5_zh04.json").read_text(encoding="utf-8"))
TAG = "51256bdb"  # the recorded store's workspace tag (its names hold ".w51256bdb."), made the test workspace's


def _search(tmp_path: Path, **config: Any) -> tuple[list[ProviderReference], dict[str, Any], str]:
    settings.clear_cache()
    replay = Replay(SAMPLES)
    ctx = make_context(tmp_path, replay.transport, **config)
    ws = naming.workspace_tag(ctx.workspace_root)
    body = json.loads(json.dumps(RECORDED, ensure_ascii=False).replace(TAG, ws))
    replay.sample("GET", "/health", "02_health_auth.json")

    def answer(request: httpx.Request) -> httpx.Response:
        asked = json.loads(request.content).get("chunk_top_k") or 20
        return httpx.Response(200, json={**body, "data": {**body["data"], "chunks": body["data"]["chunks"][:asked]}})

    replay.add("POST", "/query/data", answer)
    result = plugin.query(ctx=ctx, request=QueryRequest(query=RECORDED["question"], mode="mix"))
    sent = json.loads(replay.sent("POST", "/query/data")[0].content)
    return result.references, sent, body["answer_path"]


def test_the_answering_file_from_the_deeper_list_follows_the_first_chunks(tmp_path: Path) -> None:
    refs, sent, answer = _search(tmp_path, deeper_files=passages.DEEPER_FILES)
    chunks = json.loads(json.dumps(RECORDED["data"]["chunks"], ensure_ascii=False).replace(
        TAG, naming.workspace_tag(tmp_path / "ws")))
    assert sent["chunk_top_k"] == passages.deeper(20, passages.DEEPER_FILES_FACTOR) == 40  # passages not ranked
    # the first 20 chunks keep their places and order
    assert [r.chunk_id for r in refs[:20]] == [c["chunk_id"] for c in chunks[:20]]
    added = refs[20:]
    # at most DEEPER_FILES, those of chunks 21-40 in another language than the question's: here the answer alone
    assert 1 <= len(added) <= passages.DEEPER_FILES
    assert len({r.file_path for r in added}) == len(added)
    assert not {r.file_path for r in added} & {c["file_path"] for c in chunks[:20]}
    # the answering DOCX comes in with its first chunk of the deeper list (the 24th)
    first = next(c for c in chunks if c["file_path"] == answer)
    assert added[0].file_path == answer and added[0].chunk_id == first["chunk_id"]
    assert [r.rank for r in refs] == list(range(1, len(refs) + 1))


def test_the_default_asks_for_the_first_chunks_alone(tmp_path: Path) -> None:
    refs, sent, answer = _search(tmp_path)  # the default (r23's held-out run): no deeper files
    assert sent.get("chunk_top_k") in (None, 20) and len(refs) == 20 and not any(r.deeper for r in refs)


def test_deeper_files_switched_on_are_passed_on_marked(tmp_path: Path) -> None:
    refs, sent, answer = _search(tmp_path, deeper_files=passages.DEEPER_FILES)  # the host admits them by meaning
    added = len(refs) - 20
    assert sent["chunk_top_k"] == 40 and 1 <= added <= passages.DEEPER_FILES
    assert [r.deeper for r in refs] == [False] * 20 + [True] * added
    assert refs[20].file_path == answer


def test_deeper_files_zero_keeps_the_first_chunks_alone(tmp_path: Path) -> None:
    refs, sent, answer = _search(tmp_path, deeper_files=0)
    assert sent.get("chunk_top_k") in (None, 20)
    assert len(refs) == 20 and answer not in {r.file_path for r in refs}


def test_deeper_files_one_passes_only_the_first_file_the_slots_lack(tmp_path: Path) -> None:
    refs, _, answer = _search(tmp_path, deeper_files=1)
    assert len(refs) == 21 and refs[20].file_path == answer


@pytest.mark.parametrize("value", [-1, "5", True, 81, 2.5])
def test_a_bad_deeper_files_is_one_config_error(tmp_path: Path, value: Any) -> None:
    with pytest.raises(ConfigError, match=r"^\[providers\.lightrag\] deeper_files must be a whole number from 0 to 80"):
        _search(tmp_path, deeper_files=value)


def _ref(file: str, rank: int) -> ProviderReference:
    return ProviderReference(provider="lightrag", file_path=file, chunk_id=f"{file}-{rank}", rank=rank)


def test_with_deeper_files_takes_each_new_files_first_chunk_in_order() -> None:
    deep = [_ref(f, k) for k, f in enumerate(["a", "b", "a", "c", "b", "d", "c", "e", "f"], start=1)]
    out = passages.with_deeper_files(deep[:3], deep, 3, 2)
    assert [r.chunk_id for r in out] == ["a-1", "b-2", "a-3", "c-4", "d-6"]
    assert [r.rank for r in out] == [1, 2, 3, 4, 5]
    assert [r.deeper for r in out] == [False, False, False, True, True]
    assert passages.with_deeper_files(deep[:3], deep, 3, 0) == deep[:3]


def test_deeper_files_in_the_questions_language_are_passed_over(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from mnote_kr.plugin_api import text_language

    asked = text_language(RECORDED["question"])
    assert asked == "zh"
    refs, _, answer = _search(tmp_path, deeper_files=passages.DEEPER_FILES)
    added = refs[20:]
    # the host ranks no deeper file in the question's script: none is passed on to be located for nothing
    assert added and all(text_language(r.content or "") != asked for r in added)
    assert added[0].file_path == answer  # the Japanese DOCX, first of the deeper list's new files
    monkeypatch.setattr(passages, "OTHER_LANGUAGE_ONLY", False)
    every = _search(tmp_path / "again", deeper_files=passages.DEEPER_FILES)[0][20:]
    assert any(text_language(r.content or "") == asked for r in every)  # Chinese files come too when switched off


def test_with_deeper_files_passes_over_the_querys_language() -> None:
    deep = [msgspec.structs.replace(_ref(f, k), content=t) for k, (f, t) in enumerate(
        [("a", "中文段落"), ("b", "English words"), ("c", "另一个中文段落"), ("d", "日本語のテキストです"),
         ("e", "more English")], start=1)]
    out = passages.with_deeper_files(deep[:1], deep, 1, 3, "这个问题问什么")
    assert [r.file_path for r in out] == ["a", "b", "d", "e"]
    assert [r.file_path for r in passages.with_deeper_files(deep[:1], deep, 1, 3)] == ["a", "b", "c", "d"]
