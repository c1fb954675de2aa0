"""A deck holding words LightRAG 1.5.7's PPTX parser leaves out (speaker notes, table cells, grouped
shapes' text, chart data) goes to LightRAG as the text mnote-kr reads in it; a deck of plain slide text
stays a plain link. Against replayed 1.5.7 payloads, with the real PPTX plugin reading the decks, and
with LightRAG's own PPTX extractor showing what it leaves out."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.data import SAMPLES
from mnote_kr_testkit.replay import replayed_provider
from mnote_kr_testkit.replay import source_file as source

import mnote_kr_lightrag as plugin
from mnote_kr.models import SourceEntry
from mnote_kr.plugins import load_plugins
from mnote_kr_lightrag.client import links, naming, querying, settings

NOTE = "Remind the board that the Saltmarsh crossing moves to hourly sailings in June."


def deck(path: Path, notes: str | None) -> Path:
    """A two-slide deck; ``notes`` (when given) are slide 2's speaker notes."""
    from pptx import Presentation

    prs = Presentation()
    first = prs.slides.add_slide(prs.slide_layouts[1])
    first.shapes.title.text = "Harbour review"
    first.placeholders[1].text = "Cargo tonnage stayed flat."
    second = prs.slides.add_slide(prs.slide_layouts[5])
    second.shapes.title.text = "Timetable"
    if notes is not None:
        second.notes_slide.notes_text_frame.text = notes
    path.parent.mkdir(parents=True, exist_ok=True)
    prs.save(path)
    return path


WORDS = "Saltmarsh crossing hourly"


def _table(slide: Any) -> None:
    from pptx.util import Inches

    table = slide.shapes.add_table(2, 2, Inches(1), Inches(2), Inches(6), Inches(1)).table
    for (r, c), text in {(0, 0): "Route", (0, 1): "Sailings", (1, 0): "Saltmarsh crossing", (1, 1): "hourly"}.items():
        table.cell(r, c).text = text


def _chart(slide: Any) -> None:
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE
    from pptx.util import Inches

    data = CategoryChartData()
    data.categories = ["Saltmarsh crossing", "Ashgrove quay"]
    data.add_series("hourly sailings", (18, 6))
    slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(2), Inches(6), Inches(4), data)


def _group(slide: Any) -> None:
    from pptx.util import Inches

    group = slide.shapes.add_group_shape()
    group.shapes.add_textbox(Inches(1), Inches(2), Inches(4), Inches(1)).text_frame.text = f"The {WORDS} sailings"
    group.shapes.add_textbox(Inches(1), Inches(3), Inches(4), Inches(1)).text_frame.text = "from June"


def _plain(slide: Any) -> None:
    from pptx.util import Inches

    slide.shapes.add_textbox(Inches(1), Inches(2), Inches(6), Inches(1)).text_frame.text = f"The {WORDS} sailings"


def content_deck(path: Path, add: Any, notes: str | None = None) -> Path:
    """``deck`` with ``add(slide)`` putting more on slide 2 ('Timetable')."""
    from pptx import Presentation

    deck(path, notes)
    prs = Presentation(str(path))
    add(prs.slides[1])
    prs.save(path)
    return path


def lightrag_reads(path: Path) -> str:
    """The text LightRAG 1.5.7's own PPTX parser takes from the deck (its legacy engine's extractor)."""
    from lightrag.parser.legacy.extractors import _extract_pptx

    return _extract_pptx(path.read_bytes())




def listing(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"documents": rows, "pagination": {"page": 1, "page_size": 200, "total_count": len(rows),
                                              "total_pages": 1, "has_next": False, "has_prev": False},
            "status_counts": {"all": len(rows)}}


@pytest.fixture
def env(tmp_path: Path) -> dict[str, Any]:
    settings.clear_cache()
    env = replayed_provider(tmp_path, SAMPLES)
    reader = load_plugins()  # the bundled PPTX plugin reads the deck, as the host offers it
    env["ctx"] = dataclasses.replace(env["ctx"], extract_text=reader.extract_text)
    return env


def routes(replay: Any, rows: list[dict[str, Any]] | None = None) -> None:
    replay.json("POST", "/documents/paginated", listing(rows or []))
    replay.sample("GET", "/documents/supported_file_types", "05_supported_file_types.json")
    replay.sample("POST", "/documents/scan", "10_scan_started.json")
    replay.sample("DELETE", "/documents/delete_document", "50_delete_document.json")


