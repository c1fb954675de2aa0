"""A question asking what a term is *of something* keeps the block holding that setting (``definitions``).

Review r27 finding 1: "What are the side effects of aspirin?" was read as asking what "side effects" means, the
setting "of aspirin" cut, and the block "Unwanted reactions to any medicine are called side effects." was boxed exact
("the query asks what a term is") over the block answering it, "Aspirin side effects include stomach upset ...",
which holds all three of the question's words; its claim said 3 of 3 terms, a count of the other block's."""

from __future__ import annotations

from pathlib import Path

import pytest
from mnote_kr_testkit.pdfs import PdfBuilder

from mnote_kr.models import LocateRequest
from mnote_kr_pdf_bbox import locate
from mnote_kr_pdf_bbox.answer import choose, holds_terms
from mnote_kr_pdf_bbox.definitions import at_named_definition
from mnote_kr_pdf_bbox.model import load_document

ASPIRIN = [["Aspirin"],
           ["Aspirin side effects include stomach upset, heartburn and bleeding in the gut.",
            "Rarely aspirin causes ringing in the ears."],
           ["Unwanted reactions to any medicine are called side effects. Tell your doctor about them."],
           ["Store the tablets below 25 degrees."]]
ORACLE = [["Type speculation"],
          ["When compiling loops, we consult the oracle before specializing values to integers;",
           "the updated oracle information starts the trace with a double value."],
          ["A variable seen to hold non-integer values is kept in an advisory data structure",
           "which we call the oracle."]]


@pytest.fixture(autouse=True)
def by_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """No vectors, no remembered answer: the blocks are chosen by words and the definition rule alone."""
    from mnote_kr.citations.rank import meaning

    monkeypatch.setattr(meaning, "cosines", lambda *a, **k: None)
    monkeypatch.setattr(meaning, "nearest", lambda *a, **k: {})
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")


def _pdf(path: Path, blocks: list[list[str]]) -> Path:
    p = PdfBuilder()
    n, y = p.add_page(), 740.0
    for block in blocks:
        for line in block:
            p.text(n, 72, y, line, 11)
            y -= 14
        y -= 20
    path.write_bytes(p.build())
    return path


def _text(blocks: list[list[str]]) -> str:
    return "\n".join(line for block in blocks for line in block)


@pytest.mark.parametrize("query", ["What are the side effects of aspirin?", "Which side effects can aspirin cause?"])
def test_a_question_of_a_setting_keeps_the_block_holding_it(tmp_path: Path, query: str) -> None:
    path = _pdf(tmp_path / "asp.pdf", ASPIRIN)
    loc = locate(LocateRequest(file=str(path), evidence=_text(ASPIRIN), query=query, passage=_text(ASPIRIN)))
    assert loc is not None
    assert (loc.place_text or "").startswith("Aspirin side effects include"), (loc.place_text, loc.reason)
    assert "asks what a term is" not in loc.reason


def test_a_term_asked_without_a_setting_is_still_boxed_where_it_is_named(tmp_path: Path) -> None:
    path = _pdf(tmp_path / "asp.pdf", ASPIRIN)
    loc = locate(LocateRequest(file=str(path), evidence=_text(ASPIRIN), query="What are side effects?",
                               passage=_text(ASPIRIN)))
    assert loc is not None
    assert (loc.place_text or "").startswith("Unwanted reactions"), (loc.place_text, loc.reason)
    assert "asks what a term is" in loc.reason and not loc.locator_degraded


def test_a_moved_definition_counts_the_words_of_the_block_it_moved_to(tmp_path: Path) -> None:
    """"What is the oracle in TraceMonkey?": neither block says TraceMonkey (the paper's subject), so the block
    naming the oracle is boxed; it holds 1 of the question's 2 terms, not the 2 of 2 once claimed."""
    doc = load_document(str(_pdf(tmp_path / "oracle.pdf", ORACLE)))
    query = "What is the oracle in TraceMonkey?"
    blocks = [(0, b) for b in range(len(doc.pages[0].blocks))]
    ans = choose(doc, blocks, query)
    moved = at_named_definition(doc, dict.fromkeys(blocks), ans, query)
    assert moved.rule == "definition" and moved.block == (0, 2), (ans, moved)
    share, found, terms = holds_terms(doc, (0, 2), query)
    assert (moved.share, moved.found, moved.terms) == (share, found, terms) == (moved.share, 1, 2)
