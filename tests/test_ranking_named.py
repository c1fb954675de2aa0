"""A citation on the slide, page or sheet a query names is evidence its file is meant: the ranking's ``named``
part weighs it like a word match (``NAMED_WEIGHT``), a deck's slide named as a page ("page 3" for slide 3, as
the PPTX locator reads it) at ``NAMED_AS_PAGE``; never a number naming nothing, a place elsewhere, or an
approximate one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pypdf
import pytest
from mnote_kr_testkit.fakes import fake_host

from mnote_kr.citations import pipeline
from mnote_kr.citations.rank import meaningahead, ranking
from mnote_kr.citations.rank.ranking import Candidate, relevance
from mnote_kr.hookspecs import hookimpl
from mnote_kr.models import LocateRequest, ProviderQueryResult, ProviderReference, QueryRequest
from mnote_kr.plugins import load_plugins
from tests.surfaces import BlockProvider

RECORDED = json.loads((Path(__file__).parent / "data" / "ranking" / "named_place.json").read_text(encoding="utf-8"))
CORPUS = Path(__file__).parent / "data" / "corpus"


def _search(sid: str) -> tuple[str, list[Candidate], int]:
    (case,) = [s for s in RECORDED["searches"] if s["id"] == sid]
    cands = [Candidate(c["providerRank"], c["fileName"], c["text"], tuple(c["headingPath"]), slide=c["slide"],
                       page=c["page"], sheet=c["sheet"], approximate=c["approximate"]) for c in case["candidates"]]
    return case["query"], cands, case["providerReferences"]


def _order(query: str, cands: list[Candidate], total: int) -> list[str]:
    scored = relevance(query, cands, total)
    return [cands[i].file_name for i in sorted(range(len(cands)), key=lambda i: (-scored[i][0], i))]


def test_the_deck_cited_on_the_named_slide_ranks_above_a_docx_that_has_no_slides() -> None:
    # Q32 "第二张幻灯片的矩形里写了什么": the DOCX the provider put first holds no slide and no word of it
    query, cands, total = _search("Q32")
    order = _order(query, cands, total)
    assert order[0] == "docling__powerpoint_sample.pptx", order
    assert order.index("docling__pptx_chart.pptx") < order.index("python-docx__par-rendered-page-breaks.docx")
    parts = {c.file_name: p for c, (_, p) in zip(cands, relevance(query, cands, total), strict=True)}
    assert parts["docling__powerpoint_sample.pptx"]["named"] == ranking.NAMED_WEIGHT
    assert parts["mineru__complex_layout.pdf"]["named"] == 0.0  # page 1 of a PDF is no slide 2
    assert parts["python-docx__par-rendered-page-breaks.docx"]["named"] == 0.0


def test_the_pdf_page_named_comes_first_then_the_deck_slide_a_page_may_mean_then_the_docx() -> None:
    # Q39 "what does page 3 say": the README's "page 3" is a PDF's page; a deck's slide 3 counts for less
    query, cands, total = _search("Q39")
    order = _order(query, cands, total)
    assert order[:3] == ["pypdf__pdflatex-outline.pdf", "docling__powerpoint_sample.pptx",
                         "python-docx__par-rendered-page-breaks.docx"], order
    parts = {c.file_name: p for c, (_, p) in zip(cands, relevance(query, cands, total), strict=True)}
    assert parts["pypdf__pdflatex-outline.pdf"]["named"] == ranking.NAMED_WEIGHT
    assert parts["docling__powerpoint_sample.pptx"]["named"] == ranking.NAMED_AS_PAGE < ranking.NAMED_WEIGHT


def _named(query: str, **place: Any) -> float:
    ((_, parts),) = relevance(query, [Candidate(0, "f", "Text of the place", **place)], 1)
    return parts["named"]


@pytest.mark.parametrize(("query", "place", "named"), [
    ("what is on the second slide", {"slide": 2}, "full"),
    ("幻灯片2的备注", {"slide": 2}, "full"),
    ("slides 1-3 summary", {"slide": 3}, "full"),
    ("what does p. 12 say", {"page": 12}, "full"),
    ("第2页讲了什么", {"page": 2}, "full"),
    ("what is on the Sales sheet", {"sheet": "Sales"}, "full"),
    ("what does page 3 say", {"slide": 3}, "as page"),
    ("what is on the second slide", {"slide": 3}, "none"),  # another slide
    # only approximately there, and no other citation holds the words asked (none here): the place named still
    ("what is on the second slide", {"slide": 2, "approximate": True}, "full"),
    ("what does page 3 say", {"page": 4}, "none"),
    ("what is on slide 3", {"page": 3}, "none"),  # a PDF's page is no slide
    ("2 slides of cake", {"slide": 2}, "none"),  # numbers beside no such word name nothing
    ("version 2 of the report", {"page": 2}, "none"),
    ("a 10-page report", {"page": 10}, "none"),
    ("press tab 3 times", {"sheet": "3"}, "none"),
    ("幻灯片十张", {"slide": 10}, "none"),
    ("what is on the second slide", {}, "none"),  # a DOCX paragraph: no slide, page or sheet
])
def test_the_named_part_fires_only_for_the_place_a_query_names(query: str, place: dict[str, Any], named: str) -> None:
    want = {"full": ranking.NAMED_WEIGHT, "as page": ranking.NAMED_AS_PAGE, "none": 0.0}[named]
    assert _named(query, **place) == want


class Recorded(BlockProvider):
    """The fake provider returning the files in a set order, each as one recorded chunk."""

    def __init__(self, chunks: list[tuple[str, str]]) -> None:
        super().__init__(delete_status="delete_completed")
        self.chunks = chunks

    @hookimpl
    def query(self, ctx: Any, request: QueryRequest) -> ProviderQueryResult:
        refs = [ProviderReference(provider="fake", file_path=self.name_for(rel), reference_id=str(k + 1),
                                  chunk_id=f"chunk-{k}", doc_id=f"doc-{k}", content=text, rank=k)
                for k, (rel, text) in enumerate(self.chunks)]
        return ProviderQueryResult(provider="fake", references=refs, answer=None)


def test_a_search_puts_the_file_cited_on_the_named_slide_before_the_providers_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the pipeline: the deck's locator puts the citation on slide 2, and the ranking reads it there."""
    from mnote_kr_pptx_locator.reader import load_pptx

    pipeline.clear_memos()
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    deck, docx = CORPUS / "pptx" / "docling__powerpoint_sample.pptx", CORPUS / "docx" / "tika__testWORD_2006ml.docx"
    for src in (deck, docx):
        (ws / "docs" / src.name).write_bytes(src.read_bytes())
    text = load_pptx(deck).markdown()
    chunks = [(f"docs/{docx.name}", "This is a link to a local file: test.png"), (f"docs/{deck.name}",
                                                                                   text[text.index("l1\n"):])]
    host, _ = fake_host(ws, Recorded(chunks))
    host.roots_add(ws / "docs")
    host.ingest([ws / "docs"], wait=True)
    first = host.search("第二张幻灯片的矩形里写了什么", top_k=5).results[0]
    assert (first.source_root_relative_path, first.locator.slide) == (f"docs/{deck.name}", 2)
    assert first.diagnostics.score_parts["named"] == ranking.NAMED_WEIGHT
    # a number beside no place word: the provider's order stands (by the place named: the slide's rectangle is also
    # nearer "a rectangle" by meaning than the link line, which moves it ahead by meaningahead)
    monkeypatch.setattr(meaningahead, "MEANING_LEAD", None)
    plain = host.search("2 slides about a rectangle", top_k=5).results[0]
    assert plain.source_root_relative_path == f"docs/{docx.name}"
    assert (ws / "docs" / deck.name).read_bytes() == deck.read_bytes()


