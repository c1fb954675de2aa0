"""DOCX footnotes and endnotes inside LightRAG's own parser (the managed engine's ``docxnotes`` patch):
a note's text at its mark in LightRAG's blocks, everything else of the parse unchanged, nothing
patched when LightRAG's internals differ, and no document failed by the patch."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.docx_docs import DocxBuilder
from mnote_kr_testkit.docx_notes import comment_para, named_styles_docx, note_para, ref, with_notes

from mnote_kr.plugin_api import docxnotes as dn
from mnote_kr_docx_locator.reader import parse_docx_bytes
from mnote_kr_lightrag.engine import docxnotes

pd = importlib.import_module("lightrag.parser.docx.parse_document")  # pinned 1.5.7: a moved module fails here
te = importlib.import_module("lightrag.parser.docx.table_extractor")
DOCX = CORPUS / "docx"
WITH_NOTES = ("poi__bug65649.docx", "poi__endnotes.docx", "poi__form_footnotes.docx", "poi__stress004.docx",
              "poi__stress008.docx", "tika__testWORD_2006ml.docx", "unstructured__handbook-872p.docx",
              "markitdown__test_with_comment.docx")  # the last: review comments, no notes


@pytest.fixture
def unpatched(monkeypatch: pytest.MonkeyPatch) -> None:
    """LightRAG's functions as they are now, restored after the test whatever it installed."""
    for module_name, name in docxnotes.PATCHED:
        module = importlib.import_module(module_name)
        monkeypatch.setattr(module, name, getattr(module, name))


def _blocks(path: Path) -> list[dict[str, Any]]:
    return pd.extract_docx_blocks(str(path), parse_warnings={}, parse_metadata={})


def _para(blocks: list[dict[str, Any]], start: str) -> str:
    return next(line for b in blocks for line in b["content"].split("\n") if line.startswith(start))


def test_notes_stand_at_their_marks_in_lightrags_blocks(unpatched: None) -> None:
    tika = DOCX / "tika__testWORD_2006ml.docx"
    before = _blocks(tika)
    assert docxnotes.install() is True
    after = _blocks(tika)
    assert _para(after, "This should have a footnote") == (
        "This should have a footnote [Footnote 1: And this is the footnote]")
    assert _para(after, "This should point") == "This should point to an endnote  [Endnote i: This is an endnote]"
    # the blocks, their headings and their paraId ranges are LightRAG's as before
    keep = ("heading", "parent_headings", "level", "positions", "type")
    assert [{k: b.get(k) for k in keep} for b in after] == [{k: b.get(k) for k in keep} for b in before]
    cell = _blocks(DOCX / "poi__form_footnotes.docx")  # a table cell holding only the mark
    assert '[["[Footnote 1: testdoc test phrase]' in "".join(b["content"] for b in cell)


def test_a_docx_without_notes_is_parsed_exactly_as_before(unpatched: None) -> None:
    files = sorted(p for p in DOCX.glob("*.docx") if p.name not in WITH_NOTES)
    before: dict[str, Any] = {}
    for path in files:
        try:
            before[path.name] = _blocks(path)
        except Exception as exc:  # noqa: BLE001 - a file LightRAG fails on must fail the same way after
            before[path.name] = repr(exc)
    assert docxnotes.install() is True
    for path in files:
        try:
            got: Any = _blocks(path)
        except Exception as exc:  # noqa: BLE001
            got = repr(exc)
        assert got == before[path.name], path.name
    assert len(files) >= 25


def test_heading_notes_custom_marks_and_word_numbers(unpatched: None, tmp_path: Path) -> None:
    b = DocxBuilder()
    note_para(b, "Findings", ref("footnote", "1"), heading=1)
    note_para(b, "Body text", ref("footnote", "2"), " continues")
    note_para(b, "Starred", ref("footnote", "3", custom="*"))
    path = tmp_path / "n.docx"
    path.write_bytes(with_notes(b.build(), footnotes={"1": "On the title.", "2": "On the body.", "3": "Own."}))
    docxnotes.install()
    blocks = _blocks(path)
    assert [b["heading"] for b in blocks] == ["Findings"]  # the heading keeps its own words
    assert _para(blocks, "Body") == "Body text [Footnote 2: On the body.] continues"
    assert _para(blocks, "Starred") == "Starred [Footnote *: Own.]"


def _current() -> dict[tuple[str, str], Any]:
    return {(m, n): getattr(importlib.import_module(m), n) for m, n in docxnotes.PATCHED}