def test_deck_with_speaker_notes_is_sent_as_its_text_with_the_notes(env: dict[str, Any]) -> None:
    ws, inputs = env["ws"], env["inputs"]
    path = deck(ws / "talks" / "harbour.pptx", NOTE)
    before = path.read_bytes()
    routes(env["replay"])
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "talks/harbour.pptx")], force=False)
    assert update.status == "submitted" and update.kind == "text_fallback"
    name = update.light_rag_file_path or ""
    assert name.endswith(".pptx.md") and update.wrapper_path == str(inputs / name)
    wrapper = inputs / name
    assert wrapper.is_file() and not wrapper.is_symlink() and links.is_our_wrapper(wrapper)
    text = wrapper.read_text(encoding="utf-8")
    assert text.startswith(f"{links.DECK_WRAPPER_MARK} talks/harbour.pptx\n")
    assert f"# Timetable\n\nNotes: {NOTE}" in text and "Cargo tonnage stayed flat." in text
    assert update.last_error == ("indexed from the text mnote-kr reads in it, since LightRAG's parser leaves out "
                                 "speaker notes (1 slide(s)); citations still point into the file")
    assert not [p for p in inputs.iterdir() if p.is_symlink()]  # no link of the deck besides
    assert path.read_bytes() == before


@pytest.mark.parametrize("notes", [None, "   "])
def test_deck_without_speaker_notes_stays_a_plain_link(env: dict[str, Any], notes: str | None) -> None:
    ws, inputs = env["ws"], env["inputs"]
    path = deck(ws / "harbour.pptx", notes)
    routes(env["replay"])
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "harbour.pptx")], force=False)
    assert update.status == "submitted" and update.kind == "document" and update.last_error is None
    link = inputs / (update.light_rag_file_path or "")
    assert link.name.endswith(".pptx") and link.is_symlink() and os.readlink(link) == str(path)


@pytest.mark.parametrize(("add", "mark", "what"), [
    (_table, "Table: ", "table cells"), (_chart, "Chart: ", "chart data"), (_group, "Group: ", "grouped shapes' text")],
    ids=["table", "chart", "group"])
def test_deck_with_words_lightrags_parser_leaves_out_is_sent_as_its_text(
        env: dict[str, Any], add: Any, mark: str, what: str) -> None:
    ws, inputs = env["ws"], env["inputs"]
    path = content_deck(ws / "harbour.pptx", add)
    before = path.read_bytes()
    missed = lightrag_reads(path)
    assert "Timetable" in missed and "Saltmarsh" not in missed  # the slide's title only: the words are left out
    routes(env["replay"])
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "harbour.pptx")], force=False)
    assert update.status == "submitted" and update.kind == "text_fallback", update
    text = (inputs / (update.light_rag_file_path or "")).read_text(encoding="utf-8")
    assert text.startswith(f"{links.DECK_WRAPPER_MARK} harbour.pptx\n") and f"\n\n{mark}" in text
    assert all(w in text for w in WORDS.split())
    assert update.last_error == ("indexed from the text mnote-kr reads in it, since LightRAG's parser leaves out "
                                 f"{what} (1 slide(s)); citations still point into the file")
    assert path.read_bytes() == before


def test_deck_of_plain_slide_text_stays_a_link_since_lightrag_reads_it_all(env: dict[str, Any]) -> None:
    ws, inputs = env["ws"], env["inputs"]
    path = content_deck(ws / "harbour.pptx", _plain)
    assert f"The {WORDS} sailings" in lightrag_reads(path)
    routes(env["replay"])
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "harbour.pptx")], force=False)
    assert update.kind == "document" and update.last_error is None
    assert os.readlink(inputs / (update.light_rag_file_path or "")) == str(path)


def test_note_names_every_kind_the_deck_holds_in_lightrags_order(env: dict[str, Any]) -> None:
    ws = env["ws"]
    content_deck(ws / "harbour.pptx", lambda slide: (_chart(slide), _table(slide)), notes=NOTE)
    routes(env["replay"])
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "harbour.pptx")], force=False)
    assert update.kind == "text_fallback" and update.last_error == (
        "indexed from the text mnote-kr reads in it, since LightRAG's parser leaves out speaker notes (1 slide(s)), "
        "table cells (1 slide(s)) and chart data (1 slide(s)); citations still point into the file")


def test_unreadable_deck_is_linked_for_lightrag_to_say_what_it_makes_of_it(env: dict[str, Any]) -> None:
    ws, inputs = env["ws"], env["inputs"]
    (ws / "broken.pptx").write_bytes(b"not a zip at all")
    routes(env["replay"])
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "broken.pptx")], force=False)
    assert update.kind == "document" and (inputs / (update.light_rag_file_path or "")).is_symlink()


