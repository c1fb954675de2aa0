"""A text layer that spaces every Chinese character apart (``无 湘 不 成 军``, as LightRAG's PDF reader
gives some PDFs) still reads as words: the quote shows them joined, the passage ranks on the
query's words, and a search that finds the phrase is not marked weak."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.fakes import fake_host

from mnote_kr.citations import pipeline
from mnote_kr.citations.cleaning import display_text
from mnote_kr.citations.cleaning.copyable import join_cjk_gaps
from mnote_kr.hookspecs import hookimpl
from mnote_kr.models import ProviderQueryResult, ProviderReference, QueryRequest
from tests.surfaces import BlockProvider

PARAGRAPHS = [
    "有的人偶有小获便得意忘形，遇到一点小挫折就寻死觅活，心量太小，难成大器。",
    "曾国藩是晚清中兴名臣、理学大师，为师为相，立德立功立言，在崇拜者眼中近乎完人。",
    "自曾国藩开始，才有“无湘不成军”之说，而他遭遇的挫折同样无人能比。",
]


@pytest.mark.parametrize(("spaced", "joined"), [
    ("自 曾 国 藩 开 始 ， 才 有 “无 湘 不 成 军 ”之 说", "自曾国藩开始，才有“无湘不成军”之说"),
    ("忽 略 不 计 。 ”年 轻 人", "忽略不计。”年轻人"),
    ("使用 OTSL 表示", "使用 OTSL 表示"),            # a Latin word keeps its spaces
    ("한국어 텍스트", "한국어 텍스트"),              # Korean spaces its words
    ("he said “a” “b” then", "he said “a” “b” then"),  # quotes beside quotes, no Han: untouched
    ("第 一 行\n第 二 行", "第一行\n第二行"),         # line breaks stay
])
def test_spaces_between_chinese_characters_go_and_no_other(spaced: str, joined: str) -> None:
    assert join_cjk_gaps(spaced) == joined
    assert join_cjk_gaps(joined) == joined


def test_a_space_the_writer_put_between_two_han_words_stays_in_the_quote() -> None:
    # nc21a: a DOCX title "核电厂定期安全审查指南 第12部分：设计" was quoted without its space; the glyphs of a
    # spaced text layer stand alone, these words do not
    title = "《核电厂定期安全审查指南 第12部分：设计》"
    assert join_cjk_gaps(title) == title
    assert display_text(f"本标准是{title}的一部分。") == f"本标准是{title}的一部分。"
    assert join_cjk_gaps("审 查 指 南 第 12 部 分") == "审查指南第 12 部分"


def test_the_display_quote_of_a_spaced_chunk_reads_as_written() -> None:
    assert display_text(" ".join("".join(PARAGRAPHS[2].split()))) == PARAGRAPHS[2]


class SpacedPdfLike(BlockProvider):
    """Returns each file as one passage whose characters stand apart, as a PDF text layer may."""

    @hookimpl
    def query(self, ctx: Any, request: QueryRequest) -> ProviderQueryResult:
        refs = [ProviderReference(provider="fake", file_path=name, reference_id="1", chunk_id="chunk-0",
                                  doc_id=f"doc-{name}", content=" ".join(text.replace("\n", "")), rank=0)
                for name, text in sorted(self.texts.items())]
        return ProviderQueryResult(provider="fake", references=refs, answer=None)


def test_a_spaced_passage_holding_the_phrase_is_ranked_on_it_and_not_weak(tmp_path: Path) -> None:
    pipeline.clear_memos()
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    source = ws / "docs" / "essay.md"
    source.write_text("\n\n".join(PARAGRAPHS) + "\n", encoding="utf-8")
    before = source.read_bytes()
    h, _ = fake_host(ws, SpacedPdfLike(delete_status="delete_completed"))
    h.roots_add(ws / "docs")
    h.ingest([ws / "docs"], wait=True)
    found = h.search("无湘不成军", top_k=5)
    (c,) = found.results
    assert found.weak is False and found.weak_reason is None
    assert c.diagnostics.score_parts["lexical"] > 0 and c.diagnostics.score_parts["phrase"] > 0
    assert "无湘不成军" in (c.display_quote or "") and "无 湘" not in (c.context_quote or "")
    assert source.read_bytes() == before
