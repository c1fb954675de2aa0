"""A linked workbook's chunks are read with LightRAG's cell escapes undone.

LightRAG 1.5.7's XLSX extractor (``_extract_xlsx``'s ``escape_cell``) writes a line break inside a cell
as the two characters ``\\n``, a tab as ``\\t`` and a backslash as two. The chunks of a workbook sent
linked are read by mnote-kr as the cells' real text (words, evidence, quotes); a chunk of any other file,
or of the text mnote-kr sends for a workbook (``.xlsx.md``), is left as LightRAG gave it. The texts are
LightRAG's own extractor's, over a corpus workbook and one written here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mnote_kr.citations.cleaning import clean_citation_text
from mnote_kr_lightrag.client import workbooks
from mnote_kr_lightrag.client.querying import references_from_answer, references_from_data

CORPUS = Path(__file__).resolve().parents[3] / "tests" / "data" / "corpus" / "xlsx"
GAPS = CORPUS / "docling__xlsx_07_gap_tolerance_.xlsx"
LINKED = "docling__xlsx_07_gap_tolerance_.w5c0e1b7a.1f3a09c2-77ab01de.xlsx"


def lightrag_reads(path: Path) -> str:
    from lightrag.parser.legacy.extractors import _extract_xlsx

    return _extract_xlsx(path.read_bytes())


def _chunk(file_path: str, content: str) -> dict[str, object]:
    return {"chunks": [{"file_path": file_path, "chunk_id": "doc-1-chunk-000", "content": content}]}


def test_lr_a_linked_workbooks_cell_line_break_is_read_as_one() -> None:
    text = lightrag_reads(GAPS)
    assert "2 x 136V AC UPS\\n1 x 137V AC normal" in text  # LightRAG's escape, as indexed
    [ref] = references_from_data(_chunk(LINKED, text))
    assert "2 x 136V AC UPS\n1 x 137V AC normal" in (ref.content or "")
    assert "\\" not in (ref.content or "")
    bundle = clean_citation_text(ref.content or "", "control voltage supply UPS normal")
    assert "UPS 1 x 137V AC normal" in bundle.display_quote
    assert "\\n" not in bundle.display_quote and "\\n" not in bundle.locator_evidence_text


def test_lr_cell_escapes_are_undone_exactly_left_to_right(tmp_path: Path) -> None:
    import openpyxl

    book = tmp_path / "specs.xlsx"
    wb = openpyxl.Workbook()
    sheet = wb.active
    sheet.append(["Ambient temp.\nMin -5", "Rated\tvoltage", "C:\\new\\table", "a\\\\nb", "CR\r\nLF"])
    wb.save(book)
    text = lightrag_reads(book)
    assert "Ambient temp.\\nMin -5" in text and "Rated\\tvoltage" in text and "C:\\\\new" in text
    [ref] = references_from_answer([{"file_path": "specs.w5c0e1b7a.1f3a09c2-77ab01de.XLSX", "content": [text]}])
    row = (ref.content or "").splitlines()[1:3]
    assert row == ["Ambient temp.", "Min -5\tRated\tvoltage\tC:\\new\\table\ta\\\\nb\tCR"]
    assert workbooks.unescaped_cells(text) == text.replace("\\\\", "\0").replace("\\n", "\n").replace(
        "\\t", "\t").replace("\0", "\\")


@pytest.mark.parametrize("name", ["notes.w5c0e1b7a.1f3a09c2-77ab01de.md",
                                  "paper.w5c0e1b7a.1f3a09c2-77ab01de.pdf",
                                  "specs.w5c0e1b7a.1f3a09c2-77ab01de.xlsx.md",
                                  "macros.w5c0e1b7a.1f3a09c2-77ab01de.xlsm.md"])
def test_lr_other_files_keep_their_backslashes(name: str) -> None:
    content = "Use C:\\new\\table and the regex \\t\\n as written, \\\\ too"
    [ref] = references_from_data(_chunk(name, content))
    assert ref.content == content
