"""A deck whose text box holds a line break between words (``a:br``, Shift+Enter) goes to LightRAG as the text
mnote-kr reads in it: LightRAG 1.5.7's PPTX parser reads the break as python-pptx's vertical tab, which its text
sanitiser drops, so "X-Library" and "The" reach its index as one word "X-LibraryThe". A break with a space on
either side glues nothing, and such a deck stays a plain link. Against replayed 1.5.7 payloads, with the real PPTX
plugin reading the decks; a deck linked by an earlier plain reading is checked by the same test (readings)."""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.data import CORPUS, SAMPLES
from mnote_kr_testkit.replay import ReadingsProvider as _Prov
from mnote_kr_testkit.replay import replayed_provider
from mnote_kr_testkit.replay import source_file as source
from mnote_kr_testkit.replay import stored_entry as _entry

import mnote_kr_lightrag as plugin
from mnote_kr.plugins import load_plugins
from mnote_kr_lightrag.client import decks, links, readings, settings

from .test_lr_decks import content_deck, routes

BAD_TEXT = CORPUS / "pptx" / "docling__powerpoint_bad_text.pptx"
GLUED_NOTE = ("indexed from the text mnote-kr reads in it, since the deck has line breaks inside a text box "
              "(1 slide(s)), whose lines LightRAG's parser runs together; citations still point into the file")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, Any]:
    settings.clear_cache()
    env = replayed_provider(tmp_path, SAMPLES)
    env["ctx"] = dataclasses.replace(env["ctx"], extract_text=load_plugins().extract_text)
    return env


def lightrag_indexes(path: Path) -> str:
    """The text LightRAG 1.5.7 indexes of a deck it parses itself: its legacy extractor, then its sanitiser."""
    from lightrag.parser.legacy.extractors import _extract_pptx
    from lightrag.utils import sanitize_text_for_encoding

    return sanitize_text_for_encoding(_extract_pptx(path.read_bytes()))


def _box(text: str) -> Any:
    """``add(slide)`` for ``content_deck``: a text box of ``text`` ("\\v": a line break inside its paragraph)."""
    def add(slide: Any) -> None:
        from pptx.util import Inches

        slide.shapes.add_textbox(Inches(1), Inches(2), Inches(6), Inches(1)).text_frame.text = text
    return add


def test_the_corpus_deck_with_a_line_broken_title_is_sent_as_its_text_with_the_words_apart(
        env: dict[str, Any]) -> None:
    ws, inputs = env["ws"], env["inputs"]
    path = ws / "decks" / "bad_text.pptx"
    path.parent.mkdir(parents=True)
    shutil.copyfile(BAD_TEXT, path)
    before = path.read_bytes()
    assert "X-LibraryThe fully" in lightrag_indexes(path)  # what the newcomer found in LightRAG's chunks
    assert decks.left_out(str(path)) == {decks.GLUED: 1}
    routes(env["replay"])
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "decks/bad_text.pptx")], force=False)
    assert (update.status, update.kind, update.reading) == ("submitted", "text_fallback", "deck:4"), update
    text = (inputs / (update.light_rag_file_path or "")).read_text(encoding="utf-8")
    assert text.startswith(f"{links.DECK_WRAPPER_MARK} decks/bad_text.pptx\n")
    assert "X-Library The fully" in text and "copyright-free standard" in text and "X-LibraryThe" not in text
    assert update.last_error == GLUED_NOTE
    assert not [p for p in inputs.iterdir() if p.is_symlink()]
    assert path.read_bytes() == before


def test_a_body_text_box_with_a_line_break_between_words_is_sent_with_the_words_apart(
        env: dict[str, Any]) -> None:
    ws, inputs = env["ws"], env["inputs"]
    path = content_deck(ws / "harbour.pptx", _box("Saltmarsh crossing\vhourly sailings from June"))
    before = path.read_bytes()
    assert "crossinghourly" in lightrag_indexes(path)
    routes(env["replay"])
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "harbour.pptx")], force=False)
    assert update.kind == "text_fallback" and update.last_error == GLUED_NOTE, update
    text = (inputs / (update.light_rag_file_path or "")).read_text(encoding="utf-8")
    assert "Saltmarsh crossing hourly sailings" in text and "crossinghourly" not in text
    assert path.read_bytes() == before


@pytest.mark.parametrize("text", ["Saltmarsh crossing \vhourly sailings", "Saltmarsh crossing\v hourly",
                                  "Saltmarsh crossing\v", "\vSaltmarsh crossing", "Saltmarsh crossing\nhourly"],
                         ids=["space-before", "space-after", "at-end", "at-start", "two-paragraphs"])
def test_a_deck_whose_breaks_glue_no_words_stays_a_plain_link(env: dict[str, Any], text: str) -> None:
    ws, inputs = env["ws"], env["inputs"]
    path = content_deck(ws / "harbour.pptx", _box(text))
    assert "crossinghourly" not in lightrag_indexes(path)
    assert decks.left_out(str(path)) == {}
    routes(env["replay"])
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "harbour.pptx")], force=False)
    assert update.kind == "document" and update.last_error is None and update.reading == readings.current(
        readings.LIGHTRAG)
    assert os.readlink(inputs / (update.light_rag_file_path or "")) == str(path)


def test_the_note_names_what_is_left_out_and_the_glued_breaks() -> None:
    assert decks.note({decks.NOTES: 2, decks.GLUED: 1}) == (
        "indexed from the text mnote-kr reads in it, since LightRAG's parser leaves out speaker notes (2 slide(s)), "
        "and the deck has line breaks inside a text box (1 slide(s)), whose lines LightRAG's parser runs together; "
        "citations still point into the file")


def test_a_deck_linked_by_an_earlier_plain_reading_is_read_again_only_when_its_breaks_glue_words(
        tmp_path: Path) -> None:
    shutil.copyfile(BAD_TEXT, tmp_path / "glued.pptx")
    shutil.copyfile(CORPUS / "pptx" / "docling__powerpoint_with_image.pptx", tmp_path / "plain.pptx")
    shutil.copyfile(BAD_TEXT, tmp_path / "old.pptx")
    shutil.copyfile(BAD_TEXT, tmp_path / "before.pptx")
    before = {p: p.read_bytes() for p in tmp_path.iterdir()}
    entries = [_entry("glued.pptx", "lightrag:2"), _entry("old.pptx", "lightrag:1"), _entry("plain.pptx", "lightrag:2"),
               _entry("before.pptx", None), _entry("a.md", "lightrag:2"), _entry("b.xlsx", "lightrag:2")]
    # status reads no file: every deck linked by an earlier plain reading is counted for sync to check
    told = readings.check(None, entries, look=False, notes=False)
    assert set(told.older) == {"glued.pptx", "old.pptx", "plain.pptx", "before.pptx"}, told
    assert "line breaks" in told.older["plain.pptx"] and "'mnote-kr sync'" in told.older["plain.pptx"]
    # sync makes the send's structural test: only the decks whose breaks glue words are read again
    looked = readings.check(_Prov(tmp_path), entries, look=True, notes=False)
    assert set(looked.older) == {"glued.pptx", "old.pptx", "before.pptx"}, looked
    assert "line breaks inside a text box" in looked.older["glued.pptx"]
    assert "runs together" in looked.older["glued.pptx"]
    assert looked.record == {"plain.pptx": readings.current(readings.LIGHTRAG)}
    assert {p: p.read_bytes() for p in tmp_path.iterdir()} == before