def test_among_decks_on_the_named_slide_the_one_whose_slide_holds_the_querys_words_comes_first() -> None:
    # r19: "what was the Q3 value on slide 2" over two decks both cited exactly on slide 2. The chart deck's
    # passage was its slide 1 (ducks), its slide 2 chart holds "Q3: 30"; the sample deck's passage was its slide 3,
    # its slide 2 a bullet list. Read from the passages, lexical was 0 for both and the provider's first won.
    chart = Candidate(2, "revenue_review.pptx", "Quarterly Duck Survey; 2019: Freshwater Ducks 120, Saltwater "
                      "Ducks 80", slide=2, place="2026; Q1: 10; Q2: 20; Q3: 30")
    sample = Candidate(1, "docling__powerpoint_sample.pptx", "Slide 3; List item4; Notes: Final notes on the "
                       "third slide.", slide=2, place="Let's introduce a list; With foo; Bar; And baz things")
    for query in ("what was the Q3 value on slide 2", "Q3 total on the second slide"):
        assert _order(query, [sample, chart], 6) == ["revenue_review.pptx", "docling__powerpoint_sample.pptx"]
        parts = [p for _, p in relevance(query, [sample, chart], 6)]
        assert parts[1]["lexical"] > 0 == parts[0]["lexical"], parts
    # the passage's words are not the named place's: a deck whose other slide holds them gains nothing there
    elsewhere = Candidate(0, "other.pptx", "Q3 value: 30", slide=2, place="Agenda; Welcome")
    ((_, parts),) = relevance("what was the Q3 value on slide 2", [elsewhere], 1)
    assert parts["lexical"] == 0.0 and parts["named"] == ranking.NAMED_WEIGHT


