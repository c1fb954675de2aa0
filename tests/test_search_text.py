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


def test_a_weak_search_says_so_then_lists_every_result_in_one_line_each() -> None:
    """An off-topic question ("how do I bake sourdough bread" over engineering papers) is said weak; under the
    warning, a screen of whole cards (quotes, alternatives) looked like answers. Every result is one line:
    ID, file, place and a short quote, with how to see one whole; --json keeps them whole."""
    long = "Blade heating kept the power loss below five percent on every turbine in the icing season. " * 4
    cards = [cit("[w001]", "icing.pdf", 1.2, long), cit("[w002]", "wind.docx", 1.1, "Rotor speed was held at 12 rpm."),
             cit("[w003]", "grid.pdf", 0.1, "Grid code tables")]
    weak = SearchResults(query="how do I bake sourdough bread", mode="mix", provider="lightrag", results=cards,
                         not_indexed=[], diagnostics={}, weak=True,
                         weak_reason="none of the query's words is in any passage found")
    lines = render_search(weak).splitlines()
    assert lines[0] == "Weak result: none of the query's words is in any passage found."
    assert "quote:" not in render_search(weak) and "located:" not in render_search(weak)
    rows = [ln for ln in lines if ln.startswith("  [w")]
    assert [r.split()[0] for r in rows] == ["[w001]", "[w002]", "[w003]"]  # every result, in order, one line
    assert rows[1].startswith("  [w002] wind.docx: paragraph 3") and "Rotor speed was held at 12 rpm." in rows[1]
    assert "Blade heating" in rows[0] and len(rows[0]) < 160  # a short quote, not the passage
    hint = lines[1]
    assert "mnote-kr open ID" in hint and "--json" in hint
    # the same results not said weak: the two strong ones are whole cards again
    strong = render_search(SearchResults(query="blade heating", mode="mix", provider="lightrag", results=cards,
                                         not_indexed=[], diagnostics={}))
    assert strong.count("    quote:") == 2 and not strong.startswith("Weak result")


def test_a_weak_answer_keeps_whole_only_the_cards_it_cites() -> None:
    cards = [cit("[w001]", "icing.pdf", 1.2, "Blade heating kept the loss low."),
             cit("[w002]", "wind.docx", 1.1, "Rotor speed was held at 12 rpm.")]
    text = render_answer(AgentQueryResult(query="q", answer="Held at 12 rpm [w002].", citations=cards, weak=True,
                                          weak_reason="none of the query's words is in any passage found"))
    assert "    quote:   Rotor speed" in text  # cited: whole
    assert "    quote:   Blade heating" not in text and "  [w001] icing.pdf: paragraph 3" in text
