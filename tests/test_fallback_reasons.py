"""``status``'s Fallback line says in words why LightRAG's parser could not read a file (nc27a): not "an internal
error of LightRAG's parser" for a DOCX whose body holds XML comments, nor python-docx's own words ("no relationship
of type '.../officeDocument' in collection") for a Strict Open XML document.

The errors are what LightRAG 1.5.7's native DOCX parser raises on the corpus files, taken from that parser here
(``extract_docx_blocks``; the engine's ``error_msg`` is ``str(exc)``), so a LightRAG that words them otherwise
shows up in these tests, not in a newcomer's status."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS

from mnote_kr_lightrag.client.failures import INTERNAL_HEADLINE, explain_failure
from mnote_kr_lightrag.client.fallback import note

TABLES = CORPUS / "docx" / "unstructured__tables-with-incomplete-rows.docx"  # "<!-- table from original bug report -->"
STRICT = CORPUS / "docx" / "docling__Strict.docx"


def lightrag_says(path: Path) -> str:
    """What LightRAG's native DOCX parser raises on ``path``, as its ``error_msg`` holds it."""
    from lightrag.parser.docx.parse_document import extract_docx_blocks

    with pytest.raises(Exception) as raised:  # noqa: PT011 - whatever the parser raises is what the user is told
        extract_docx_blocks(str(path))
    return str(raised.value)


def test_a_docx_with_xml_comments_says_which_error_in_words() -> None:
    error = lightrag_says(TABLES)
    said = note(error, None)
    assert INTERNAL_HEADLINE not in said
    assert "XML comment" in said and "not a fault of the file" in said, said
    assert "object" not in said and "cython" not in said and "split" not in said  # no Python words
    line = explain_failure(error, link_name=None, file_name="t.docx", content_fault=True)
    assert "XML comment" in line and "save it again" in line and "'mnote-kr ingest t.docx'" in line, line
    assert "damaged" not in line  # the file is fine: LightRAG's parser is not


def test_a_strict_open_xml_document_is_named_as_such_and_what_was_done_instead(tmp_path: Path) -> None:
    error = lightrag_says(STRICT)
    assert "no relationship of type" in error  # python-docx's words, which the reader no longer sees
    copy = tmp_path / "report.docx"
    shutil.copyfile(STRICT, copy)
    said = note(error, None, copy)
    assert "no relationship" not in said and "http" not in said and "collection" not in said, said
    assert said.startswith("indexed from the text mnote-kr reads in it")  # what the tool did instead
    assert "Strict Open XML" in said, said
    line = explain_failure(error, link_name=None, file_name="s.docx")
    assert "Strict Open XML" in line and "Word Document (.docx)" in line and "'mnote-kr ingest s.docx'" in line


def test_a_docx_without_a_main_part_that_is_not_strict_is_not_called_strict(tmp_path: Path) -> None:
    """The same python-docx error for a package that is no Strict document (another part missing): told in words,
    without naming Strict."""
    import zipfile

    odd = tmp_path / "odd.docx"
    with zipfile.ZipFile(STRICT) as src, zipfile.ZipFile(odd, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "_rels/.rels":
                data = data.replace(b"purl.oclc.org/ooxml/officeDocument/relationships/officeDocument",
                                    b"example.com/not/a/document")
            dst.writestr(item, data)
    said = note(lightrag_says(odd), None, odd)
    assert "Strict" not in said and "no relationship" not in said and "Word document part" in said, said
