"""A file's places folded into one citation: only places a reader can step to stand behind it.

An alternative at the file level names no place (it opens the file at its start): behind a first
place inside the file it does not help the reader step through places, and behind a first place at
the file level it would only open the file again. The places are built as the pipeline builds them
and folded by ``fold_places``, which every surface (JSON, CLI, MCP, viewer) reads.
"""

from __future__ import annotations

import msgspec
import pytest

from mnote_kr.citations.render import folding
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


def cell(page: int, top: float, exact: bool) -> Locator:
    """A PDF place: a box on ``page``; ``exact`` as a table cell read under its headers, else approximate."""
    return Locator(locator_precision="bbox", locator_degraded=not exact, page=page, bbox=[50.0, top, 200.0, top + 12])


@pytest.mark.parametrize("leads", [True, False])
def test_an_approximate_first_place_yields_to_the_first_exact_place_shown_behind_it(
        monkeypatch: pytest.MonkeyPatch, leads: bool) -> None:
    """``EXACT_LEADS``: a file's first place is approximate and a place shown behind it is exact (the
    table cell a question names): the exact one leads, carrying the file's score, the former first right
    behind it; the places shown are the same, the file keeps its rank. Off: the order is the passages'."""
    monkeypatch.setattr(folding, "EXACT_LEADS", leads)

    def scored(c: Citation, score: float) -> Citation:
        return msgspec.structs.replace(c, relevance_score=score)

    places = [scored(place("[apx1]", cell(1, 100, False), "kb/nics.pdf"), 0.9),
              scored(place("[othr]", cell(1, 100, False), "kb/other.pdf"), 0.8),
              scored(place("[apx2]", cell(1, 300, False), "kb/nics.pdf"), 0.5),
              scored(place("[cell]", cell(1, 400, True), "kb/nics.pdf"), 0.4),
              scored(place("[exa2]", cell(2, 100, True), "kb/nics.pdf"), 0.3)]  # not shown: stays out
    cited, folded = fold_places(places)
    assert [c.source_root_relative_path for c in cited] == ["kb/nics.pdf", "kb/other.pdf"]
    c = cited[0]
    shown = [c.citation_id, *(a.citation_id for a in c.alternatives)]
    if not leads:
        assert shown == ["[apx1]", "[apx2]", "[cell]"]
        return
    assert shown == ["[cell]", "[apx1]", "[apx2]"]
    assert not c.locator_degraded and c.relevance_score == 0.9  # the file's score rides on its first card
    behind = {f.citation_id: f for f in folded}
    assert behind["[apx1]"].relevance_score == 0.4  # no higher than the card it now stands behind
    assert [a.citation_id for a in behind["[apx1]"].alternatives] == ["[cell]", "[apx2]"]


@pytest.mark.parametrize("first_exact", [True, False])
def test_an_exact_first_place_or_none_exact_behind_keeps_the_passages_order(
        monkeypatch: pytest.MonkeyPatch, first_exact: bool) -> None:
    """With ``EXACT_LEADS`` on, an exact first place stays first though another exact place is behind it,
    and an approximate first stays first when no place shown behind it is exact."""
    monkeypatch.setattr(folding, "EXACT_LEADS", True)
    places = [place("[one]", cell(1, 100, first_exact)), place("[two]", cell(1, 200, False)),
              place("[thr]", cell(1, 300, first_exact))]
    (c,), _ = fold_places(places)
    assert [c.citation_id, *(a.citation_id for a in c.alternatives)] == ["[one]", "[two]", "[thr]"]


def test_places_quoting_the_same_words_are_shown_once_the_better_placed_one_kept() -> None:
    # nc16a X3: one table row cited from two of its cells ([fdu5] paragraph 12, [lqh3] paragraph 9), each
    # quoting the row, stood as the first place and its alternative #2: the same words twice
    row = "Q0101: 检测项目: 遗传性乳腺癌; 相关基因: BRCA1; 周期: 15个工作日"

    def quoting(c: Citation, quote: str | None) -> Citation:
        return msgspec.structs.replace(c, display_quote=quote)

    places = [quoting(place("[fdu5]", paragraph(11)), row), quoting(place("[lqh3]", paragraph(8)), row),
              quoting(place("[uzvj]", paragraph(13)), "Q0102: 检测项目: 遗传性卵巢癌"),
              quoting(place("[twin]", paragraph(14)), " Q0102:  检测项目: 遗传性卵巢癌\n"),  # spacing aside
              quoting(place("[cell]", paragraph(9)), "遗传性乳腺癌"),  # one cell of the row shown whole
              place("[p020]", paragraph(20))]
    settled: list[str] = []

    def settle(c: Citation) -> Citation:
        settled.append(c.citation_id)
        return c

    (c,), folded = fold_places(places, settle)
    assert c.citation_id == "[fdu5]"
    assert [a.citation_id for a in c.alternatives] == ["[uzvj]", "[p020]"]  # the freed slots go to other words
    assert {f.citation_id for f in folded} == {"[uzvj]", "[p020]"}
    assert settled == ["[fdu5]", "[lqh3]", "[uzvj]", "[twin]", "[cell]", "[p020]"]  # read as far as needed, once


def test_places_without_a_quote_are_not_taken_for_the_same_words() -> None:
    places = [place("[p001]", paragraph(1)), *(msgspec.structs.replace(place(f"[p00{i}]", paragraph(i)),
                                                                     display_quote=None) for i in (2, 3))]
    (c,), _ = fold_places(places)
    assert [a.citation_id for a in c.alternatives] == ["[p002]", "[p003]"]
