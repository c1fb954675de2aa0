"""A place whose box lies inside the box of a place shown before it is shown once (nc28a F4).

"谁在1984年创建了音乐智能实验项目？" over pdfplumber__issue-982-example.pdf: LightRAG returned the David Cope
paragraph in two chunks; the first place boxed p4 y 123.39-216.03, the second (another chunk's passage box)
y 123.39-180.16 inside it, and its quote ran one clause further ("... Cope mentions that EMI was more useful to
him,"), so the rule on repeated words kept it: alternative #2 showed the reader the same paragraph again. The
boxes, quotes and claims are those the newcomer's ``search --json`` returned.
"""

from __future__ import annotations

import msgspec

from mnote_kr.citations.render.claims import inside
from mnote_kr.citations.render.folding import fold_places
from mnote_kr.models import Citation, CitationDiagnostics, Locator

QUERY = "谁在1984年创建了音乐智能实验项目？"
COPE = ("David Cope created a project called “Experiments in Musical Intelligence” (short: EMI or Emmy) in 1984 "
        "[Cop87]. He introduces the idea of seeing music as a language which can be analyzed with natural language "
        "processing (NLP) methods.")


def box(page: int, bbox: list[float], exact: bool = False, cos: float | None = None) -> Locator:
    return Locator(locator_precision="bbox", locator_degraded=not exact, page=page, bbox=bbox, meaning_score=cos)


def place(cid: str, locator: Locator, quote: str, score: float) -> Citation:
    rel = "pdfplumber__issue-982-example.pdf"
    return Citation(provider="lightrag", citation_id=cid, source_id="src-1", source_path=f"/ws/{rel}",
                    source_root_relative_path=rel, light_rag_doc_id=None, light_rag_file_path=rel,
                    light_rag_chunk_id=None, block_id=None, heading_path=[], raw_quote=quote, display_quote=quote,
                    locator_evidence_text=quote, quote_source="chunk", search_query=QUERY,
                    locator_precision="bbox", locator_degraded=locator.locator_degraded, locator=locator,
                    citation_url="x", citation_markdown="[x](x)", relevance_score=score,
                    diagnostics=CitationDiagnostics(quote_source="chunk", raw_reference_mapped=True,
                                                    sidecar_block_mapped=False, display_cleaned=True,
                                                    locator_text_source="chunk"))


FIRST = place("[oxjs]", box(4, [303.26, 123.39, 555.92, 216.03], cos=0.684683), COPE, 0.548943)
AGAIN = place("[wf95]", box(4, [303.61, 123.39, 555.92, 180.16]),
              COPE + " Cope mentions that EMI was more useful to him,", 0.381591)
REFS = place("[lnmz]", box(5, [83.34, 519.23, 555.78, 544.37], cos=0.656938),
             "Students, vol. 19, no. 4, pp. 16–20, 2013. [Online]. Available: http://dl.acm.org/citation.cfm?id=2460444",
             0.25)


def test_a_place_boxed_inside_the_first_places_box_is_not_shown_again() -> None:
    (c,), _ = fold_places([FIRST, AGAIN, REFS])
    assert c.citation_id == "[oxjs]"
    assert [a.citation_id for a in c.alternatives] == ["[lnmz]"], [a.display_quote for a in c.alternatives]


def test_an_exact_place_inside_an_approximate_box_is_a_place_of_its_own() -> None:
    """The rule drops only what shows the reader nothing new: an exact sentence inside the first place's passage
    box narrows it, and stays."""
    sentence = msgspec.structs.replace(AGAIN, citation_id="[exct]", locator_degraded=False,
                                       locator=box(4, [303.61, 123.39, 555.92, 145.0], exact=True),
                                       display_quote=COPE[:110])
    (c,), _ = fold_places([FIRST, sentence, REFS])
    assert [a.citation_id for a in c.alternatives] == ["[exct]", "[lnmz]"]


def test_inside_is_on_one_page_and_within_a_points_slack() -> None:
    big = box(4, [303.26, 123.39, 555.92, 216.03])
    assert inside(box(4, [303.61, 123.39, 555.92, 180.16]), big)
    assert not inside(box(5, [303.61, 123.39, 555.92, 180.16]), big)  # another page
    assert not inside(box(4, [303.61, 123.39, 555.92, 230.0]), big)  # runs on under it
    assert not inside(big, box(4, [303.61, 123.39, 555.92, 180.16]))  # the larger one behind a smaller one