def test_nothing_is_patched_for_another_lightrag_version(unpatched: None, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    before = _current()
    monkeypatch.setattr(sys.modules["lightrag"], "__version__", "1.6.0")
    assert docxnotes.install() is False
    assert _current() == before
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["mnote-kr: DOCX footnotes, endnotes and comments are not indexed: LightRAG 1.6.0 is not the "
                   "version whose DOCX parser this was written for (1.5.7)"]


def test_nothing_is_patched_when_a_function_differs(unpatched: None, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    def reader(run, namespaces, drawing_context=None):  # noqa: ANN001, ANN202 - a reader renamed its parameter
        return ""

    monkeypatch.setattr(te, "extract_text_from_run_table", reader)
    before = _current()
    assert docxnotes.install() is False
    assert _current() == before
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "extract_text_from_run_table takes (run, namespaces, drawing_context)" in err[0]
    tika = _blocks(DOCX / "tika__testWORD_2006ml.docx")
    assert "[Footnote" not in "".join(b["content"] for b in tika)


def test_an_unreadable_note_leaves_its_run_as_lightrag_reads_it(unpatched: None, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    tika = DOCX / "tika__testWORD_2006ml.docx"
    plain = _blocks(tika)
    docxnotes.install()

    def broken(self: Any, kind: str, note_id: str) -> str:
        raise RuntimeError("unreadable note")

    monkeypatch.setattr(dn.InlineNotes, "render", broken)
    assert _blocks(tika) == plain
    assert capsys.readouterr().err.count("was left unread (RuntimeError: unreadable note)") == 1


def test_a_parse_failing_with_notes_inline_is_parsed_again_without_them(
        unpatched: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    tika = DOCX / "tika__testWORD_2006ml.docx"
    plain = _blocks(tika)
    docxnotes.install()
    assembled = pd._assemble_blocks_legacy

    def picky(records: list[Any], warnings: Any, metadata: Any) -> Any:
        if any("[Endnote" in (getattr(r, "text", "") or "") for r in records):
            warnings["picky"] = warnings.get("picky", 0) + 1
            raise ValueError("no brackets here")
        return assembled(records, warnings, metadata)

    monkeypatch.setattr(pd, "_assemble_blocks_legacy", picky)
    warnings: dict[str, Any] = {}
    assert pd.extract_docx_blocks(str(tika), parse_warnings=warnings, parse_metadata={}) == plain
    assert "picky" not in warnings  # the failed parse's warnings are not counted
    assert "tika__testWORD_2006ml.docx is parsed again without its notes (ValueError: no brackets here)" in (
        capsys.readouterr().err)
    monkeypatch.setattr(pd, "_assemble_blocks_legacy", lambda *a: 1 / 0)
    with pytest.raises(ZeroDivisionError):  # LightRAG's own failure stays LightRAG's
        pd.extract_docx_blocks(str(DOCX / "khoj__bangalore.docx"), parse_warnings={}, parse_metadata={})


def test_lightrag_and_the_locator_put_the_same_notes_at_the_same_paragraphs(unpatched: None, tmp_path: Path) -> None:
    """The two readers must agree, else a note's words are in a chunk and in no paragraph the locator reads (the
    citation drifts): paragraphs the locator calls headings by their style's name (Title, "heading 1" without an
    outline level) are body text to LightRAG, which reads their notes at the mark."""
    path = tmp_path / "named.docx"
    path.write_bytes(named_styles_docx())
    docxnotes.install()
    lines = [line for b in _blocks(path) for line in b["content"].split("\n") if line.strip()]
    located = [p.text for p in parse_docx_bytes(path.read_bytes(), str(path)).paragraphs]
    assert all("[Footnote" in line for line in lines) and len(lines) == 4, lines
    assert located == lines


def test_comments_stand_after_the_words_they_comment_on_in_lightrags_blocks(unpatched: None, tmp_path: Path) -> None:
    """A review comment reads at its reference mark, right after its commented range, as the locator reads it."""
    commented = DOCX / "markitdown__test_with_comment.docx"
    before = _blocks(commented)
    assert docxnotes.install() is True
    after = _blocks(commented)
    assert "build LLM applications [Comment (Unknown Author): This is a test comment. 12df-321a] via multiple" in (
        _para(after, "AutoGen is an open-source"))
    assert "23 [Comment (Unknown Author): Yet another comment in the doc. 55yiyi-asd09]" in "".join(
        b["content"] for b in after)
    keep = ("heading", "parent_headings", "level", "positions", "type")
    assert [{k: b.get(k) for k in keep} for b in after] == [{k: b.get(k) for k in keep} for b in before]
    assert _para(_blocks(DOCX / "tika__testWORD_2006ml.docx"), "2. Really basic 2") == (  # LightRAG's list number
        "2. Really basic 2 [Comment (Allison, Timothy B.): This is a comment].")
    b = DocxBuilder()
    comment_para(b, "", "Findings", "1", heading=1)
    comment_para(b, "The yield ", "rose by a third", "2", " in the second year.")
    note_para(b, "Noted", ref("footnote", "1"))
    path = tmp_path / "c.docx"
    path.write_bytes(with_notes(b.build(), footnotes={"1": "A note."}, comments={
        "1": ("Ann", "On the heading."), "2": ("Jane Smith", "Check the figure\nagainst table 2.")}))
    blocks = _blocks(path)
    assert [b["heading"] for b in blocks] == ["Findings"]  # a heading keeps its own words
    assert _para(blocks, "The yield") == (
        "The yield rose by a third [Comment (Jane Smith): Check the figure against table 2.] in the second year.")
    located = [p.text for p in parse_docx_bytes(path.read_bytes(), str(path)).paragraphs]
    assert [line for b in blocks for line in b["content"].split("\n") if line.startswith(("The", "Noted"))] == (
        located[1:])
