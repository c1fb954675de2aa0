"""The places behind a deck's cited one (``runnersUp``, the citation's ``alternatives``): the passage's
other shapes and notes ranked by the query's words (and meaning, once ingest embedded the deck).

The newcomer's case on docling's sample deck, as the real engine gave it: the whole deck was LightRAG's
passage, but the evidence picked from it was the third slide's window, so the citation landed on the
third slide's notes; the second slide's notes, which answer "what do the notes on the second slide say",
must stand behind it. (A question naming the slide is now cited on it, ``test_pptx_named_slide``; one
that names none keeps the evidence's place, with the other slide's notes behind it.)
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins

SAMPLE = Path(__file__).resolve().parents[3] / "tests" / "data" / "corpus" / "pptx" / "docling__powerpoint_sample.pptx"
QUESTION = "What do the speaker notes say?"


def test_the_second_slides_notes_stand_behind_the_third_slides_notes() -> None:
    before = hashlib.sha256(SAMPLE.read_bytes()).hexdigest()
    plugins = load_plugins(None)
    deck = plugins.extract_text(str(SAMPLE))
    window = deck[deck.index("# Slide 3"):]
    loc = plugins.locate(LocateRequest(file=str(SAMPLE), evidence=window, query=QUESTION, passage=deck))
    assert (loc.slide, loc.speaker_notes) == (3, True)
    behind = [(r.slide, r.speaker_notes, r.quote) for r in loc.runners_up]
    assert (2, True, "Some notes on the second slide.") in behind
    assert all(r.locator_precision == "slide" and r.locator_degraded for r in loc.runners_up)
    shapes = [(r.slide, r.speaker_notes, r.shape_id) for r in loc.runners_up] + [(3, True, None)]
    assert len(shapes) == len(set(shapes))  # one place per shape (the cited notes' own lines not again)
    assert hashlib.sha256(SAMPLE.read_bytes()).hexdigest() == before


def test_a_query_of_scaffolding_only_leaves_no_place_behind(monkeypatch: pytest.MonkeyPatch) -> None:
    from mnote_kr.citations.rank import meaning

    # no vectors for the deck (another test in this process may have embedded it), no remembered answer
    monkeypatch.setattr(meaning, "cosines", lambda *a, **k: None)
    monkeypatch.setattr(meaning, "nearest", lambda *a, **k: {})
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")
    plugins = load_plugins(None)
    deck = plugins.extract_text(str(SAMPLE))
    loc = plugins.locate(LocateRequest(file=str(SAMPLE), evidence="A rectangle shape with this text inside.",
                                       query="what is it", passage=deck))
    assert loc.slide == 2 and loc.runners_up == []  # no query word anywhere, no vectors: nothing guessed


def test_ingest_queues_a_decks_places_for_meaning_only_under_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    import mnote_kr_pptx_locator as plugin
    from mnote_kr.citations.rank import meaning
    from mnote_kr_pptx_locator.reader import load_pptx

    queued: list[int] = []
    monkeypatch.setattr(meaning, "queue", lambda texts: queued.append(len(texts)))
    places = len(load_pptx(SAMPLE).paragraphs)
    for cap in (places, places - 1):
        monkeypatch.setattr(plugin, "MEANING_PLACES", cap, raising=False)
        plugin.prepare_locate(str(SAMPLE))
    assert queued == [places]  # queued at the cap, not over it (a 200,000-paragraph deck would hold ingest)


ISSUE_2663 = SAMPLE.parent / "docling__powerpoint_issue_2663.pptx"


def test_a_question_in_another_language_is_quoted_from_its_shapes_answering_paragraph(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 33: one shape holds "Key Benefits:" and its bullets, then "Considerations When Using
    Open-Source Software:" and its bullets. A Chinese question about the considerations holds no word of
    the shape: the evidence's paragraph (a benefit) was cited and its benefits quoted. Once ingest embedded
    the deck, the shape's paragraph nearest the question by meaning is cited and quoted, with the bullets
    after it; an English question still chooses by its words."""
    from mnote_kr.citations.rank import meaning

    monkeypatch.setattr(meaning, "_queue", [])  # only this deck's paragraphs
    before = hashlib.sha256(ISSUE_2663.read_bytes()).hexdigest()
    plugins = load_plugins(None)
    deck = plugins.extract_text(str(ISSUE_2663))
    plugins.prepare_locate(str(ISSUE_2663))
    meaning.embed_queued(lambda line: None)
    for question in ("使用开源软件时需要考虑哪些因素？", "What should you consider when using open-source software?"):
        loc = plugins.locate(LocateRequest(file=str(ISSUE_2663), evidence=deck, query=question, passage=deck))
        assert (loc.slide, loc.shape_id) == (1, 8), loc
        assert (loc.quote or "").startswith("Considerations When Using Open-Source Software:"), (question, loc.quote)
        assert "community support" in (loc.quote or "") and "cost-effective" not in (loc.quote or "")
    assert hashlib.sha256(ISSUE_2663.read_bytes()).hexdigest() == before
