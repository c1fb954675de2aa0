"""Plain ``search`` output for a person: which cards are shown whole."""

from __future__ import annotations

from mnote_kr.citations.render.cards import render_answer, render_search
from mnote_kr.models import AgentQueryResult, Citation, CitationDiagnostics, Locator, SearchResults


def cit(cid: str, name: str, score: float | None, quote: str) -> Citation:
    loc = Locator(locator_precision="paragraph", locator_degraded=False, paragraph_index=2)
    return Citation(provider="lightrag", citation_id=cid, source_id=name, source_path=f"/w/{name}",
                    source_root_relative_path=name, light_rag_doc_id=None, light_rag_file_path=name,
                    light_rag_chunk_id=None, block_id=None, heading_path=[], raw_quote=quote,
                    display_quote=quote, locator_evidence_text=quote, quote_source="chunk", search_query="q",
                    locator_precision="paragraph", locator_degraded=False, locator=loc, citation_url="u",
                    citation_markdown="m", relevance_score=score,
                    diagnostics=CitationDiagnostics(quote_source="chunk", raw_reference_mapped=True,
                                                    sidecar_block_mapped=False, display_cleaned=True,
                                                    locator_text_source="chunk"))


def test_search_text_lists_the_weak_tail_in_one_line_each() -> None:
    """A newcomer: "every query returns 5-12 results, mostly irrelevant, no score or cutoff shown". The
    cards that match are shown whole; those far below the best (the provider's nearest-by-meaning tail)
    are one line each, ID, file and place, so nothing is hidden and the answer is not buried."""
    cards = [cit("[a001]", "ducks.xlsx", 1.7, "Freshwater ducks 2021: 12"), cit("[a002]", "chart.pptx", 0.5, "Q2: 20"),
             cit("[a003]", "nics.pdf", 0.14, "DISCLAIMERS unrelated"), cit("[a004]", "code.pdf", 0.08, "def add")]
    text = render_search(SearchResults(query="q", mode="mix", provider="lightrag", results=cards, not_indexed=[],
                                       diagnostics={}))
    head, _, tail = text.partition("Weaker matches")
    assert "Freshwater ducks 2021: 12" in head and "Q2: 20" in head  # 0.5 is above a quarter of 1.7
    assert "DISCLAIMERS" not in text and "def add" not in text  # the tail shows no quote
    lines = tail.splitlines()[1:]
    assert lines == ["  [a003] nics.pdf: paragraph 3", "  [a004] code.pdf: paragraph 3"]
    # a search whose cards carry no score is shown whole, as before
    unscored = [cit("[b001]", "a.md", None, "alpha"), cit("[b002]", "b.md", None, "beta")]
    text = render_search(SearchResults(query="q", mode="mix", provider="lightrag", results=unscored,
                                       not_indexed=[], diagnostics={}))
    assert "Weaker matches" not in text and "alpha" in text and "beta" in text


def test_ask_text_lists_the_weak_tail_too_but_never_a_card_its_answer_cites() -> None:
    """A second newcomer: ``ask`` printed ten whole cards where ``search`` printed two. The same split,
    except that a card the answer's markers cite stays whole, however weak its score."""
    cards = [cit("[a001]", "ducks.xlsx", 1.7, "Freshwater ducks 2021: 12"),
             cit("[a003]", "nics.pdf", 0.14, "Handgun: 12,155"), cit("[a004]", "code.pdf", 0.08, "def add")]
    text = render_answer(AgentQueryResult(query="q", answer="Twelve ducks [a001]; 12,155 handgun checks [a003].",
                                          citations=cards))
    head, _, tail = text.partition("Weaker matches")
    assert "Freshwater ducks 2021: 12" in head and "Handgun: 12,155" in head
    assert "def add" not in text and tail.splitlines()[1:] == ["  [a004] code.pdf: paragraph 3"]
    text = render_answer(AgentQueryResult(query="q", answer=None, notes=["No LLM is configured."], citations=cards))
    assert "Handgun: 12,155" not in text and "  [a003] nics.pdf: paragraph 3" in text