def test_a_named_page_cited_only_approximately_comes_first_unless_another_passage_holds_every_word_asked() -> None:
    # r19 (nc19c): after asked_of_place made a named page lacking the asked words approximate, the page lost its
    # named weight and a passage of another file the provider ranked first went before it. The query was written
    # before the locator was run: TraceMonkey's page 2 holds neither "register" nor "allocation".
    query = "what does page 2 say about register allocation"
    pdf = CORPUS / "pdf" / "pdfjs__tracemonkey.pdf"
    plugins = load_plugins(None)
    page2 = pypdf.PdfReader(str(pdf)).pages[1].extract_text()  # the page as LightRAG's reader gives it
    loc = plugins.locate(LocateRequest(file=str(pdf), evidence=page2, passage=page2, query=query))
    assert loc.page == 2 and loc.locator_degraded  # the page lacks what is asked: an approximate place
    named = Candidate(2, pdf.name, page2, page=loc.page, approximate=loc.locator_degraded,
                      place=loc.place_text or "")
    # a passage holding one of the two words asked: the page the person named goes first
    some = Candidate(0, "budget.docx", "The allocation of the travel budget follows the office's rules.")
    assert _order(query, [some, named], 6) == [pdf.name, "budget.docx"]
    assert relevance(query, [some, named], 6)[1][1]["named"] == ranking.NAMED_WEIGHT
    # a passage holding both: it answers, the page only approximately there loses its named weight
    every = Candidate(0, "compilers.pdf", "Register allocation maps a program's values to machine registers.",
                      page=7)
    assert _order(query, [every, named], 6) == ["compilers.pdf", pdf.name]
    assert relevance(query, [every, named], 6)[1][1]["named"] == 0.0


def test_a_chinese_question_naming_a_page_weighs_its_dictionary_words_not_its_bigrams() -> None:
    # the same rule in Chinese: the words asked are 寄存器 and 分配 (CC-CEDICT), never the cuts 关于寄, 说了
    query = "第2页关于寄存器分配说了什么"
    pdf = CORPUS / "pdf" / "pdfjs__tracemonkey.pdf"
    page2 = pypdf.PdfReader(str(pdf)).pages[1].extract_text()
    loc = load_plugins(None).locate(LocateRequest(file=str(pdf), evidence=page2, passage=page2, query=query))
    assert loc.page == 2 and loc.locator_degraded
    named = Candidate(2, pdf.name, page2, page=2, approximate=True, place=loc.place_text or "")
    some = Candidate(0, "预算.docx", "差旅预算的分配按办公室的规定进行。")
    every = Candidate(0, "编译.pdf", "寄存器分配把程序的值映射到机器的寄存器。", page=7)
    assert _order(query, [some, named], 6) == [pdf.name, "预算.docx"]
    assert _order(query, [every, named], 6) == ["编译.pdf", pdf.name]
