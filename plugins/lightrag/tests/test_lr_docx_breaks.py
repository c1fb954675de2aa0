"""A DOCX whose words LightRAG 1.5.7's parser runs together across a break goes to LightRAG as the text mnote-kr
reads in it: its run readers read a page or column break, a carriage return (``w:cr``) and a non-breaking hyphen
as nothing, so "section<page break>Next" reaches its index as "sectionNext" and "26<non-breaking hyphen>jährige"
as "26jährige". A break with a space on either side, a plain line break, a tab and a soft hyphen glue nothing: such
a DOCX stays a plain link. Against replayed 1.5.7 payloads with the real DOCX plugin reading the files, and the real
1.5.7 parser showing what it indexes; a DOCX linked by an earlier reading is checked by the same test (readings)."""

from __future__ import annotations

import dataclasses
import importlib
import os
from pathlib import Path
from typing import Any

import msgspec
import pytest
from mnote_kr_testkit.data import CORPUS, SAMPLES
from mnote_kr_testkit.docx_docs import DocxBuilder
from mnote_kr_testkit.replay import ReadingsProvider as _Prov
from mnote_kr_testkit.replay import replayed_provider
from mnote_kr_testkit.replay import source_file as source
from mnote_kr_testkit.replay import stored_entry as _entry

import mnote_kr_lightrag as plugin
from mnote_kr.errors import MnoteKrError
from mnote_kr.plugins import load_plugins
from mnote_kr_lightrag.client import docxbreaks, links, readings, settings

from .test_lr_decks import routes

pd = importlib.import_module("lightrag.parser.docx.parse_document")  # pinned 1.5.7: a moved module fails here
#: The break between "section" and "Next" in the first paragraph, by what it is in WordprocessingML.
BREAKS = {"page": '<w:br w:type="page"/>', "column": '<w:br w:type="column"/>', "cr": "<w:cr/>"}
GLUING = {"page": docxbreaks.PAGE, "column": docxbreaks.PAGE, "cr": docxbreaks.CR}


def _run(*parts: str) -> str:
    """A run of ``parts``: text, or a raw element (starting with "<")."""
    inner = "".join(p if p.startswith("<") else f'<w:t xml:space="preserve">{p}</w:t>' for p in parts)
    return f"<w:r>{inner}</w:r>"


def _docx(path: Path, *paras: str) -> Path:
    """A DOCX of raw paragraphs' runs (``_run``), each with a paraId, as Word writes them."""
    b = DocxBuilder()
    for inner in paras:
        b.parts.append(b._p(inner))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b.build())
    return path


def lightrag_indexes(path: Path) -> str:
    """The text LightRAG 1.5.7's native DOCX parser gives of a file it parses itself."""
    return "\n".join(b["content"] for b in pd.extract_docx_blocks(str(path), parse_warnings={}, parse_metadata={}))


@pytest.fixture
def env(tmp_path: Path) -> dict[str, Any]:
    settings.clear_cache()
    readings._NOTES_SEEN.clear()
    env = replayed_provider(tmp_path, SAMPLES)
    env["ctx"] = dataclasses.replace(env["ctx"], extract_text=load_plugins().extract_text)
    routes(env["replay"])
    return env


@pytest.mark.parametrize("kind", list(BREAKS))
def test_a_docx_with_a_break_between_words_is_sent_as_its_text_with_the_words_apart(
        env: dict[str, Any], kind: str) -> None:
    ws, inputs = env["ws"], env["inputs"]
    path = _docx(ws / "notes" / "dredging.docx", _run("The end of the dredging section", BREAKS[kind], "Next year"),
                 _run("Quay walls held."))
    before = path.read_bytes()
    assert "sectionNext" in lightrag_indexes(path)  # what LightRAG's parser indexes of it
    assert docxbreaks.glued(str(path)) == {GLUING[kind]: 1}
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "notes/dredging.docx")], force=False)
    assert (update.status, update.kind, update.reading) == ("submitted", "text_fallback", "fallback:4"), update
    text = (inputs / (update.light_rag_file_path or "")).read_text(encoding="utf-8")
    assert text.startswith(f"{links.BREAKS_WRAPPER_MARK} notes/dredging.docx\n")
    assert "dredging section Next year" in text and "sectionNext" not in text and "Quay walls held." in text
    assert update.last_error == (
        "indexed from the text mnote-kr reads in it, since LightRAG's parser runs the words on either side of its "
        f"{GLUING[kind]} (1 paragraph(s)) together; citations still point into the file")
    assert not [p for p in inputs.iterdir() if p.is_symlink()]
    assert path.read_bytes() == before


def test_a_non_breaking_hyphen_is_sent_as_a_hyphen(env: dict[str, Any]) -> None:
    ws, inputs = env["ws"], env["inputs"]
    path = _docx(ws / "freud.docx", _run("verstarb seine 26", "<w:noBreakHyphen/>", "jährige Tochter"))
    assert "26jährige" in lightrag_indexes(path)
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "freud.docx")], force=False)
    assert update.kind == "text_fallback" and "non-breaking hyphens (1 paragraph(s))" in (update.last_error or "")
    text = (inputs / (update.light_rag_file_path or "")).read_text(encoding="utf-8")
    assert "seine 26-jährige Tochter" in text and "26jährige" not in text


def test_the_corpus_docx_with_a_non_breaking_hyphen_is_found_glued() -> None:
    path = CORPUS / "docx" / "poi__stress008.docx"
    assert "seine 26jährige Tochter" in lightrag_indexes(path)
    assert docxbreaks.glued(str(path)) == {docxbreaks.HYPHEN: 1}


