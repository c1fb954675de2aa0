"""A question naming a table or figure ("what does table 3 show?", "Fig. 4", "表 7.6 是什么") is boxed on that table's
or figure's caption, exact, wherever the words chose to box; a number no block starts with moves nothing.

nc23a Q9 (round 23): "what does table 3 show?" over ``mineru__demo1.pdf`` was boxed exact on page 6's sentence "The
fit of the complete model ... Table 2 gives": the chunk LightRAG returned ran from Table 2 through Table 3's caption
("Table 3" over "Coefficient of efficiency, E", page 6), and the host's evidence window began at "gives / Table 2".
The chunk and the evidence are the newcomer's, as recorded in their search's JSON (``data/nc23a_table3.json``)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS

from mnote_kr.models import LocateRequest
from mnote_kr_pdf_bbox import locate

DEMO1 = CORPUS / "pdf" / "mineru__demo1.pdf"
REDP = CORPUS / "pdf" / "docling__redp5110_sampled.pdf"
CASE = json.loads((Path(__file__).parent / "data" / "nc23a_table3.json").read_text("utf-8"))
CHUNK, EVIDENCE = CASE["chunk"], CASE["evidence"]


@pytest.fixture(autouse=True)
def by_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """No vectors, no remembered answer: the blocks are chosen by words and the caption rule alone."""
    from mnote_kr.citations.rank import meaning

    monkeypatch.setattr(meaning, "cosines", lambda *a, **k: None)
    monkeypatch.setattr(meaning, "nearest", lambda *a, **k: {})
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")


def _locate(path, query: str, evidence: str = EVIDENCE, passage: str = CHUNK):  # type: ignore[no-untyped-def]
    before = hashlib.sha256(path.read_bytes()).digest()
    loc = locate(LocateRequest(file=str(path), evidence=evidence, query=query, passage=passage))
    assert hashlib.sha256(path.read_bytes()).digest() == before
    assert loc is not None
    return loc


@pytest.mark.parametrize("query", ["what does table 3 show?", "Tab. 3", "表3说明了什么"])
def test_a_question_naming_a_table_is_boxed_on_its_caption(query: str) -> None:
    loc = _locate(DEMO1, query)
    assert (loc.locator_precision, loc.page, loc.locator_degraded) == ("bbox", 6, False), loc.reason
    # the label and the title line under it ("Table 3" alone is its own text block)
    assert (loc.place_text or "").startswith("Table 3 Coefficient of efficiency"), loc.place_text
    assert "Table 2" not in (loc.place_text or "")
    # a number no block starts with moves nothing (demo1 has tables 1 to 5)
    none, plain = _locate(DEMO1, "what does table 9 show?"), _locate(DEMO1, "what does the table show?")
    assert (none.page, none.bbox, none.place_text) == (plain.page, plain.bbox, plain.place_text)


def test_a_caption_outside_the_passage_is_found_and_a_title_goes_before_a_sentence_on_the_label() -> None:
    """redp5110 page 11 opens on "Table 3-1 summarizes these special registers and their values." above the caption
    "Table 3-1 Special registers and their corresponding values"; the passage here is another page's."""
    text = "Figure 3-10 Column masks shown in System i Navigator"
    loc = _locate(REDP, "what is in table 3-1?", evidence=text, passage=text)
    assert (loc.page, loc.locator_degraded) == (11, False), loc.reason
    assert (loc.place_text or "").startswith("Table 3-1 Special registers"), loc.place_text
