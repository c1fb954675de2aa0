"""A deck's speaker notes through the real lightrag-server: LightRAG 1.5.7's PPTX parser skips notes, so
a deck with notes is sent as the text mnote-kr reads in it; a question in the notes' words cites that
deck's slide notes in their own words, a slide's body still lands on its shape, and re-indexing and
deleting the deck treat its text wrapper as every other wrapper, never touching the deck."""

from __future__ import annotations

import hashlib
import os
import time
import uuid
from pathlib import Path

import pytest
from mnote_kr_testkit.decks import harbour_deck
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)

from mnote_kr.agents.contracts import agent_citation
from mnote_kr.app.host import Host
from mnote_kr.citations.render.statustext import render_status
from mnote_kr.core.config import load_config
from mnote_kr.models import Citation

pytestmark = pytest.mark.integration

DECK = "talks/harbour.pptx"
FERRY = "The Kestrelmoor ferry carried 8,450 passengers across the sound in March."


def _deck(path: Path, note: str | None, board: str = "Ashgrove") -> None:
    """Two slides: a title slide (for the ``board`` port board), then 'Passenger traffic' with a text box
    'Ferry figures' and ``note`` as its speaker notes."""
    from pptx.util import Emu

    prs, second = harbour_deck(board, "Passenger traffic")
    box = second.shapes.add_textbox(Emu(914400), Emu(2286000), Emu(6400800), Emu(1371600))
    box.name = "Ferry figures"
    box.text_frame.text = "Cargo tonnage stayed flat through the winter months."
    box.text_frame.add_paragraph().text = FERRY
    if note is not None:
        second.notes_slide.notes_text_frame.text = note
    path.parent.mkdir(parents=True, exist_ok=True)
    prs.save(path)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _ours(input_dir: Path, name: str) -> list[Path]:
    """Our link or wrapper ``name`` wherever LightRAG keeps it (the input dir, ``__parsed__``)."""
    return [p for p in input_dir.rglob(name) if p.is_file() or p.is_symlink()]


def _cited(host: Host, query: str, rel: str = DECK) -> Citation:
    results = host.search(query, top_k=10).results
    mine = [c for c in results if c.source_root_relative_path == rel]
    assert mine, [(c.source_root_relative_path, c.display_quote[:60]) for c in results]
    return mine[0]


def test_speaker_notes_are_found_and_cited_on_their_slide_in_their_own_words(
        tmp_path: Path, lightrag_engine, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811, ANN001
    token = uuid.uuid4().hex[:8]  # the session engine keeps other tests' documents
    note = f"Remind the board that the Saltmarsh crossing {token} moves to hourly sailings in June."
    monkeypatch.setenv("MNOTE_KR_LIGHTRAG_API_KEY", lightrag_engine.api_key)
    ws = tmp_path / "kb"
    deck, plain = ws / DECK, ws / "talks" / "plain.pptx"
    _deck(deck, note)
    _deck(plain, None, board=f"Thornbury {token}")  # its own text: not LightRAG's duplicate of another deck
    digests = {deck: _sha(deck), plain: _sha(plain)}
    config = load_config(ws)
    config["providers"] = {"lightrag": {"url": lightrag_engine.url, "input_dir": lightrag_engine.input_dir}}
    host = Host(ws, config=config)
    input_dir = Path(lightrag_engine.input_dir)

    report = host.ingest(["talks"], wait=True, wait_s=240)
    assert {i.source_path: i.status for i in report.items} == {DECK: "processed", "talks/plain.pptx": "processed"}, \
        [(i.source_path, i.reason) for i in report.items]
    entries = host.registry().entries
    entry, linked = entries[DECK], entries["talks/plain.pptx"]
    assert entry.kind == "text_fallback" and (entry.light_rag_file_path or "").endswith(".pptx.md")
    assert "LightRAG's parser leaves out speaker notes (1 slide(s));" in (entry.last_error or "")
    assert linked.kind == "document" and (linked.light_rag_file_path or "").endswith(".pptx")  # no notes: a link
    assert f"Fallback:  {DECK}: indexed from the text mnote-kr reads in it" in render_status(host.status())

    c = _cited(host, f"What do the speaker notes say about the Saltmarsh crossing {token}?")
    loc = c.locator
    assert (c.locator_precision, loc.locator_degraded, loc.slide, loc.speaker_notes) == ("slide", False, 2, True)
    assert (loc.shape_id, loc.shape_name, loc.bbox) == (None, None, None)  # the notes, not a shape on the slide
    assert c.display_quote == note  # the note's words: no "Notes:", "#" or wrapper line
    assert c.source_path == str(deck) and "&slide=2&notes=1" in c.citation_url
    assert c.citation_markdown.startswith("[harbour.pptx · slide 2 notes]")
    seen = agent_citation(c)  # an agent is told it is the notes, not only by the link's words
    assert (seen.slide, seen.shape_id, seen.speaker_notes) == (2, None, True)

    body = _cited(host, "Kestrelmoor ferry passengers").locator  # the slide's body lands on its shape as before
    assert (body.locator_precision, body.slide, body.shape_name, body.paragraph_index, body.speaker_notes) == (
        "slide", 2, "Ferry figures", 1, False)
    assert body.bbox == [914400.0, 2286000.0, 914400.0 + 6400800, 2286000.0 + 1371600]
    linked_at = _cited(host, f"Prepared for the Thornbury {token} port board", "talks/plain.pptx")  # LightRAG's text
    assert (linked_at.locator_precision, linked_at.locator.slide, linked_at.locator.shape_name) == (
        "slide", 1, "Subtitle 2"), linked_at.locator
    assert {p: _sha(p) for p in digests} == digests

    # Re-indexed when the notes change: the new wrapper replaces the old one, the old words are gone.
    old_name = entry.light_rag_file_path or ""
    before = deck.stat().st_mtime_ns
    new_note = f"Ask the harbourmaster {token} for the silt survey before the dredging vote."
    _deck(deck, new_note)
    os.utime(deck, ns=(before, before + 1_000_000_000))  # a later mtime, as an edit seconds later has
    digests[deck] = _sha(deck)
    report = host.ingest(["talks"], wait=True, wait_s=240)
    assert {i.source_path: i.status for i in report.items}[DECK] == "processed", report
    entry = host.registry().entries[DECK]
    assert entry.kind == "text_fallback" and entry.light_rag_file_path != old_name
    assert not _ours(input_dir, old_name) and _ours(input_dir, entry.light_rag_file_path or "")
    assert _cited(host, f"silt survey harbourmaster {token}").display_quote == new_note
    stale = host.search(f"Saltmarsh crossing {token} hourly sailings", top_k=10).results
    assert not [s for s in stale if "Saltmarsh" in s.display_quote], [s.display_quote for s in stale]

    # Deleted: the index and our wrapper go, the deck stays as it was.
    name = entry.light_rag_file_path or ""
    host.delete([DECK])
    deadline = time.monotonic() + 90
    while host.registry().entries[DECK].status != "delete_completed" and time.monotonic() < deadline:
        host.sync(wait_s=2)
    assert host.registry().entries[DECK].status == "delete_completed"
    assert not _ours(input_dir, name)
    assert not [c for c in host.search(f"silt survey harbourmaster {token}").results
                if c.source_root_relative_path == DECK]
    assert {p: _sha(p) for p in digests} == digests and deck.exists()
