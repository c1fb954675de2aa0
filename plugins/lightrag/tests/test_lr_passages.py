"""The answering chunk first: slots kept per file, filled with the file's best chunks of a deeper list."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import httpx
import pytest

from mnote_kr.models import ProviderReference
from mnote_kr_lightrag.client import passages
from mnote_kr_lightrag.client.querying import rank_found_files
from mnote_kr_lightrag.client.settings import _reranker_url
from mnote_kr_lightrag.engine import modelservice as ms

KEY = "test-rerank-key"


def _ref(file: str, text: str, rank: int) -> ProviderReference:
    return ProviderReference(provider="lightrag", file_path=file, chunk_id=f"c-{file}-{rank}", content=text, rank=rank)


def test_slots_keep_each_files_places_and_take_its_best_chunks() -> None:
    refs = [_ref("a.pdf", "a title", 1), _ref("b.docx", "b one", 2), _ref("a.pdf", "a abstract", 3),
            _ref("c.pdf", "c one", 4), _ref("a.pdf", "a answer", 5), _ref("b.docx", "b answer", 6)]
    scores = [1.0, 0.5, 0.2, 0.9, 3.0, 2.0]
    out = passages.fill_slots(refs, scores, wanted=4)
    # a holds slots 1 and 3, b slot 2, c slot 4 (as in LightRAG's first four); each file's best first.
    assert [r.file_path for r in out] == ["a.pdf", "b.docx", "a.pdf", "c.pdf"]
    assert [r.content for r in out] == ["a answer", "b answer", "a title", "c one"]
    assert [r.rank for r in out] == [1, 2, 3, 4]


def test_a_file_outside_the_first_slots_never_enters() -> None:
    refs = [_ref("a.pdf", "a1", 1), _ref("b.pdf", "b1", 2), _ref("z.pdf", "z best", 3)]
    out = passages.fill_slots(refs, [0.0, 0.0, 99.0], wanted=2)
    assert [r.file_path for r in out] == ["a.pdf", "b.pdf"]


def test_fill_slots_needs_one_score_per_reference() -> None:
    with pytest.raises(ValueError, match="one score per reference"):
        passages.fill_slots([_ref("a.pdf", "x", 1)], [], wanted=1)


def test_lightrags_order_wins_a_tie_and_a_clear_similarity_wins_over_it() -> None:
    tie = passages.chunk_scores([0.3, 0.3, 0.3, 0.3])
    assert tie[0] > tie[1] > tie[3]
    clear = passages.chunk_scores([0.10, 0.12, 0.11, 0.10, 0.12, 0.11, 0.10, 0.60])
    assert max(range(8), key=clear.__getitem__) == 7
    assert passages.chunk_scores([]) == []


def test_deeper_is_a_bounded_multiple_of_wanted() -> None:
    assert passages.deeper(20) == 60
    assert passages.deeper(50) == passages.MAX_DEPTH
    assert passages.deeper(200) == 200  # never fewer than wanted


@pytest.fixture(scope="module")
def learned_service() -> Iterator[str]:
    with ms.running(embedder="hybrid", api_key=KEY) as srv:
        yield f"http://127.0.0.1:{srv.server_address[1]}"


def test_rerank_endpoint_scores_meaning_in_the_documents_order(learned_service: str) -> None:
    docs = ["The airport lies forty kilometres from the centre.",
            "The dog barked at the postman all morning.",
            "Aircraft land and take off at the airfield north of town."]
    body = httpx.post(f"{learned_service}/v1/rerank", json={"query": "where do planes arrive", "documents": docs},
                      headers=ms.auth_headers(KEY), timeout=30).json()
    assert [r["index"] for r in body["results"]] == [0, 1, 2]
    s = [r["relevance_score"] for r in body["results"]]
    assert s[2] > s[1] and s[0] > s[1]
    bad = httpx.post(f"{learned_service}/v1/rerank", json={"query": 3, "documents": docs},
                     headers=ms.auth_headers(KEY), timeout=30)
    assert bad.status_code == 400


def test_hashing_service_has_no_reranker() -> None:
    with ms.running(embedder="hashing", dim=64) as srv:
        url = f"http://127.0.0.1:{srv.server_address[1]}"
        r = httpx.post(f"{url}/v1/rerank", json={"query": "q", "documents": ["d"]},
                       headers=ms.auth_headers(srv.api_key), timeout=10)
        assert r.status_code == 501 and "no learned model" in r.text


def test_rank_found_files_puts_the_files_answering_chunk_in_its_first_slot(learned_service: str) -> None:
    filler = ["Compilers trace hot loops in JavaScript programs.", "The typewriter was patented in 1868.",
              "Solar wafers are cut with diamond wire.", "The agent replies to incoming messages.",
              "Engine sensors report exhaust gas temperature.", "Undo and redo arrived in the 1980s."]
    refs = [_ref("city.docx", "The city has a humid climate with many parks and lakes.", 1),
            _ref("city.docx", "Kempegowda built a mud fort in 1537 and founded the town.", 2),
            *[_ref(f"other{i}.pdf", text, 3 + i) for i, text in enumerate(filler)]]
    question = "who founded the town and built its fort"
    out = rank_found_files(learned_service, question, refs, wanted=4, timeout_s=30, models_key=KEY)
    assert [r.file_path for r in out] == ["city.docx", "city.docx", "other0.pdf", "other1.pdf"]
    assert "1537" in (out[0].content or "")  # was LightRAG's second chunk of the file


def test_rank_found_files_keeps_lightrags_order_when_the_service_fails() -> None:
    refs = [_ref("a.pdf", "one", 1), _ref("a.pdf", "two", 2), _ref("b.pdf", "three", 3)]
    out = rank_found_files("http://127.0.0.1:9", "q", refs, wanted=2, timeout_s=2)  # nothing listens on port 9
    assert out == refs[:2]


def test_only_a_learned_offline_embedder_ranks_passages() -> None:
    def info(name: str) -> SimpleNamespace:
        return SimpleNamespace(models_url="http://127.0.0.1:5/", embedder={"name": name})

    on = {"rank_passages": True}
    assert _reranker_url(info("hybrid"), on) == "http://127.0.0.1:5"
    assert _reranker_url(info("wordllama"), on) == "http://127.0.0.1:5"
    assert _reranker_url(info("e5usexlang"), on) == "http://127.0.0.1:5"  # its service has the learned model too
    assert _reranker_url(info("hashing"), on) is None
    assert _reranker_url(info("hybrid"), {"rank_passages": False}) is None
    assert _reranker_url(info("hybrid"), {}) is None  # off by default
    assert _reranker_url(None, on) is None
    assert _reranker_url(SimpleNamespace(models_url=None, embedder={"name": "hybrid"}), on) is None


def test_a_chunk_embedded_at_ingest_is_not_embedded_again_by_rerank(monkeypatch: pytest.MonkeyPatch) -> None:
    from mnote_kr_lightrag.engine import embedders

    real = embedders.load_wordllama()
    seen: list[str] = []

    class Spy:
        def embed(self, texts: list[str], norm: bool = False) -> object:
            seen.extend(texts)
            return real.embed(texts, norm=norm)

    monkeypatch.setattr(embedders, "load_wordllama", lambda: Spy())
    monkeypatch.setattr(embedders, "_VECTORS", type(embedders._VECTORS)())
    chunk = "Kempegowda built a mud fort in 1537 and founded the town."
    ingest_vec = embedders._wordllama_batch([chunk, chunk])  # the ingest path: one embedding for both
    assert seen == [chunk] and ingest_vec[0] == ingest_vec[1]
    scores = embedders.learned_similarity("who founded the town", [chunk, "An unrelated line."])
    assert seen == [chunk, "who founded the town", "An unrelated line."]  # the chunk came from the memo
    assert scores[0] > scores[1]
    monkeypatch.setattr(embedders, "VECTOR_MEMO_MAX", 2)
    embedders.learned_similarity("another question", ["x"])
    assert len(embedders._VECTORS) == 2  # bounded


def test_the_vector_memo_survives_an_eviction_while_embedding_and_owns_its_rows(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from mnote_kr_lightrag.engine import embedders

    real = embedders.load_wordllama()
    memo = type(embedders._VECTORS)()
    monkeypatch.setattr(embedders, "_VECTORS", memo)
    monkeypatch.setattr(embedders, "VECTOR_MEMO_MAX", 2)
    embedders._wordllama_batch(["known text"])

    class Evicting:  # another thread fills the memo while this one embeds
        def embed(self, texts: list[str], norm: bool = False) -> object:
            memo.clear()
            return real.embed(texts, norm=norm)

    monkeypatch.setattr(embedders, "load_wordllama", lambda: Evicting())
    rows = embedders._wordllama_batch(["known text", "new text"])
    assert len(rows) == 2 and len(memo) == 2
    assert all(vec.base is None for vec in memo.values())  # a row, not a view pinning its batch
    assert embedders._wordllama_batch([]) == []


def test_a_fallback_wrappers_own_first_line_never_reaches_a_reference() -> None:
    from mnote_kr_lightrag.client.links import TEXT_WRAPPER_MARK
    from mnote_kr_lightrag.client.querying import references_from_data

    first = f"{TEXT_WRAPPER_MARK} docs/report.docx\n\nJournal of Integrated Science\n\nTitle here"
    other = "A later chunk that merely mentions Text of a document, read by mnote-kr."
    data = {"chunks": [{"file_path": "report.abc-def.docx.md", "chunk_id": "doc-1-chunk-000", "content": first},
                       {"file_path": "report.abc-def.docx.md", "chunk_id": "doc-1-chunk-001", "content": other}]}
    refs = references_from_data(data)
    assert [r.content for r in refs] == ["Journal of Integrated Science\n\nTitle here", other]


def test_a_recognised_pdfs_wrapper_is_ours_and_its_first_line_never_reaches_a_reference(tmp_path) -> None:
    """The text wrapper of a PDF with scanned pages says so on its first line, stays removable as
    ours, and that line is left out of the chunk a citation quotes."""
    from mnote_kr_lightrag.client import links
    from mnote_kr_lightrag.client.querying import references_from_data

    name = "report.w5c0e1b7a.1f3a09c2-77ab01de.pdf.md"
    path = links.write_text_wrapper(tmp_path, name, "docs/report.pdf", "## Page 1\n\nMinutes of the board",
                                    links.RECOGNIZED_WRAPPER_MARK)
    first = path.read_text(encoding="utf-8")
    assert first.startswith(links.RECOGNIZED_WRAPPER_MARK) and links.is_our_wrapper(path)
    refs = references_from_data({"chunks": [{"file_path": name, "chunk_id": "doc-1-chunk-000", "content": first}]})
    assert refs[0].content == "## Page 1\n\nMinutes of the board\n"


def test_a_chunks_place_in_its_document_is_read_from_its_id() -> None:
    """LightRAG 1.5.7 names a chunk ``{doc id}-chunk-{order:03d}`` (its ``chunk_order_index``; the recorded
    answer holds a workbook's chunks 000 and 001): the first chunk starts where the document does."""
    from mnote_kr_testkit.data import SAMPLES
    from mnote_kr_testkit.replay import load_sample

    from mnote_kr_lightrag.client.querying import references_from_data

    _, body = load_sample(SAMPLES, "101_query_data_xlsm_sales_en_date.json")
    refs = references_from_data(body["data"])
    orders = {r.chunk_id: r.chunk_order for r in refs}
    assert orders["doc-0e0fa22d79c6f49d0d1f39bc0d0ce319-chunk-000"] == 0
    assert orders["doc-0e0fa22d79c6f49d0d1f39bc0d0ce319-chunk-001"] == 1
    odd = references_from_data({"chunks": [{"content": "x", "file_path": "a.md", "chunk_id": "chunk-9f86d08"},
                                           {"content": "y", "file_path": "b.md"}]})
    assert [r.chunk_order for r in odd] == [None, None]  # another naming: not known


def _chunks(file: str, text: str) -> dict[str, object]:
    return {"status": "success", "data": {
        "chunks": [{"reference_id": "1", "file_path": file, "content": text, "chunk_id": f"doc-{len(file)}-chunk-000"}],
        "references": [{"reference_id": "1", "file_path": file}]}}


@pytest.mark.parametrize("how", ["switch", "setting", "off", "setting-off"])
def test_a_chinese_questions_english_translation_adds_its_chunks(tmp_path, monkeypatch: pytest.MonkeyPatch,
                                                                 how: str) -> None:
    """LightRAG finds the English report only when asked in English: the translated second
    ``/query/data`` puts its chunk among the candidates, whether the module's switch or the workspace's
    ``translate_queries = true`` turns it on (off, only the question's; ``translate_queries = false``
    turns it off whatever the module's default)."""
    import json

    from mnote_kr_testkit.data import SAMPLES
    from mnote_kr_testkit.replay import replayed_provider

    import mnote_kr_lightrag as plugin
    from mnote_kr.citations.text import crosslang
    from mnote_kr.models import QueryRequest
    from mnote_kr_lightrag.client import crossquery, settings

    crosslang.dictionary()  # parsed now: a search itself never waits for the parse
    translate = how in ("switch", "setting")
    monkeypatch.setattr(crossquery, "TRANSLATE", how in ("switch", "setting-off"))
    settings.clear_cache()
    env = replayed_provider(tmp_path, SAMPLES)
    if how.startswith("setting"):
        env["ctx"].config["translate_queries"] = how == "setting"
    replay = env["replay"]
    replay.sample("GET", "/health", "02_health_auth.json")

    def answer(request: httpx.Request) -> httpx.Response:
        query = json.loads(request.content)["query"]
        if "silver" in query:
            return httpx.Response(200, json=_chunks("results.docx", "Norway won two silver medals."))
        return httpx.Response(200, json=_chunks("其他.docx", "会议纪要"))

    replay.add("POST", "/query/data", answer)
    result = plugin.query(ctx=env["ctx"], request=QueryRequest(query="哪个国家拿了两枚银牌", mode="naive"))
    asked = sorted(json.loads(r.content)["query"] for r in replay.sent("POST", "/query/data"))
    files = [r.file_path for r in result.references]
    if translate:
        assert files == ["其他.docx", "results.docx"] and [r.rank for r in result.references] == [1, 2]
        assert len(asked) == 2 and "silver medal" in asked[0]
    else:
        assert files == ["其他.docx"] and asked == ["哪个国家拿了两枚银牌"]


def test_translate_queries_must_be_true_or_false(tmp_path) -> None:
    """A mistyped setting is one clear error naming it, not a silent off."""
    from mnote_kr_testkit.data import SAMPLES
    from mnote_kr_testkit.replay import replayed_provider

    from mnote_kr.errors import ConfigError
    from mnote_kr_lightrag.client import settings

    settings.clear_cache()
    env = replayed_provider(tmp_path, SAMPLES)
    env["ctx"].config["translate_queries"] = "yes"
    with pytest.raises(ConfigError, match="translate_queries must be true or false"):
        settings.resolve_settings(env["ctx"])


def test_a_translations_added_file_goes_before_the_questions_files_it_matches_better(learned_service: str) -> None:
    """Without passage ranking the model service still scores the translation's added files (against the
    translation) and the question's first files (their first chunk, against the question): an added file
    goes before the first of them it beats, one that beats none is left out; the question's own keep
    their order."""
    from mnote_kr_lightrag.client.querying import _add_scored
    from mnote_kr_lightrag.client.settings import Settings

    settings = Settings(url="http://127.0.0.1:9", api_key=None, scorer_url=learned_service, models_key=KEY,
                        timeout_s=30)
    mine = [_ref("fort.docx", "Kempegowda built a mud fort in 1537 and founded the town.", 1),
            _ref("climate.pdf", "The town has a humid climate with many parks and lakes.", 2),
            _ref("fort.docx", "The fort's walls were later rebuilt in stone.", 3)]
    found = [[_ref("medals.docx", "Norway won two silver medals at the winter games.", 1)],
             [_ref("typewriter.pdf", "The typewriter was patented in 1868.", 2)]]
    out = _add_scored(settings, "who founded the town and built its fort", "country silver medal", mine, found)
    assert [r.file_path for r in out] == ["fort.docx", "medals.docx", "climate.pdf", "fort.docx"]
    assert [r.rank for r in out] == [1, 2, 3, 4]