@pytest.mark.parametrize("runs", [
    _run("The dredging section ", BREAKS["page"], "Next year"),  # a space before it
    _run("The dredging section", BREAKS["page"], " Next year"),  # a space after it
    _run("The dredging section", BREAKS["page"]),  # at the paragraph's end, as Word puts most
    _run("The dredging section", "<w:br/>", "Next year"),  # a line break LightRAG reads as a newline
    _run("The dredging section", "<w:tab/>", "Next year"),
    _run("Donau", "<w:softHyphen/>", "dampfschiff"),  # an optional hyphen: the word is whole
], ids=["space-before", "space-after", "at-end", "line-break", "tab", "soft-hyphen"])
def test_a_docx_whose_breaks_glue_no_words_stays_a_plain_link(env: dict[str, Any], runs: str) -> None:
    ws, inputs = env["ws"], env["inputs"]
    path = _docx(ws / "dredging.docx", runs)
    before = path.read_bytes()
    assert "sectionNext" not in lightrag_indexes(path)
    assert docxbreaks.glued(str(path)) == {}
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "dredging.docx")], force=False)
    # LightRAG's own reading, as before (this replayed server reads no notes: the plain reading)
    assert (update.kind, update.last_error, update.reading) == ("document", None, readings.current(readings.LIGHTRAG))
    assert os.readlink(inputs / (update.light_rag_file_path or "")) == str(path)
    assert path.read_bytes() == before


def test_breaks_in_a_table_cell_and_in_a_text_box_are_counted_by_paragraph(tmp_path: Path) -> None:
    cell = _run("mike", "<w:cr/>", "November", BREAKS["page"], "Oscar")
    b = DocxBuilder()
    b.table([["CELL", "x"]])
    xml = b.document_xml().decode().replace('<w:r><w:t xml:space="preserve">CELL</w:t></w:r>', cell)
    from mnote_kr_testkit.docx_docs import package

    (tmp_path / "cell.docx").write_bytes(package(xml.encode()))
    assert docxbreaks.glued(str(tmp_path / "cell.docx")) == {docxbreaks.PAGE: 1, docxbreaks.CR: 1}
    # a text box's paragraph is its own: its text does not glue onto the anchoring paragraph's
    box = ('<w:r><w:pict><v:shape><v:textbox><w:txbxContent><w:p><w:r><w:t>Boxed</w:t></w:r></w:p>'
           '</w:txbxContent></v:textbox></v:shape></w:pict></w:r>')
    _docx(tmp_path / "box.docx", _run("Anchor") + box + _run(" text"))
    assert docxbreaks.glued(str(tmp_path / "box.docx")) == {}
    # a break after a text box in its anchoring paragraph (the part read whole) and one in a plain paragraph
    _docx(tmp_path / "after-box.docx", _run("Anchor") + box + _run("section", BREAKS["page"], "Next"),
          _run("26", "<w:noBreakHyphen/>", "jährige"))
    assert docxbreaks.glued(str(tmp_path / "after-box.docx")) == {docxbreaks.PAGE: 1, docxbreaks.HYPHEN: 1}


def test_a_file_no_check_can_read_is_linked_as_before(env: dict[str, Any]) -> None:
    ws = env["ws"]
    (ws / "broken.docx").write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(MnoteKrError, match="not a zip"):
        docxbreaks.glued(str(ws / "broken.docx"))
    assert docxbreaks.docx_text(env["ctx"], source(ws, "broken.docx")) is None  # LightRAG reads it as it can


@pytest.mark.parametrize("notes", [False, True], ids=["own-server", "engine-reads-notes"])
def test_a_docx_linked_by_an_earlier_reading_is_read_again_only_when_its_breaks_glue_words(
        tmp_path: Path, notes: bool) -> None:
    for name in ("glued", "glued-notes", "before"):
        _docx(tmp_path / f"{name}.docx", _run("The dredging section", BREAKS["page"], "Next year"))
    for name in ("plain", "plain-notes"):
        _docx(tmp_path / f"{name}.docx", _run("The dredging section", BREAKS["page"]))
    before = {p: p.read_bytes() for p in tmp_path.iterdir()}
    entries = [_entry("glued.docx", "lightrag:3"), _entry("glued-notes.docx", "lightrag+notes:2"),
               _entry("before.docx", None), _entry("plain.docx", "lightrag:3"),
               _entry("plain-notes.docx", "lightrag+notes:2"), _entry("a.md", "lightrag:3"),
               _entry("now.docx", readings.current(readings.LIGHTRAG_NOTES))]
    # status reads no file: every DOCX linked by an earlier reading is counted for sync to check
    told = readings.check(None, entries, look=False, notes=notes)
    assert set(told.older) == {"glued.docx", "glued-notes.docx", "before.docx", "plain.docx", "plain-notes.docx"}
    assert "'mnote-kr sync' checks its paragraphs" in told.older["plain-notes.docx"]
    # sync makes the send's structural test: only the DOCX whose breaks glue words are read again
    looked = readings.check(_Prov(tmp_path), entries, look=True, notes=notes)
    assert set(looked.older) == {"glued.docx", "glued-notes.docx", "before.docx"}, looked
    assert looked.older["glued.docx"] == (
        "read again for the words on either side of its page or column breaks, which LightRAG's parser runs together")
    assert looked.record == {"plain.docx": readings.current(readings.LIGHTRAG_NOTES if notes else readings.LIGHTRAG),
                             "plain-notes.docx": readings.current(readings.LIGHTRAG_NOTES)}
    assert {p: p.read_bytes() for p in tmp_path.iterdir()} == before
    # once recorded, nothing is older
    now = [msgspec.structs.replace(e, reading=looked.record.get(e.source_root_relative_path, e.reading))
           for e in entries if e.source_root_relative_path not in looked.older]
    assert readings.check(None, now, look=False, notes=notes).older == {}
