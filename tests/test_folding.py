"""A file's places folded into one citation: only places a reader can step to stand behind it.

An alternative at the file level names no place (it opens the file at its start): behind a first
place inside the file it does not help the reader step through places, and behind a first place at
the file level it would only open the file again. The places are built as the pipeline builds them
and folded by ``fold_places``, which every surface (JSON, CLI, MCP, viewer) reads.
"""

from __future__ import annotations

from mnote_kr.citations.render.folding import fold_places
from mnote_kr.models import Citation, CitationDiagnostics, Locator


def place(cid: str, locator: Locator, rel: str = "kb/guide.docx") -> Citation:
    quote = f"quote of {cid}"
    return Citation(provider="lightrag", citation_id=cid, source_id="src-1", source_path=f"/ws/{rel}",
                    source_root_relative_path=rel, light_rag_doc_id=None, light_rag_file_path=rel.split("/")[-1],
                    light_rag_chunk_id=None, block_id=None, heading_path=[], raw_quote=quote, display_quote=quote,
                    locator_evidence_text=quote, quote_source="chunk", search_query="q",
                    locator_precision=locator.locator_precision, locator_degraded=locator.locator_degraded,
                    locator=locator, citation_url="x", citation_markdown="[x](x)", relevance_score=1.0,
                    diagnostics=CitationDiagnostics(quote_source="chunk", raw_reference_mapped=True,
                                                    sidecar_block_mapped=False, display_cleaned=True,
                                                    locator_text_source="chunk"))


def paragraph(i: int) -> Locator:
    return Locator(locator_precision="paragraph", locator_degraded=False, paragraph_index=i)


WHOLE_FILE = Locator(locator_precision="file", locator_degraded=True)


def test_a_placed_first_citation_carries_no_whole_file_alternative() -> None:
    places = [place("[p003]", paragraph(3)), place("[file]", WHOLE_FILE), place("[p009]", paragraph(9)),
              place("[p012]", paragraph(12))]
    (c,), folded = fold_places(places)
    assert c.citation_id == "[p003]"
    assert [a.citation_id for a in c.alternatives] == ["[p009]", "[p012]"]  # the freed slot goes to a place
    assert all(a.locator_precision != "file" for f in folded for a in f.alternatives)
    assert "[file]" not in {f.citation_id for f in folded}


def test_a_whole_file_first_citation_keeps_the_places_inside_the_file_behind_it() -> None:
    places = [place("[file]", WHOLE_FILE), place("[fil2]", WHOLE_FILE), place("[p004]", paragraph(4))]
    (c,), _ = fold_places(places)
    assert c.citation_id == "[file]"
    assert [a.citation_id for a in c.alternatives] == ["[p004]"]
