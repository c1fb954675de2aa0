"""A heading holding only the question's setting words is no exact place, and does not lead the answer under it.

Seen by a newcomer (round 21, nc21b Q7) on ``poi__form_footnotes.docx``: ``What colour of ink must the visa
application form be filled in with?`` was cited on the heading ``VISA APPLICATION FORM`` (paragraph 8, the
evidence's match by the query's words), ``locatorDegraded: false``; the instructions' ``Type or write in block
letters, on blue or black ink only.`` (210), under that heading, was only a place behind it.

Recorded here (``data/nc21b_heading.json``, from the newcomer's own index): the LightRAG chunk, its sidecar
block, the evidence the host's cleaning gave the locator, and the query's cosine with the file's paragraphs
(replayed through ``meaning.cosines`` / ``meaning.nearest``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from mnote_kr_testkit.data import CORPUS

from mnote_kr.citations.rank import meaning
from mnote_kr.models import LocateRequest, Locator, SidecarBlock
from mnote_kr_docx_locator import cache as docx_cache
from mnote_kr_docx_locator import locate

CASE = json.loads((Path(__file__).parent / "data" / "nc21b_heading.json").read_text("utf-8"))[0]
HEADING = 8


@pytest.fixture(autouse=True)
def _fresh() -> None:
    docx_cache.clear_cache()


def replay(case: dict[str, Any], monkeypatch: pytest.MonkeyPatch, query: str | None = None) -> Locator:
    cos = {int(i): c for i, c in case["cosines"].items()}
    monkeypatch.setattr(meaning, "cosines", lambda key, q, idx: {i: cos[i] for i in idx if i in cos})
    monkeypatch.setattr(meaning, "nearest", lambda key, q, k: dict(sorted(cos.items(), key=lambda t: -t[1])[:k]))
    block = msgspec.convert(case["block"], SidecarBlock)
    path = CORPUS / "docx" / case["file"]
    before = path.read_bytes()
    loc = locate(LocateRequest(file=str(path), evidence=case["evidence"], query=query or case["query"], block=block,
                               block_id=block.blockid, passage=case["chunk"]))
    assert path.read_bytes() == before
    assert loc is not None
    return loc


def test_the_paragraph_under_the_heading_holding_the_asked_words_leads(monkeypatch: pytest.MonkeyPatch) -> None:
    loc = replay(CASE, monkeypatch)
    assert loc.paragraph_index == CASE["answer"], loc.reason
    assert "ink only" in (loc.place_text or "")
    # it lacks "must" (and the document lacks "colour"): chosen, not claimed
    assert loc.locator_degraded, loc.reason
    assert HEADING not in [r.paragraph_index for r in loc.runners_up]


def test_the_heading_is_not_claimed_exact_when_nothing_under_it_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    case = dict(CASE, cosines={i: c for i, c in CASE["cosines"].items() if int(i) != CASE["answer"]})
    loc = replay(case, monkeypatch)
    assert loc.paragraph_index == HEADING
    assert loc.locator_precision == "paragraph"
    assert loc.locator_degraded, loc.reason

