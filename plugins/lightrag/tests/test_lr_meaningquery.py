"""The question asked a second time for meaning (``client.meaningquery``, ``embedders.meaning_query``).

The recorded case (``tests/data/ranking/meaning_query_t5_zh24.json``): a Chinese tuning question on
a Korean PDF's card-spending rules (tune5, t5_zh24) and the first 40 chunks of the engine's list for
it under the default embedder, in that order (``benchmarks/xlang_meaning.py``); the PDF's first chunk
is the 35th, so LightRAG's 20 chunks lack it.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from mnote_kr_testkit.data import REPO

from mnote_kr.models import ProviderReference
from mnote_kr_lightrag.client import meaningquery as mq
from mnote_kr_lightrag.engine import embedders
from mnote_kr_lightrag.engine import modelservice as ms

CASE = json.loads((REPO / "tests" / "data" / "ranking" / "meaning_query_t5_zh24.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def embed():  # type: ignore[no-untyped-def]
    return embedders.make_embedder("e5usexlang", ms.embed)


def _ref(path: str, text: str, rank: int = 0) -> ProviderReference:
    return ProviderReference(provider="lightrag", file_path=path, content=text, rank=rank)


def test_a_marked_question_weighs_the_hashed_words_less_and_use_more(embed) -> None:  # type: ignore[no-untyped-def]
    """The marked question's cosine with a stored chunk is the meaning mix of its e5, hashed and USE
    cosines; the mark itself is not embedded; an unmarked text keeps the default vector."""
    question, chunk = "合同终止后保密义务持续多久", "契約終了後も秘密保持義務は5年間存続する。"
    plain, marked_q, stored = (np.asarray(v) for v in embed([question, mq.marked(question), chunk]))
    assert mq.MARK == embedders.MEANING_MARK
    assert abs(float(np.linalg.norm(marked_q)) - 1.0) < 1e-4
    e5, hashed = embedders.E5_DIM, embedders.E5_DIM + embedders.HASH_DIM

    def cos(a: np.ndarray, b: np.ndarray) -> float:
        return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))

    parts = [cos(plain[s], stored[s]) for s in (slice(0, e5), slice(e5, hashed), slice(hashed, None))]
    h, u = embedders.MEANING_HASH, embedders.MEANING_USE
    mix = np.array([(1 - u) * (1 - h), (1 - u) * h, u])
    want = float(mix @ parts) / float(np.linalg.norm(mix / np.sqrt(
        [(1 - embedders.USE_SHARE) * embedders.E5_SHARE, (1 - embedders.USE_SHARE) * (1 - embedders.E5_SHARE),
         embedders.USE_SHARE])))
    assert abs(float(marked_q @ stored) - want) < 1e-4
    assert abs(float(plain @ stored) - float(np.asarray(embed([chunk, question])[1]) @ stored)) < 1e-4
    assert float(marked_q @ plain) < 0.99  # not the default vector


def test_the_korean_pdf_enters_the_first_five_files_through_the_meaning_query(embed) -> None:  # type: ignore[no-untyped-def]
    """Re-embedded here, the PDF's first chunk is still past LightRAG's 20 under the default vector,
    inside them under the marked one; the search's list then holds the PDF among its first five files."""
    texts = [c["text"] for c in CASE["chunks"]]
    files = [c["file"] for c in CASE["chunks"]]
    chunks = np.asarray(embed(texts))

    def refs(query: str) -> list[ProviderReference]:
        order = np.argsort(-(chunks @ np.asarray(embed([query])[0])), kind="stable")[:mq.CHUNKS]
        return [_ref(files[i], texts[i], k) for k, i in enumerate(order, start=1)]

    first, second = refs(CASE["question"]), refs(mq.marked(CASE["question"]))
    assert CASE["doc"] not in {r.file_path for r in first}
    assert CASE["doc"] in {r.file_path for r in second}
    out = mq.added_files(first, second, CASE["question"])
    shown = list(dict.fromkeys(r.file_path for r in out))
    assert CASE["doc"] in shown[:mq.SHOWN]
    assert [r.rank for r in out] == list(range(1, len(out) + 1))
    own = {(r.file_path, r.content) for r in first}
    assert [(r.file_path, r.content) for r in out if (r.file_path, r.content) in own] == [
        (r.file_path, r.content) for r in first]  # the question's own keep their order
    assert len(out) <= len(first) + mq.MAX_ADDED


def test_only_files_in_another_script_than_the_question_are_added_at_their_place() -> None:
    zh, ja, ko = "合同的保密义务", "秘密保持の義務は存続する", "비밀 유지 의무는 존속한다"
    en = "the duty of confidentiality"
    first = [_ref(f"a{i}.pdf", zh, i + 1) for i in range(6)]
    second = [_ref("zh.pdf", zh), _ref("ko.pdf", ko), _ref("a0.pdf", zh), _ref("ja.pdf", ja), _ref("en.pdf", en),
              _ref("a5.pdf", en)]
    out = mq.added_files(first, second, "保密义务持续多久")
    order = list(dict.fromkeys(r.file_path for r in out))
    # zh.pdf is in the question's script; ko.pdf (2nd of the second's files) goes 2nd, ja.pdf (4th) 4th;
    # MAX_ADDED reached: en.pdf stays out, and a5.pdf (past the first five) keeps its place
    assert mq.MAX_ADDED == 2
    assert order == ["a0.pdf", "ko.pdf", "a1.pdf", "ja.pdf", "a2.pdf", "a3.pdf", "a4.pdf", "a5.pdf"]
    assert [r.rank for r in out] == list(range(1, 9))
    assert mq.added_files(first, [], "保密义务") == first


def test_a_japanese_text_is_not_read_as_chinese() -> None:
    assert mq.script("秘密保持の義務は契約終了後も存続する") == "ja"
    assert mq.script("合同终止后保密义务持续多久") == "zh"
    assert mq.script("비밀 유지 의무") == "ko"
    assert mq.script("مدت تعهد محرمانگی") == "arabic"
    assert mq.script("the duty of confidentiality, 合同") == "latin"
    assert mq.script("2024-05-01 12:00") is None
