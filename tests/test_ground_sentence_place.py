"""An answer's sentence grounded whole at its place: at the cited chunk it was written from (not a place whose
quote speaks of it), boxed from its first line to its last when the PDF's layout cut its paragraph into
blocks (a footnote's indented first line, the neighbouring column's equation number read into the next block),
and never cut in two at a "!" inside a formula."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from mnote_kr_testkit.data import CORPUS

from mnote_kr.citations.cleaning.quote import sentences
from mnote_kr.citations.rank import grounding
from mnote_kr.models import Citation, CitationDiagnostics, LocateRequest, Locator
from mnote_kr.plugins import load_plugins

DEMO3 = CORPUS / "pdf" / "mineru__demo3.pdf"
FORMULA = CORPUS / "pdf" / "mineru__academic_paper_formula.pdf"
#: Two places of mineru__demo3.pdf a search cited, recorded (benchmarks/grounding.py's dump, tune3's t3_en05).
RECORDED = json.loads((Path(__file__).parent / "data" / "grounding" / "demo3_footnote_places.json").read_text("utf-8"))
#: Footnote 4 of demo3.pdf page 6, as printed: its first line indented after the mark, the rest a block of its own.
FOOTNOTE = "In SQA dataset, there is at most absolute 0.1% performance drop because of some bad data point issues."
#: The formula page's sentence whose last line the layout put in the next block, behind the left column's "(5)".
STILL_FRAMES = ("Still frames, however, are insufficient for evaluating stereo matching algorithms that incorporate "
                "frame-to-frame prediction to enhance matching accuracy.")


def _place(name: str, cid: str) -> Citation:
    r = RECORDED[name]
    box = Locator(locator_precision="bbox", locator_degraded=False, page=int(name[4:]), bbox=r["bbox"])
    return Citation(
        provider="lightrag", citation_id=cid, source_id="src-demo3", source_path=str(DEMO3),
        source_root_relative_path="docs/mineru__demo3.pdf", light_rag_doc_id=None, light_rag_file_path="demo3.pdf",
        light_rag_chunk_id=None, block_id=None, heading_path=[], raw_quote=r["raw"], display_quote=r["dq"],
        context_quote=r["ctx"], locator_evidence_text=r["dq"], quote_source="chunk", search_query="q",
        locator_precision="bbox", locator_degraded=False, locator=box, citation_url="mnote-kr://open",
        citation_markdown="x",
        relevance_score=1.0, diagnostics=CitationDiagnostics(
            quote_source="chunk", raw_reference_mapped=True, sidecar_block_mapped=False, display_cleaned=True,
            locator_text_source="chunk"))


def test_a_sentence_goes_to_the_chunk_it_was_written_from_not_a_place_whose_quote_speaks_of_it() -> None:
    """t3_en05: page 6's chunk holds footnote 4 as written, but its quote is another sentence of the chunk; a page 8
    place's quote speaks of the SQA dataset, so its quote's words and its meaning outscored the chunk holding all of
    the sentence's words, and the sentence was grounded on page 8."""
    p6, p8 = _place("page6", "p6aa"), _place("page8", "p8aa")
    assert "bad data point" not in (p6.display_quote or "") and "SQA dataset" in (p8.display_quote or "")
    for places in ([p8, p6], [p6, p8]):
        choice = grounding.choose(grounding.split(FOOTNOTE), places)[0]
        assert choice.index is not None and places[choice.index] is p6, choice
    # a sentence in other words than the chunk's is still chosen by words and meaning: page 8's own
    own = "A manual study of 1800 questions in the SQA dataset was done on absolute orders of rows."
    choice = grounding.choose(grounding.split(own), [p6, p8])[0]
    assert choice.index == 1, choice


def test_a_footnotes_sentence_is_boxed_from_its_indented_first_line_to_its_end() -> None:
    """The layout reads footnote 4's first line (indented after its mark) as a block and the rest as the next;
    the sentence's place was one of the two: its first line alone, or the rest without it."""
    before = hashlib.sha256(DEMO3.read_bytes()).digest()
    plugins = load_plugins(None)
    p6 = _place("page6", "p6aa")
    loc = grounding.sentence_locator(p6, FOOTNOTE, plugins.locate)
    assert loc.page == 6 and loc.bbox is not None, loc
    assert loc.bbox[1] < 726 and loc.bbox[3] > 743, loc.bbox  # "In SQA dataset ..." (y 725) to "... issues." (743)
    assert hashlib.sha256(DEMO3.read_bytes()).digest() == before


def test_a_sentence_runs_on_past_the_neighbouring_columns_equation_number() -> None:
    """The formula page's right column: "... prediction to / (5) enhance matching accuracy." the layout read the
    left column's equation number "(5)" into the block holding the sentence's last line, which stopped the
    sentence's box at "prediction to"; the number itself is no part of the box."""
    before = hashlib.sha256(FORMULA.read_bytes()).digest()
    plugins = load_plugins(None)
    loc = plugins.locate(LocateRequest(file=str(FORMULA), evidence=STILL_FRAMES, query=STILL_FRAMES, passage=""))
    assert loc.locator_plugin == "pdf_bbox" and loc.page == 1 and loc.bbox is not None, loc
    assert loc.bbox[3] >= 379 and loc.bbox[0] > 305, loc.bbox  # its last line (y 368-380), not "(5)" at x 288
    assert "enhance matching accuracy." in (loc.place_text or ""), loc.place_text
    assert hashlib.sha256(FORMULA.read_bytes()).digest() == before


def test_an_ascii_bang_or_question_mark_inside_the_text_ends_no_sentence() -> None:
    """t3_en16: a PDF text layer writes ω as "!" ("size !×!, the two-pass method ..."): the sentence was cut in two
    there and its second half boxed alone. A URL's query ("?q=1") is no end either; "!" before a space or CJK is."""
    formula = "Given that support regions are of size !\x02!, the two-pass method reduces the cost to O(!). Next."
    assert [formula[a:b] for a, b in sentences(formula)] == [formula[:-6], "Next."]
    url = "See https://example.org/find?q=1&x=2 for it! Then go on?好的。"
    assert [url[a:b] for a, b in sentences(url)] == ["See https://example.org/find?q=1&x=2 for it!", "Then go on?",
                                                     "好的。"]
    assert [s.text for s in grounding.split(formula)] == [formula[:-6], "Next."]