def test_deck_with_a_damaged_part_is_linked_not_an_aborted_ingest(env: dict[str, Any]) -> None:
    import zipfile

    ws, inputs = env["ws"], env["inputs"]
    path = deck(ws / "talks" / "harbour.pptx", NOTE)
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as zf:
        info = next(i for i in zf.infolist() if i.filename.startswith("ppt/notesSlides/") and i.compress_size > 40)
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data[start + 2:start + 22] = b"\xff" * 20  # the notes' deflate stream broken, the zip's directory whole
    path.write_bytes(bytes(data))
    before = path.read_bytes()
    routes(env["replay"])
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "talks/harbour.pptx")], force=False)
    assert update.kind == "document" and (inputs / (update.light_rag_file_path or "")).is_symlink()
    assert path.read_bytes() == before


def test_pdf_is_not_read_as_a_deck(env: dict[str, Any]) -> None:
    """The notes rule is the deck's alone: a PDF without scanned pages is linked as before."""
    ws, inputs = env["ws"], env["inputs"]
    (ws / "a.pdf").write_bytes(b"%PDF-1.4\n%%EOF\n")
    calls: list[str] = []
    ctx = dataclasses.replace(env["ctx"], extract_text=lambda path: calls.append(path) or "# x\n\nNotes: y")
    routes(env["replay"])
    [update] = plugin.ingest(ctx=ctx, sources=[source(ws, "a.pdf")], force=False)
    assert update.kind == "document" and (inputs / (update.light_rag_file_path or "")).is_symlink() and not calls


def test_changed_deck_without_notes_now_replaces_its_wrapper_by_a_link(env: dict[str, Any]) -> None:
    """Re-indexing a deck reuses the old-version cleanup of every source: the wrapper of the version
    with notes (moved by LightRAG into ``__parsed__``; written with the mark of the notes-only rule) is
    removed and its document deleted."""
    ws, inputs, replay = env["ws"], env["inputs"], env["replay"]
    tag = naming.workspace_tag(ws)
    path = deck(ws / "harbour.pptx", NOTE)
    old = source(ws, "harbour.pptx")
    old_name = naming.wrapper_name(old.rel_path, old.sha256, tag)
    links.write_text_wrapper(inputs / "__parsed__", old_name, old.rel_path, "# Timetable\n\nNotes: x",
                             links.NOTES_WRAPPER_MARK)
    deck(path, None)
    new = source(ws, "harbour.pptx")
    routes(replay, [{"id": naming.doc_id_for(old_name), "file_path": old_name, "status": "processed"}])
    [update] = plugin.ingest(ctx=env["ctx"], sources=[new], force=False)
    assert update.kind == "document" and update.light_rag_file_path == naming.link_name(new.rel_path, new.sha256, tag)
    assert not (inputs / "__parsed__" / old_name).exists() and (inputs / update.light_rag_file_path).is_symlink()
    [sent] = replay.sent("DELETE", "/documents/delete_document")
    assert json.loads(sent.content)["doc_ids"] == [naming.doc_id_for(old_name)]


def test_delete_of_a_deck_sent_as_text_removes_its_wrapper_and_never_the_deck(env: dict[str, Any]) -> None:
    ws, inputs, replay = env["ws"], env["inputs"], env["replay"]
    path = deck(ws / "harbour.pptx", NOTE)
    before = path.read_bytes()
    src = source(ws, "harbour.pptx")
    name = naming.wrapper_name(src.rel_path, src.sha256, naming.workspace_tag(ws))
    links.write_text_wrapper(inputs / "__parsed__", name, src.rel_path, f"# Timetable\n\nNotes: {NOTE}",
                             links.DECK_WRAPPER_MARK)
    replay.sample("GET", "/health", "02_health_auth.json")
    replay.sample("DELETE", "/documents/delete_document", "50_delete_document.json")
    entry = SourceEntry(source_id=src.source_id, source_path=src.path, source_root_relative_path=src.rel_path,
                        source_hash=src.sha256, size=src.size, status="processed", kind="text_fallback",
                        light_rag_file_path=name, light_rag_doc_id=naming.doc_id_for(name))
    [update] = plugin.delete(ctx=env["ctx"], entries=[entry])
    assert update.status == "delete_submitted" and not (inputs / "__parsed__" / name).exists()
    assert json.loads(replay.sent("DELETE", "/documents/delete_document")[0].content)["delete_file"] is False
    assert path.read_bytes() == before


@pytest.mark.parametrize("mark", [links.DECK_WRAPPER_MARK, links.NOTES_WRAPPER_MARK])  # and one written before charts
def test_a_deck_wrappers_first_line_never_reaches_a_reference(mark: str) -> None:
    first = f"{mark} talks/harbour.pptx\n\n# Timetable\n\nNotes: {NOTE}\n"
    refs = querying.references_from_data({"chunks": [
        {"file_path": "harbour.w1.abc-def.pptx.md", "chunk_id": "doc-1-chunk-000", "content": first}]})
    assert refs[0].content == f"# Timetable\n\nNotes: {NOTE}\n"


