"""A deck whose title holds a line break (Shift+Enter) through the real lightrag-server: LightRAG 1.5.7's PPTX
parser would index "Kestrel-Library" and "The" of the two lines as one word "Kestrel-LibraryThe" (python-pptx's
vertical tab, dropped by its sanitiser), so the deck is sent as the text mnote-kr reads in it; the question in
the title's words finds LightRAG's passage holding them apart, cites the title and is not called weak (nc18b
problem 1: 'What is X-Library?' over docling's bad_text deck)."""

from __future__ import annotations

import hashlib
import uuid
from pathlib import Path

import pytest
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)

from mnote_kr.app.host import Host
from mnote_kr.core.config import load_config

pytestmark = pytest.mark.integration

DECK = "decks/library.pptx"


def _deck(path: Path, token: str) -> None:
    from pptx import Presentation

    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[0])
    slide.shapes.title.text = f"Kestrel-Library\vThe fully customisable {token} template collection"
    slide.placeholders[1].text = "Exclusively for our harbour customers"
    path.parent.mkdir(parents=True, exist_ok=True)
    prs.save(path)


def test_a_line_broken_title_is_indexed_word_by_word_and_found_without_a_weak_claim(
        tmp_path: Path, lightrag_engine, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811, ANN001
    token = uuid.uuid4().hex[:8]  # the session engine keeps other tests' documents
    monkeypatch.setenv("MNOTE_KR_LIGHTRAG_API_KEY", lightrag_engine.api_key)
    ws = tmp_path / "kb"
    deck = ws / DECK
    _deck(deck, token)
    digest = hashlib.sha256(deck.read_bytes()).hexdigest()
    config = load_config(ws)
    config["providers"] = {"lightrag": {"url": lightrag_engine.url, "input_dir": lightrag_engine.input_dir}}
    host = Host(ws, config=config)

    report = host.ingest(["decks"], wait=True, wait_s=240)
    assert {i.source_path: i.status for i in report.items} == {DECK: "processed"}, report.items
    entry = host.registry().entries[DECK]
    assert entry.kind == "text_fallback" and "line breaks inside a text box" in (entry.last_error or "")

    found = host.search("What is Kestrel-Library?", top_k=10)
    [c, *_] = [c for c in found.results if c.source_root_relative_path == DECK] or [None]
    assert c is not None, [(r.source_root_relative_path, r.display_quote[:60]) for r in found.results]
    assert "Kestrel-Library The fully" in (c.context_quote or ""), c.context_quote  # LightRAG's passage
    assert "Kestrel-LibraryThe" not in (c.context_quote or "")
    assert c.locator.slide == 1 and "Kestrel-Library" in c.display_quote
    assert found.results[0].source_root_relative_path == DECK and found.weak is False, found.weak_reason
    assert hashlib.sha256(deck.read_bytes()).hexdigest() == digest