def _marked_box(slide: Any) -> None:
    """Slide text of the deck's own words that happens to start as ``extract_text`` marks notes and charts."""
    from pptx.util import Inches

    frame = slide.shapes.add_textbox(Inches(1), Inches(2), Inches(6), Inches(1)).text_frame
    frame.text = "Notes: the Saltmarsh crossing sails hourly"
    frame.add_paragraph().text = "Chart: sailings per day, see the appendix"


def test_slide_text_starting_notes_or_chart_is_no_speaker_notes_or_chart(env: dict[str, Any]) -> None:
    """Whether a deck holds what LightRAG's parser leaves out is the deck's structure (notes slides with
    text, chart parts), not how a line of its text starts: LightRAG reads this text box itself."""
    ws, inputs = env["ws"], env["inputs"]
    path = content_deck(ws / "harbour.pptx", _marked_box)
    assert "Notes: the Saltmarsh crossing sails hourly" in lightrag_reads(path)
    routes(env["replay"])
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "harbour.pptx")], force=False)
    assert update.kind == "document" and update.last_error is None, update
    assert os.readlink(inputs / (update.light_rag_file_path or "")) == str(path)


def test_a_deck_with_notes_and_slide_text_starting_chart_names_only_its_notes(env: dict[str, Any]) -> None:
    ws = env["ws"]
    content_deck(ws / "harbour.pptx", _marked_box, notes=NOTE)
    routes(env["replay"])
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "harbour.pptx")], force=False)
    assert update.kind == "text_fallback" and update.last_error == (
        "indexed from the text mnote-kr reads in it, since LightRAG's parser leaves out speaker notes (1 slide(s)); "
        "citations still point into the file")


CORPUS_DECKS = sorted((Path(__file__).resolve().parents[3] / "tests" / "data" / "corpus" / "pptx").glob("*.pptx"))


@pytest.mark.parametrize("path", CORPUS_DECKS, ids=lambda p: p.stem)
def test_what_the_deck_structure_holds_is_what_the_locator_plugin_reads_there(path: Path) -> None:
    """On every corpus deck, the slides ``decks.left_out`` counts from the zip's parts are those where the
    PPTX plugin (python-pptx) reads notes, table rows, a group's text or chart lines, and those where a top-level
    shape's text as LightRAG's parser takes it (python-pptx) holds a line break between words."""
    import re

    from pptx import Presentation

    from mnote_kr_lightrag.client import decks
    from mnote_kr_pptx_locator.reader import load_pptx

    before = path.read_bytes()
    slides: dict[str, set[int]] = {}
    for p in load_pptx(path).paragraphs:
        what = (decks.NOTES if p.notes else decks.TABLES if p.kind == "table" else decks.CHARTS if p.kind == "chart"
                else decks.COMMENTS if p.kind == "comment" else decks.GROUPS if p.group is not None else None)
        if what:
            slides.setdefault(what, set()).add(p.slide)
    for number, slide in enumerate(Presentation(str(path)).slides, 1):
        if any(re.search(r"\S\v+\S", shape.text) for shape in slide.shapes if hasattr(shape, "text")):
            slides.setdefault(decks.GLUED, set()).add(number)
    assert decks.left_out(str(path)) == {what: len(slides[what]) for what in (*decks.LEFT_OUT, decks.GLUED)
                                         if what in slides}
    assert path.read_bytes() == before


def test_deck_with_review_comments_is_sent_as_its_text_with_the_comments(env: dict[str, Any]) -> None:
    """docling's comments deck: its slides' text is all top-level (LightRAG reads it), its review comments are
    in parts LightRAG's parser never opens; the deck goes as the text the PPTX plugin reads, comments included."""
    ws, inputs = env["ws"], env["inputs"]
    path = ws / "talks" / "comments.pptx"
    path.parent.mkdir(parents=True)
    path.write_bytes((Path(CORPUS_DECKS[0]).parent / "docling__powerpoint_comments.pptx").read_bytes())
    before = path.read_bytes()
    assert "sample reviewer comment" not in lightrag_reads(path)
    routes(env["replay"])
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "talks/comments.pptx")], force=False)
    assert update.status == "submitted" and update.kind == "text_fallback", update
    text = (inputs / (update.light_rag_file_path or "")).read_text(encoding="utf-8")
    assert "Comment (John Reviewer): This is a sample reviewer comment" in text
    assert "Comment (Jane Smith): I need to try this out!" in text
    assert update.last_error == ("indexed from the text mnote-kr reads in it, since LightRAG's parser leaves out "
                                 "review comments (2 slide(s)); citations still point into the file")
    assert update.reading == "deck:4"
    assert path.read_bytes() == before
